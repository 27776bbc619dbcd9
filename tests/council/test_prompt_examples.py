"""Prompt examples name only what exists (issue 12, item 3).

A weak model copies the example block its prompt shows. Every example the engine sends — the
judge bundle, the judge repair, the debate defense and re-vote, and their repair — is built
from that prompt's own labels and finding ids, so a verbatim copy is a valid answer."""

from __future__ import annotations

from string import ascii_uppercase

import pytest
from council_prompts import example_block

from amicus_mcp.council import briefings, debate
from amicus_mcp.council.parse import parse_defense, parse_judge_output, parse_revote


def labels_of(n: int) -> list[str]:
    return [f"Review {ascii_uppercase[i]}" for i in range(n)]


def findings_of(labels: list[str], per_review: int) -> list[dict]:
    return [{"id": f"{label[-1]}{k}", "label": label, "severity": "major", "claim": f"claim {k}",
             "location": "s2", "rationale": "r"} for label in labels for k in range(1, per_review + 1)]


def bundle(labels: list[str], findings: list[dict]) -> str:
    return briefings.judge_bundle(briefing="Material.", date="2026-07-02",
                                  reviews=[(label, f"prose of {label}") for label in labels], findings=findings)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("per_review", [0, 1, 2])
def test_a_copied_judge_example_is_a_valid_judgement(n: int, per_review: int) -> None:
    labels = labels_of(n)
    findings = findings_of(labels, per_review)
    ids = [f["id"] for f in findings]
    for prompt in (bundle(labels, findings),
                   briefings.judge_repair_prompt("```json\n{}\n```", [{"code": "BAD_RANKING", "detail": "x"}], labels, ids)):
        copied = example_block(prompt)
        assert copied is not None
        result = parse_judge_output(copied, labels, ids)
        assert result["ok"], result["errors"]


def test_a_two_review_bench_is_never_shown_a_third_label() -> None:
    labels = labels_of(2)
    findings = findings_of(labels, 1)
    text = bundle(labels, findings)
    assert "Review C" not in text
    copied = example_block(text)
    assert parse_judge_output(copied, labels, ["A1", "B1"])["ranking"] == ["Review B", "Review A"]
    repair = briefings.judge_repair_prompt("prev", [], labels, ["A1", "B1"])
    assert "Review C" not in repair and "C1" not in repair


def test_three_or_more_labels_show_a_tie() -> None:
    assert briefings.example_ranking(labels_of(4)) == ["Review B", ["Review A", "Review C"], "Review D"]


def target(fid: str) -> debate.DebateTarget:
    return debate.DebateTarget({"id": fid, "severity": "major", "claim": f"{fid} claim"}, "Contested", ["x"], ["no"])


@pytest.mark.parametrize("ids", [["B2"], ["C1", "C3"], ["D1", "D2", "D4"], ["E1", "E2", "E3", "E4"]])
def test_a_copied_defense_example_answers_only_the_raisers_own_findings(ids: list[str]) -> None:
    prompt = debate.defense_brief([target(fid) for fid in ids])
    assert "A1" not in prompt
    for text in (prompt, debate.debate_repair_prompt("prev", [], "defense", ids)):
        parsed = parse_defense(example_block(text) or "", ids)
        assert parsed["ok"]
        answered = [fid for fid, r in parsed["responses"].items() if r["action"] != "no-response"]
        assert answered == ids[:3]


def test_a_copied_revote_example_votes_on_a_listed_finding() -> None:
    responses = {"B2": {"action": "defended", "argument": "a"}, "C1": {"action": "withdrawn"}}
    prompt = debate.revote_bundle({"B2": target("B2"), "C1": target("C1")}, responses)
    assert "A1" not in prompt
    for text in (prompt, debate.debate_repair_prompt("prev", [], "revote", ["B2"])):
        parsed = parse_revote(example_block(text) or "", ["B2"])
        assert parsed["ok"] and list(parsed["revotes"]) == ["B2"]
