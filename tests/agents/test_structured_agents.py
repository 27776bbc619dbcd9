"""Structured output on the agent seats whose CLI has a schema mode: Claude Code
(`--json-schema`: a StructuredOutput tool whose input schema is the leg's) and Codex CLI
(`--output-schema`: the Responses request's `text.format`). The real CLIs against loopback fakes
that answer a schema request with schema-valid JSON read off the schema itself; a naive fake
that ignores the schema goes through the same repair loop a model's mismatch does. Gemini CLI
has no schema mode: its seat keeps the fenced block (tests/agents/test_gemini_seat.py)."""

from __future__ import annotations

from typing import Any

import pytest
from agent_fakes import seat_text
from council_helpers import kind, load, member, repaired_block

pytestmark = pytest.mark.anyio


def agent_rows(run_dir: Any, model: str) -> list[dict[str, Any]]:
    return [row for row in load(run_dir, "tally.json")["runStats"] if row["model"] == model]


@pytest.mark.parametrize("agent", ["codex", "claude"])
async def test_a_structured_agent_seat_is_held_to_the_stage_schemas(agent, request, fake, council, run_dir):
    member(fake, "a", tag="north")
    member(fake, "b", tag="south")
    member(fake, "chair")
    seat = request.getfixturevalue(agent)("x")
    run, code = await council(["fake/a", "fake/b", f"cli:{agent}"])
    assert (code, run["status"]) == (0, "complete"), run.get("degrades")
    # The schema of each stage reached the fake API: the review's, then the judge's with its enums.
    assert [sorted(s["properties"]) for s in seat.schemas] == [
        ["findings", "overall", "review"], ["adjudications", "analysis", "ranking"]]
    assert seat.schemas[0]["additionalProperties"] is False
    legs = [leg for leg in run["legs"] if leg["model"] == f"cli:{agent}"]
    assert [leg["role"] for leg in legs] == ["seat", "judge"]  # no repair: the answers parsed
    assert not any(leg.get("schemaMismatch") for leg in legs)
    # Tokens as the CLI's envelope reports them, its reasoning count too (Codex, Claude Code: 0 here).
    assert all(leg["usage"]["tokens"]["output"] and leg["usage"]["tokens"]["reasoning"] == 0 for leg in legs)
    assert {row["conformance"] for row in agent_rows(run_dir, f"cli:{agent}")} == {"clean"}
    # The structured review became the seat's document, its finding in the tally.
    assert "seat-x claim" in (run_dir / "tally.json").read_text(encoding="utf-8")


@pytest.mark.parametrize("agent", ["codex", "claude"])
async def test_a_naive_model_behind_a_structured_seat_ends_in_the_repair_path(agent, request, fake, council,
                                                                                run_dir):
    """The model ignores the schema: its review is prose with no block at all, and it mends it
    with a fenced block when asked. The mismatch is recorded and repaired, as for a model seat."""
    member(fake, "a", tag="north")
    member(fake, "b", tag="south")
    member(fake, "chair")
    usual = seat_text("x")

    def text(prompt: str) -> str:
        if kind(prompt) == "stage1":
            return "The cache evicts too eagerly; I have no block for you."
        if kind(prompt) == "stage1-repair":
            return repaired_block("seat-x", 1)
        return usual(prompt)

    seat = request.getfixturevalue(agent)("x", naive=True, text=text)
    run, code = await council(["fake/a", "fake/b", f"cli:{agent}"])
    assert (code, run["status"]) == (0, "complete"), run.get("degrades")
    assert seat.schemas and "findings" in seat.schemas[0]["properties"]  # it was asked, and ignored it
    legs = [leg for leg in run["legs"] if leg["model"] == f"cli:{agent}"]
    assert [leg["role"] for leg in legs][:2] == ["seat", "repair"]
    assert all(leg["status"] == "complete" for leg in legs)
    assert legs[0].get("schemaMismatch") and legs[1].get("schemaMismatch")  # the repair's fence is not the schema
    assert [r["conformance"] for r in agent_rows(run_dir, f"cli:{agent}") if r["role"] != "repair"][0] == "repaired"
