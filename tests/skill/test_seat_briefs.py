"""SEAT-BRIEFS.md must show the words the engine sends, exactly.

Each `<!-- prompt: NAME.md -->` block in SEAT-BRIEFS.md is compared character for character
with `amicus_mcp/prompts/NAME.md` as the engine reads it (`briefings.template`: the vocabulary's
words, such as the verdict scale, filled in), the file the engine composes its prompts from; and the
composed prompts are checked to contain those same words, so the copy is tied to what a model
receives, not only to a file.
"""

from __future__ import annotations

import difflib
import re

import pytest
from skill_helpers import PROMPTS, SEAT_BRIEFS, read

from amicus_mcp.council import briefings, debate, question_briefings

# The templates the issue requires in SEAT-BRIEFS.md (the frames the manual path fills are extra).
REQUIRED = ("stance-standard.md", "stance-critic.md", "stance-lens.md", "debate-defense.md",
            "debate-revote.md", "chair-verdict-scale.md")
FRAMES = ("stage1-seat.md", "findings-contract.md", "stage2-judge.md", "chair.md")
# A question council's briefs and frames (issue 23): each must be shown exactly once as well.
QUESTION = ("stance-question.md", "stance-question-critic.md", "stance-question-lens.md", "stage1-question.md",
            "answer-contract.md", "stage2-answers.md", "chair-question.md", "chair-answer-scale.md",
            "chair-answer-repair.md", "debate-defense-question.md", "debate-revote-question.md")

_MARKER = re.compile(r"<!-- prompt: (?P<name>[^ ]+) -->")
_BLOCK = re.compile(r"<!-- prompt: (?P<name>[^ ]+) -->\n````text\n(?P<body>.*?)\n````(?:\n|$)", re.DOTALL)


def copies(text: str) -> dict[str, list[str]]:
    """Template name → every verbatim copy of it in the document."""
    out: dict[str, list[str]] = {}
    for match in _BLOCK.finditer(text):
        out.setdefault(match.group("name"), []).append(match.group("body") + "\n")
    return out


def drift(text: str, template_text: dict[str, str]) -> list[str]:
    """Every way the document's copies differ from the templates (empty when none do)."""
    problems = []
    markers = _MARKER.findall(text)
    found = copies(text)
    if len(markers) != sum(len(v) for v in found.values()):
        problems.append("a `<!-- prompt: … -->` marker is not followed by a ````text block")
    for name in REQUIRED + FRAMES + QUESTION:
        if len(found.get(name, [])) != 1:
            problems.append(f"{name}: expected exactly one copy, found {len(found.get(name, []))}")
    for name, bodies in found.items():
        if name not in template_text:
            problems.append(f"{name}: no such template in amicus_mcp/prompts")
            continue
        for body in bodies:
            if body != template_text[name]:
                diff = "".join(difflib.unified_diff(template_text[name].splitlines(True), body.splitlines(True),
                                                    f"prompts/{name}", f"SEAT-BRIEFS.md ({name})"))
                problems.append(f"{name} drifted:\n{diff}")
    return problems


def templates() -> dict[str, str]:
    """Each prompt file as the engine reads it: the vocabulary's words (the verdict scale) filled in."""
    return {entry.name: briefings.template(entry.name.removesuffix(".md")).template
            for entry in PROMPTS.iterdir() if entry.name.endswith(".md")}


def test_seat_briefs_match_the_prompt_files_exactly() -> None:
    assert drift(read(SEAT_BRIEFS), templates()) == []


@pytest.mark.parametrize("mutate", [
    lambda t: t.replace("Put your most severe finding first", "Put your most severe finding last", 1),
    lambda t: t.replace("VERDICT: Fix these first", "VERDICT: Fix it first", 1),
    lambda t: t.replace("`withdraw` — when you cannot", "`withdraw` — if you cannot", 1),
])
def test_an_edited_copy_is_reported(mutate) -> None:  # type: ignore[no-untyped-def]
    text = read(SEAT_BRIEFS)
    edited = mutate(text)
    assert edited != text
    assert any("drifted" in p for p in drift(edited, templates()))


