"""Peers-only scoring of one finding: who counts as a peer, and the tier cascade.

A finding's own raiser may not corroborate it. Identity is decided in this order:

1. Both the vote and the finding carry a seat id → compare seats. Same seat is the raiser's
   own vote (excluded, and attributed — nothing is announced); different seats are peers,
   even when they share an alias (a twin's vote is real signal).
2. Otherwise, the raiser is named → compare aliases. An excluded vote where exactly one side
   carried a seat id cannot be told apart from the raiser's own, so it is dropped *and*
   announced in `unattributedPeerDrops`.
3. Otherwise (no raiser name) → a vote with no judge name may be the raiser's own, so it is
   dropped and announced; every named judge still counts.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..vocabulary import VOTES, Confidence, Tier

# a vote → its basis counter; keyed by any JSON value, as a judge may write anything there
_VERDICT_KEY: dict[object, str] = dict(zip(VOTES, ("a", "d", "n")))


@dataclass
class PeerBasis:
    a: int = 0
    d: int = 0
    n: int = 0
    unattributed_drops: int = 0
    same_model_corroboration: bool = False

    def as_dict(self) -> dict[str, int]:
        return {"a": self.a, "d": self.d, "n": self.n}


def assign_tier(a: int, d: int) -> tuple[Tier, Confidence]:
    """The exhaustive peers-only cascade → (tier, confidence)."""
    confidence: Confidence = "thin" if a + d <= 1 else "solid"
    if d >= 2 and d > a:
        return "Disputed", confidence
    if (a >= 2 and a > d) or (a == 1 and d == 0):
        return "Confirmed", confidence
    if d >= 1:
        return "Contested", confidence
    return "Singleton", confidence


def _named(value: Any) -> bool:
    return isinstance(value, str) and value != ""


def is_raisers_own(finding: Mapping[str, Any], vote: Mapping[str, Any]) -> tuple[bool, bool]:
    """(excluded, unattributed) for one vote on one finding, per the module rules."""
    raiser_seat, vote_seat = finding.get("raiserSeat"), vote.get("seat")
    if _named(raiser_seat) and _named(vote_seat):
        return vote_seat == raiser_seat, False
    raiser = finding.get("raiser")
    if _named(raiser):
        excluded = vote.get("judge") == raiser
        one_side_seated = _named(raiser_seat) != _named(vote_seat)
        return excluded, excluded and one_side_seated
    unidentifiable = not _named(vote.get("judge"))
    return unidentifiable, unidentifiable


def peer_basis(finding: Mapping[str, Any], votes: Iterable[Mapping[str, Any]]) -> PeerBasis:
    basis = PeerBasis()
    raiser = finding.get("raiser")
    for vote in votes:
        excluded, unattributed = is_raisers_own(finding, vote)
        if excluded:
            basis.unattributed_drops += unattributed
            continue
        key = _VERDICT_KEY.get(vote.get("verdict"))
        if key is None:
            continue  # unknown verdict strings carry no signal
        setattr(basis, key, getattr(basis, key) + 1)
        if key == "a" and _named(raiser) and vote.get("judge") == raiser:
            basis.same_model_corroboration = True
    return basis
