"""The aggregate ranking of a question council's answers equals a table computed by hand.

The rule (council/ranking.py): by the peers-only mean place (the author's own ranking never
counts), then fewer Disputed claims, then more Confirmed ones; answers equal on all three
share a rank (competition ranking, listed in bench order).

Table 1 — five answers a..e, five judges (each judge ranks its own answer first, which the
rule ignores). Places (a tie group shares the mean of the places it spans):

    judge a: a, b, c, d, e          → a 1   b 2   c 3   d 4   e 5
    judge b: b, a, d, c, e          → b 1   a 2   d 3   c 4   e 5
    judge c: c, (a = b), d, e       → c 1   a 2.5 b 2.5 d 4   e 5
    judge d: d, a, b, c, e          → d 1   a 2   b 3   c 4   e 5
    judge e: e, b, a, (c = d)       → e 1   b 2   a 3   c 4.5 d 4.5

    answer  peer places        peers-only    with-self (own place 1)   claims (tiers)              rank
    a       2, 2.5, 2, 3       9.5/4 = 2.375  10.5/5 = 2.1              A1 Disputed, A2 Confirmed   2
    b       2, 2.5, 3, 2       9.5/4 = 2.375  10.5/5 = 2.1              B1 Confirmed, B2 Contested  1
    c       3, 4, 4, 4.5       15.5/4 = 3.875 16.5/5 = 3.3              C1, C2 Confirmed            3
    d       4, 3, 4, 4.5       15.5/4 = 3.875 16.5/5 = 3.3              D1 Confirmed, D2 Singleton  4
    e       5, 5, 5, 5         20/4 = 5.0     21/5 = 4.2                E1 Disputed                 5

a and b tie on peers-only (and on with-self, which is never used): b has no Disputed claim and
a has one, so b ranks first. c and d tie on peers-only and on Disputed claims (none): c has two
Confirmed claims to d's one, so c ranks third.

Table 2 — four answers, where three are indistinguishable: a, b and c each rank themselves
first and the other two tied; d ranks itself first and a, b, c tied. Peers-only: a, b, c all
(2.5 + 2.5 + 3) / 3 = 2.6667 with one Confirmed claim each → they share rank 1; d (4, 4, 4) = 4
→ rank 4 (competition ranking: 1, 1, 1, 4).
"""

from __future__ import annotations

from typing import Any

from ranking_table import CLAIMS_1, ORDERS_1, TABLE_1, TIERS_1, VOTES_1

from amicus_mcp.council.ranking import aggregate_ranking
from amicus_mcp.council.tally import tally

def question_input(orders: dict[str, list[Any]], claims: dict[str, list[str]],
                   votes: dict[str, dict[str, str]]) -> dict[str, Any]:
    models = list(orders)
    return {
        "meta": {"runId": "q-table", "models": models, "intent": "question"},
        "findings": [{"id": cid, "raiser": m, "claim": f"claim {cid}"} for m in models for cid in claims[m]],
        "adjudications": [{"findingId": cid, "judge": judge, "verdict": verdict}
                          for judge in models for cid, verdict in votes[judge].items()],
        "rankings": [{"judge": judge, "order": order} for judge, order in orders.items()],
    }


