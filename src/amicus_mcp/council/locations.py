"""Where a finding points: the lines its free-text `location` cites, and the file it names.

A finding's `location` is whatever its raiser wrote ("api/ratelimit.py:42", "lines 40-45",
"section 2"). The eval's pre-filter, SARIF and review comments all read it through here, so a
location means one thing everywhere. Everything here is a pure function of its argument.
"""

from __future__ import annotations

import re
from typing import NamedTuple

MAX_LINE = 1_000_000

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


class PhysicalLocation(NamedTuple):
    """A location as a file and lines; `path` is None when it names no file, the lines None when it cites none."""

    path: str | None
    start: int | None
    end: int | None


# A repository-relative file path: at least one dot-extension, no scheme, no spaces.
_PATH = re.compile(r"(?<![\w/.:-])((?:[\w.-]+/)*[\w.-]*[\w-]\.[A-Za-z][A-Za-z0-9]{0,7})(?=$|[\s:#,;)(]|\s*\()")


def physical_location(location: str | None) -> PhysicalLocation:
    """The file and the first line range `location` cites (either may be absent)."""
    text = location or ""
    path_match = _PATH.search(text)
    path = path_match.group(1).removeprefix("./") if path_match else None
    if path is not None and ".." in path.split("/"):
        path = None  # never a path that climbs out of the repository
    lines = cited_lines(text)
    start, end = lines[0] if lines else (None, None)
    return PhysicalLocation(path, start, end)
