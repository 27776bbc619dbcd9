"""The location pre-filter and the matcher's prompt and reply (pure functions)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from amicus_mcp.eval.matching import Question, prompt, read_reply, reply_schema
from amicus_mcp.eval.prefilter import LINE_SLACK, candidates, cited_lines
from amicus_mcp.eval.suite import load_suite

SUITE = load_suite()
LIMITER = SUITE.case("rate-limiter-diff")  # F1 26-30, F2 32-36 & 53-56, F3 34-35, F4 59-63, F5 44 & 47-51


@pytest.mark.parametrize("location, cited", [
    ("line 42", [(42, 42)]), ("Lines 40-45", [(40, 45)]), ("lines 12, 15-17 and 20", [(12, 12), (15, 17), (20, 20)]),
    ("L42", [(42, 42)]), ("#L40-L45", [(40, 45)]), ("api/ratelimit.py:42", [(42, 42)]), ("x.go:40–45", [(40, 45)]),
    ("ll. 7–9", [(7, 9)]), ("line 3 to line 9", [(3, 9)]), ("step 3 (lines 24–25)", [(24, 25)]),
    ("section 2", []), ("the pricing table", []), ("Line 12345678901", []), ("version 2.0", []),
])
def test_cited_lines(location: str, cited: list[tuple[int, int]]) -> None:
    assert cited_lines(location) == cited


@given(st.text(max_size=300))
def test_cited_lines_never_fails_on_any_text(text: str) -> None:
    for start, end in cited_lines(text):
        assert 0 <= start <= end


def test_candidates_by_lines_anchors_or_neither() -> None:
    flaws = LIMITER.doc.plantedFlaws
    placed = candidates(flaws, location="line 28", claim="x")
    assert (placed.flaws, placed.placement) == (("F1",), "lines")
    assert candidates(flaws, location="line 33", claim="x").flaws == ("F1", "F2", "F3")  # slack reaches F1 (26-30)
    assert candidates(flaws, location="line 35", claim="x").flaws == ("F2", "F3")
    assert candidates(flaws, location=f"line {63 + LINE_SLACK}", claim="x").flaws == ("F4",)
    assert candidates(flaws, location=f"line {63 + LINE_SLACK + 1}", claim="x").placement == "elsewhere"
    by_anchor = candidates(flaws, location="the client_key function", claim="trusts a header")
    assert (by_anchor.flaws, by_anchor.placement) == (("F4",), "anchors")
    both = candidates(flaws, location="line 61", claim="X-Forwarded-For is spoofable")
    assert (both.flaws, both.placement) == (("F4",), "lines+anchors")
    unplaced = candidates(flaws, location="overall design", claim="it is slow")
    assert (unplaced.flaws, unplaced.placement) == (tuple(f.id for f in flaws), "unplaced")
    assert candidates([], location="line 3", claim="x").placement == "clean"


def questions() -> list[Question]:
    return [Question("A1", "major", "line 28", "refill loses fractions", "int() truncates", ("F1",)),
            Question("B2", "minor", "overall", "naming", "style", ("F1", "F2", "F3", "F4", "F5"))]


def test_the_prompt_shows_findings_and_flaws_and_no_identity() -> None:
    text = prompt(LIMITER, questions())
    assert text.startswith("# Matching review findings to known flaws")
    for flaw in LIMITER.doc.plantedFlaws:
        assert f"**{flaw.id}** ({flaw.severity}, {flaw.flaw_class};" in text
    assert "### A1 (major)" in text and "- may be matched to: F1\n" in text
    assert "- rationale: int() truncates" in text
    assert "raiser" not in text and "seat" not in text.lower().replace("seats", "")


def test_a_reply_is_read_entry_by_entry() -> None:
    qs = questions()
    good = {"matches": [{"finding": "A1", "flaw": "F1", "reason": "same defect"},
                        {"finding": "B2", "flaw": None, "reason": "style only"}]}
    reading = read_reply(f"prose\n```json\n{json.dumps(good)}\n```\n", None, qs)
    assert reading.answers == {"A1": ("F1", "same defect"), "B2": (None, "style only")} and reading.problems == []
    assert read_reply("", good, qs).answers == reading.answers  # a structured reply needs no block
    bad = {"matches": [{"finding": "A1", "flaw": "F4", "reason": "x"}, {"finding": "Z9", "flaw": None, "reason": "x"},
                       {"finding": "B2", "flaw": None, "reason": "ok"}, {"finding": "B2", "flaw": None, "reason": "again"}]}
    reading = read_reply(json.dumps(bad), bad, qs)
    assert reading.answers == {"B2": (None, "ok")}
    assert [p.split(":")[0] for p in reading.problems] == ["matches[0]", "matches[1]", "matches[3]", "no answer for A1"]
    assert read_reply("no block here", None, qs).problems[0].startswith("NO_FENCED_BLOCK")


def test_the_reply_schema_holds_the_answer_to_the_asked_ids() -> None:
    from jsonschema import Draft202012Validator

    schema = reply_schema(questions(), ["F1", "F2", "F3", "F4", "F5"])
    validator = Draft202012Validator(schema)
    assert validator.is_valid({"matches": [{"finding": "A1", "flaw": None, "reason": "r"}]})
    assert not validator.is_valid({"matches": [{"finding": "C1", "flaw": None, "reason": "r"}]})
    assert not validator.is_valid({"matches": [{"finding": "A1", "flaw": "F9", "reason": "r"}]})
