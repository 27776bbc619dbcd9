"""A question council over MCP: the engine path (amicus_council_run → amicus_wait → amicus_read)
and the skill's manual path (amicus_fanout for each stage, amicus_council_tally, amicus_verdict),
against the loopback fake provider."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from council_prompts import kind
from fakeprovider import FakeProvider, by_prompt, usage
from fakeprovider import chat as fake_chat
from mcp_helpers import body, error_of, in_process, unfenced, wait_until_terminal
from question_members import QUESTION, answer_text, question_table

from amicus_mcp.council import question_briefings
from amicus_mcp.council.answers import validate_answer
from amicus_mcp.council.parse import parse_answer_line, parse_judge_output
from amicus_mcp.schemas import schema_errors

pytestmark = pytest.mark.anyio


def council(fake: FakeProvider) -> None:
    for name in ("a", "b", "chair"):
        fake.respond(name, by_prompt(kind, question_table(name, claims=2, usage=usage(100, 50, cost=0.001))))


@pytest.fixture
def question(project: Path) -> Path:
    path = project / "question.md"
    path.write_text(QUESTION, encoding="utf-8")
    return path


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_a_question_council_run_wait_read(mode: str, fake: FakeProvider, project: Path, question: Path) -> None:
    council(fake)
    async with in_process(mode) as client:
        started = body(await client.call_tool("amicus_council_run", {
            "briefingFile": "question.md", "intent": "question", "models": ["fake/a", "fake/b"], "chair": "fake/chair",
            "project": str(project), "ui": False}))
        run_id, run_dir = started["runId"], Path(started["runDir"])
        done, _ = await wait_until_terminal(client, run_id, project=str(project))
        report = body(await client.call_tool("amicus_read", {"id": run_id, "project": str(project)}))
        answer = body(await client.call_tool("amicus_read", {"id": run_id, "file": "answer-fake-a.md",
                                                             "project": str(project)}))
    assert (done["status"], done["exitCode"], done["intent"], done["overallVerdict"]) == (
        "complete", 0, "question", "Converged")
    assert unfenced(done["answer"]) == "Use Postgres for the session store."
    assert json.loads((run_dir / "options.json").read_text())["intent"] == "question"
    text = unfenced(report["text"])
    # Issue 27: the report shows the question first and is titled by it (cut in the title).
    assert text.startswith("# Council Answer — Which store should the session service use, Postgres or DynamoDB?")
    assert "**Question:** Which store should the session service use" in text
    assert "**Answer (Converged):** Use Postgres" in text
    assert "## Ranked answers" in text and "## Claim matrix" in text
    assert "answer-fake-a.md" in report["files"] and "seat-a claim 2" in unfenced(answer["text"])


async def test_the_tool_refuses_an_unknown_intent(fake: FakeProvider, project: Path, question: Path) -> None:
    async with in_process("auto") as client:
        result = await client.call_tool("amicus_council_run", {
            "briefingFile": "question.md", "intent": "opinion", "models": ["fake/a", "fake/b"], "chair": "fake/chair",
            "project": str(project)})
    assert "intent" in error_of(result)
    assert fake.requests == []


async def wave_texts(client: Any, project: Path, models: list[str], prompt: str) -> list[str]:
    started = body(await client.call_tool("amicus_fanout", {"models": models, "prompt": prompt, "project": str(project)}))
    await wait_until_terminal(client, started["waveId"], project=str(project))
    return [unfenced(body(await client.call_tool("amicus_read", {"id": leg, "project": str(project)}))["text"])
            for leg in started["taskIds"]]


async def test_the_manual_path_fanout_tally_verdict(fake: FakeProvider, project: Path, config_dir: Path) -> None:
    """What the skill's manual path does for a question, by hand: the frames SEAT-BRIEFS.md shows,
    one fanout per stage, the answers read and labelled, the tally and the verdict."""
    council(fake)
    date = "2026-07-02"
    async with in_process("auto") as client:
        # M1: the question frame to both seats.
        answers = await wave_texts(client, project, ["fake/a", "fake/b"],
                                   question_briefings.question_briefing(QUESTION, date=date))
        parsed = [validate_answer(text) for text in answers]
        assert all(p["ok"] for p in parsed)
        # M3: the anonymized bundle of answers (label → model kept by the orchestrator).
        labels = {"Answer A": "fake/a", "Answer B": "fake/b"}
        claims = [{"id": f"{letter}{c['id']}", "label": f"Answer {letter}", "claim": c["claim"]}
                  for letter, p in zip("AB", parsed) for c in p["claims"]]
        bundle = question_briefings.answers_bundle(
            briefing=QUESTION, date=date, answers=[(f"Answer {x}", t.split("```json")[0]) for x, t in zip("AB", answers)],
            details={f"Answer {x}": {"answer": p["answer"], "confidence": p["confidence"], "assumptions": p["assumptions"]}
                     for x, p in zip("AB", parsed)}, claims=claims)
        judgements = await wave_texts(client, project, ["fake/a", "fake/b"], bundle)
        ids = [c["id"] for c in claims]
        read = [parse_judge_output(text, list(labels), ids) for text in judgements]
        assert all(r["ok"] for r in read)
        # M5/M6: the tally input in model names, with meta.intent question; claims carry no severity.
        tally_input = {
            "meta": {"runId": "council-session-store", "runType": "manual", "date": date, "models": ["fake/a", "fake/b"],
                     "chair": "fake/chair", "claudeInCouncil": False, "intent": "question"},
            "findings": [{"id": c["id"], "raiser": labels[c["label"]], "claim": c["claim"]} for c in claims],
            "adjudications": [{"findingId": v["id"], "judge": judge, "verdict": v["verdict"]}
                              for judge, r in zip(["fake/a", "fake/b"], read) for v in r["adjudications"]],
            "rankings": [{"judge": judge, "order": [labels[x] for x in r["ranking"]]}
                         for judge, r in zip(["fake/a", "fake/b"], read)],
        }
        record = body(await client.call_tool("amicus_council_tally", tally_input))
        # M8: the chair frame, then its ANSWER line read as the engine reads it.
        from amicus_mcp.council.ranking import aggregate_ranking

        packet = question_briefings.question_chair_packet(
            briefing=QUESTION, date=date, record=record, ranking=aggregate_ranking(record),
            answers=[{"who": labels[f"Answer {x}"], "label": f"Answer {x}", "prose": t, "answer": p["answer"],
                      "confidence": p["confidence"], "assumptions": p["assumptions"]}
                     for x, t, p in zip("AB", answers, parsed)],
            rankings=tally_input["rankings"])
        [chair_text] = await wave_texts(client, project, ["fake/chair"], packet)
        line = parse_answer_line(chair_text)
        assert line is not None
        result = body(await client.call_tool("amicus_verdict", {"record": record, "overallVerdict": line.standing,
                                                                "answer": line.answer, "render": True}))
        refused = await client.call_tool("amicus_verdict", {"record": record, "overallVerdict": "Ship it"})
    assert record["meta"]["intent"] == "question" and schema_errors(record, "council-tally") == []
    assert {f["tier"] for f in record["findings"]} == {"Confirmed"}
    verdict = result["verdict"]
    assert schema_errors(verdict, "council-verdict") == []
    assert (verdict["intent"], verdict["overallVerdict"], verdict["answer"]) == (
        "question", "Converged", "Use Postgres for the session store.")
    assert [r["model"] for r in verdict["ranking"]] == ["fake/a", "fake/b"]
    md = result["markdown"]
    assert md.startswith("# Council Answer — manual (council-session-store)")
    assert "**Answer (Converged):** Use Postgres for the session store." in md and "## Ranked answers" in md
    assert "'Ship it' is not one of: Converged, Split, Insufficient" in error_of(refused)
    rows = [json.loads(line) for line in (config_dir / "council-ledger.jsonl").read_text().splitlines()]
    assert [r.get("intent") for r in rows] == ["question", "question"]


def test_the_answer_contracts_example_is_itself_valid() -> None:
    """The example in the contract a seat is shown is a valid answer (a copying model is not lost)."""
    brief = question_briefings.question_briefing(QUESTION, date="2026-07-02")
    block = brief.split("```json", 1)[1].split("```", 1)[0]
    assert validate_answer(f"```json{block}```\n")["ok"] is True
    assert validate_answer(answer_text("x", 2))["ok"] is True


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_a_task_council_run_over_mcp(mode: str, fake: FakeProvider, project: Path) -> None:
    # Issue 28: intent task — reviewed like a review, the chair's ANSWER line read, no ledger rows.
    from council_script import member

    member(fake, "a", findings=1)
    member(fake, "b", findings=2)
    decision = "Roll out on Monday after the backfill rehearsal."
    fake.respond("chair", by_prompt(kind, {"chair": fake_chat(
        f"Synthesis.\n\n## Hard questions\n\n1. Who rolls back?\n\nANSWER: Split — {decision}\n")}))
    (project / "task.md").write_text("Decide when to roll out the session store migration.\n", encoding="utf-8")
    async with in_process(mode) as client:
        started = body(await client.call_tool("amicus_council_run", {
            "briefingFile": "task.md", "intent": "task", "models": ["fake/a", "fake/b"], "chair": "fake/chair",
            "project": str(project), "ui": False}))
        done, _ = await wait_until_terminal(client, started["runId"], project=str(project))
        report = body(await client.call_tool("amicus_read", {"id": started["runId"], "project": str(project)}))
    assert (done["status"], done["intent"], done["overallVerdict"], unfenced(done["answer"])) == (
        "complete", "task", "Split", decision)
    text = unfenced(report["text"])
    assert text.startswith(f"# Council Report — task ({started['runId']})")
    assert f"**Chair answer: Split** {decision}" in text and "## Findings by tier" in text
    assert "writes no reliability rows" in text
