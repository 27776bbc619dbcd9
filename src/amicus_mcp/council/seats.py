"""Seats: one reviewing position on the bench.

A bench may seat the same model twice (`--models deepseek,deepseek,gpt`); those two seats are
independent reviewers, so identity is the seat, not the alias. A seat id *is* its alias when
the alias occupies exactly one bench position, and `alias#N` (1-based among that alias's
seats) when it repeats. Documents carry a seat id only where it differs from the alias, so a
bench with no repeated alias produces exactly the documents it always did.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import TypedDict


class Seat(TypedDict):
    id: str
    alias: str
    role: str  # "seat" | "critic" | "lens:<slug>"
    lens: str | None
    position: int  # 1-based bench position


def seat_ids(aliases: Sequence[str]) -> list[str]:
    """Seat ids for a bench, in bench order."""
    totals = Counter(aliases)
    seen: Counter[str] = Counter()
    ids = []
    for alias in aliases:
        if totals[alias] == 1:
            ids.append(alias)
        else:
            seen[alias] += 1
            ids.append(f"{alias}#{seen[alias]}")
    return ids


def build_seats(
    aliases: Sequence[str],
    *,
    roles: Sequence[str] | None = None,
    lenses: Sequence[str | None] | None = None,
) -> list[Seat]:
    """The seat table `{id, alias, role, lens, position}` for a bench."""
    roles = list(roles) if roles is not None else ["seat"] * len(aliases)
    lenses = list(lenses) if lenses is not None else [None] * len(aliases)
    if len(roles) != len(aliases) or len(lenses) != len(aliases):
        raise ValueError("roles and lenses must have one entry per bench seat")
    return [
        Seat(id=sid, alias=alias, role=role, lens=lens, position=i + 1)
        for i, (sid, alias, role, lens) in enumerate(zip(seat_ids(aliases), aliases, roles, lenses))
    ]


def repeats_alias(aliases: Sequence[str]) -> bool:
    """True when some alias holds more than one seat — the only case seat ids are emitted."""
    return len(set(aliases)) != len(aliases)


_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def seat_file_stem(seat_id: str) -> str:
    """A seat id made safe to name a file: `deepseek#2` → `deepseek-2`.

    Model text never chooses a path: anything outside `[A-Za-z0-9._-]` becomes `-`, and
    leading dots are removed so a stem can never be `..` or a hidden file.
    """
    stem = _UNSAFE.sub("-", seat_id.replace("#", "-")).strip("-").lstrip(".")
    return stem or "seat"
