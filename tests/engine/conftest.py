"""Engine tests run against the loopback fake provider, configured as a server of your own.

The shared council helpers (fake members, document checks) live in `council_helpers.py`."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from council_helpers import BRIEF  # noqa: E402
from fakeprovider import FakeProvider  # noqa: E402

from amicus_mcp.engine.council_run import RunOptions, run_council  # noqa: E402


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


@pytest.fixture
def gateway(fake: FakeProvider, monkeypatch: pytest.MonkeyPatch) -> FakeProvider:
    """The fake server as OpenRouter, with a catalog that prices every model: `openrouter/vendor/<x>`
    routes are `gateway` routes whose claim is about $0.16 a review leg and $0.12 a judgement or chair leg
    (each reserves its output cap at $10/Mtok)."""
    monkeypatch.setenv("AMICUS_OPENROUTER_BASE_URL", fake.base_url)
    monkeypatch.setenv("OPENROUTER_API_KEY", "sk-or-test-dummy")
    fake.catalog = [{"id": f"vendor/{n}", "name": n, "context_length": 100000,
                     "pricing": {"prompt": "0.000001", "completion": "0.00001"}} for n in ("a", "b", "c", "chair")]
    return fake