def test_an_edited_template_is_reported() -> None:
    changed = dict(templates())
    changed["stance-critic.md"] = changed["stance-critic.md"].replace("four passes", "five passes")
    problems = drift(read(SEAT_BRIEFS), changed)
    assert [p.splitlines()[0] for p in problems] == ["stance-critic.md drifted:"]


def test_a_missing_required_copy_is_reported() -> None:
    text = read(SEAT_BRIEFS).replace("<!-- prompt: debate-revote.md -->", "<!-- gone -->")
    assert "debate-revote.md: expected exactly one copy, found 0" in drift(text, templates())


def test_the_briefs_are_what_the_engine_sends() -> None:
    found = {name: bodies[0] for name, bodies in copies(read(SEAT_BRIEFS)).items()}
    standard = briefings.seat_briefing("THE MATERIAL", date="2026-07-02")
    critic = briefings.seat_briefing("THE MATERIAL", date="2026-07-02", stance="stance-critic")
    assert found["stance-standard.md"].strip() in standard
    assert found["findings-contract.md"].strip() in standard
    assert found["stance-critic.md"].strip() in critic
    assert "Today's date is 2026-07-02." in standard

    # The lens brief: `$lens` becomes the slug as a quoted phrase, exactly as SEAT-BRIEFS says.
    lens = briefings.lens_stance("security-architect").template
    assert lens == found["stance-lens.md"].replace("$lens", "a “security architect”")

    record = {"findings": [], "streetCred": []}
    packet = briefings.chair_packet(briefing="B", date="2026-07-02", record=record, findings=[], reviews=[], rankings=[])
    assert found["chair-verdict-scale.md"].strip() in packet

    target = debate.DebateTarget({"id": "B2", "severity": "blocker", "claim": "Prices contradict the FAQ."},
                                 "Contested", ["deepseek"], ["B2 — both are monthly prices."])
    defense = debate.defense_brief([target])
    head, _, tail = found["debate-defense.md"].partition("$findings")
    # `$example` is built from the brief's own finding ids (issue 12): B2 here, never an A1.
    tail = tail.replace("$example", debate.defense_example(["B2"]))
    assert defense.startswith(head) and defense.rstrip("\n").endswith(tail.rstrip("\n"))
    assert "**B2** (blocker) — Prices contradict the FAQ.\n- disputed by 1 peer(s):\n  - a peer: B2" in defense

    revote = debate.revote_bundle({"B2": target}, {"B2": {"action": "defended", "argument": "Both are monthly."}})
    head, _, tail = found["debate-revote.md"].partition("$findings")
    tail = tail.replace("$example", debate.revote_example(["B2"]))
    assert revote.startswith(head) and revote.rstrip("\n").endswith(tail.rstrip("\n"))
    assert "**B2** (blocker) — Prices contradict the FAQ.\n- the raiser's answer: Both are monthly." in revote


def test_the_question_briefs_are_what_the_engine_sends() -> None:
    found = {name: bodies[0] for name, bodies in copies(read(SEAT_BRIEFS)).items()}
    standard = question_briefings.question_briefing("THE QUESTION", date="2026-07-02")
    critic = question_briefings.question_briefing("THE QUESTION", date="2026-07-02",
                                                  stance=question_briefings.question_stance("critic", None))
    lens = question_briefings.question_stance("lens:sre", "security-architect")
    assert found["stance-question.md"].strip() in standard and found["answer-contract.md"].strip() in standard
    assert found["stance-question-critic.md"].strip() in critic
    assert lens.template == found["stance-question-lens.md"].replace("$lens", "a “security architect”")
    packet = question_briefings.question_chair_packet(briefing="Q", date="2026-07-02", record={"findings": []},
                                                      ranking=[], answers=[], rankings=[])
    assert found["chair-answer-scale.md"].strip() in packet
    target = debate.DebateTarget({"id": "B2", "claim": "2 GB fits one node."}, "Disputed", ["a"], ["B2 — it does not."])
    defense = debate.defense_brief([target], question=True)
    head = found["debate-defense-question.md"].partition("$findings")[0]
    assert defense.startswith(head.strip()) and "**B2** (key claim) — 2 GB fits one node." in defense
