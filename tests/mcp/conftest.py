"""MCP tests: an isolated environment, a project, the loopback fake provider, and clients.

Every test gets its own config dir (`AMICUS_CONFIG_DIR`, which a spawned engine child
inherits), a project folder that is the only extra allowed root, and no real keys. The
workspace auto-open never reaches a real browser: tests that let the decision open it set
`BROWSER=true` (a command that does nothing) and kill the launched process afterwards.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mcp_fixtures import briefing, project  # noqa: E402,F401 - fixtures tests/clients shares


@pytest.fixture
def reaper() -> Iterator[Callable[[Path], None]]:
    """Register pid files; every process they name is terminated after the test."""
    pid_files: list[Path] = []
    yield pid_files.append
    for pid_file in pid_files:
        kill_pid_file(pid_file)


def kill_pid_file(path: Path) -> None:
    try:
        pid = int(path.read_text(encoding="utf-8").strip())
    except (OSError, ValueError):
        return
    try:
        os.kill(pid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        return
