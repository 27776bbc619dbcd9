"""The council's optional elements end to end: `--debate`, `--critic`, `--lenses`,
`--claude-review` and twin benches, on the real engine against the loopback fake provider.

Members answer by the kind of prompt they receive (see `council_helpers.py`); judges here vote
finding by finding (`voting_judge`) so each test can put findings in the tier it needs. Every
test checks the exit code and run.json, validates every JSON document the run wrote against its
schema, and renders the report from verdict.json in both formats to read the lines a person
would read.
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

import pytest
from council_helpers import (
    ALWAYS,
    OUTPUTS,
    assert_nothing_happened,
    check_documents,
    degrade_channels,
    files,
    finding,
    kind,
    kinds_asked,
    ledger,
    load,
    member,
    preflight_refused,
    review,
    defense_reply,
    revote_reply,
    voting_judge,
)
from fakeprovider import FakeProvider, chat, error, usage

from amicus_mcp.council.report import build_report
from amicus_mcp.engine import council_run
from amicus_mcp.engine import run_council
from amicus_mcp.engine.options import RunOptions
from amicus_mcp.errors import ClaudeReviewInvalid

pytestmark = pytest.mark.anyio

DEBATE_FILES = ("tally-provisional.json", "revote-bundle.md", "debate.json")


def reports(run_dir: Path) -> tuple[str, str]:
    """(report.md, the visible text of report.html), both rendered from verdict.json with the
    run's tally record (for the claims); the engine's own report.html must be exactly that."""
    verdict, record = load(run_dir, "verdict.json"), load(run_dir, "tally.json")
    md = build_report(verdict, fmt="md", record=record)
    page = build_report(verdict, fmt="html", record=record)
    assert (run_dir / "report.html").read_text(encoding="utf-8") == page
    return md, visible_text(page)


def visible_text(page: str) -> str:
    body = page.split("<main>", 1)[1]
    return html.unescape(re.sub(r"<[^>]+>", "", body))


def about(md: str) -> list[str]:
    """The bullet lines of the report's "About this run" section ([] when it has none)."""
    if "## About this run" not in md:
        return []
    section = md.split("## About this run\n\n", 1)[1].split("\n\n", 1)[0]
    return [line.removeprefix("- ") for line in section.splitlines()]


