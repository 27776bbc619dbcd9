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

import re
from collections.abc import Sequence
from typing import Literal, NamedTuple

from .suite import PlantedFlaw

LINE_SLACK = 3
MAX_LINE = 1_000_000

Placement = Literal["lines", "anchors", "lines+anchors", "elsewhere", "unplaced", "clean"]

_NUM = r"(\d{1,9})(?!\d)"
_TO = r"\s*(?:-|–|—|to|through|thru|\.\.)\s*"
# "line 42", "lines 40-45", "lines 12, 15 and 20", "ln 7", "l. 7", "ll. 7-9", "Line 3 to line 9"
_KEYWORD = re.compile(
    r"\b(?:lines?|ln|ll?\.)\s*#?" + _NUM + r"((?:\s*(?:,|and|&|-|–|—|to|through|thru|\.\.)\s*(?:lines?\s*)?\d{1,9}(?!\d))*)",
    re.IGNORECASE)
# "L42", "L40-L45", "#L42-L45" (the way code hosts link lines)
_L_FORM = re.compile(r"(?<![A-Za-z0-9])#?L" + _NUM + r"(?:" + _TO + r"L?" + _NUM + r")?(?![A-Za-z0-9])")
# "path/file.ext:42" or "file.ext:40-45"
_COLON = re.compile(r"[\w./-]+\.[A-Za-z0-9]{1,8}:" + _NUM + r"(?:" + _TO + _NUM + r")?(?![\d])")
_TAIL_ITEM = re.compile(r"(,|and|&|-|–|—|to|through|thru|\.\.)\s*(?:lines?\s*)?(\d{1,9})(?!\d)", re.IGNORECASE)


class Candidates(NamedTuple):
    flaws: tuple[str, ...]  # candidate flaw ids, in the case's order
    placement: Placement


def cited_lines(location: str) -> list[tuple[int, int]]:
    """The line ranges a finding's location cites, in order of appearance (may be empty)."""
    found: list[tuple[int, tuple[int, int]]] = []
    for match in _KEYWORD.finditer(location):
        found.extend((match.start(), r) for r in _keyword_ranges(int(match.group(1)), match.group(2) or ""))
    for match in _L_FORM.finditer(location):
        found.append((match.start(), _range(match.group(1), match.group(2))))
    for match in _COLON.finditer(location):
        found.append((match.start(), _range(match.group(1), match.group(2))))
    out: list[tuple[int, int]] = []
    for _, r in sorted(found):
        if r not in out and r[1] <= MAX_LINE:
            out.append(r)
    return out


def _keyword_ranges(first: int, tail: str) -> list[tuple[int, int]]:
    """`lines 12, 15-17 and 20` → (12,12), (15,17), (20,20)."""
    ranges = [(first, first)]
    for sep, number in _TAIL_ITEM.findall(tail):
        n = int(number)
        if sep.lower() in ("-", "–", "—", "to", "through", "thru", ".."):
            start = ranges[-1][0]
            ranges[-1] = (min(start, n), max(start, n))
        else:
            ranges.append((n, n))
    return ranges


def _range(a: str, b: str | None) -> tuple[int, int]:
    start, end = int(a), int(b) if b else int(a)
    return (min(start, end), max(start, end))


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
