"""The tally: worked example byte for byte, the peer split, emit-when-set keys, twin benches."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from amicus_mcp.council.tally import render_tally_summary, tally
from amicus_mcp.errors import BadArgs
from amicus_mcp.fsio import dumps_json
from amicus_mcp.schemas import schema_errors

ROOT = Path(__file__).resolve().parents[2]
WORKED = ROOT / "examples" / "worked-example"
FIXTURES = ROOT / "tests" / "fixtures"


def collapse(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture
def worked_input() -> dict:
    return json.loads((WORKED / "tally-input.json").read_text(encoding="utf-8"))


def base_input(models, findings, adjudications, rankings=(), **meta) -> dict:
    return {
        "meta": {"runId": "r1", "models": list(models), "chair": "chair-model", "claudeInCouncil": False, **meta},
        "findings": list(findings),
        "adjudications": list(adjudications),
        "rankings": list(rankings),
        "runStats": [],
    }


def finding_out(record: dict, fid: str) -> dict:
    return next(f for f in record["findings"] if f["id"] == fid)


# --- the worked example ---------------------------------------------------------------

def test_worked_example_record_is_byte_stable(worked_input):
    record = tally(worked_input)
    expected = (FIXTURES / "worked-example" / "tally.json").read_text(encoding="utf-8")
    assert dumps_json(record) + "\n" == expected
    assert schema_errors(record, "council-tally") == []


def test_worked_example_human_summary_matches_the_seed(worked_input):
    summary = render_tally_summary(tally(worked_input))
    seed = json.loads((FIXTURES / "worked_example_seed.json").read_text(encoding="utf-8"))
    assert collapse(summary) == seed["tally_human"]
    assert summary == (
        "Council tally (pricing-page-council)\n"
        "  Confirmed  1\n"
        "  Contested  1\n"
        "  Singleton  1\n"
        "  Disputed   0\n"
        "  Cost: $0.0900"
    )


def test_worked_example_tiers_and_street_cred(worked_input):
    record = tally(worked_input)
    assert [(f["id"], f["tier"], f["confidence"]) for f in record["findings"]] == [
        ("A1", "Confirmed", "thin"), ("B1", "Singleton", "thin"), ("B2", "Contested", "thin"),
    ]
    assert [(r["model"], r["withSelf"], r["peersOnly"]) for r in record["streetCred"]] == [
        ("deepseek", 2.0, 2.0), ("gpt", 1.0, 1.0),
    ]
    assert record["judged"] is True


def test_input_is_not_mutated(worked_input):
    before = copy.deepcopy(worked_input)
    tally(worked_input)
    assert worked_input == before


# --- peer split -------------------------------------------------------------------------

def test_raisers_own_vote_is_excluded_by_alias():
    doc = base_input(
        ["a", "b"],
        [{"id": "A1", "raiser": "a", "severity": "major"}],
        [{"findingId": "A1", "judge": "a", "verdict": "agree"}, {"findingId": "A1", "judge": "b", "verdict": "dispute"}],
    )
    f = finding_out(tally(doc), "A1")
    assert f["basis"] == {"a": 0, "d": 1, "n": 0}
    assert f["tier"] == "Contested"
    assert "unattributedPeerDrops" not in f


def test_two_two_split_is_contested_not_disputed():
    votes = [{"findingId": "A1", "judge": j, "verdict": v} for j, v in
             [("b", "agree"), ("c", "agree"), ("d", "dispute"), ("e", "dispute")]]
    doc = base_input(["a", "b", "c", "d", "e"], [{"id": "A1", "raiser": "a", "severity": "minor"}], votes)
    f = finding_out(tally(doc), "A1")
    assert (f["tier"], f["confidence"]) == ("Contested", "solid")


def test_unknown_verdict_strings_are_ignored():
    doc = base_input(["a", "b"], [{"id": "A1", "raiser": "a"}], [{"findingId": "A1", "judge": "b", "verdict": "maybe"}])
    assert finding_out(tally(doc), "A1")["basis"] == {"a": 0, "d": 0, "n": 0}


def test_unnamed_raiser_drops_unnamed_votes_and_announces_them():
    doc = base_input(
        ["a", "b"],
        [{"id": "A1", "raiser": "", "severity": "major"}],
        [
            {"findingId": "A1", "judge": "", "verdict": "agree"},
            {"findingId": "A1", "verdict": "agree"},
            {"findingId": "A1", "judge": "b", "verdict": "agree"},
        ],
    )
    f = finding_out(tally(doc), "A1")
    assert f["basis"] == {"a": 1, "d": 0, "n": 0}
    assert f["unattributedPeerDrops"] == 2
    assert f["tier"] == "Confirmed"


def test_finding_whose_only_votes_are_unidentifiable_is_singleton():
    doc = base_input(["a", "b"], [{"id": "A1"}], [{"findingId": "A1", "judge": "", "verdict": "dispute"}])
    f = finding_out(tally(doc), "A1")
    assert f["tier"] == "Singleton"
    assert f["unattributedPeerDrops"] == 1
    assert f["raiser"] is None and f["severity"] is None


# --- twin benches -----------------------------------------------------------------------

TWIN_SEATS = [
    {"id": "deepseek#1", "alias": "deepseek", "role": "seat", "lens": None, "position": 1},
    {"id": "deepseek#2", "alias": "deepseek", "role": "seat", "lens": None, "position": 2},
    {"id": "gpt", "alias": "gpt", "role": "seat", "lens": None, "position": 3},
]


def twin_input(votes, rankings=()) -> dict:
    return base_input(
        ["deepseek", "deepseek", "gpt"],
        [{"id": "A1", "raiser": "deepseek", "raiserSeat": "deepseek#1", "severity": "major"}],
        votes,
        rankings,
        seats=TWIN_SEATS,
    )


def test_twin_vote_counts_as_a_peer_and_is_stamped():
    votes = [
        {"findingId": "A1", "judge": "deepseek", "seat": "deepseek#1", "verdict": "agree"},
        {"findingId": "A1", "judge": "deepseek", "seat": "deepseek#2", "verdict": "agree"},
        {"findingId": "A1", "judge": "gpt", "verdict": "neutral"},
    ]
    f = finding_out(tally(twin_input(votes)), "A1")
    assert f["basis"] == {"a": 1, "d": 0, "n": 1}
    assert f["tier"] == "Confirmed"
    assert f["sameModelCorroboration"] is True
    assert f["raiserSeat"] == "deepseek#1"
    assert "unattributedPeerDrops" not in f  # the seats settled the raiser's own vote
    assert f["adjudications"][0] == {"judge": "deepseek", "verdict": "agree", "seat": "deepseek#1"}


def test_twin_dispute_demotes():
    votes = [
        {"findingId": "A1", "judge": "deepseek", "seat": "deepseek#2", "verdict": "dispute"},
        {"findingId": "A1", "judge": "gpt", "verdict": "agree"},
    ]
    f = finding_out(tally(twin_input(votes)), "A1")
    assert f["tier"] == "Contested"
    assert "sameModelCorroboration" not in f


def test_seatless_vote_sharing_the_raisers_alias_is_dropped_and_announced():
    votes = [{"findingId": "A1", "judge": "deepseek", "verdict": "agree"}]  # leg never bound to a seat
    f = finding_out(tally(twin_input(votes)), "A1")
    assert f["basis"] == {"a": 0, "d": 0, "n": 0}
    assert f["unattributedPeerDrops"] == 1


def test_seat_compare_wins_even_when_raiser_is_unnamed():
    doc = twin_input([{"findingId": "A1", "judge": "", "seat": "deepseek#2", "verdict": "agree"},
                      {"findingId": "A1", "judge": "", "seat": "deepseek#1", "verdict": "agree"}])
    doc["findings"][0]["raiser"] = ""
    f = finding_out(tally(doc), "A1")
    assert f["basis"]["a"] == 1
    assert "unattributedPeerDrops" not in f


def test_twin_street_cred_rows_diverge_by_seat():
    rankings = [
        {"judge": "deepseek", "seat": "deepseek#1", "order": ["deepseek", "gpt", "deepseek"],
         "orderSeats": ["deepseek#2", "gpt", "deepseek#1"]},
        {"judge": "deepseek", "seat": "deepseek#2", "order": ["deepseek", "deepseek", "gpt"],
         "orderSeats": ["deepseek#1", "deepseek#2", "gpt"]},
        {"judge": "gpt", "order": ["deepseek", ["gpt", "deepseek"]],
         "orderSeats": ["deepseek#2", ["gpt", "deepseek#1"]]},
    ]
    record = tally(twin_input([], rankings))
    rows = record["streetCred"]
    assert len(rows) == 3
    assert [r.get("seat") for r in rows] == ["deepseek#1", "deepseek#2", None]
    d1, d2, gpt = rows
    # deepseek#1: ranked 3 by itself, 1 by its twin, 2.5 (tied) by gpt.
    assert d1["withSelf"] == pytest.approx((3 + 1 + 2.5) / 3)
    assert d1["peersOnly"] == pytest.approx((1 + 2.5) / 2)
    assert d1["perJudgeRank"] == {"deepseek#1": 3, "deepseek#2": 1, "gpt": 2.5}
    assert d2["peersOnly"] == pytest.approx((1 + 1) / 2)
    assert gpt["peersOnly"] == pytest.approx((2 + 3) / 2)
    assert gpt["withSelf"] == pytest.approx((2 + 3 + 2.5) / 3)
    assert schema_errors(record, "council-tally") == []


def test_street_cred_has_one_row_per_models_entry_even_when_seats_disagree():
    doc = base_input(["a", "b", "a"], [], [], [{"judge": "b", "order": ["a", "b", "a"]}],
                     seats=[{"id": "a#1", "alias": "a", "role": "seat", "lens": None, "position": 1}])
    rows = tally(doc)["streetCred"]
    # The entry the table does not cover is an alias row: no seat id is made up for it (issue 12).
    assert [(r["model"], r.get("seat")) for r in rows] == [("a", "a#1"), ("b", None), ("a", None)]
    # The ranking is by alias only, so every row of the alias, seated or not, reports the
    # alias's numbers (issue 28: the original's rule).
    assert [r["withSelf"] for r in rows] == [2, 2, 2]


def test_a_surplus_seat_invents_no_row():
    seats = [{"id": f"a#{i}", "alias": "a", "role": "seat", "lens": None, "position": i} for i in (1, 2, 3)]
    doc = base_input(["a", "a"], [], [], [{"judge": "a", "seat": "a#1", "order": ["a", "a"], "orderSeats": ["a#2", "a#1"]}],
                     seats=seats)
    rows = tally(doc)["streetCred"]
    assert [(r["model"], r.get("seat")) for r in rows] == [("a", "a#1"), ("a", "a#2")]
    assert [r["withSelf"] for r in rows] == [2, 1]


def test_without_a_seat_table_a_repeated_alias_is_keyed_by_alias():
    # Seed 000: "never fill in a seat id you did not observe" — identical rows, no `seat` key.
    rankings = [{"judge": "a", "order": ["a", "b", "a"]}, {"judge": "b", "order": ["b", "a", "a"]}]
    votes = [{"findingId": "A1", "judge": "b", "verdict": "agree"}]
    record = tally(base_input(["a", "b", "a"], [{"id": "A1", "raiser": "a"}], votes, rankings))
    rows = record["streetCred"]
    assert all("seat" not in r for r in rows)
    first, b, second = rows
    assert first == second
    assert first["withSelf"] == pytest.approx((2 + 2.5) / 2)
    assert first["peersOnly"] == 2.5
    assert b["peersOnly"] == 2  # judge a placed it second; its own first place is not a peer
    assert schema_errors(record, "council-tally") == []


def test_without_a_seat_table_no_row_is_seated_even_by_an_id_a_vote_used():
    # Issue 28: a seat id comes from the seat table only; a vote's a#2 names no street-cred row.
    votes = [{"findingId": "A1", "judge": "a", "seat": "a#2", "verdict": "agree"}]
    rows = tally(base_input(["a", "a", "b"], [{"id": "A1", "raiser": "b"}], votes,
                            [{"judge": "b", "order": ["a", "b", "a"]}]))["streetCred"]
    assert [r.get("seat") for r in rows] == [None, None, None]
    assert rows[0] == rows[1] and rows[0]["withSelf"] == 2


# --- twin benches' street-cred: the rules the original settled (issue 28) ----------------

AB_SEATS = [{"id": "a#1", "alias": "a", "role": "seat", "lens": None, "position": 1},
              {"id": "a#2", "alias": "a", "role": "seat", "lens": None, "position": 2},
              {"id": "b", "alias": "b", "role": "seat", "lens": None, "position": 3}]


def test_twins_with_no_seat_table_and_no_seat_order_collapse_by_alias():
    rankings = [{"judge": "b", "order": ["a", "b", "a"]}, {"judge": "a", "order": [["a", "a"], "b"]}]
    rows = tally(base_input(["a", "a", "b"], [], [], rankings))["streetCred"]
    twin1, twin2, b = rows
    assert twin1 == twin2 and "seat" not in twin1  # each twin reports the alias's numbers
    assert twin1["withSelf"] == pytest.approx((2 + 1.5) / 2) and twin1["peersOnly"] == 2
    assert twin1["perJudgeRank"] == {"b": 2, "a": 1.5}
    assert b == {"model": "b", "withSelf": 2.5, "peersOnly": 3, "perJudgeRank": {"b": 2, "a": 3}}


def test_a_seat_table_with_rankings_by_alias_only_seats_rows_with_the_alias_numbers():
    rankings = [{"judge": "b", "order": ["a", "b", "a"]}, {"judge": "a", "seat": "a#1", "order": ["b", "a", "a"]}]
    record = tally(base_input(["a", "a", "b"], [], [], rankings, seats=AB_SEATS))
    twin1, twin2, b = record["streetCred"]
    assert (twin1["seat"], twin2["seat"]) == ("a#1", "a#2") and "seat" not in b  # one seat: no `seat` key
    assert twin1["withSelf"] == twin2["withSelf"] == pytest.approx((2 + 2.5) / 2)
    assert twin1["perJudgeRank"] == twin2["perJudgeRank"] == {"b": 2, "a#1": 2.5}
    assert twin1["peersOnly"] == 2 and twin2["peersOnly"] == pytest.approx((2 + 2.5) / 2)  # a#1's own rank excluded
    assert schema_errors(record, "council-tally") == []


def test_a_seat_order_without_a_seat_table_finds_no_twin():
    rankings = [{"judge": "b", "order": ["a", "b", "a"], "orderSeats": ["a#2", "b", "a#1"]},
                {"judge": "a", "order": ["a", "a", "b"], "orderSeats": ["a#1", "a#2", "b"]}]
    record = tally(base_input(["a", "a", "b"], [], [], rankings))
    twin1, twin2, b = record["streetCred"]
    for twin in (twin1, twin2):
        assert twin == {"model": "a", "withSelf": None, "peersOnly": None, "perJudgeRank": {}}
    assert b["withSelf"] == pytest.approx((2 + 3) / 2)
    assert schema_errors(record, "council-tally") == []


def test_a_seat_table_naming_more_seats_than_the_bench_invents_no_row():
    seats = [*AB_SEATS, {"id": "a#3", "alias": "a", "role": "seat", "lens": None, "position": 4}]
    rankings = [{"judge": "b", "order": ["a", "b", "a"], "orderSeats": ["a#2", "b", "a#3"]}]
    rows = tally(base_input(["a", "a", "b"], [], [], rankings, seats=seats))["streetCred"]
    assert [(r["model"], r.get("seat")) for r in rows] == [("a", "a#1"), ("a", "a#2"), ("b", None)]
    assert rows[0]["withSelf"] is None and rows[1]["withSelf"] == 1  # a#3's place reaches no row


def test_street_cred_ties_share_the_mean_position():
    doc = base_input(["a", "b", "c"], [], [], [{"judge": "c", "order": [["a", "b"], "c"]}])
    rows = tally(doc)["streetCred"]
    assert [(r["withSelf"], r["peersOnly"]) for r in rows] == [(1.5, 1.5), (1.5, 1.5), (3, None)]
    assert tally(doc)["judged"] is False


def test_unranked_model_has_null_cred():
    doc = base_input(["a", "b"], [], [], [{"judge": "a", "order": ["a"]}, {"judge": "b", "order": ["a"]}])
    rows = tally(doc)["streetCred"]
    assert rows[1] == {"model": "b", "withSelf": None, "peersOnly": None, "perJudgeRank": {}}


# --- emit-when-set ----------------------------------------------------------------------

def test_optional_finding_keys_are_echoed_only_when_present():
    doc = base_input(["a", "b"], [
        {"id": "A1", "raiser": "a", "severity": "nit", "claim": "c", "location": "file.py:3"},
        {"id": "A2", "raiser": "a", "severity": "nit"},
    ], [])
    record = tally(doc)
    assert list(finding_out(record, "A1"))[-2:] == ["location", "claim"]
    for key in ("raiserSeat", "location", "claim", "sameModelCorroboration", "unattributedPeerDrops", "debate"):
        assert key not in finding_out(record, "A2")


@pytest.mark.parametrize("ttft, kept", [(0, True), (812, True), (-1, False), (1.5, False), ("12", False),
                                         (True, False), (None, False), ({"ms": 3}, False)])
def test_a_legs_ttft_is_kept_only_as_a_non_negative_integer(ttft: Any, kept: bool):
    doc = base_input(["a", "b"], [], [])
    doc["runStats"] = [{"model": "a", "ttftMs": ttft}]
    row = tally(doc)["runStats"][0]
    assert (row.get("ttftMs"), "ttftMs" in row) == ((ttft, True) if kept else (None, False))


@pytest.mark.parametrize("flag", ["findingsUnverified", "repairRefused"])
@pytest.mark.parametrize("value, kept", [(True, True), (False, True), ("yes", False), (1, False), ({}, False)])
def test_a_legs_flag_is_kept_only_as_a_boolean(flag: str, value: Any, kept: bool):
    """The verdict's schema declares the flags boolean (a `{}` schema fails the inspector's --strict)."""
    doc = base_input(["a", "b"], [], [])
    doc["runStats"] = [{"model": "a", flag: value}]
    row = tally(doc)["runStats"][0]
    assert (flag in row, row.get(flag)) == ((True, value) if kept else (False, None))


def test_run_stats_are_normalized_with_defaults_and_emit_when_set():
    doc = base_input(["a", "b"], [], [])
    doc["runStats"] = [
        {"model": "a"},
        {"model": "b", "role": "seat", "wasChair": True, "conformance": "repaired", "status": "complete",
         "durationMs": 10, "usage": None, "waveId": "w-1", "resolvedModel": "vendor/b-1", "extra": "dropped"},
    ]
    rows = tally(doc)["runStats"]
    assert rows[0] == {"model": "a", "role": "council", "wasChair": False, "conformance": "clean",
                       "status": "unknown", "durationMs": None, "usage": None}
    assert list(rows[1]) == ["model", "role", "wasChair", "conformance", "waveId", "resolvedModel",
                             "status", "durationMs", "usage"]


def test_runstats_may_be_absent():
    doc = base_input(["a", "b"], [], [])
    del doc["runStats"]
    record = tally(doc)
    assert record["runStats"] == []
    assert "Cost" not in render_tally_summary(record)


def test_summary_reports_unpriced_legs_honestly():
    doc = base_input(["a", "b"], [], [])
    doc["runStats"] = [{"model": "a", "usage": {"cost": {"amount": 1.5, "source": "reported"}}}, {"model": "b"}]
    assert "Cost: $1.50 (+1 unpriced)" in render_tally_summary(tally(doc))
    doc["runStats"] = [{"model": "b"}]
    assert "Cost: ?" in render_tally_summary(tally(doc))


# --- bad input --------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("mutate", "fragment"),
    [
        (lambda d: d.pop("meta"), "meta: Field required"),
        (lambda d: d.pop("findings"), "findings: Field required"),
        (lambda d: d["meta"].update(models=[]), "meta.models"),
        (lambda d: d["meta"].update(runId=7), "meta.runId"),
        (lambda d: d["findings"][0].update(id=1), "findings[0].id"),
        (lambda d: d["adjudications"][0].pop("verdict"), "adjudications[0].verdict"),
        (lambda d: d["rankings"][0].update(order="gpt"), "rankings[0].order"),
        (lambda d: d["findings"].append(dict(d["findings"][0])), "two findings with id 'A1'"),
        (lambda d: d["runStats"][0].update(durationMs="41s"), "runStats[0].durationMs"),
    ],
)
def test_bad_input_is_a_structured_error(worked_input, mutate, fragment):
    mutate(worked_input)
    with pytest.raises(BadArgs) as exc:
        tally(worked_input)
    assert fragment in exc.value.message
    assert exc.value.hint


@pytest.mark.parametrize("doc", [None, [], "x", 3])
def test_non_object_input_is_rejected(doc):
    with pytest.raises(BadArgs, match="must be a JSON object"):
        tally(doc)


@pytest.mark.parametrize(
    "mutate",
    [
        lambda d: None,
        lambda d: d.pop("runStats"),  # the seed asks for five keys; the tally has always read four
        lambda d: d["meta"].update(intent="question"),
        lambda d: d["meta"].update(intent="bogus"),  # the schema's enum: the tally's check holds it too now
        lambda d: d["meta"].update(seats=[{"id": "gpt#1"}, 3]),  # deliberately unconstrained
        lambda d: d["findings"][0].update(verificationToolCalls=-1),
        lambda d: d["findings"][0].update(evidenceCheck="probably"),
        lambda d: d["rankings"][0].update(orderSeats=[["gpt#1", None], None]),
        lambda d: d["rankings"][0].update(orderSeats=[3]),
        lambda d: d["meta"].update(models=[]),
        lambda d: d["adjudications"][0].update(verdict="maybe"),  # ignored by the tally, not refused
    ],
)
def test_the_tally_input_schema_and_the_tallys_check_are_one_declaration(worked_input, mutate):
    """schemas/council-tally-input.schema.json is generated from documents/tally.py's TallyInput,
    which is what the tally checks its input with: a document one accepts, the other does."""
    mutate(worked_input)
    try:
        tally(worked_input)
        accepted = True
    except BadArgs:
        accepted = False
    assert accepted == (schema_errors(worked_input, "council-tally-input") == [])


def test_the_tally_input_schema_holds_the_seeds_keys():
    from amicus_mcp.schemas import load_schema

    schema = load_schema("council-tally-input")
    assert list(schema["properties"]) == ["meta", "findings", "adjudications", "rankings", "runStats"]
    assert schema["required"] == ["meta", "findings", "adjudications", "rankings"]
    meta = schema["properties"]["meta"]
    assert meta["required"] == ["runId", "models"] and meta["properties"]["models"]["minItems"] == 1
