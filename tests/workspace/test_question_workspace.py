"""A question council in the Council Workspace: its snapshot (which the inline MCP App view
shares) and the page in headless Chromium lead with the chair's answer and show the ranked
answers, who ranked what, and the claim matrix."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from council_prompts import kind
from fakeprovider import FakeProvider, by_prompt, usage
from question_members import QUESTION, question_judge, question_table
from workspace_helpers import Run, run_finished

from amicus_mcp.engine.store import SessionStore
from amicus_mcp.workspace.snapshot import run_snapshot
from amicus_mcp.workspace.terminal import render_frame

BENCH = ["fake/alpha", "fake/bravo", "fake/charlie"]


@pytest.fixture
def asked(fake: FakeProvider, project: Path, tmp_path: Path) -> Run:
    """A three-seat question council: every judge ranks Answer B first, then C, then A, and
    disputes alpha's second claim."""
    for name in ("alpha", "bravo", "charlie", "chair"):
        table = question_table(name, claims=2, usage=usage(1000, 300, cost=0.001))
        table["question-judge"] = question_judge({"A2": "dispute"}, order=["B", "C", "A"], model=f"vendor/{name}-1",
                                                 usage=usage(1500, 200, cost=0.001))
        fake.respond(name, by_prompt(kind, table))
    question = tmp_path / "question.md"
    question.write_text(QUESTION, encoding="utf-8")
    run_dir = tmp_path / "runs" / "council-asked"
    doc = run_finished(project, run_dir, question, BENCH, run_id="asked1", intent="question")
    assert doc["status"] == "complete", doc
    return Run("asked1", run_dir, project, doc)


def test_the_snapshot_of_a_question_council(asked: Run) -> None:
    snap = run_snapshot(SessionStore(asked.project), asked.run_id)
    header = snap["header"]
    assert (header["intent"], header["overallVerdict"], header["answer"]) == (
        "question", "Converged", "Use Postgres for the session store.")
    assert (snap["chair"]["line"], snap["chair"]["verdict"], snap["chair"]["answer"]) == (
        "ANSWER", "Converged", "Use Postgres for the session store.")
    ranked = snap["ranking"]
    assert [(r["rank"], r["label"], r["name"], r["peersOnly"]) for r in ranked] == [
        (1, "Answer B", "fake/bravo", "1.00"), (2, "Answer C", "fake/charlie", "2.00"), (3, "Answer A", "fake/alpha", "3.00")]
    assert [p["place"] for p in ranked[0]["perJudge"]] == ["1", "1*", "1"]  # bravo's own place is marked, never counted
    assert ranked[0]["answer"] == "seat-bravo answer: use Postgres"
    assert [(r["file"], r["label"]) for r in snap["reviews"]] == [
        ("answer-fake-alpha.md", "Answer A"), ("answer-fake-bravo.md", "Answer B"), ("answer-fake-charlie.md", "Answer C")]
    rows = {row["id"]: row for row in snap["matrix"]["rows"]}
    assert (rows["A2"]["tier"], rows["A2"]["claim"]) == ("Disputed", "seat-alpha claim 2")
    frame = render_frame(snap)
    assert "ANSWER: Converged — Use Postgres for the session store. (chair fake/chair)" in frame
    assert "#1 Answer B (fake/bravo): peers-only 1.00" in frame


def test_a_review_snapshot_has_no_question_keys(finished: Run) -> None:
    snap = run_snapshot(SessionStore(finished.project), finished.run_id)
    assert "ranking" not in snap and "intent" not in snap["header"] and "line" not in snap["chair"]


def test_the_page_leads_with_the_answer_and_ranks_the_answers(page: Any, asked: Run, serve: Any) -> None:
    served = serve(asked.project, asked.run_id)
    page.goto(served.url)
    page.wait_for_selector("#ranking table")
    assert page.inner_text("#chair-title") == "Chair answer" and page.inner_text("#matrix-title") == "Claim matrix"
    assert "ANSWER: Converged" in page.inner_text("#chair")
    assert "Use Postgres for the session store." in page.inner_text("#chair")
    assert [t.strip() for t in page.locator("#chips .chip").all_inner_texts()][:3] == [
        "complete", "question", "ANSWER: Converged"]
    heads = [t.strip() for t in page.locator("#ranking thead th").all_inner_texts()]
    assert heads == ["Rank", "Answer", "Model", "Peers only", "With self", *BENCH, "Claims"]
    first = [t.strip() for t in page.locator("#ranking tbody tr:nth-child(1) td").all_inner_texts()]
    assert first == ["1", "Answer B", "fake/bravo", "1.00", "1.00", "1", "1*", "1", "2 Confirmed · 0 Disputed of 2"]
    assert "seat-bravo answer: use Postgres" in page.inner_text("#ranking")
    page.click("#blind-toggle")
    assert "fake/bravo" not in page.inner_text("#ranking") and "Answer B" in page.inner_text("#ranking")
    assert page.errors == []
