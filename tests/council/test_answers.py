"""A question council's answer block: validated like a findings block, every code reachable."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from amicus_mcp.council.answers import (ANSWER_ERROR_CODES, answer_details, count_attempted_claims,
                                        validate_answer, validate_document)
from amicus_mcp.council.parse import parse_answer_line
from amicus_mcp.council.question_briefings import answer_from_structured
from amicus_mcp.schemas import schema_errors

GOOD = {"answer": "Postgres.", "claims": [{"id": 1, "claim": "The workload needs transactions."},
                                          {"id": 2, "claim": "2 GB fits one node."}],
        "assumptions": ["The team runs Postgres already."], "confidence": "medium"}


def text(block: Any) -> str:
    return f"My reasoning.\n\n```json\n{json.dumps(block)}\n```\n"


def codes(block: Any) -> list[str]:
    return [e["code"] for e in validate_answer(text(block))["errors"]]


def test_a_good_answer_reads_whole() -> None:
    result = validate_answer(text(GOOD))
    assert result == {"ok": True, "answer": "Postgres.", "claims": GOOD["claims"],
                      "assumptions": GOOD["assumptions"], "confidence": "medium", "errors": []}
    assert answer_details(result) == {"answer": "Postgres.", "assumptions": GOOD["assumptions"], "confidence": "medium"}
    doc = validate_document(result)
    assert schema_errors(doc, "council-validate") == []
    assert doc["intent"] == "question" and doc["findings"] == GOOD["claims"] and doc["answer"]["confidence"] == "medium"


def test_no_claims_is_a_valid_answer() -> None:
    assert validate_answer(text({**GOOD, "claims": [], "assumptions": []}))["ok"] is True


@pytest.mark.parametrize("block, expected", [
    ({**GOOD, "answer": " "}, ["MISSING_ANSWER"]),
    ({k: v for k, v in GOOD.items() if k != "answer"}, ["MISSING_ANSWER"]),
    ([1, 2], ["MISSING_ANSWER"]),
    ({**GOOD, "claims": "two"}, ["BAD_CLAIMS"]),
    ({k: v for k, v in GOOD.items() if k != "claims"}, ["BAD_CLAIMS"]),
    ({**GOOD, "claims": [{"id": 2, "claim": "x"}]}, ["NON_SEQUENTIAL_ID"]),
    ({**GOOD, "claims": [{"id": 1, "claim": "x"}, {"id": 1, "claim": "y"}]}, ["DUPLICATE_ID"]),
    ({**GOOD, "claims": [{"id": 1, "claim": ""}, "no"]}, ["MISSING_FIELD", "MISSING_FIELD"]),
    ({**GOOD, "assumptions": "none"}, ["BAD_ASSUMPTIONS"]),
    ({**GOOD, "assumptions": [3]}, ["BAD_ASSUMPTIONS"]),
    ({**GOOD, "confidence": "High"}, ["BAD_CONFIDENCE"]),
    ({"answer": "", "claims": None, "assumptions": None}, ["MISSING_ANSWER", "BAD_CLAIMS", "BAD_ASSUMPTIONS",
                                                            "BAD_CONFIDENCE"]),
])
def test_every_problem_is_named(block: Any, expected: list[str]) -> None:
    assert codes(block) == expected
    doc = validate_document(validate_answer(text(block)))
    assert doc["ok"] is False and doc["findings"] == [] and schema_errors(doc, "council-validate") == []


def test_the_extractor_is_the_reviews_own() -> None:
    assert [e["code"] for e in validate_answer("no block")["errors"]] == ["NO_FENCED_BLOCK"]
    assert [e["code"] for e in validate_answer("```json\n{nope\n```\n")["errors"]] == ["NOT_PARSEABLE"]
    # A review's findings block is not an answer (a weak model answering in the wrong format).
    review = text({"overall": "fine", "findings": []})
    assert codes({"overall": "fine", "findings": []}) == ["MISSING_ANSWER", "BAD_CLAIMS", "BAD_ASSUMPTIONS",
                                                          "BAD_CONFIDENCE"]
    assert count_attempted_claims(review) is None
    assert count_attempted_claims(text({"claims": [1, 2, 3]})) == 3


def test_a_structured_answer_is_the_same_document() -> None:
    doc = answer_from_structured({"reasoning": "Because.", **GOOD})
    assert validate_answer(doc)["ok"] is True and doc.startswith("Because.")


@pytest.mark.parametrize("line, standing, answer", [
    ("ANSWER: Converged — Use Postgres.", "Converged", "Use Postgres."),
    ("  ANSWER: Split - Postgres, narrowly", "Split", "Postgres, narrowly"),
    ("ANSWER: Insufficient: the trace is cut off", "Insufficient", "the trace is cut off"),
    ("ANSWER: Converged", "Converged", None),
    ("ANSWER: **Split** — **DynamoDB**", None, None),  # markup before the standing is not the line
])
def test_the_answer_line(line: str, standing: str | None, answer: str | None) -> None:
    read = parse_answer_line(f"Synthesis.\n\n{line}\n")
    assert (read.standing if read else None, read.answer if read else None) == (standing, answer)


def test_the_last_answer_line_wins_and_verdict_lines_do_not_count() -> None:
    read = parse_answer_line("ANSWER: Split — first\nVERDICT: Ship it\nANSWER: Converged — second\n")
    assert read is not None and (read.standing, read.answer) == ("Converged", "second")
    assert parse_answer_line("VERDICT: Ship it\nANSWER: Convergedly so\n") is None


@given(st.text(max_size=400))
def test_model_text_never_raises(body: str) -> None:
    result = validate_answer(body)
    assert set(e["code"] for e in result["errors"]) <= set(ANSWER_ERROR_CODES)
    parse_answer_line(body)
