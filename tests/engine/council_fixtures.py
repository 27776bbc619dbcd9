"""The fixtures of a council run over a briefing in the test's own folder, shared by every test
package that runs councils through the engine (tests/engine, tests/agents): import them into a
conftest.py."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from council_helpers import BRIEF

from amicus_mcp.engine import run_council
from amicus_mcp.engine.options import RunOptions


@pytest.fixture
def brief(tmp_path: Path) -> Path:
    path = tmp_path / "briefing.md"
    path.write_text(BRIEF, encoding="utf-8")
    return path


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    return tmp_path / "out" / "council-run"


@pytest.fixture
def council(brief: Path, run_dir: Path, project: Path) -> Callable[..., Any]:
    """`await council(models, chair=…, **options)` → (run.json, exit code)."""

    async def go(models: list[str], *, chair: str = "fake/chair", **options: Any) -> tuple[dict[str, Any], int]:
        opts = RunOptions(prompt_file=str(brief), models=models, chair=chair, project=str(project),
                          out_dir=str(run_dir), **options)
        manifest, code = await run_council(opts)
        return manifest.to_doc(), code  # as run.json holds it

    return go
