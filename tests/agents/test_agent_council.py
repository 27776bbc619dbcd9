"""A whole council of agent seats: Claude Code, Codex CLI and Gemini CLI (the real CLIs from npm,
each on a loopback fake of its model API) reviewing and judging, a model chair, ending complete."""

from __future__ import annotations

import pytest
from council_helpers import check_documents, member

pytestmark = pytest.mark.anyio

AGENTS = ["cli:claude", "cli:codex", "cli:gemini"]


async def test_three_agent_seats_and_a_model_chair_end_complete(fake, claude, codex, gemini, council, run_dir):
    member(fake, "chair")
    seats = {"cli:claude": claude("c"), "cli:codex": codex("x"), "cli:gemini": gemini("g")}
    run, code = await council(AGENTS, chair="fake/chair")
    assert (code, run["status"], run["exitCode"]) == (0, "complete", 0), run.get("degrades")
    assert check_documents(run_dir, run) == run  # every document the run wrote matches its schema
    assert run["bench"] == AGENTS
    for name, seat in seats.items():
        assert any(p.startswith("# Council review briefing") for p in seat.prompts), name
        assert any(p.startswith("# Cross-review") for p in seat.prompts), name
        legs = [leg for leg in run["legs"] if leg["model"] == name]
        assert [leg["status"] for leg in legs] == ["complete", "complete"], name
        assert all(leg["usage"]["cost"]["amount"] is None for leg in legs)  # subscriptions: no price
    assert [s["name"] for s in run["stages"]] == ["stage1", "stage2", "tally", "chair", "verdict"]
    assert (run_dir / "verdict.json").is_file()
