"""Issue 27 item 26, end to end on the loopback fake: a judge whose block still names a
phantom label or finding id after its two repairs keeps its valid ranking and votes; a
notice says what was dropped; the judge is dropped only when nothing valid is left."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from council_helpers import bundle_labels, check_documents, kind, kinds_asked, load, member, repair_labels
from fakeprovider import Reply, chat, prompt_of

pytestmark = pytest.mark.anyio


def phantom_judge(rename: Callable[[list[str]], list[Any]]) -> Callable[[Any], Reply]:
    """A judge that ranks `rename(labels)` and votes agree on every id plus a phantom Z9 —
    and answers its repairs the same way (a model that keeps citing what is not there)."""

    def answer(body: Any) -> Reply:
        prompt = prompt_of(body)
        labels, ids = repair_labels(prompt) if kind(prompt) == "judge-repair" else bundle_labels(prompt)
        votes = [{"id": i, "verdict": "agree"} for i in ids] + [{"id": "Z9", "verdict": "dispute"}]
        block = {"ranking": rename(labels), "adjudications": votes}
        return chat(f"Reasoning.\n\n```json\n{json.dumps(block)}\n```\n")

    return answer


def votes_of(tally: dict[str, Any], judge: str) -> list[tuple[str, str]]:
    return sorted((f["id"], a["verdict"]) for f in tally["findings"] for a in f["adjudications"]
                  if a["judge"] == judge)


async def test_a_phantom_label_and_id_cost_the_judge_nothing_real(fake, council, run_dir) -> None:
    member(fake, "a")
    member(fake, "b")
    member(fake, "c", judge=phantom_judge(lambda labels: [*labels, "Review D"]),
           judge_repair=phantom_judge(lambda labels: [*labels, "Review D"]))
    member(fake, "chair")
    run, code = await council(["fake/a", "fake/b", "fake/c"])
    check_documents(run_dir, run)
    tally = load(run_dir, "tally.json")
    assert kinds_asked(fake, "c") == ["stage1", "judge", "judge-repair", "judge-repair"]  # the repairs came first
    assert (code, run["status"]) == (0, "complete") and "degrades" not in run
    assert [r["judge"] for r in load(run_dir, "tally-input.json")["rankings"]] == ["fake/a", "fake/b", "fake/c"]
    assert votes_of(tally, "fake/c") == [("A1", "agree"), ("B1", "agree"), ("C1", "agree")]
    notice = next(n for n in run["notices"] if n.startswith("judge fake/c"))
    assert "ranking entries that name no review: 'Review D'" in notice
    assert "votes on ids not in the findings index: 'Z9'" in notice
    assert next(s for s in run["stages"] if s["name"] == "stage2")["judges"] == 3


async def test_a_misnamed_label_drops_the_ranking_and_keeps_the_votes(fake, council, run_dir) -> None:
    misname = lambda labels: [label.replace("Review C", "Response C") for label in labels]  # noqa: E731
    member(fake, "a")
    member(fake, "b")
    member(fake, "c", judge=phantom_judge(misname), judge_repair=phantom_judge(misname))
    member(fake, "chair")
    run, code = await council(["fake/a", "fake/b", "fake/c"])
    check_documents(run_dir, run)
    tally = load(run_dir, "tally.json")
    assert (code, run["status"]) == (2, "partial")
    assert [d["what"] for d in run["degrades"]] == ["judge fake/c's ranking dropped"]
    assert "ranking leaves out Review C" in run["degrades"][0]["why"]
    assert [r["judge"] for r in load(run_dir, "tally-input.json")["rankings"]] == ["fake/a", "fake/b"]
    assert tally["judged"] is True  # two rankings remain
    assert votes_of(tally, "fake/c") == [("A1", "agree"), ("B1", "agree"), ("C1", "agree")]


async def test_a_judge_with_nothing_valid_is_still_dropped(fake, council, run_dir) -> None:
    only_phantoms = '```json\n{"ranking": ["Review Q"], "adjudications": [{"id": "Z9", "verdict": "agree"}]}\n```\n'
    member(fake, "a")
    member(fake, "b")
    member(fake, "c", judge=chat("I rank them all equally."), judge_repair=chat(only_phantoms))
    member(fake, "chair")
    run, code = await council(["fake/a", "fake/b", "fake/c"])
    check_documents(run_dir, run)
    assert (code, run["status"]) == (2, "partial")
    assert [d["what"] for d in run["degrades"]] == ["judge fake/c dropped"]
    assert votes_of(load(run_dir, "tally.json"), "fake/c") == []
    assert "fake/c" not in [r["judge"] for r in load(run_dir, "tally-input.json")["rankings"]]


def bad_vote_judge(body: Any) -> Reply:
    """Ranks every review, votes agree on every finding but "maybe" on A1 (a real finding)."""
    prompt = prompt_of(body)
    labels, ids = repair_labels(prompt) if kind(prompt) == "judge-repair" else bundle_labels(prompt)
    votes = [{"id": i, "verdict": "maybe" if i == "A1" else "agree"} for i in ids]
    return chat(f"Reasoning.\n\n```json\n{json.dumps({'ranking': labels, 'adjudications': votes})}\n```\n")


async def test_a_dropped_vote_on_a_real_finding_is_a_degrade(fake, council, run_dir) -> None:
    member(fake, "a")
    member(fake, "b")
    member(fake, "c", judge=bad_vote_judge, judge_repair=bad_vote_judge)
    member(fake, "chair")
    run, code = await council(["fake/a", "fake/b", "fake/c"])
    check_documents(run_dir, run)
    assert (code, run["status"]) == (2, "partial")
    assert [d["what"] for d in run["degrades"]] == ["judge fake/c's judgement partly dropped"]
    assert "adjudication 1 ('A1'): verdict 'maybe' is not one of" in run["degrades"][0]["why"]
    assert votes_of(load(run_dir, "tally.json"), "fake/c") == [("B1", "agree"), ("C1", "agree")]
    assert [r["judge"] for r in load(run_dir, "tally-input.json")["rankings"]] == ["fake/a", "fake/b", "fake/c"]
