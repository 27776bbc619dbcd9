"""Street-cred: how highly the other judges ranked each reviewer (lower is better).

One row per `meta.models` entry, in that order — the k-th occurrence of a repeated alias is
the k-th row, so `len(streetCred) == len(meta.models)` on every input. For each judge's
ranking a reviewer's position is its 1-based place; a tie group shares the mean of the
places it spans (`[["a","b"], "c"]` → a 1.5, b 1.5, c 3).

- `withSelf`: mean position over every judge that ranked the row.
- `peersOnly`: the same without the row's own judge — compared by seat when both the row and
  the judge carry a seat id, by alias otherwise. This is the number the ledger keeps.
- `perJudgeRank`: the row's position under each judge, keyed by the judge's seat id when it
  differs from its alias, else by alias.

A twin bench (two seats of one model) follows the rules the original tool settled:

- A row's seat id comes from the seat table only (`meta.seats`, the k-th seat of an alias for
  its k-th row). With no table the twins have no seat id: one is never invented, nor read off
  a vote (seed 000, "never fill in a seat id you did not observe").
- A ranking with a seat order (`orderSeats`) is read by seat: a row finds its seat id there
  (an unrepeated alias, its alias). A twin row with no seat id finds nothing in it — a seat
  order names seats, and nothing says which seat the row is; nor does a seated twin whose seat
  the order does not name. (An unrepeated alias whose slot is null falls back to its alias.)
- A ranking by alias only (`order`) cannot tell twins apart: every row of a repeated alias,
  seated or not, reports the alias's numbers (the mean of the alias's places there), so twin
  rows with no seat order collapse by alias.
- A seat table naming more seats than the bench has makes no row for the surplus seat.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .seats import repeats_alias

if TYPE_CHECKING:
    from ..documents.council import StreetCredRow


def positions(order: Sequence[Any]) -> list[tuple[Any, float]]:
    """(member, position) for every member of a ranking, tie groups sharing their mean place."""
    out: list[tuple[Any, float]] = []
    place = 1
    for slot in order:
        group = slot if isinstance(slot, list) else [slot]
        if not group:
            continue
        mean = place + (len(group) - 1) / 2
        out.extend((member, mean) for member in group)
        place += len(group)
    return out


def _row_seats(meta: Mapping[str, Any]) -> list[str | None]:
    """Each row's seat id from the seat table (the k-th seat of an alias for its k-th row), or
    None: an unrepeated alias, a row the table does not cover, or no table at all."""
    models: list[str] = meta["models"]
    table = meta.get("seats")
    if not repeats_alias(models) or not isinstance(table, list):
        return [None] * len(models)
    by_alias: dict[str, list[str]] = {}
    for seat in table:
        if isinstance(seat, dict) and isinstance(seat.get("id"), str) and isinstance(seat.get("alias"), str):
            by_alias.setdefault(seat["alias"], []).append(seat["id"])
    seen: Counter[str] = Counter()
    out: list[str | None] = []
    for alias in models:
        known = by_alias.get(alias, [])
        seat = known[seen[alias]] if seen[alias] < len(known) else None
        seen[alias] += 1
        out.append(seat if seat != alias else None)
    return out


class _Ranking:
    """One judge's ranking, indexed for O(1) lookups by seat and by alias."""

    def __init__(self, ranking: Mapping[str, Any]):
        self.judge = ranking.get("judge")
        self.seat = ranking.get("seat") or None
        self.key = self.seat if self.seat and self.seat != self.judge else self.judge
        self.by_alias: dict[Any, list[float]] = {}
        for member, pos in positions(ranking.get("order") or []):
            self.by_alias.setdefault(member, []).append(pos)
        self.by_seat: dict[Any, float] = {}
        order_seats = ranking.get("orderSeats")
        self.seated = isinstance(order_seats, list)
        if isinstance(order_seats, list):
            for member, pos in positions(order_seats):
                if isinstance(member, str):
                    self.by_seat.setdefault(member, pos)

    def position_of(self, alias: str, seat: str | None, repeated: bool) -> float | None:
        if self.seated:  # read by seat: a twin finds only its own seat id (none: nothing)
            key = seat if seat is not None else (None if repeated else alias)
            if key is not None and key in self.by_seat:
                return self.by_seat[key]
            if repeated:
                return None
        places = self.by_alias.get(alias)
        if not places:
            return None
        # By alias, twins cannot be told apart: each reports the alias's numbers (its mean place).
        return sum(places) / len(places) if repeated else places[0]

    def is_own(self, alias: str, seat: str | None) -> bool:
        if seat is not None and self.seat:
            return bool(self.seat == seat)
        return bool(self.judge == alias)


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def street_cred(meta: Mapping[str, Any], rankings: Sequence[Mapping[str, Any]]) -> list[StreetCredRow]:
    """One row per `meta.models` entry, in that order."""
    indexed = [_Ranking(r) for r in rankings]
    rows = []
    totals = Counter(meta["models"])
    for alias, seat in zip(meta["models"], _row_seats(meta)):
        with_self: list[float] = []
        peers: list[float] = []
        per_judge: dict[Any, float] = {}
        for ranking in indexed:
            pos = ranking.position_of(alias, seat, totals[alias] > 1)
            if pos is None:
                continue
            with_self.append(pos)
            if not ranking.is_own(alias, seat):
                peers.append(pos)
            per_judge[ranking.key] = pos
        row: StreetCredRow = {
            "model": alias,
            "withSelf": _mean(with_self),
            "peersOnly": _mean(peers),
            "perJudgeRank": per_judge,
        }
        if seat is not None:
            row["seat"] = seat
        rows.append(row)
    return rows
