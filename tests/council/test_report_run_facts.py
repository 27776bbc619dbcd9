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
    assert block == ("- Notice: seat mistral produced no review — PROVIDER\\_ERROR: boom\n"
                     "- Notice: no chair verdict — the chair, its retry and the promoted fallback all failed\n\n"
                     "**Notes:**\n\n"
                     "- lens run: not recorded in the reliability ledger")
    page = build_report(doc, fmt="html")
    assert re.findall(r"<h2>(.*?)</h2>", page)[:2] == ["Verdict summary", "What was lost"]
    assert "<li>Notice: seat mistral produced no review — PROVIDER_ERROR: boom</li>" in page
    assert "<strong>Notes:</strong>" in page


def test_notes_alone_say_nothing_was_lost() -> None:
    md = build_report({**worked(), "notices": ["a notice"]})
    assert "## What was lost\n\n_Nothing was lost._\n\n**Notes:**\n\n- a notice" in md


def test_a_verdict_on_fewer_than_two_judges_says_so_next_to_it() -> None:
    doc = {**worked(), "overallVerdict": "Ship it", "judged": False}
    md = build_report(doc)
    assert "**Chair verdict: Ship it** — _rests on fewer than two judges (judged: false)_" in md
    # A hand-assembled verdict has no degrades: its judged:false is listed as the loss.
    assert "## What was lost\n\n- Notice: cross-review is thin — fewer than two judges" in md
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
        "- **B1**: Withdrawn by raiser — Contested → Singleton",
        "- **B2**: defended — Disputed → Contested",
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
    assert ("## What was lost\n\n- Notice: seat gpt's findings came from a repair of a response with no findings "
            "block — nothing verified them") in md
    page = build_report(doc, fmt="html")
    assert "<li>Notice: seat gpt&#x27;s findings came from a repair of a response with no findings block" in page


# --------------------------------------------------------------------------- issue 28


def council_run() -> dict[str, Any]:
    """The worked example as a council run's verdict (the engine pins runType headless)."""
    return {**worked(), "runType": "headless"}


def test_a_clean_bench_is_said_before_the_cost() -> None:
    doc = {**council_run(), "findings": [], "tierCounts": {"Confirmed": 0, "Contested": 0, "Singleton": 0, "Disputed": 0}}
    md = build_report(doc)
    said = "_No findings were raised on this bench — a clean review is a valid review._"
    assert f"## Findings by tier\n\n{said}\n\n## Cost" in md
    page = build_report(doc, fmt="html")
    assert page.index("No findings were raised on this bench — a clean review is a valid review.") < page.index("<h2>Cost</h2>")


def test_every_loss_is_one_notice_in_one_voice() -> None:
    doc = {**council_run(), "degrades": [
        {"kind": "degrade", "channel": "stage1", "what": "seat beta did not review", "why": "the leg ended with PROVIDER_ERROR"},
        {"kind": "degrade", "channel": "review", "what": "review cap cut the judges' bundle", "why": "it held 40 reviews"},
    ]}
    doc["runStats"][0]["findingsUnverified"] = True
    lost = build_report(doc).split("## What was lost\n\n", 1)[1].split("\n\n## ", 1)[0].splitlines()
    assert lost == [
        "- Notice: seat beta did not review — the leg ended with PROVIDER\\_ERROR",
        "- Notice: review cap cut the judges' bundle — it held 40 reviews",  # a kind of degrade this version never wrote
        "- Notice: seat deepseek's findings came from a repair of a response with no findings block — nothing "
        "verified them against a first reply, so they stand on the repair alone",
    ]


def test_losses_notes_and_heals_are_three_things() -> None:
    doc = {**council_run(), "degrades": [
        {"kind": "heal", "channel": "stage1", "what": "seat gpt's leg was retried", "why": "the retry succeeded"},
        {"kind": "heal", "channel": "chair", "what": "the chair's helper failed", "why": "it was not needed"},
        {"kind": "info", "channel": "ledger", "what": "this kind of run writes no reliability rows", "why": "a lens run"},
        {"channel": "stage2", "what": "judge gpt dropped", "why": "written by an older version"},  # no kind: a loss
    ]}
    md = build_report(doc)
    block = md.split("## What was lost\n\n", 1)[1].split("\n\n## ", 1)[0]
    assert block == ("- Notice: judge gpt dropped — written by an older version\n\n"
                     "**Notes:**\n\n"
                     "- This kind of run writes no reliability rows — a lens run")
    assert "retried" not in md and "helper" not in md
    page = build_report(doc, fmt="html")
    assert "retried" not in page and "helper" not in page and "<li>Notice: judge gpt dropped" in page
    # Only notes, only heals: nothing was lost.
    healed = build_report({**council_run(), "degrades": doc["degrades"][:3]})
    assert "## What was lost\n\n_Nothing was lost._\n\n**Notes:**" in healed
    assert "## What was lost" not in build_report({**council_run(), "degrades": doc["degrades"][:2]})


def test_a_debated_run_says_each_challenged_finding_and_its_tier_movement() -> None:
    doc = council_run()
    doc["findings"][2]["debate"] = {"action": "defended", "previousTier": "Disputed"}  # B2, now Contested
    doc["findings"][1]["debate"] = {"action": "withdrawn", "previousTier": "Singleton"}
    doc["findings"][0]["debate"] = {"action": "amended", "previousTier": "Contested"}  # A1, now Confirmed
    rows = build_report(doc).split("## Debate round\n\n", 1)[1].split("\n\n", 1)[0].splitlines()[-3:]
    assert rows == ["- **A1**: amended — Contested → Confirmed",
                    "- **B1**: Withdrawn by raiser — stays Singleton",
                    "- **B2**: defended — Disputed → Contested"]
    page = build_report(doc, fmt="html")
    assert "<li><strong>B2</strong>: defended — Disputed → Contested</li>" in page


def test_a_council_runs_tier_table_is_qualified_and_totals_the_run() -> None:
    md = build_report(council_run())
    assert "| Singleton | 1 |\n\n_Tiers report peer concurrence, never verification._\n\n## Adjudication matrix" in md
    assert "| **Run total** | | | $0.0900 |" in md and "Wave total" not in md
    page = build_report(council_run(), fmt="html")
    assert "<em>Tiers report peer concurrence, never verification.</em>" in page
    assert "<td>Run total</td>" in page and "Wave total" not in page
    # The seed's worked example (the skill path, costed by its wave) is held byte for byte.
    seed = build_report(worked())
    assert "never verification" not in seed and "| **Wave total** | | | $0.0900 |" in seed
    with_wave = build_report(council_run(), wave={"usage": {"cost": {"amount": 0.09, "source": "reported"}}})
    assert "| **Wave total** | | | $0.0900 |" in with_wave  # a wave document's total is the wave's

