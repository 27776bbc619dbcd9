"""build_verdict: the closed projection, decisions and their defaults, overrides, seats."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from amicus_mcp.council.tally import tally
from amicus_mcp.council.verdict import build_verdict, render_verdict_summary
from amicus_mcp.errors import BadArgs
from amicus_mcp.fsio import dumps_json
from amicus_mcp.schemas import schema_errors

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"


def load(path: Path):
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture
def record() -> dict:
    return load(FIXTURES / "worked-example" / "tally.json")


@pytest.fixture
def decisions() -> list:
    return load(ROOT / "examples" / "worked-example" / "decisions.json")


def test_worked_example_verdict_is_byte_stable(record, decisions):
    verdict = build_verdict(record, decisions)
    assert dumps_json(verdict) + "\n" == (FIXTURES / "worked-example" / "verdict.json").read_text(encoding="utf-8")
    assert schema_errors(verdict, "council-verdict") == []


def test_worked_example_summary_line_matches_the_seed(record, decisions):
    summary = render_verdict_summary(build_verdict(record, decisions), "verdict.json")
    seed = load(FIXTURES / "worked_example_seed.json")
    assert " ".join(summary.split()) == seed["verdict_human"]


def test_no_decisions_leaves_every_finding_undecided(record):
    verdict = build_verdict(record)
    assert {(f["decision"], f["applied"], f["duplicateOf"]) for f in verdict["findings"]} == {(None, False, None)}
    assert verdict["overallVerdict"] is None
    assert "undecided 3" in render_verdict_summary(verdict, "v.json")


def test_projection_is_closed(record):
    record["findings"][0]["unattributedPeerDrops"] = 2
    record["findings"][0]["location"] = "x"
    record["newTopLevelKey"] = 1
    verdict = build_verdict(record)
    assert "unattributedPeerDrops" not in verdict["findings"][0]
    assert "location" not in verdict["findings"][0]
    assert "newTopLevelKey" not in verdict
    assert "claim" not in verdict["findings"][0]


def test_decision_override_wins_and_sets_the_effective_tier(record):
    record["findings"][1]["tierOverride"] = {"from": "Singleton", "to": "Contested", "reason": "tally-side"}
    decisions = [{"id": "B1", "decision": "denied", "tierOverride": {"from": "Singleton", "to": "Confirmed", "reason": "user"}}]
    b1 = build_verdict(record, decisions)["findings"][1]
    assert b1["tier"] == "Confirmed"
    assert b1["tierOverride"]["reason"] == "user"
    tally_only = build_verdict(record)["findings"][1]
    assert (tally_only["tier"], tally_only["tierOverride"]["reason"]) == ("Contested", "tally-side")


def test_tier_counts_pass_through_unchanged(record):
    decisions = [{"id": "B1", "tierOverride": {"from": "Singleton", "to": "Confirmed", "reason": "r"}}]
    assert build_verdict(record, decisions)["tierCounts"] == record["tierCounts"]


def test_twin_bench_carries_seats_raiser_seat_and_stamp():
    seats = [
        {"id": "deepseek#1", "alias": "deepseek", "role": "seat", "lens": None, "position": 1},
        {"id": "deepseek#2", "alias": "deepseek", "role": "seat", "lens": None, "position": 2},
    ]
    rec = tally({
        "meta": {"runId": "twin", "models": ["deepseek", "deepseek"], "seats": seats},
        "findings": [{"id": "A1", "raiser": "deepseek", "raiserSeat": "deepseek#1", "severity": "minor"}],
        "adjudications": [{"findingId": "A1", "judge": "deepseek", "seat": "deepseek#2", "verdict": "agree"}],
        "rankings": [{"judge": "deepseek", "seat": "deepseek#1", "order": ["deepseek", "deepseek"], "orderSeats": ["deepseek#2", "deepseek#1"]}],
    })
    verdict = build_verdict(rec)
    assert verdict["seats"] == seats
    assert verdict["findings"][0]["raiserSeat"] == "deepseek#1"
    assert verdict["findings"][0]["sameModelCorroboration"] is True
    assert [r.get("seat") for r in verdict["streetCred"]] == ["deepseek#1", "deepseek#2"]
    assert "runType" not in verdict and "date" not in verdict
    assert schema_errors(verdict, "council-verdict") == []


def test_overall_verdict_is_carried_but_never_invented(record):
    assert build_verdict(record, overall_verdict="Fix these first")["overallVerdict"] == "Fix these first"
    with pytest.raises(BadArgs, match="not one of"):
        build_verdict(record, overall_verdict="Ship It")


@pytest.mark.parametrize(
    ("decisions", "fragment"),
    [
        ({"id": "A1"}, "must be a JSON array"),
        ([{"decision": "accepted"}], "decisions[0].id"),
        ([{"id": "A1", "applied": "yes"}], "decisions[0].applied"),
        ([{"id": "A1", "tierOverride": {"to": "Great"}}], "tierOverride.to"),
        ([{"id": "Z9", "decision": "accepted"}], "names no finding"),
        ([{"id": "A1"}, {"id": "A1"}], "two decisions"),
    ],
)
def test_bad_decisions_are_structured_errors(record, decisions, fragment):
    with pytest.raises(BadArgs) as exc:
        build_verdict(record, decisions)
    assert fragment in exc.value.message


def test_tally_input_passed_as_record_gets_a_pointed_hint():
    doc = load(ROOT / "examples" / "worked-example" / "tally-input.json")
    with pytest.raises(BadArgs) as exc:
        build_verdict(doc)
    assert "tally input, not a tally record" in exc.value.message
    assert "council tally" in exc.value.hint


@pytest.mark.parametrize("doc", [[], {"type": "council-tally"}, "x"])
def test_non_records_are_rejected(doc):
    with pytest.raises(BadArgs, match="not a council-tally record"):
        build_verdict(doc)


# --- issue 12: seats after council, run facts -------------------------------------------------

def test_seats_sit_immediately_after_council() -> None:
    seats = [{"id": "a#1", "alias": "a", "role": "seat", "lens": None, "position": 1},
             {"id": "a#2", "alias": "a", "role": "seat", "lens": None, "position": 2}]
    rec = tally({"meta": {"runId": "t", "models": ["a", "a"], "seats": seats, "claudeInCouncil": False},
                 "findings": [], "adjudications": [], "rankings": []})
    keys = list(build_verdict(rec))
    assert keys[keys.index("council"):keys.index("council") + 3] == ["council", "seats", "claudeInCouncil"]


RUN = {
    "notices": ["lens run: not recorded"],
    "degrades": [{"kind": "degrade", "channel": "stage1", "what": "seat x produced no review", "why": "boom"}],
    "debate": {"enabled": True, "outcome": "nothing-to-debate"},
    "hardQuestions": ["Why?", "", 3],
    "synthesis": "The chair says.",
    "ignored": "not a run fact",
}


def test_run_facts_follow_tier_counts_in_a_fixed_order_and_only_when_set(record) -> None:
    verdict = build_verdict(record, run=RUN)
    keys = list(verdict)
    assert keys[keys.index("tierCounts") + 1:] == ["synthesis", "hardQuestions", "debate", "degrades", "notices"]
    assert verdict["hardQuestions"] == ["Why?"]  # junk entries dropped
    assert "ignored" not in verdict and "judged" not in verdict  # the worked example was judged
    assert schema_errors(verdict, "council-verdict") == []
    empty = build_verdict(record, run={"degrades": [], "notices": [], "synthesis": " ", "debate": {}})
    assert empty == build_verdict(record)


def test_judged_false_is_carried_and_only_then(record) -> None:
    thin = dict(record, judged=False)
    verdict = build_verdict(thin)
    assert verdict["judged"] is False and list(verdict)[-1] == "judged"
    assert schema_errors(verdict, "council-verdict") == []


def test_a_previous_verdict_of_the_same_run_carries_its_run_facts(record) -> None:
    from amicus_mcp.council.verdict import carried_run_facts

    previous = build_verdict(record, run=RUN)
    carried = carried_run_facts(previous, record)
    assert carried is not None and carried["degrades"] == RUN["degrades"]
    assert build_verdict(record, [{"id": "A1", "decision": "accepted"}], run=carried)["degrades"] == RUN["degrades"]
    other = dict(previous, runId="another-run")
    assert carried_run_facts(other, record) is None
    assert carried_run_facts({"type": "council-tally"}, record) is None
    assert carried_run_facts(build_verdict(record), record) is None  # nothing to carry
