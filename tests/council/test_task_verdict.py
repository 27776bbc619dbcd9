"""A task council's documents (issue 28): its record gives a verdict that says `intent: task`,
takes an ANSWER standing (never a review verdict), keeps its answer; it writes no ledger rows;
the gate reads its findings but not its answer; its report's title forks to `task`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from amicus_mcp.council.gate import evaluate_gate
from amicus_mcp.council.ledger import ledger_rows
from amicus_mcp.council.report import build_report
from amicus_mcp.council.verdict import build_verdict, redecide
from amicus_mcp.errors import BadArgs
from amicus_mcp.schemas import schema_errors

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "worked-example"
DECISION = "Ship the pricing page once the FAQ numbers match the table."


def record() -> dict[str, Any]:
    rec = json.loads((FIXTURES / "tally.json").read_text(encoding="utf-8"))
    rec["meta"] = {**rec["meta"], "intent": "task", "runType": "headless"}
    return rec


def test_a_task_verdict_takes_an_answer_standing_and_keeps_its_answer() -> None:
    verdict = build_verdict(record(), overall_verdict="Converged", run={"answer": DECISION})
    assert (verdict["intent"], verdict["overallVerdict"], verdict["answer"]) == ("task", "Converged", DECISION)
    assert "ranking" not in verdict and schema_errors(verdict, "council-verdict") == []
    with pytest.raises(BadArgs, match="is not one of: Converged, Split, Insufficient .this record is a task council's."):
        build_verdict(record(), overall_verdict="Ship it")
    again = redecide(record(), [{"id": "A1", "decision": "accepted"}], verdict)
    assert (again["overallVerdict"], again["answer"]) == ("Converged", DECISION)


def test_a_task_council_writes_no_ledger_rows() -> None:
    assert ledger_rows(record()) == []
    assert ledger_rows({**record(), "meta": {**record()["meta"], "intent": "review"}})  # a review's does


def test_the_gate_reads_a_tasks_findings_but_not_its_answer() -> None:
    verdict = build_verdict(record(), overall_verdict="Converged")
    for level in ("fundamental-rethink", "fix-these-first"):
        with pytest.raises(BadArgs, match="is a task council: its chair gave an ANSWER"):
            evaluate_gate(verdict, level)
    doc = evaluate_gate(verdict, "disputed-blocker")
    assert doc["passed"] is False and "B2 (Contested)" in doc["reason"] and schema_errors(doc, "council-gate") == []


def test_a_task_report_is_titled_task_and_leads_with_the_chairs_answer() -> None:
    verdict = build_verdict(record(), overall_verdict="Split", run={"answer": DECISION, "notices": [
        "task council: not recorded in the reliability ledger (a task council writes no reliability rows)"]})
    md = build_report(verdict, record=record())
    assert md.startswith("# Council Report — task (pricing-page-council)\n")
    assert f"**Chair answer: Split** {DECISION}" in md and "Chair verdict" not in md
    assert "_Tiers report peer concurrence, never verification._" in md and "**Run total**" in md
    assert "**Notes:**\n\n- task council: not recorded in the reliability ledger" in md
    page = build_report(verdict, fmt="html", record=record())
    assert "<title>Council Report — task (pricing-page-council)</title>" in page
    assert f'Chair answer: Split <strong class="answer">{DECISION}</strong>' in page
