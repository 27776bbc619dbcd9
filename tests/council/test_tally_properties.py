"""Property tests: the tier cascade is exhaustive and the tally keeps its invariants."""

from __future__ import annotations

import copy

from hypothesis import given, settings
from hypothesis import strategies as st

from amicus_mcp.council.tally import tally
from amicus_mcp.council.tiers import assign_tier
from amicus_mcp.fsio import dumps_json
from amicus_mcp.schemas import schema_errors

counts = st.integers(min_value=0, max_value=60)


@given(counts, counts)
def test_cascade_is_exhaustive_and_matches_the_table(a, d):
    tier, confidence = assign_tier(a, d)
    rules = {
        "Disputed": d >= 2 and d > a,
        "Confirmed": not (d >= 2 and d > a) and ((a >= 2 and a > d) or (a == 1 and d == 0)),
        "Contested": not (d >= 2 and d > a) and not ((a >= 2 and a > d) or (a == 1 and d == 0)) and d >= 1,
        "Singleton": a == 0 and d == 0,
    }
    assert [t for t, holds in rules.items() if holds] == [tier]
    assert confidence == ("thin" if a + d <= 1 else "solid")


@given(counts)
def test_more_disputes_never_raise_a_finding(a):
    order = ["Disputed", "Contested", "Singleton", "Confirmed"]
    ranks = [order.index(assign_tier(a, d)[0]) for d in range(1, 20)]
    assert ranks == sorted(ranks, reverse=True)


def test_lone_agree_outranks_lone_dispute():
    assert assign_tier(1, 0) == ("Confirmed", "thin")
    assert assign_tier(0, 1) == ("Contested", "thin")


ALIASES = ["a", "b", "c", "d"]


@st.composite
def tally_inputs(draw):
    models = draw(st.lists(st.sampled_from(ALIASES), min_size=1, max_size=5))
    n_findings = draw(st.integers(min_value=0, max_value=6))
    findings = [
        {"id": f"F{i}", "raiser": draw(st.sampled_from(models + [""])), "severity": draw(st.sampled_from(["blocker", "major", "minor", "nit"]))}
        for i in range(n_findings)
    ]
    verdicts = st.sampled_from(["agree", "dispute", "neutral", "other"])
    adjudications = [
        {"findingId": f["id"], "judge": judge, "verdict": draw(verdicts)}
        for f in findings
        for judge in draw(st.lists(st.sampled_from(models + [""]), max_size=6))
    ]
    slots = st.lists(st.one_of(st.sampled_from(models), st.lists(st.sampled_from(models), min_size=1, max_size=3)), max_size=5)
    rankings = [{"judge": judge, "order": draw(slots)} for judge in draw(st.lists(st.sampled_from(models), max_size=4))]
    return {"meta": {"runId": "p", "models": models}, "findings": findings,
            "adjudications": adjudications, "rankings": rankings, "runStats": []}


@settings(max_examples=150, deadline=None)
@given(tally_inputs())
def test_tally_invariants(doc):
    snapshot = copy.deepcopy(doc)
    record = tally(doc)
    assert doc == snapshot
    assert schema_errors(record, "council-tally") == []
    assert sum(record["tierCounts"].values()) == len(doc["findings"])
    assert len(record["streetCred"]) == len(doc["meta"]["models"])
    assert record["judged"] == (len(doc["rankings"]) >= 2)
    for finding in record["findings"]:
        basis = finding["basis"]
        votes = [v for v in doc["adjudications"] if v["findingId"] == finding["id"]]
        assert basis["a"] + basis["d"] + basis["n"] <= len(votes)
        assert (finding["tier"], finding["confidence"]) == assign_tier(basis["a"], basis["d"])
        own = sum(1 for v in votes if v["judge"] == finding["raiser"])
        assert basis["a"] + basis["d"] + basis["n"] <= len(votes) - own
    for row in record["streetCred"]:
        for key in ("withSelf", "peersOnly"):
            if row[key] is not None:
                assert 1 <= row[key] <= 15


@settings(max_examples=80, deadline=None)
@given(tally_inputs(), st.randoms(use_true_random=False))
def test_tally_is_deterministic_and_vote_order_free(doc, rnd):
    first = dumps_json(tally(doc))
    assert dumps_json(tally(copy.deepcopy(doc))) == first
    shuffled = copy.deepcopy(doc)
    rnd.shuffle(shuffled["adjudications"])
    a = {f["id"]: (f["basis"], f["tier"]) for f in tally(doc)["findings"]}
    b = {f["id"]: (f["basis"], f["tier"]) for f in tally(shuffled)["findings"]}
    assert a == b


@settings(max_examples=80, deadline=None)
@given(tally_inputs())
def test_the_raisers_own_vote_never_moves_its_finding(doc):
    before = {f["id"]: f["basis"] for f in tally(doc)["findings"]}
    extra = copy.deepcopy(doc)
    for finding in extra["findings"]:
        if finding["raiser"]:
            extra["adjudications"].append({"findingId": finding["id"], "judge": finding["raiser"], "verdict": "agree"})
    after = {f["id"]: f["basis"] for f in tally(extra)["findings"]}
    assert before == after
