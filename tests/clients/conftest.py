"""Tests that drive the server through real third-party clients, installed from npm by .ci/run.

The clients live in tests/clients/node (package.json and package-lock.json pin them). Outside
CI a missing client skips its tests; under CI=true it fails them — CI installs the clients,
and a client that is not there is a broken CI, never a reason to pass.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "mcp"))  # council_script: the fake council's replies


@pytest.fixture
def project(tmp_path: Path, config_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "project"
    path.mkdir()
    monkeypatch.setenv("AMICUS_PROJECT_ROOTS", str(path))
    return path


@pytest.fixture
def briefing(project: Path) -> Path:
    path = project / "briefing.md"
    path.write_text("Review the design of the widget cache.\n\nThe cache evicts entries on every write.\n",
                    encoding="utf-8")
    return path
