"""A question council's record through the pure half: the verdict, the ledger, the gate and the
report — each says it is a question, and none of it touches a review's documents."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from amicus_mcp.council.gate import evaluate_gate
from amicus_mcp.council.ledger import ledger_rows
from amicus_mcp.council.report import build_report
from amicus_mcp.council.tally import tally
from amicus_mcp.council.verdict import build_verdict, redecide
from amicus_mcp.errors import BadArgs
from amicus_mcp.schemas import schema_errors

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "question" / "tally-input.json"
HOSTILE = "<script>alert(1)</script> **bold** | pipe\n# heading"


def record() -> dict[str, Any]:
    return tally(json.loads(EXAMPLE.read_text(encoding="utf-8")))


def test_the_verdict_says_question_ranks_the_answers_and_keeps_the_claims() -> None:
    verdict = build_verdict(record(), overall_verdict="Split", run={"answer": "Not on Friday."})
    assert schema_errors(verdict, "council-verdict") == []
    assert (verdict["intent"], verdict["overallVerdict"], verdict["answer"]) == ("question", "Split", "Not on Friday.")
    assert [(r["rank"], r["model"]) for r in verdict["ranking"]] == [(1, "gemini"), (2, "deepseek"), (3, "gpt")]
    assert verdict["findings"][2]["claim"] == "Step 3 adds the column without rewriting the table on PostgreSQL 16."
    keys = list(verdict)
    assert keys.index("intent") == keys.index("claudeInCouncil") + 1 and keys[-2:] == ["ranking", "answer"]


@pytest.mark.parametrize("standing", ["Ship it", "Maybe"])
def test_a_question_takes_only_an_answer_standing(standing: str) -> None:
    with pytest.raises(BadArgs, match="is not one of: Converged, Split, Insufficient"):
        build_verdict(record(), overall_verdict=standing)


def test_a_review_takes_no_answer_standing_and_no_answer() -> None:
    review = copy.deepcopy(record())
    del review["meta"]["intent"]
    with pytest.raises(BadArgs, match="is not one of: Ship it"):
        build_verdict(review, overall_verdict="Converged")
    with pytest.raises(BadArgs, match="this one is a review's"):
        redecide(review, [], None, overall_verdict="Ship it", answer="Yes.")
    assert "ranking" not in build_verdict(review) and "intent" not in build_verdict(review)
    assert all("claim" not in f for f in build_verdict(review)["findings"])


def test_re_deciding_keeps_the_answer_and_never_strands_it() -> None:
    first = build_verdict(record(), overall_verdict="Split", run={"answer": "Not on Friday.", "dissent": ["gpt."]})
    again = redecide(record(), [{"id": "B1", "decision": "denied"}], first)
    assert (again["overallVerdict"], again["answer"], again["dissent"]) == ("Split", "Not on Friday.", ["gpt."])
    dropped = redecide(record(), [], first, keep_verdict=False)
    assert dropped["overallVerdict"] is None and "answer" not in dropped  # no sentence without its standing
    with pytest.raises(BadArgs, match="needs the chair's ANSWER standing"):
        redecide(record(), [], None, answer="Not on Friday.")


def test_the_ledger_rows_say_question() -> None:
    rows = ledger_rows(record())
    assert [r["intent"] for r in rows] == ["question"] * 3
    assert all(schema_errors(r, "council-ledger-row") == [] for r in rows)
    review = copy.deepcopy(record())
    del review["meta"]["intent"]
    assert all("intent" not in r for r in ledger_rows(review))


def test_the_gate_refuses_a_question_but_reports_it() -> None:
    verdict = build_verdict(record(), overall_verdict="Split")
    for level in ("fundamental-rethink", "fix-these-first", "confirmed-blocker", "disputed-blocker"):
        with pytest.raises(BadArgs, match="is a question council"):
            evaluate_gate(verdict, level)
    doc = evaluate_gate(verdict, "never")
    assert doc["passed"] is True and doc["overallVerdict"] == "Split" and schema_errors(doc, "council-gate") == []


def test_model_text_in_a_question_report_is_inert() -> None:
    hostile = copy.deepcopy(json.loads(EXAMPLE.read_text(encoding="utf-8")))
    hostile["findings"][0]["claim"] = HOSTILE
    verdict = build_verdict(tally(hostile), overall_verdict="Split", run={
        "answer": HOSTILE, "dissent": [HOSTILE], "answers": [{"label": "Answer A", "model": "deepseek", "structured": True,
                                                               "answer": HOSTILE, "confidence": "low",
                                                               "assumptions": [HOSTILE], "claims": ["A1"]}]})
    assert schema_errors(verdict, "council-verdict") == []
    html = build_report(verdict, fmt="html")
    assert "<script>alert(1)</script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    md = build_report(verdict, fmt="md")
    assert "<script>" not in md and "\\<script\\>" in md
    assert "\n# heading" not in md  # a newline in model text never starts a heading
    table = md.split("## Claim matrix", 1)[1].split("\n\n")[1]
    assert all(line.count("|") == table.splitlines()[0].count("|") for line in table.splitlines())


def test_the_report_shows_the_question_first_and_is_titled_by_it() -> None:
    # Issue 27: a question council's report shows its question (user text: escaped), titled by it.
    hostile = "Should we <script>alert(1)</script> ship *now* | or [wait](http://x)? " + "word " * 40
    verdict = build_verdict(record(), overall_verdict="Converged", run={"question": hostile, "answer": "Wait."})
    assert schema_errors(verdict, "council-verdict") == [] and verdict["question"] == hostile
    md = build_report(verdict)
    title, _, question = md.splitlines()[:3]
    assert title.startswith("# Council Answer — Should we \\<script\\>") and title.endswith(f"… ({verdict['runId']})")
    assert len(title.split(" — ", 1)[1].rsplit(" (", 1)[0].replace("\\", "")) <= 80
    assert question.startswith("**Question:** Should we \\<script\\>alert(1)\\</script\\> ship \\*now\\* \\| or \\[wait\\]")
    assert question.endswith("word word")  # in full, on one line
    page = build_report(verdict, fmt="html")
    assert "<script>" not in page and "<title>Council Answer — Should we &lt;script&gt;" in page
    assert '<p class="question"><strong>Question:</strong> Should we &lt;script&gt;alert(1)&lt;/script&gt;' in page
    # Without the question (a verdict from before it was kept) the title is the run type, as before.
    assert build_report(build_verdict(record(), overall_verdict="Converged")).startswith("# Council Answer — ")
    assert "**Question:**" not in build_report(build_verdict(record(), overall_verdict="Converged"))