def table_of(rows: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return [(r["rank"], r["model"], round(r["peersOnly"], 4), round(r["withSelf"], 4), r["claims"],
             r["confirmedClaims"], r["disputedClaims"]) for r in rows]


def test_table_1_the_tie_breaks_in_turn() -> None:
    record = tally(question_input(ORDERS_1, CLAIMS_1, VOTES_1))
    assert {f["id"]: f["tier"] for f in record["findings"]} == TIERS_1
    rows = aggregate_ranking(record)
    assert table_of(rows) == TABLE_1
    # who ranked what, after unblinding: each answer's place under each judge (its own included, never counted)
    assert rows[0]["perJudgeRank"] == {"a": 2.0, "b": 1.0, "c": 2.5, "d": 3.0, "e": 2.0}
    assert rows[2]["perJudgeRank"] == {"a": 3.0, "b": 4.0, "c": 1.0, "d": 4.0, "e": 4.5}


def test_table_2_answers_equal_on_every_key_share_a_rank() -> None:
    orders = {"a": ["a", ["b", "c"], "d"], "b": ["b", ["a", "c"], "d"], "c": ["c", ["a", "b"], "d"],
              "d": ["d", ["a", "b", "c"]]}
    claims = {m: [f"{m.upper()}1"] for m in orders}
    votes = {j: {f"{m.upper()}1": "agree" for m in orders} for j in orders}
    rows = aggregate_ranking(tally(question_input(orders, claims, votes)))
    assert table_of(rows) == [
        (1, "a", 2.6667, 2.25, 1, 1, 0),
        (1, "b", 2.6667, 2.25, 1, 1, 0),
        (1, "c", 2.6667, 2.25, 1, 1, 0),
        (4, "d", 4.0, 3.25, 1, 1, 0),
    ]


def test_self_promotion_buys_nothing() -> None:
    """The same council with every judge now ranking its own answer last instead of first: each
    judge's other places move up by one, so every answer's peers-only place is exactly one better
    and the ranking is unchanged — putting yourself first gained no answer anything."""
    modest = {j: [*order[1:], j] for j, order in ORDERS_1.items()}
    rows = aggregate_ranking(tally(question_input(modest, CLAIMS_1, VOTES_1)))
    assert [(r[0], r[1], r[2] + 1.0) for r in table_of(rows)] == [(r[0], r[1], r[2]) for r in TABLE_1]


def test_an_answer_no_peer_ranked_comes_last() -> None:
    """A two-answer council where one judge was dropped: b is ranked by its peer a, a by nobody
    but itself, so a has no peers-only place and comes last whatever it gave itself."""
    doc = {"meta": {"runId": "r", "models": ["a", "b"], "intent": "question"}, "findings": [], "adjudications": [],
           "rankings": [{"judge": "a", "order": ["a", "b"]}]}
    rows = aggregate_ranking(tally(doc))
    assert [(r["rank"], r["model"], r["peersOnly"]) for r in rows] == [(1, "b", 2.0), (2, "a", None)]


def test_twin_seats_rank_as_seats() -> None:
    """A bench that repeats an alias ranks each seat, and counts each seat's own claims."""
    seats = [{"id": "x#1", "alias": "x", "role": "seat", "lens": None, "position": 1},
             {"id": "x#2", "alias": "x", "role": "seat", "lens": None, "position": 2},
             {"id": "y", "alias": "y", "role": "seat", "lens": None, "position": 3}]
    doc = {
        "meta": {"runId": "r", "models": ["x", "x", "y"], "intent": "question", "seats": seats},
        "findings": [{"id": "A1", "raiser": "x", "raiserSeat": "x#1", "claim": "c"},
                     {"id": "B1", "raiser": "x", "raiserSeat": "x#2", "claim": "c"}],
        "adjudications": [{"findingId": "A1", "judge": "x", "seat": "x#2", "verdict": "dispute"},
                          {"findingId": "A1", "judge": "y", "verdict": "dispute"},
                          {"findingId": "B1", "judge": "x", "seat": "x#1", "verdict": "agree"},
                          {"findingId": "B1", "judge": "y", "verdict": "agree"}],
        "rankings": [{"judge": "x", "seat": "x#1", "order": ["x", ["x", "y"]], "orderSeats": ["x#1", ["x#2", "y"]]},
                     {"judge": "x", "seat": "x#2", "order": ["x", ["x", "y"]], "orderSeats": ["x#2", ["x#1", "y"]]},
                     {"judge": "y", "order": ["y", ["x", "x"]], "orderSeats": ["y", ["x#1", "x#2"]]}],
    }
    rows = aggregate_ranking(tally(doc))
    # All three tie on peers-only (2.5 each): x#2's one claim is Confirmed, y has none, x#1's one is
    # Disputed — so x#2, then y, then x#1.
    assert [(r["rank"], r.get("seat", r["model"]), r["peersOnly"], r["confirmedClaims"], r["disputedClaims"])
            for r in rows] == [(1, "x#2", 2.5, 1, 0), (2, "y", 2.5, 0, 0), (3, "x#1", 2.5, 0, 1)]
