"""The hand-computed aggregate-ranking table (see tests/council/test_ranking.py for the working):
five answers a..e, what each judge ranked and voted, and the ranking that must come out. The
engine's end-to-end test drives a real question council to the same table."""

from __future__ import annotations

# judge → the verdict it gives on each claim (its own claims included: the tally drops those)
VOTES_1 = {
    "a": {"A1": "agree", "A2": "agree", "B1": "agree", "B2": "agree", "C1": "agree", "C2": "agree", "D1": "agree",
          "D2": "neutral", "E1": "dispute"},
    "b": {"A1": "dispute", "A2": "agree", "B1": "agree", "B2": "agree", "C1": "agree", "C2": "agree", "D1": "agree",
          "D2": "neutral", "E1": "dispute"},
    "c": {"A1": "dispute", "A2": "agree", "B1": "agree", "B2": "dispute", "C1": "agree", "C2": "agree", "D1": "agree",
          "D2": "neutral", "E1": "dispute"},
    "d": {"A1": "neutral", "A2": "agree", "B1": "agree", "B2": "agree", "C1": "agree", "C2": "agree", "D1": "agree",
          "D2": "neutral", "E1": "agree"},
    "e": {"A1": "agree", "A2": "agree", "B1": "agree", "B2": "dispute", "C1": "agree", "C2": "agree", "D1": "agree",
          "D2": "neutral", "E1": "agree"},
}
ORDERS_1 = {
    "a": ["a", "b", "c", "d", "e"],
    "b": ["b", "a", "d", "c", "e"],
    "c": ["c", ["a", "b"], "d", "e"],
    "d": ["d", "a", "b", "c", "e"],
    "e": ["e", "b", "a", ["c", "d"]],
}
CLAIMS_1 = {"a": ["A1", "A2"], "b": ["B1", "B2"], "c": ["C1", "C2"], "d": ["D1", "D2"], "e": ["E1"]}

# The hand-computed table: (rank, model, peersOnly, withSelf, claims, confirmed, disputed).
TABLE_1 = [
    (1, "b", 2.375, 2.1, 2, 1, 0),
    (2, "a", 2.375, 2.1, 2, 1, 1),
    (3, "c", 3.875, 3.3, 2, 2, 0),
    (4, "d", 3.875, 3.3, 2, 1, 0),
    (5, "e", 5.0, 4.2, 1, 0, 1),
]
TIERS_1 = {"A1": "Disputed", "A2": "Confirmed", "B1": "Confirmed", "B2": "Contested", "C1": "Confirmed",
           "C2": "Confirmed", "D1": "Confirmed", "D2": "Singleton", "E1": "Disputed"}
