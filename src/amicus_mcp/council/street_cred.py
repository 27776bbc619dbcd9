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

A row locates itself in a ranking through `orderSeats` (its seat id) when the ranking carries
one, and through `order` (its alias) otherwise: the k-th seated row of an alias takes the
alias's k-th place in `order`, or its only place when the judge listed the alias once. A row
of a repeated alias with no seat id (no seat table and no `alias#k` anywhere in the input)
takes the alias's mean place, so such rows are identical: nothing in the document can tell
them apart, and a seat id is never invented to do so.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from .seats import repeats_alias, seat_ids


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


def _row_seats(meta: Mapping[str, Any], observed: Collection[str]) -> list[str | None]:
    """Each row's seat id, or None when the row has none it can honestly claim.

    A seat id comes from the seat table (the k-th seat of an alias for its k-th row), or,
    with no table, from the `alias#k` id the input itself used somewhere (`observed`). An id
    nothing in the input carries is never made up: seed 000, "never fill in a seat id you did
    not observe". A row the table does not cover is an alias row; a surplus seat makes none.
    """
    models: list[str] = meta["models"]
    if not repeats_alias(models):
        return [None] * len(models)
    table = meta.get("seats")
    by_alias: dict[str, list[str]] | None = None
    if isinstance(table, list):
        by_alias = {}
        for seat in table:
            if isinstance(seat, dict) and isinstance(seat.get("id"), str) and isinstance(seat.get("alias"), str):
                by_alias.setdefault(seat["alias"], []).append(seat["id"])
    seen: Counter[str] = Counter()
    out: list[str | None] = []
    for alias, computed in zip(models, seat_ids(models)):
        k = seen[alias]
        seen[alias] += 1
        if by_alias is not None:
            known = by_alias.get(alias, [])
            seat = known[k] if k < len(known) else None
        else:
            seat = computed if computed in observed else None
        out.append(seat if seat != alias else None)
    return out


def observed_seat_ids(rankings: Sequence[Mapping[str, Any]], *more: Any) -> set[str]:
    """Every seat id the input carries: rankings' `seat`/`orderSeats`, and any extra ids."""
    ids: set[str] = {m for m in more if isinstance(m, str) and m}
    for ranking in rankings:
        if isinstance(ranking.get("seat"), str):
            ids.add(ranking["seat"])
        order_seats = ranking.get("orderSeats")
        if isinstance(order_seats, list):
            ids.update(m for m, _ in positions(order_seats) if isinstance(m, str))
    return ids


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
        if isinstance(order_seats, list):
            for member, pos in positions(order_seats):
                if isinstance(member, str):
                    self.by_seat.setdefault(member, pos)

    def position_of(self, alias: str, seat: str | None, k: int, repeated: bool) -> float | None:
        if seat is not None and seat in self.by_seat:
            return self.by_seat[seat]
        places = self.by_alias.get(alias)
        if not places:
            return None
        if seat is None and repeated:
            # A seatless row of a repeated alias cannot be told from its twins: every such
            # row reads the alias's mean place, so the rows are identical rather than guessed.
            return sum(places) / len(places)
        return places[k] if k < len(places) else (places[0] if len(places) == 1 else None)

    def is_own(self, alias: str, seat: str | None) -> bool:
        if seat is not None and self.seat:
            return self.seat == seat
        return self.judge == alias


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def street_cred(meta: Mapping[str, Any], rankings: Sequence[Mapping[str, Any]],
                observed: Collection[str] | None = None) -> list[dict[str, Any]]:
    """One row per `meta.models` entry. `observed`: the seat ids the whole input carries
    (default: those on the rankings); with no seat table only these can name a row."""
    indexed = [_Ranking(r) for r in rankings]
    rows = []
    seen: Counter[str] = Counter()
    totals = Counter(meta["models"])
    seen_ids = observed_seat_ids(rankings) if observed is None else observed
    for alias, seat in zip(meta["models"], _row_seats(meta, seen_ids)):
        k = seen[alias]
        seen[alias] += 1
        with_self: list[float] = []
        peers: list[float] = []
        per_judge: dict[Any, float] = {}
        for ranking in indexed:
            pos = ranking.position_of(alias, seat, k, totals[alias] > 1)
            if pos is None:
                continue
            with_self.append(pos)
            if not ranking.is_own(alias, seat):
                peers.append(pos)
            per_judge[ranking.key] = pos
        row: dict[str, Any] = {
            "model": alias,
            "withSelf": _mean(with_self),
            "peersOnly": _mean(peers),
            "perJudgeRank": per_judge,
        }
        if seat is not None:
            row["seat"] = seat
        rows.append(row)
    return rows
