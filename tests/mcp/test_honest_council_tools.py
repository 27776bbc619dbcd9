"""Issue 12 through the MCP tools: the tally never invents a seat id, the verdict puts `seats`
right after `council` and says when its tiers rest on fewer than two judges, and a rendered
verdict says what was lost and that no findings were raised."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from council_prompts import example_block, kind
from council_script import chair, review
from fakeprovider import FakeProvider, by_prompt, chat, copycat, error, usage
from mcp_helpers import body, in_process, wait_until_terminal

from amicus_mcp.schemas import schema_errors

pytestmark = pytest.mark.anyio

MODES = pytest.mark.parametrize("mode", ["legacy", "auto"])


def twin_input(**meta: Any) -> dict[str, Any]:
    return {
        "meta": {"runId": "twins", "models": ["a", "b", "a"], "chair": "c", "claudeInCouncil": False, **meta},
        "findings": [{"id": "A1", "raiser": "a", "severity": "major", "claim": "The cache never evicts."}],
        "adjudications": [{"findingId": "A1", "judge": "b", "verdict": "agree"}],
        "rankings": [{"judge": "b", "order": ["a", "b", "a"]}],
        "noLedger": True,
    }


@MODES
async def test_tally_keys_an_unseated_twin_by_alias(mode: str, config_dir) -> None:
    async with in_process(mode) as client:
        record = body(await client.call_tool("amicus_council_tally", twin_input()))
    rows = record["streetCred"]
    assert [r["model"] for r in rows] == ["a", "b", "a"]
    assert all("seat" not in r for r in rows)  # never a seat id nothing in the input carried
    assert rows[0] == rows[2]
    assert schema_errors(record, "council-tally") == []


@MODES
async def test_tally_with_a_partial_seat_table_invents_no_seat(mode: str, config_dir) -> None:
    seats = [{"id": "a#1", "alias": "a", "role": "seat", "lens": None, "position": 1},
             {"id": "a#9", "alias": "z", "role": "seat", "lens": None, "position": 9}]  # covers one a; one surplus
    async with in_process(mode) as client:
        record = body(await client.call_tool("amicus_council_tally", twin_input(seats=seats)))
    assert [(r["model"], r.get("seat")) for r in record["streetCred"]] == [("a", "a#1"), ("b", None), ("a", None)]


@MODES
async def test_verdict_orders_seats_after_council_and_renders_thin_cross_review(mode: str, config_dir) -> None:
    seats = [{"id": "a#1", "alias": "a", "role": "seat", "lens": None, "position": 1},
             {"id": "a#2", "alias": "a", "role": "seat", "lens": None, "position": 3}]
    async with in_process(mode) as client:
        record = body(await client.call_tool("amicus_council_tally", twin_input(seats=seats)))
        result = body(await client.call_tool("amicus_verdict", {"record": record, "overallVerdict": "Ship it",
                                                                "render": True}))
    verdict = result["verdict"]
    keys = list(verdict)
    assert keys[keys.index("council") + 1] == "seats"
    assert verdict["judged"] is False  # one ranking: the tiers rest on thin cross-review
    assert schema_errors(verdict, "council-verdict") == []
    md = result["markdown"]
    assert "**Chair verdict: Ship it** — _rests on fewer than two judges (judged: false)_" in md
    assert "## What was lost\n\n- Notice: cross-review is thin" in md


@MODES
async def test_a_rendered_clean_verdict_says_no_findings_were_raised(mode: str, config_dir) -> None:
    tally_input = {"meta": {"runId": "clean", "models": ["a", "b"]}, "findings": [], "adjudications": [],
                   "rankings": [{"judge": "a", "order": ["b", "a"]}, {"judge": "b", "order": ["a", "b"]}],
                   "noLedger": True}
    async with in_process(mode) as client:
        record = body(await client.call_tool("amicus_council_tally", tally_input))
        md = body(await client.call_tool("amicus_verdict", {"record": record, "render": True}))["markdown"]
    assert "## Findings by tier\n\n_No findings were raised on this bench — a clean review is a valid review._" in md
    assert "What was lost" not in md


# --------------------------------------------------------------------------- a council run over MCP


def copycat_member(fake: FakeProvider, name: str, *, judge: Any = None) -> None:
    """Reviews properly, then judges by copying the example block of its prompt."""
    fake.respond(name, by_prompt(kind, {
        "stage1": chat(review(name), usage=usage(100, 50, cost=0.001)),
        "judge": judge or copycat(example_block, usage=usage(100, 50, cost=0.001)),
        "judge-repair": copycat(example_block, usage=usage(100, 50, cost=0.001)),
    }))


async def run_to_the_end(client: Any, project: Path, models: list[str]) -> tuple[dict[str, Any], str]:
    started = body(await client.call_tool("amicus_council_run", {
        "briefingFile": "briefing.md", "project": str(project), "ui": False, "models": models, "chair": "fake/chair"}))
    done, _ = await wait_until_terminal(client, started["runId"], project=str(project), slice_s=0.5)
    report = body(await client.call_tool("amicus_read", {"id": started["runId"], "project": str(project)}))
    return done, report["text"]


async def test_copycat_judges_on_two_seats_are_judged_over_mcp(fake: FakeProvider, project: Path, briefing: Path) -> None:
    copycat_member(fake, "a")
    copycat_member(fake, "b")
    chair(fake)
    async with in_process("auto") as client:
        done, report = await run_to_the_end(client, project, ["fake/a", "fake/b"])
    assert (done["status"], done["exitCode"]) == ("complete", 0)
    run = json.loads((Path(done["report"]).parent / "run.json").read_text(encoding="utf-8"))
    assert run["judged"] is True and "degrades" not in run
    assert "What was lost" not in report


async def test_a_degraded_run_read_over_mcp_says_what_was_lost(fake: FakeProvider, project: Path, briefing: Path) -> None:
    copycat_member(fake, "a")
    copycat_member(fake, "b", judge=error(400, "judge crashed"))
    chair(fake)
    async with in_process("auto") as client:
        done, report = await run_to_the_end(client, project, ["fake/a", "fake/b"])
    assert (done["status"], done["exitCode"]) == ("partial", 2)
    assert "— _rests on fewer than two judges (judged: false)_" in report
    lost = report.split("## What was lost\n\n", 1)[1].split("\n\n## ", 1)[0]
    assert "- Notice: judge fake/b produced no judgement — PROVIDER\\_REJECTED" in lost
    assert "- Notice: cross-review is thin — only 1 judge(s)" in lost
    assert "## Chair's synthesis\n\n> Synthesis: the eviction policy must change first." in report
