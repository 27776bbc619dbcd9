"""The deterministic location pre-filter: which planted flaws a finding could be about.

Before any model is asked, each finding is narrowed to candidate flaws by where it points:

- **lines** — the line numbers its `location` cites ("line 42", "lines 40-45", "L42",
  "ll. 40–45", "api/ratelimit.py:42"). A flaw is a candidate when one of its ranges, widened
  by `LINE_SLACK` lines either side, overlaps a cited line or range;
- **anchors** — a flaw is a candidate when one of its anchors (a name or heading the suite
  author gave) appears in the finding's location or claim, ignoring case.

The candidates are the union of both. The placement says how they were found:

    lines / anchors / lines+anchors   candidates found; the matcher chooses among them
    elsewhere   the location cites lines and no anchor appears, and no flaw is near those
                lines: no candidate, so the finding is unmatched without a model call
    unplaced    the location cites no line and no anchor appears: the finding cannot be
                placed, so every flaw of the case is a candidate and the matcher decides
    clean       the case has no planted flaw: nothing to match

Everything here is a pure function of its arguments.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, NamedTuple

from ..council.locations import cited_lines
from .suite import PlantedFlaw

LINE_SLACK = 3

Placement = Literal["lines", "anchors", "lines+anchors", "elsewhere", "unplaced", "clean"]


class Candidates(NamedTuple):
    flaws: tuple[str, ...]  # candidate flaw ids, in the case's order
    placement: Placement


def _near(flaw: PlantedFlaw, cited: Sequence[tuple[int, int]]) -> bool:
    return any(start - LINE_SLACK <= c_end and c_start <= end + LINE_SLACK
               for start, end in flaw.location.ranges() for c_start, c_end in cited)


def _anchored(flaw: PlantedFlaw, text: str) -> bool:
    return any(anchor.lower() in text for anchor in flaw.location.anchors)


def candidates(flaws: Sequence[PlantedFlaw], *, location: str, claim: str) -> Candidates:
    """The planted flaws a finding (its location and claim) could be about."""
    if not flaws:
        return Candidates((), "clean")
    cited = cited_lines(location)
    text = f"{location}\n{claim}".lower()
    by_lines = {f.id for f in flaws if cited and _near(f, cited)}
    by_anchor = {f.id for f in flaws if _anchored(f, text)}
    chosen = tuple(f.id for f in flaws if f.id in by_lines | by_anchor)
    if chosen:
        placement: Placement = ("lines+anchors" if by_lines and by_anchor else "lines" if by_lines else "anchors")
        return Candidates(chosen, placement)
    if cited:
        return Candidates((), "elsewhere")
    return Candidates(tuple(f.id for f in flaws), "unplaced")
