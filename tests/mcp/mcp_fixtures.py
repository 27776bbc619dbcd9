"""The project fixtures every test that runs the server shares (tests/mcp and tests/clients).

A project folder that is the only extra allowed root (`AMICUS_PROJECT_ROOTS`), inside the
test's own config dir set-up, and a briefing in it.
"""

from __future__ import annotations

from pathlib import Path

import pytest


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