def matrix_rows(md: str) -> dict[str, list[str]]:
    """The Markdown adjudication matrix: header and one cell list per finding id."""
    table = md.split("## Adjudication matrix\n\n", 1)[1].split("\n\n", 1)[0]
    lines = table.splitlines()
    rows = {"header": [c.strip() for c in lines[0].strip("|").split("|")]}
    for line in lines[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        rows[cells[0]] = cells
    return rows


def by_id(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {f["id"]: f for f in doc["findings"]}


def stats(doc: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [(r["role"], r["model"], r.get("seat"), r["status"]) for r in doc["runStats"]]


def models_requested(fake: FakeProvider) -> set[str]:
    return {r.body["model"] for r in fake.requests if isinstance(r.body, dict) and "model" in r.body}


# --------------------------------------------------------------------------- debate


DEBATE_VOTES = {
    # judge → its votes (every other id: agree). Peer tiers, provisional:
    #   A1 b✗ c✗ d✓ e–  → Disputed     B1 a✗ c– d– e–  → Contested    B2 all ✓ → Confirmed
    #   C1 a✗ b✗ d– e–  → Disputed     D1 a✗ b✓ c– e–  → Contested    E1 a✗ b– c– d✓ → Contested
    "a": {"B1": "dispute", "C1": "dispute", "D1": "dispute", "E1": "dispute"},
    "b": {"A1": "dispute", "C1": "dispute", "E1": "neutral"},
    "c": {"A1": "dispute", "B1": "neutral", "D1": "neutral", "E1": "neutral"},
    "d": {"B1": "neutral", "C1": "neutral"},
    "e": {"A1": "neutral", "B1": "neutral", "C1": "neutral", "D1": "neutral"},
}
AMENDED = "B1 amended: only writes to a hot key evict the whole cache"


async def test_debate_defend_amend_withdraw_and_no_response(fake, council, run_dir, config_dir, monkeypatch):
    """Five seats, six findings, five of them debated: a defends A1, b amends B1, c withdraws C1,
    d's defense leg dies, e's defense never parses (not even after its one repair). The re-votes
    move A1 Disputed → Confirmed and B1 Contested → Singleton; a re-vote can only revisit the
    judge's own disputes, so no tier can move the other way."""
    appends: list[dict[str, Any]] = []
    real_append = council_run.append_ledger
    monkeypatch.setattr(council_run, "append_ledger",
                        lambda record, **kw: appends.append(record) or real_append(record, **kw))

    def judge(name: str) -> Any:
        return voting_judge(DEBATE_VOTES[name], model=f"vendor/{name}-1", usage=usage(100, 50))

    member(fake, "a", judge=judge("a"), defense=chat(defense_reply(A1=("defend", "section 2 says evict-on-write"))),
           revote=chat(revote_reply(B1="neutral")))
    member(fake, "b", tag="seat-b", stage1=chat(review("seat-b", 2)), judge=judge("b"),
           defense=chat(defense_reply(B1=("amend", AMENDED))),
           revote=chat(revote_reply(A1="agree")))
    # c never answers about A1 (its original dispute stands) and tries to re-vote on B1, which it
    # did not dispute: that vote is ignored — a re-vote only ever revisits the judge's own disputes.
    member(fake, "c", judge=judge("c"), defense=chat(defense_reply(C1="withdraw")),
           revote=chat(revote_reply(B1="dispute")))
    member(fake, "d", judge=judge("d"), defense=error(400, "defense leg crashed"))  # a dead defense leg
    member(fake, "e", judge=judge("e"), defense=chat("I stand by everything I said."),
           debate_repair=chat("Still no block, sorry."))  # unparseable, and still so after its one repair
    member(fake, "chair")
    bench = [f"fake/{n}" for n in "abcde"]
    run, code = await council(bench, debate=True)
    assert (code, run["status"]) == (2, "partial")  # the two unusable defenses degrade the run
    check_documents(run_dir, run)
    rid = run["runId"]

    # run.json: the round's counters and stages.
    assert run["debate"] == {"enabled": True, "outcome": "ran", "contested": 3, "disputed": 2, "defended": 1,
                             "amended": 1, "withdrawn": 1, "noResponse": 2, "revoteJudges": 3, "revoteApplied": 2,
                             "verdictChanges": 2}
    assert [s["name"] for s in run["stages"]] == ["stage1", "stage2", "tally-provisional", "debate-defense",
                                                  "debate-revote", "tally", "chair", "verdict"]
    assert all(s["status"] == "complete" for s in run["stages"])
    assert sorted(d["what"] for d in run["degrades"]) == ["defense by fake/d unusable", "defense by fake/e unusable"]
    assert degrade_channels(run) == ["debate", "debate"]

    # The artifacts of a round that ran.
    assert files(run_dir) == {*ALWAYS, *OUTPUTS, *DEBATE_FILES, "chair-packet.md", "chair-output.md",
                              *(f"review-fake-{n}.md" for n in "abcde"), *(f"judge-fake-{n}.md" for n in "abcde"),
                              "rebuttal-fake-a.md", "rebuttal-fake-b.md", "rebuttal-fake-c.md", "rebuttal-fake-e.md",
                              "revote-fake-a.md", "revote-fake-b.md", "revote-fake-c.md"}
    assert "section 2 says evict-on-write" in (run_dir / "rebuttal-fake-a.md").read_text(encoding="utf-8")
    assert (run_dir / "rebuttal-fake-e.md").read_text(encoding="utf-8") == "I stand by everything I said."
    assert (run_dir / "revote-fake-b.md").read_text(encoding="utf-8") == revote_reply(A1="agree")

    # Who was asked what: d's dead leg got no repair; e got exactly one; only disputers re-voted.
    assert kinds_asked(fake, "a") == ["stage1", "judge", "defense", "revote"]
    assert kinds_asked(fake, "b") == ["stage1", "judge", "defense", "revote"]
    assert kinds_asked(fake, "c") == ["stage1", "judge", "defense", "revote"]
    assert kinds_asked(fake, "d") == ["stage1", "judge", "defense"]
    assert kinds_asked(fake, "e") == ["stage1", "judge", "defense", "debate-repair"]
    defense_a = fake.prompts("a")[2]
    assert "**A1** (major) — seat-a claim 1" in defense_a and "disputed by 2 peer(s)" in defense_a
    assert "a peer: - A1 is wrong: the cited section says otherwise." in defense_a  # the disputer's own words
    assert "B1" not in defense_a
    assert "**B1**" in fake.prompts("b")[2] and "**B2**" not in fake.prompts("b")[2]  # B2 is Confirmed: not debated
    assert "I stand by everything I said." in fake.prompts("e")[3]  # the repair quotes the failed reply
    for prompt in [p for p in fake.prompts() if kind(p) in ("defense", "revote")]:
        assert not re.search(r"fake/|vendor/", prompt)  # the round stays anonymous

    # One shared re-vote prompt: the defended and the amended finding, nothing else.
    bundle = (run_dir / "revote-bundle.md").read_text(encoding="utf-8")
    revote_prompts = [p for p in fake.prompts() if kind(p) == "revote"]
    assert len(revote_prompts) == 3 and all(p == bundle for p in revote_prompts)
    assert re.findall(r"^\*\*([A-Z]\d+)\*\*", bundle, re.M) == ["A1", "B1"]
    assert f"AMENDED — {AMENDED} (originally: seat-b claim 1)" in bundle
    assert "the raiser's answer: section 2 says evict-on-write" in bundle

    # The provisional tally is the pre-debate record, written before any debate leg.
    provisional = load(run_dir, "tally-provisional.json")
    tiers_before = {"A1": "Disputed", "B1": "Contested", "B2": "Confirmed", "C1": "Disputed", "D1": "Contested",
                    "E1": "Contested"}
    assert {f["id"]: f["tier"] for f in provisional["findings"]} == tiers_before
    assert all("debate" not in f for f in provisional["findings"])
    assert by_id(provisional)["B1"]["claim"] == "seat-b claim 1"

    # The final tally: amended claim in place, re-votes applied, debated findings decorated.
    tally = load(run_dir, "tally.json")
    final = by_id(tally)
    assert {fid: f["tier"] for fid, f in final.items()} == {**tiers_before, "A1": "Confirmed", "B1": "Singleton"}
    assert run["tierCounts"] == tally["tierCounts"] == {"Confirmed": 2, "Contested": 2, "Singleton": 1, "Disputed": 1}
    assert final["A1"]["basis"] == {"a": 2, "d": 1, "n": 1}  # b's agree replaced its dispute; c's dispute stands
    assert final["B1"]["basis"] == {"a": 0, "d": 0, "n": 4}  # a's neutral applied; c's extra re-vote ignored
    assert (final["B1"]["id"], final["B1"]["raiser"], final["B1"]["severity"], final["B1"]["claim"]) == (
        "B1", "fake/b", "major", AMENDED)
    expected_debate = {"A1": {"action": "defended", "previousTier": "Disputed"},
                       "B1": {"action": "amended", "previousTier": "Contested"},
                       "C1": {"action": "withdrawn", "previousTier": "Disputed"},
                       "D1": {"action": "no-response", "previousTier": "Contested"},
                       "E1": {"action": "no-response", "previousTier": "Contested"}}
    assert {fid: f["debate"] for fid, f in final.items() if "debate" in f} == expected_debate
    tally_input = load(run_dir, "tally-input.json")
    assert {f["id"]: f.get("claim") for f in tally_input["findings"]}["B1"] == AMENDED
    votes = {(v["findingId"], v["judge"]): v["verdict"] for v in tally_input["adjudications"]}
    assert (votes[("A1", "fake/b")], votes[("A1", "fake/c")], votes[("B1", "fake/a")], votes[("B1", "fake/c")]) == (
        "agree", "dispute", "neutral", "neutral")

    # The verdict: the withdrawn finding is still there, denied and never put to the user.
    verdict = load(run_dir, "verdict.json")
    decided = {f["id"]: (f["decision"], f["applied"]) for f in verdict["findings"]}
    assert decided == {"A1": (None, False), "B1": (None, False), "B2": (None, False), "C1": ("denied", False),
                       "D1": (None, False), "E1": (None, False)}
    assert {f["id"]: f["debate"] for f in verdict["findings"] if "debate" in f} == expected_debate

    # debate.json: the round finding by finding.
    record = load(run_dir, "debate.json")
    assert (record["type"], record["runId"], record["summary"]) == ("council-debate", rid, run["debate"])
    rows = {r["id"]: r for r in record["findings"]}
    assert list(rows) == ["A1", "B1", "C1", "D1", "E1"]
    assert {fid: (r["raiser"], r["previousTier"], r["tier"], r["action"], r["disputers"]) for fid, r in rows.items()} == {
        "A1": ("fake/a", "Disputed", "Confirmed", "defended", ["fake/b", "fake/c"]),
        "B1": ("fake/b", "Contested", "Singleton", "amended", ["fake/a"]),
        "C1": ("fake/c", "Disputed", "Disputed", "withdrawn", ["fake/a", "fake/b"]),
        "D1": ("fake/d", "Contested", "Contested", "no-response", ["fake/a"]),
        "E1": ("fake/e", "Contested", "Contested", "no-response", ["fake/a"]),
    }
    assert rows["A1"]["argument"] == "section 2 says evict-on-write" and rows["B1"]["claim"] == AMENDED
    assert rows["A1"]["revotes"] == [{"judge": "fake/b", "verdict": "agree", "reason": "A1: agree after the answer"}]
    assert rows["B1"]["revotes"] == [{"judge": "fake/a", "verdict": "neutral", "reason": "B1: neutral after the answer"}]
    assert all(rows[fid]["revotes"] == [] for fid in ("C1", "D1", "E1"))

    # Legs and runStats: the debate's legs are budgeted and reported like any other.
    debate_legs = [(leg["role"], leg["model"], leg["status"]) for leg in run["legs"] if leg["stage"] == "debate"]
    assert sorted(debate_legs) == sorted([("rebuttal", f"fake/{n}", "complete") for n in "abce"] +
                                         [("rebuttal", "fake/d", "error"), ("repair", "fake/e", "complete")] +
                                         [("revote", f"fake/{n}", "complete") for n in "abc"])
    assert {leg["id"] for leg in run["legs"] if leg["stage"] == "debate"} == {
        *(f"{rid}-dr{i}" for i in range(1, 6)), f"{rid}-drr1", *(f"{rid}-rv{i}" for i in range(1, 4))}
    debate_rows = [(r["role"], r["model"], r["status"]) for r in tally["runStats"]
                   if r["role"] in ("rebuttal", "revote") or (r["role"] == "repair" and r["waveId"].endswith("drr1"))]
    assert debate_rows == [("rebuttal", "fake/a", "complete"), ("revote", "fake/a", "complete"),
                           ("rebuttal", "fake/b", "complete"), ("revote", "fake/b", "complete"),
                           ("rebuttal", "fake/c", "complete"), ("revote", "fake/c", "complete"),
                           ("rebuttal", "fake/d", "error"),
                           ("rebuttal", "fake/e", "complete"), ("repair", "fake/e", "complete")]
    assert [r["role"] for r in tally["runStats"]][-1] == "chair"  # the round sits between Stage 2 and the chair

    # The chair read the post-debate record: final tiers, the amended claim, what the round changed.
    packet = (run_dir / "chair-packet.md").read_text(encoding="utf-8")
    packet_lines = {m.group(1): m.group(0) for m in re.finditer(r"^- \*\*([A-Z]\d+)\*\* .*\n  - tier: .*$", packet, re.M)}
    assert packet_lines["A1"].endswith("tier: Confirmed (solid); peers a2/d1/n1; debate: defended, was Disputed")
    assert f"(major, raised by fake/b) — {AMENDED}\n" in packet_lines["B1"] and "seat-b claim 1" not in packet
    assert packet_lines["B1"].endswith("tier: Singleton (thin); peers a0/d0/n4; debate: amended, was Contested")
    assert packet_lines["C1"].endswith("tier: Disputed (solid); peers a0/d2/n2; debate: withdrawn, was Disputed")
    assert packet_lines["B2"].endswith("tier: Confirmed (solid); peers a4/d0/n0")

    # The ledger: appended exactly once, from the final (post-debate) tally.
    assert len(appends) == 1 and appends[0] == tally
    rows_ = {r["model"]: r for r in ledger(config_dir)}
    assert list(rows_) == bench and all(r["runId"] == rid for r in rows_.values())
    assert (rows_["fake/a"]["confirmRate"], rows_["fake/a"]["factErrorRate"]) == (1.0, 0.0)  # provisional: 0.0, 1.0
    assert (rows_["fake/b"]["confirmRate"], rows_["fake/c"]["factErrorRate"]) == (0.5, 1.0)

    # The report.
    md, text = reports(run_dir)
    assert "- **A1** (major, raiser fake/a) — a2/d1/n1 — debate: defended (was Disputed)" in md
    assert "- **B1** (major, raiser fake/b) — a0/d0/n4 — debate: amended (was Contested)" in md
    assert "- **C1** (major, raiser fake/c) — a0/d2/n2 — denied — debate: withdrawn (was Disputed)" in md
    assert "- **D1** (major, raiser fake/d) — a1/d1/n2 — debate: no-response (was Contested)" in md
    assert "- **B2** (major, raiser fake/b) — a4/d0/n0\n" in md
    assert about(md) == ["Withdrawn by the raiser in the debate round (recorded as denied): C1."]
    assert matrix_rows(md)["C1"][-2:] == ["Disputed", "denied"]
    assert "A1 (major, raiser fake/a) — a2/d1/n1 — debate: defended (was Disputed)" in text
    assert "C1 (major, raiser fake/c) — a0/d2/n2 — denied — debate: withdrawn (was Disputed)" in text
    assert "About this run" in text and "Withdrawn by the raiser in the debate round (recorded as denied): C1." in text


async def test_debate_revote_dead_leg_and_repaired_revote(fake, council, run_dir, config_dir):
    """A1 is disputed by b, c and d; a defends it. b's re-vote leg dies (its dispute stands); c's
    re-vote is unparseable, then repaired (its one repair) into an agree; d agrees at once."""
    member(fake, "a")
    member(fake, "b", judge=voting_judge({"A1": "dispute"}), revote=error(400, "re-vote leg crashed"))
    member(fake, "c", judge=voting_judge({"A1": "dispute"}), revote=chat("I now agree with A1."),
           debate_repair=chat(revote_reply(A1="agree")))
    member(fake, "d", judge=voting_judge({"A1": "dispute"}), revote=chat(revote_reply(A1="agree")))
    member(fake, "chair")
    run, code = await council(["fake/a", "fake/b", "fake/c", "fake/d"], debate=True)
    assert (code, run["status"]) == (2, "partial")
    check_documents(run_dir, run)
    assert run["debate"] == {"enabled": True, "outcome": "ran", "contested": 0, "disputed": 1, "defended": 1,
                             "amended": 0, "withdrawn": 0, "noResponse": 0, "revoteJudges": 3, "revoteApplied": 2,
                             "verdictChanges": 1}
    assert [d["what"] for d in run["degrades"]] == ["re-vote by fake/b unusable"]
    assert kinds_asked(fake, "b") == ["stage1", "judge", "revote"]  # a dead leg gets no repair
    assert kinds_asked(fake, "c") == ["stage1", "judge", "revote", "debate-repair"]
    assert kinds_asked(fake, "d") == ["stage1", "judge", "revote"]
    assert "I now agree with A1." in fake.prompts("c")[3]
    assert files(run_dir) >= {"rebuttal-fake-a.md", "revote-fake-c.md", "revote-fake-d.md", *DEBATE_FILES}
    assert "revote-fake-b.md" not in files(run_dir)  # the dead leg wrote nothing
    final = by_id(load(run_dir, "tally.json"))["A1"]
    assert (final["tier"], final["basis"], final["debate"]) == (
        "Confirmed", {"a": 2, "d": 1, "n": 0}, {"action": "defended", "previousTier": "Disputed"})
    assert {f["id"]: f["tier"] for f in load(run_dir, "tally-provisional.json")["findings"]}["A1"] == "Disputed"
    row = load(run_dir, "debate.json")["findings"][0]
    assert (row["id"], row["tier"], row["disputers"]) == ("A1", "Confirmed", ["fake/b", "fake/c", "fake/d"])
    # Bench order, though c's repaired re-vote lands after d's.
    assert row["revotes"] == [{"judge": "fake/c", "verdict": "agree", "reason": "A1: agree after the answer"},
                              {"judge": "fake/d", "verdict": "agree", "reason": "A1: agree after the answer"}]
    roles = [(r["role"], r["model"], r["status"]) for r in load(run_dir, "tally.json")["runStats"]
             if r["role"] in ("rebuttal", "revote") or (r["role"] == "repair" and "-rvr" in r["waveId"])]
    assert roles == [("rebuttal", "fake/a", "complete"), ("revote", "fake/b", "error"), ("revote", "fake/c", "complete"),
                     ("repair", "fake/c", "complete"), ("revote", "fake/d", "complete")]
    md, text = reports(run_dir)
    assert "- **A1** (major, raiser fake/a) — a2/d1/n0 — debate: defended (was Disputed)" in md
    assert "A1 (major, raiser fake/a) — a2/d1/n0 — debate: defended (was Disputed)" in text


async def test_debate_with_nothing_contested_writes_no_debate_artifacts(fake, council, run_dir, config_dir):
    for name in "abc":
        member(fake, name)
    member(fake, "chair")
    run, code = await council(["fake/a", "fake/b", "fake/c"], debate=True)
    assert (code, run["status"]) == (0, "complete")
    check_documents(run_dir, run)
    assert run["debate"] == {"enabled": True, "outcome": "nothing-to-debate"}
    assert files(run_dir) == {*ALWAYS, *OUTPUTS, "chair-packet.md", "chair-output.md",
                              *(f"review-fake-{n}.md" for n in "abc"), *(f"judge-fake-{n}.md" for n in "abc")}
    assert not any(name.startswith(("rebuttal-", "revote-")) for name in files(run_dir))
    assert all(kind(p) in ("stage1", "judge", "chair") for p in fake.prompts())
    assert not [leg for leg in run["legs"] if leg["stage"] == "debate"]
    assert [s["name"] for s in run["stages"]] == ["stage1", "stage2", "tally-provisional", "tally", "chair", "verdict"]
    tally = load(run_dir, "tally.json")
    assert tally["tierCounts"]["Confirmed"] == 3 and all("debate" not in f for f in tally["findings"])
    assert len(ledger(config_dir)) == 3
    md, text = reports(run_dir)
    assert "debate:" not in md and about(md) == [] and "About this run" not in text


async def test_debate_skipped_by_the_cost_ceiling(gateway, council, run_dir, config_dir):
    """Stage 2 reports enough spend to reach the ceiling: the warranted round is skipped, the
    chair too, and the run says so (exit 2) — with the provisional tally as its final word."""
    for name in ("vendor/a", "vendor/b", "vendor/c"):
        member(gateway, name, cost=0.001, judge=voting_judge({"A1": "dispute"}, usage=usage(100, 50, cost=0.2)))
    member(gateway, "vendor/chair", cost=0.001)
    models = ["openrouter/vendor/a", "openrouter/vendor/b", "openrouter/vendor/c"]
    run, code = await council(models, chair="openrouter/vendor/chair", max_cost=0.5, debate=True)
    assert (code, run["status"]) == (2, "partial")
    check_documents(run_dir, run)
    assert run["debate"] == {"enabled": True, "outcome": "skipped-cost-ceiling"}
    assert [(d["channel"], d["what"]) for d in run["degrades"]] == [("debate", "debate round skipped"),
                                                                   ("chair", "no chair verdict")]
    assert "the --max-cost ceiling was reached before the defense" in run["notices"][0]
    assert all(kind(p) in ("stage1", "judge") for p in gateway.prompts())  # no defense, no re-vote, no chair
    assert not [leg for leg in run["legs"] if leg["stage"] == "debate"]
    assert not {*DEBATE_FILES, "chair-packet.md"} & files(run_dir)  # no round ran: no debate artifacts
    assert not any(name.startswith(("rebuttal-", "revote-")) for name in files(run_dir))
    tally = load(run_dir, "tally.json")
    assert by_id(tally)["A1"]["tier"] == "Disputed" and all("debate" not in f for f in tally["findings"])
    assert run["overallVerdict"] is None and run["usage"]["cost"]["amount"] == pytest.approx(0.603)
    assert len(ledger(config_dir)) == 3  # the final tally is still recorded
    md, text = reports(run_dir)
    assert "- **A1** (major, raiser openrouter/vendor/a) — a0/d2/n0\n" in md and "debate:" not in md


async def test_debate_ceiling_reached_after_the_defense_skips_the_revote(gateway, council, run_dir):
    """The defense itself spends the rest of the budget: the re-vote is skipped, but the
    defense happened — its answers are on record and the round says it was cut short."""
    # A1 (a's) and B1 (b's) are Contested: disputed by the other raiser, agreed by c.
    member(gateway, "vendor/c", cost=0.001)
    member(gateway, "vendor/a", cost=0.001, judge=voting_judge({"B1": "dispute"}, usage=usage(100, 50, cost=0.001)),
           defense=chat(defense_reply(A1="withdraw"), usage=usage(100, 50, cost=0.6)))
    member(gateway, "vendor/b", cost=0.001, judge=voting_judge({"A1": "dispute"}, usage=usage(100, 50, cost=0.001)),
           defense=chat(defense_reply(B1=("amend", AMENDED)), usage=usage(100, 50, cost=0.001)))
    member(gateway, "vendor/chair", cost=0.001)
    models = ["openrouter/vendor/a", "openrouter/vendor/b", "openrouter/vendor/c"]
    run, code = await council(models, chair="openrouter/vendor/chair", max_cost=0.5, debate=True)
    assert (code, run["status"]) == (2, "partial")
    check_documents(run_dir, run)
    assert run["debate"]["outcome"] == "skipped-cost-ceiling"
    assert (run["debate"]["withdrawn"], run["debate"]["amended"], run["debate"]["revoteJudges"]) == (1, 1, 0)
    assert [d["what"] for d in run["degrades"]] == ["debate round skipped", "no chair verdict"]
    assert "before the re-vote" in run["notices"][0]
    assert not [p for p in gateway.prompts() if kind(p) in ("revote", "chair")]
    assert {"tally-provisional.json", "debate.json", "rebuttal-openrouter-vendor-a.md",
            "rebuttal-openrouter-vendor-b.md"} <= files(run_dir)
    assert not {"revote-bundle.md", "revote-openrouter-vendor-a.md", "revote-openrouter-vendor-b.md",
                "revote-openrouter-vendor-c.md"} & files(run_dir)
    final = by_id(load(run_dir, "tally.json"))
    assert final["A1"]["debate"] == {"action": "withdrawn", "previousTier": "Contested"}
    assert (final["B1"]["debate"], final["B1"]["claim"]) == ({"action": "amended", "previousTier": "Contested"}, AMENDED)
    assert final["B1"]["tier"] == "Contested"  # nobody re-voted
    record = load(run_dir, "debate.json")
    assert record["summary"] == run["debate"]
    assert {r["id"]: (r["action"], r["tier"], r["revotes"]) for r in record["findings"]} == {
        "A1": ("withdrawn", "Contested", []), "B1": ("amended", "Contested", [])}
    assert {f["id"]: f["decision"] for f in load(run_dir, "verdict.json")["findings"]}["A1"] == "denied"
    md, _ = reports(run_dir)
    assert about(md) == ["Withdrawn by the raiser in the debate round (recorded as denied): A1."]


# --------------------------------------------------------------------------- the critic seat


async def test_critic_seat(fake, council, run_dir, config_dir):
    for name in "abc":
        member(fake, name)
    member(fake, "chair")
    run, code = await council(["fake/a", "fake/b", "fake/c"], critic="fake/b")
    assert (code, run["status"]) == (0, "complete")
    check_documents(run_dir, run)
    assert run["critic"] == "fake/b" and run["lenses"] is None
    assert [(s["id"], s["role"], s["lens"]) for s in run["seats"]] == [
        ("fake/a", "seat", None), ("fake/b", "critic", None), ("fake/c", "seat", None)]
    assert files(run_dir) == {*ALWAYS, *OUTPUTS, "briefing-stage1-critic.md", "chair-packet.md", "chair-output.md",
                              *(f"review-fake-{n}.md" for n in "abc"), *(f"judge-fake-{n}.md" for n in "abc")}

    # The critic brief went to the critic seat only; everyone else got the standard briefing.
    standard = (run_dir / "briefing-stage1.md").read_text(encoding="utf-8")
    critic_brief = (run_dir / "briefing-stage1-critic.md").read_text(encoding="utf-8")
    assert "You are this bench's designated critic" in critic_brief and "designated critic" not in standard
    assert fake.prompts("b")[0] == critic_brief
    assert fake.prompts("a")[0] == fake.prompts("c")[0] == standard
    assert [p for p in fake.prompts() if "designated critic" in p] == [critic_brief]

    # The judges are never told a critic exists.
    bundle = (run_dir / "bundle-stage2.md").read_text(encoding="utf-8")
    assert "critic" not in bundle.lower()
    assert [p for p in fake.prompts() if kind(p) == "judge"] == [bundle] * 3

    tally = load(run_dir, "tally.json")
    assert stats(tally)[:3] == [("seat", "fake/a", None, "complete"), ("critic", "fake/b", None, "complete"),
                                ("seat", "fake/c", None, "complete")]
    assert [r["role"] for r in ledger(config_dir)] == ["seat", "critic", "seat"]  # a critic run is ledger-recorded

    md, text = reports(run_dir)
    disclosure = ("Critic seat: fake/b reviewed with the adversarial brief. It can recognise its own review in the "
                  "anonymized bundle by its shape, so self-bias washes out less for that seat.")
    assert about(md) == [disclosure]
    assert disclosure in text


async def test_critic_on_a_twin_bench_takes_the_first_seat_of_its_alias(fake, council, run_dir):
    member(fake, "a")
    member(fake, "b")
    member(fake, "chair")
    run, code = await council(["fake/a", "fake/a", "fake/b"], critic="fake/a")
    assert code == 0
    check_documents(run_dir, run)
    assert [(s["id"], s["role"]) for s in run["seats"]] == [("fake/a#1", "critic"), ("fake/a#2", "seat"),
                                                           ("fake/b", "seat")]
    assert sorted(kind(p) + ("/critic" if "designated critic" in p else "") for p in fake.prompts("a")[:2]) == [
        "stage1", "stage1/critic"]
    rows = stats(load(run_dir, "tally.json"))[:3]
    assert rows == [("critic", "fake/a", "fake/a#1", "complete"), ("seat", "fake/a", "fake/a#2", "complete"),
                    ("seat", "fake/b", None, "complete")]
    md, _ = reports(run_dir)
    assert about(md)[0].startswith("Critic seat: fake/a#1 reviewed with the adversarial brief.")


# --------------------------------------------------------------------------- expert lenses


LENSES = ["security-architect", "site-reliability", "product-manager"]


async def test_expert_lenses(fake, council, run_dir, config_dir):
    for name in "abc":
        member(fake, name)
    member(fake, "chair")
    run, code = await council(["fake/a", "fake/b", "fake/c"], lenses=LENSES)
    assert (code, run["status"]) == (0, "complete")
    check_documents(run_dir, run)
    assert run["lenses"] == sorted(LENSES) and run["critic"] is None

    # The assignment is random: read it back, then check it is a one-to-one seat ↔ lens map.
    assigned = {s["alias"]: s["lens"] for s in run["seats"]}
    assert sorted(assigned.values()) == sorted(LENSES)
    assert all(s["role"] == f"lens:{s['lens']}" for s in run["seats"])
    assert files(run_dir) == {*ALWAYS, *OUTPUTS, *(f"briefing-stage1-lens-{lens}.md" for lens in LENSES),
                              "chair-packet.md", "chair-output.md",
                              *(f"review-fake-{n}.md" for n in "abc"), *(f"judge-fake-{n}.md" for n in "abc")}
    for alias, lens in assigned.items():
        prompt = fake.prompts(alias.removeprefix("fake/"))[0]
        words = lens.replace("-", " ")
        assert f"Review the material strictly as a “{words}” would" in prompt
        assert prompt == (run_dir / f"briefing-stage1-lens-{lens}.md").read_text(encoding="utf-8")
        assert all(other.replace("-", " ") not in prompt for other in LENSES if other != lens)  # no one learns the others'
    standard = (run_dir / "briefing-stage1.md").read_text(encoding="utf-8")
    assert standard not in fake.prompts() and "strictly as" not in standard  # on record, sent to no one

    # Cross-review never mentions lenses.
    bundle = (run_dir / "bundle-stage2.md").read_text(encoding="utf-8")
    for prompt in [bundle, *(p for p in fake.prompts() if kind(p) in ("judge", "chair"))]:
        assert "lens" not in prompt.lower()
        assert not any(lens.replace("-", " ") in prompt or lens in prompt for lens in LENSES)
    assert [p for p in fake.prompts() if kind(p) == "judge"] == [bundle] * 3

    tally = load(run_dir, "tally.json")
    assert [(r["model"], r["role"]) for r in tally["runStats"] if r["role"].startswith("lens:")] == [
        (alias, f"lens:{assigned[alias]}") for alias in ("fake/a", "fake/b", "fake/c")]

    # Never recorded in the reliability ledger, and the run says why.
    assert ledger(config_dir) == [] and not (config_dir / "council-ledger.jsonl").exists()
    assert "lens run: not recorded in the reliability ledger (lens reviews are not comparable)" in run["notices"]

    md, text = reports(run_dir)
    disclosure = ("Expert lenses: each seat reviewed through one lens (product-manager, security-architect, "
                  "site-reliability). A judge can spot its own lens-flavoured review, so anonymity was weaker; "
                  "street-cred is not comparable across lenses; and the run was not recorded in the reliability ledger.")
    assert about(md) == [disclosure] and disclosure in text


async def test_lenses_leave_an_existing_ledger_untouched(fake, council, run_dir, config_dir):
    member(fake, "a")
    member(fake, "b")
    member(fake, "chair")
    path = config_dir / "council-ledger.jsonl"
    path.write_text('{"schemaVersion": 2, "runId": "old", "model": "fake/a"}\n', encoding="utf-8")
    before = path.read_bytes()
    run, code = await council(["fake/a", "fake/b"], lenses=["security-architect", "site-reliability"])
    assert code == 0
    check_documents(run_dir, run)
    assert path.read_bytes() == before
    md, _ = reports(run_dir)
    assert about(md)[0].startswith("Expert lenses: each seat reviewed through one lens (security-architect, site-reliability).")


# --------------------------------------------------------------------------- pre-flight refusals


@pytest.mark.parametrize("extra, words", [
    (["--critic", "fake/z"], "the critic 'fake/z' is not a bench seat"),
    (["--critic", "fake/a", "--lenses", "security-architect,site-reliability"], "--critic and --lenses cannot be combined"),
    (["--lenses", "security-architect"], "--lenses has 1 lens(es) for 2 seats"),
    (["--lenses", "security-architect,site-reliability,product-manager"], "--lenses has 3 lens(es) for 2 seats"),
    (["--lenses", "security-architect,security-architect"], "lenses must be distinct lowercase slugs"),
    (["--lenses", "Security Architect,sre"], "lenses must be distinct lowercase slugs"),
], ids=["critic-off-bench", "critic-and-lenses", "too-few-lenses", "too-many-lenses", "duplicate-lens", "bad-slug"])
def test_optional_element_preflight_refusals(fake, config_dir, brief, run_dir, project, capsys, extra, words):
    err = preflight_refused(capsys, ["--models", "fake/a,fake/b", "--chair", "fake/chair", "--prompt-file", str(brief),
                                     "--out-dir", str(run_dir), "--project", str(project), *extra])
    assert err["code"] == "BAD_ARGS" and words in err["message"]
    assert_nothing_happened(fake, run_dir, project, config_dir)


# --------------------------------------------------------------------------- Claude's own review


def claude_review_text() -> str:
    return review("reserved", 1)  # prose + a valid findings block: finding C1 once labelled


async def test_claude_review_is_judged_under_the_last_label(fake, council, run_dir, config_dir, tmp_path):
    path = tmp_path / "claude-review.md"
    path.write_text(claude_review_text(), encoding="utf-8")
    # Both judges rank in reverse label order (Claude first) and dispute Claude's C1; b also
    # disputes a's A1, which a defends and b then accepts.
    member(fake, "a", judge=voting_judge({"C1": "dispute"}, reverse=True))
    member(fake, "b", judge=voting_judge({"A1": "dispute", "C1": "dispute"}, reverse=True),
           revote=chat(revote_reply(A1="agree", C1="agree")))
    member(fake, "chair")
    run, code = await council(["fake/a", "fake/b"], claude_review=str(path), debate=True)
    assert (code, run["status"]) == (0, "complete")
    check_documents(run_dir, run)

    assert run["labelMap"] == {"Review A": "fake/a", "Review B": "fake/b", "Review C": "claude"}
    assert list(run["labelMap"].values())[-1] == "claude"
    assert run["bench"] == ["fake/a", "fake/b"] and all(s["alias"] != "claude" for s in run["seats"])
    assert (run_dir / "review-claude.md").read_text(encoding="utf-8") == path.read_text(encoding="utf-8")
    bundle = (run_dir / "bundle-stage2.md").read_text(encoding="utf-8")
    assert "### Review C" in bundle and "reserved claim 1" in bundle and "claude" not in bundle.lower()

    # Claude is judged but never launched: no review, judge, defense, re-vote or chair leg for it.
    assert "claude" not in models_requested(fake)
    assert all(leg["model"] != "claude" for leg in run["legs"])
    assert kinds_asked(fake, "a") == ["stage1", "judge", "defense"]
    assert kinds_asked(fake, "b") == ["stage1", "judge", "revote"]
    assert kinds_asked(fake, "chair") == ["chair"]
    assert "**C1**" not in fake.prompts("a")[2]  # a defends its own finding only

    tally = load(run_dir, "tally.json")
    assert tally["meta"]["models"] == ["fake/a", "fake/b", "claude"] and tally["meta"]["claudeInCouncil"] is True
    claude_rows = [r for r in tally["runStats"] if r["model"] == "claude"]
    assert claude_rows == [{"model": "claude", "role": "claude", "wasChair": False, "conformance": "clean",
                            "status": "complete", "durationMs": None, "usage": None}]
    assert [r["role"] for r in tally["runStats"]].index("claude") == 2  # after the seats, before the judges

    # In the debate Claude's finding is a no-response: it stands as it was.
    final = by_id(tally)
    assert final["C1"]["raiser"] == "claude" and final["C1"]["tier"] == "Disputed"
    assert final["C1"]["debate"] == {"action": "no-response", "previousTier": "Disputed"}
    assert final["A1"]["debate"] == {"action": "defended", "previousTier": "Contested"} and final["A1"]["tier"] == "Confirmed"
    assert run["debate"]["noResponse"] == 1 and run["debate"]["defended"] == 1 and run["debate"]["revoteJudges"] == 1
    record = {r["id"]: r for r in load(run_dir, "debate.json")["findings"]}
    assert (record["C1"]["action"], record["C1"]["revotes"]) == ("no-response", [])  # b's re-vote on C1 is ignored
    assert "rebuttal-claude.md" not in files(run_dir) and "degrades" not in run

    verdict = load(run_dir, "verdict.json")
    assert verdict["council"] == ["fake/a", "fake/b", "claude"] and verdict["claudeInCouncil"] is True

    md, text = reports(run_dir)
    fared = ("How Claude's review fared: street-cred 1.00, rank 1 of 3; its 1 finding(s): "
             "Disputed 1 · Contested 0 · Confirmed 0 · Singleton 0.")
    assert about(md) == [fared] and fared in text
    assert matrix_rows(md)["header"][3:-2] == ["fake/a", "fake/b"]  # Claude never votes: no judge column
    assert "council: fake/a, fake/b, claude_" in md


@pytest.mark.parametrize("content, words", [
    (None, "Claude's review file"),
    ("A review without any findings block.", "NO_FENCED_BLOCK"),
    (review("claude", block={"overall": "x", "findings": [finding(1, "claude", rationale=None)]}), "MISSING_FIELD"),
], ids=["missing-file", "no-block", "bad-block"])
def test_invalid_claude_review_is_refused_before_anything_is_spent(fake, config_dir, brief, run_dir, project, capsys,
                                                                   tmp_path, content, words):
    path = tmp_path / "claude-review.md"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    member(fake, "a")
    member(fake, "b")
    err = preflight_refused(capsys, ["--models", "fake/a,fake/b", "--chair", "fake/chair", "--prompt-file", str(brief),
                                     "--out-dir", str(run_dir), "--project", str(project), "--claude-review", str(path)])
    assert err["code"] == "COUNCIL_CLAUDE_REVIEW_INVALID" and words in err["message"]
    assert_nothing_happened(fake, run_dir, project, config_dir)


async def test_invalid_claude_review_raises_from_the_library(fake, config_dir, brief, run_dir, project, tmp_path):
    path = tmp_path / "claude-review.md"
    path.write_text("```json\n{\"overall\": \"x\"}\n```\n", encoding="utf-8")
    with pytest.raises(ClaudeReviewInvalid):
        await run_council(RunOptions(prompt_file=str(brief), models=["fake/a", "fake/b"], chair="fake/chair",
                                     out_dir=str(run_dir), project=str(project), claude_review=str(path)))
    assert_nothing_happened(fake, run_dir, project, config_dir)


# --------------------------------------------------------------------------- twin benches


async def test_twin_bench_corroboration_promotes_and_dispute_demotes(fake, council, run_dir, config_dir):
    """`fake/a` holds two seats. A twin's vote on its twin's finding is a peer's vote: a#2's agree
    alone makes a#1's A1 Confirmed (flagged as same-model corroboration), and a#1's dispute makes
    a#2's B1 Contested. Both seats answer with one voice — the same model — so the twins vote alike."""
    member(fake, "a", judge=voting_judge({"A1": "agree", "B1": "dispute"}))
    member(fake, "b", judge=voting_judge({"A1": "neutral", "B1": "agree"}))
    member(fake, "chair")
    run, code = await council(["fake/a", "fake/a", "fake/b"], debate=True)
    assert (code, run["status"]) == (0, "complete")
    check_documents(run_dir, run)
    assert [s["id"] for s in run["seats"]] == ["fake/a#1", "fake/a#2", "fake/b"]

    tally = load(run_dir, "tally.json")
    provisional = by_id(load(run_dir, "tally-provisional.json"))
    final = by_id(tally)
    assert (final["A1"]["raiserSeat"], final["B1"]["raiserSeat"]) == ("fake/a#1", "fake/a#2")
    assert (final["A1"]["tier"], final["A1"]["basis"], final["A1"].get("sameModelCorroboration")) == (
        "Confirmed", {"a": 1, "d": 0, "n": 1}, True)  # by alias it would have been a Singleton
    assert (provisional["B1"]["tier"], provisional["B1"]["basis"]) == ("Contested", {"a": 1, "d": 1, "n": 0})
    assert "sameModelCorroboration" not in final["B1"] and "sameModelCorroboration" not in final["C1"]
    seats_of_votes = {(v.get("seat") or v["judge"]) for v in final["A1"]["adjudications"]}
    assert seats_of_votes == {"fake/a#1", "fake/a#2", "fake/b"}

    # The debate is seat-keyed too: B1's raiser seat defends, its disputing twin re-votes.
    assert files(run_dir) >= {"rebuttal-fake-a-2.md", "revote-fake-a-1.md", *DEBATE_FILES}
    assert not {"rebuttal-fake-a-1.md", "revote-fake-a-2.md", "rebuttal-fake-a.md"} & files(run_dir)
    record = {r["id"]: r for r in load(run_dir, "debate.json")["findings"]}
    assert list(record) == ["B1"]
    assert (record["B1"]["raiser"], record["B1"]["disputers"], [v["judge"] for v in record["B1"]["revotes"]]) == (
        "fake/a", ["fake/a#1"], ["fake/a#1"])
    assert [leg.get("seat") for leg in run["legs"] if leg["stage"] == "debate"] == ["fake/a#2", "fake/a#1"]
    assert (final["B1"]["tier"], final["B1"]["debate"]) == ("Contested", {"action": "defended", "previousTier": "Contested"})
    assert run["debate"]["revoteJudges"] == 1 and run["debate"]["revoteApplied"] == 1  # a#1 kept its dispute
    assert kinds_asked(fake, "b") == ["stage1", "judge"]

    md, text = reports(run_dir)
    matrix = matrix_rows(md)
    assert matrix["header"] == ["Finding", "Sev", "Raiser", "fake/a#1", "fake/a#2", "fake/b", "Tier", "Decision"]
    assert matrix["A1†"] == ["A1†", "major", "fake/a#1", "✓*", "✓", "–", "Confirmed", ""]
    assert matrix["B1"] == ["B1", "major", "fake/a#2", "✗", "✗*", "✓", "Contested", ""]  # a#2's own vote: excluded
    assert "_`†` corroborated only by another seat running the same model_" in md
    assert "| fake/a#1 |" in md.split("## Street-cred", 1)[1] and "| fake/a#2 |" in md.split("## Street-cred", 1)[1]
    assert "- **B1** (major, raiser fake/a#2) — a1/d1/n0 — debate: defended (was Contested)" in md
    assert "A1†" in text and "† corroborated only by another seat running the same model" in text
    assert "fake/a#1fake/a#2fake/b" in text.replace("\n", "")  # the matrix header, seat-keyed
    rows = ledger(config_dir)
    assert [r["model"] for r in rows] == ["fake/a", "fake/b"]
