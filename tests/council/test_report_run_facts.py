"""The report of a council run (issue 12): what was lost, notes, a verdict resting on fewer than
two judges, what each finding says, the chair's synthesis, the debate round — and the seed's
worked example unchanged whenever none of that is present."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from amicus_mcp.council.report import build_report

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "worked-example"
SCRIPT = "<script>alert(1)</script>"


def worked() -> dict[str, Any]:
    return json.loads((FIXTURES / "verdict.json").read_text(encoding="utf-8"))


def record() -> dict[str, Any]:
    return json.loads((FIXTURES / "tally.json").read_text(encoding="utf-8"))


def sections(md: str) -> list[str]:
    return [line[3:] for line in md.splitlines() if line.startswith("## ")]


DEGRADES = [
    {"kind": "degrade", "channel": "stage1", "what": "seat mistral produced no review", "why": "PROVIDER_ERROR: boom"},
    {"kind": "degrade", "channel": "chair", "what": "no chair verdict", "why": "the chair, its retry and the promoted fallback all failed"},
]


def test_a_bare_verdict_with_its_record_shows_each_claim_and_nothing_else_moves() -> None:
    bare = build_report(worked())
    with_claims = build_report(worked(), record=record())
    assert "## What was lost" not in with_claims and "Debate round" not in with_claims
    assert with_claims.replace(
        "\n  - Listed prices contradict the numbers in the FAQ section.", "").replace(
        "\n  - The three-tier pricing table omits a monthly/annual toggle.", "").replace(
        "\n  - The 'Enterprise' tier has no visible CTA button.", "") == bare
    assert "- **B2** (blocker, raiser gpt) — a0/d1/n0 — accepted (applied)\n  - Listed prices contradict" in with_claims
    page = build_report(worked(), fmt="html", record=record())
    assert '<div class="claim">The &#x27;Enterprise&#x27; tier has no visible CTA button.</div>' in page


def test_losses_follow_the_verdict_summary_in_one_voice_with_notes() -> None:
    doc = {**worked(), "degrades": DEGRADES, "notices": ["lens run: not recorded in the reliability ledger"]}
    md = build_report(doc)
    assert sections(md)[:3] == ["Verdict summary", "What was lost", "Adjudication matrix"]
    block = md.split("## What was lost\n\n", 1)[1].split("\n\n## ", 1)[0]
    assert block == ("- Seat mistral produced no review — PROVIDER\\_ERROR: boom\n"
                     "- No chair verdict — the chair, its retry and the promoted fallback all failed\n\n"
                     "**Notes:**\n\n"
                     "- lens run: not recorded in the reliability ledger")
    page = build_report(doc, fmt="html")
    assert re.findall(r"<h2>(.*?)</h2>", page)[:2] == ["Verdict summary", "What was lost"]
    assert "<li>Seat mistral produced no review — PROVIDER_ERROR: boom</li>" in page
    assert "<strong>Notes:</strong>" in page


def test_notes_alone_say_nothing_was_lost() -> None:
    md = build_report({**worked(), "notices": ["a notice"]})
    assert "## What was lost\n\n_Nothing was lost._\n\n**Notes:**\n\n- a notice" in md


def test_a_verdict_on_fewer_than_two_judges_says_so_next_to_it() -> None:
    doc = {**worked(), "overallVerdict": "Ship it", "judged": False}
    md = build_report(doc)
    assert "**Chair verdict: Ship it** — _rests on fewer than two judges (judged: false)_" in md
    # A hand-assembled verdict has no degrades: its judged:false is listed as the loss.
    assert "## What was lost\n\n- Cross-review is thin — fewer than two judges" in md
    page = build_report(doc, fmt="html")
    assert re.search(r'<p class="chair-verdict good degraded">Chair verdict: Ship it <span class="rests">— rests on '
                     r"fewer than two judges \(judged: false\)</span></p>", page)


def test_a_degraded_run_never_shows_the_clean_chip() -> None:
    page = build_report({**worked(), "overallVerdict": "Ship it", "degrades": DEGRADES[:1]}, fmt="html")
    assert '<p class="chair-verdict good degraded">Chair verdict: Ship it <span class="rests">— see What was lost' in page
    clean = build_report({**worked(), "overallVerdict": "Ship it"}, fmt="html")
    assert '<p class="chair-verdict good">Chair verdict: Ship it</p>' in clean


def test_chair_synthesis_and_hard_questions_are_rendered_and_neutralised() -> None:
    doc = {**worked(), "synthesis": f"First *para* {SCRIPT}.\n\n# Not a heading\n\n1. not a list",
           "hardQuestions": ["Why [this](http://x)?", "What `breaks`?"]}
    md = build_report(doc)
    chair = md.split("## Chair's synthesis\n\n", 1)[1].split("\n\n## ", 1)[0]
    assert chair == ("> First \\*para\\* \\<script\\>alert(1)\\</script\\>.\n\n"
                     "> \\# Not a heading\n\n"
                     "> \\1. not a list\n\n"
                     "### Hard questions\n\n"
                     "1. Why \\[this\\](http://x)?\n"
                     "2. What \\`breaks\\`?")
    page = build_report(doc, fmt="html")
    assert SCRIPT not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert '<ol class="hard-questions">' in page


def test_debate_round_from_the_run_summary_or_from_the_findings() -> None:
    doc = worked()
    doc["findings"][2]["debate"] = {"action": "defended", "previousTier": "Disputed"}  # B2, now Contested
    doc["findings"][1]["debate"] = {"action": "withdrawn", "previousTier": "Contested"}
    derived = build_report(doc)
    assert derived.split("## Debate round\n\n", 1)[1].split("\n\n", 1)[0].splitlines() == [
        "- Defended 1 · amended 0 · withdrawn 1 · no response 0",
        "- Verdict changes: 2",
        "- **B1**: withdrawn (was Contested, now Singleton)",
        "- **B2**: defended (was Disputed, now Contested)",
    ]
    summary = {"enabled": True, "outcome": "ran", "defended": 1, "amended": 0, "withdrawn": 1, "noResponse": 0,
               "verdictChanges": 1}
    told = build_report({**doc, "debate": summary})
    assert "## Debate round\n\n- Outcome: ran\n" in told and "- Verdict changes: 1\n" in told
    nothing = build_report({**worked(), "debate": {"enabled": True, "outcome": "nothing-to-debate"}})
    assert "## Debate round\n\n- Outcome: nothing-to-debate\n- Defended 0" in nothing
    assert sections(told).index("Debate round") == sections(told).index("Findings by tier") + 1


def test_hostile_losses_notes_and_claims_are_escaped_in_html() -> None:
    rec = record()
    for f in rec["findings"]:
        f["claim"], f["location"] = SCRIPT, f'"><img src=x onerror=alert(1)>'
    doc = {**worked(), "degrades": [{"what": SCRIPT, "why": SCRIPT}], "notices": [SCRIPT],
           "debate": {"outcome": SCRIPT}}
    page = build_report(doc, fmt="html", record=rec)
    assert "<script" not in page.lower() and "<img" not in page.lower()


def test_an_unverified_repair_is_a_loss() -> None:
    doc = worked()
    doc["runStats"][1]["findingsUnverified"] = True
    md = build_report(doc)
    assert "## What was lost\n\n- The findings of gpt are unverified — a repair could not be checked" in md
