"""Issue 19 over MCP: `amicus_council_run` refuses what `council run` refuses — a chair that is
not in the catalog or over the cost gate, a ceiling that cannot hold the run, a prompt longer
than a model's window — with the same codes, in the tool's own argument names, before any
request reaches the provider (the catalog is cached, so the fake's request counter stays 0)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fakeprovider import FakeProvider, catalog_row
from mcp_helpers import error_of, in_process

from amicus_mcp.providers.catalog import ModelInfo, write_catalog

pytestmark = pytest.mark.anyio

SEATS = ["openrouter/vendor/a", "openrouter/vendor/b", "openrouter/vendor/c"]


@pytest.fixture
def openrouter(fake: FakeProvider, monkeypatch: pytest.MonkeyPatch) -> FakeProvider:
    """The fake as OpenRouter, its catalog (windows and prices) cached."""
    monkeypatch.setenv("AMICUS_OPENROUTER_BASE_URL", fake.base_url)
    monkeypatch.setenv("OPENROUTER_API_KEY", "sk-or-test-dummy")
    fake.catalog = [catalog_row(f"vendor/{n}") for n in ("a", "b", "c", "chair")]
    fake.catalog.append(catalog_row("vendor/pricey", completion="0.0001"))
    fake.catalog.append(catalog_row("vendor/narrow", context=1_200))
    write_catalog([m for m in (ModelInfo.from_doc(row) for row in fake.catalog) if m is not None])
    return fake


@pytest.mark.parametrize("extra, expected", [
    ({"chair": "openrouter/zeta/c"}, "BAD_MODEL: chair: Model 'zeta/c' is not in the OpenRouter model catalog"),
    ({"chair": "openrouter/vendor/pricey"},
     "BUDGET_EXCEEDED: chair: Model 'openrouter/vendor/pricey' costs $100.00 per million tokens"),
    ({"maxCost": 0.02}, "COST_CEILING_TOO_LOW: the maxCost $0.02 ceiling cannot hold this run"),
    ({"models": [*SEATS[:2], "openrouter/vendor/narrow"]},
     "CONTEXT_LENGTH_EXCEEDED: 'openrouter/vendor/narrow' has a 1,200-token context window, and the Stage-1 "
     "briefing is about 490 tokens, plus at least 1,000 for its answer"),
], ids=["chair-not-in-catalog", "chair-over-the-gate", "ceiling-too-low", "context-window"])
async def test_the_start_tool_refuses_before_any_request(openrouter: FakeProvider, project: Path, briefing: Path,
                                                         extra: dict, expected: str) -> None:
    call = {"project": str(project), "ui": False, "briefingFile": "briefing.md", "models": SEATS,
            "chair": "openrouter/vendor/chair", **extra}
    async with in_process("auto") as client:
        result = await client.call_tool("amicus_council_run", call)
    text = error_of(result)
    assert text.startswith(expected), text
    envelope = json.loads(result.content[1].text)  # type: ignore[union-attr]
    assert text.startswith(f"{envelope['error']['code']}: ")
    assert "--" not in text  # the tool's own argument names, never the CLI's flags
    if "maxCost" in extra:
        assert "The smallest ceiling that fits is $0.0822" in text and "raise maxCost to at least 0.0822" in text
    assert openrouter.requests == []
    assert not list(project.glob("council-*"))
