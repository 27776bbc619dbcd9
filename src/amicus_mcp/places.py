"""Where amicus keeps its state: the config dir, and the keys file in it.

The config dir is `$AMICUS_CONFIG_DIR`, else `~/.config/amicus` (what it holds: `config`).
The keys file is `.env` in `$AMICUS_ENV_DIR` when that is set, else in the config dir.
A project — where a run is indexed and its run directory goes — is `--project`, else
`$AMICUS_PROJECT_DIR`, else the current directory (`engine.store.resolve_project`).

Standard library only, at the ground floor: `secrets` finds the keys file through it on
every redaction, beneath the errors, file writes and config reads that mask through it.
"""

from __future__ import annotations

import os
from pathlib import Path

ENV_FILE = ".env"
PROJECT_ENV = "AMICUS_PROJECT_DIR"
# Every --project help says the one rule.
PROJECT_DEFAULT = f"default: ${PROJECT_ENV}, else the current directory"


def config_dir() -> Path:
    override = os.environ.get("AMICUS_CONFIG_DIR")
    if override:
        return Path(override).expanduser()
    return Path.home() / ".config" / "amicus"


def env_file_path() -> Path:
    override = os.environ.get("AMICUS_ENV_DIR")
    base = Path(override).expanduser() if override else config_dir()
    return base / ENV_FILE
