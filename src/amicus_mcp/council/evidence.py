"""The evidence check: a finding's quoted `evidence` looked up in the material the run read.

No model call and no I/O: the engine hands over the material as `Source`s (the briefing, its
artifact, each side of a diff, a file the briefing names inside the project roots) and every
finding gets an `evidenceCheck` (vocabulary.EVIDENCE_CHECKS):

    verified   the quote is in the material at the stated location — or the location names no
               file and no line, and the quote is in the material (`evidenceLocation` says where)
    moved      the quote is in the material, but not where the location says: `evidenceLocation`
               is where it is
    not-found  the quote is not in the material
    absent     the finding gives no quote

Matching is whitespace- and quote-normalised (curly quotes, NFKC, runs of whitespace and line
breaks are one space), so a quote that spans lines or was re-indented still matches; a quote may
elide with `...` / `…`, and then every fragment must appear, in order, in one source. A quoted
diff line may keep its `+`/`-` marker and a quoted line its `12:` / `12 |` number. A location is
read for a file (a source's path or base name) and a line or range (`app.py:12`, `:12-14`,
`line 12`, `lines 12–14`, `#L12-L14`); a stated line counts when the quote is within
`LINE_SLACK` lines of it.

Model text is data here: it is only searched for, never used as a path.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from typing_extensions import NotRequired, TypedDict

from ..vocabulary import ABSENT, MOVED, NOT_FOUND, VERIFIED, EvidenceCheck

LINE_SLACK = 2  # a stated line still matches a quote this many lines away (models miscount)
MAX_EVIDENCE_CHARS = 2000  # a longer "quote" is cut to this before it is searched for
EVIDENCE_FIELDS = ("evidence", "evidenceCheck", "evidenceLocation")  # what a checked finding carries
# … and what a verified one (`--verify`, engine/verify.py) carries besides: the tally echoes them all.
GROUND_FIELDS = (*EVIDENCE_FIELDS, "verification", "verificationLines", "verificationReason", "verificationToolCalls")

_QUOTES = str.maketrans({"‘": "'", "’": "'", "‚": "'", "‛": "'", "′": "'", "`": "`",
                         "“": '"', "”": '"', "„": '"', "‟": '"', "″": '"', "«": '"', "»": '"'})
_ELLIPSIS = re.compile(r"\s*(?:\.\.\.|…)\s*")
_QUOTE_LINE_PREFIX = re.compile(r"^\s*(?:L?\d+\s*[:|]\s?)?(?:[+-](?=\s|$))?")
_LINES = re.compile(r"(?:#L|\blines?\s+|\bl\.\s*|:)(\d+)(?:\s*(?:-|–|—|to|\.\.)\s*L?(\d+))?", re.IGNORECASE)
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_WRAPPERS = "\"'`"


class Source(NamedTuple):
    """One text the run read, line by line: `lines` holds (line number, text) pairs."""

    name: str  # the path as the run names it ("src/app.py"), or "briefing"
    lines: tuple[tuple[int, str], ...]
    side: str | None = None  # a diff's "new" or "old" side; None for a whole file

    @property
    def label(self) -> str:
        return f"{self.name} (old side)" if self.side == "old" else self.name


class Quoted(TypedDict):
    """What the check reads of a finding (anonymize.AnonFinding) and sets on it."""

    location: str | None
    evidence: str | None
    evidenceCheck: NotRequired[EvidenceCheck]
    evidenceLocation: NotRequired[str]


class Check(NamedTuple):
    check: EvidenceCheck
    at: str | None = None  # where the quote was found ("src/app.py:12-13"), when it was


class _Hit(NamedTuple):
    source: Source
    first: int  # line numbers of the quote's first and last line
    last: int

    @property
    def at(self) -> str:
        span = str(self.first) if self.first == self.last else f"{self.first}-{self.last}"
        return f"{self.source.label}:{span}"


# --------------------------------------------------------------------------- material

def text_source(name: str, text: str) -> Source:
    """A whole text, numbered from line 1."""
    return Source(name, tuple(enumerate(text.splitlines(), start=1)))


def diff_sources(text: str) -> list[Source]:
    """Each file of a unified diff in `text` as its new side and its old side, numbered as the
    hunk headers number them (a hunk is read for as many lines as its header counts, so a
    removed line that reads `--- x` is a line, not a header). Text outside a diff gives nothing."""
    out: list[Source] = []
    old_name: str | None = None
    new_name: str | None = None
    old: list[tuple[int, str]] = []
    new: list[tuple[int, str]] = []
    old_no = new_no = old_left = new_left = 0

    def flush() -> None:
        if new_name and new_name != "/dev/null" and new:
            out.append(Source(new_name, tuple(new), "new"))
        if old_name and old_name != "/dev/null" and old:
            out.append(Source(old_name, tuple(old), "old"))

    for line in text.splitlines():
        if old_left > 0 or new_left > 0:  # inside a hunk
            mark, body = line[:1], line[1:]
            if mark == "+" and new_left > 0:
                new.append((new_no, body))
                new_no, new_left = new_no + 1, new_left - 1
            elif mark == "-" and old_left > 0:
                old.append((old_no, body))
                old_no, old_left = old_no + 1, old_left - 1
            elif mark in (" ", "") and old_left > 0 and new_left > 0:
                new.append((new_no, body))
                old.append((old_no, body))
                new_no, old_no, new_left, old_left = new_no + 1, old_no + 1, new_left - 1, old_left - 1
            elif mark != "\\":  # "\ No newline at end of file" is skipped; anything else ends the hunk
                old_left = new_left = 0
            continue
        if line.startswith("--- "):
            flush()
            old_name, new_name, old, new = _diff_path(line[4:]), None, [], []
        elif line.startswith("+++ ") and old_name is not None and new_name is None:
            new_name = _diff_path(line[4:])
        elif (hunk := _HUNK.match(line)) and new_name is not None:
            old_no, new_no = int(hunk.group(1)), int(hunk.group(3))
            old_left = int(hunk.group(2)) if hunk.group(2) is not None else 1
            new_left = int(hunk.group(4)) if hunk.group(4) is not None else 1
    flush()
    return out


def _diff_path(raw: str) -> str:
    path = raw.split("\t", 1)[0].strip()
    return path[2:] if path[:2] in ("a/", "b/") else path


def looks_like_diff(text: str) -> bool:
    return bool(re.search(r"^@@ -\d+", text, re.MULTILINE)) and bool(re.search(r"^\+\+\+ ", text, re.MULTILINE))


# --------------------------------------------------------------------------- normalising

def normalise(text: str) -> str:
    """NFKC, straight quotes, every run of whitespace one space, trimmed."""
    return " ".join(unicodedata.normalize("NFKC", text).translate(_QUOTES).split())


def _quote_fragments(evidence: str) -> list[str]:
    text = evidence[:MAX_EVIDENCE_CHARS]
    lines = [_QUOTE_LINE_PREFIX.sub("", line, count=1) for line in text.splitlines()]
    joined = normalise("\n".join(lines))
    while len(joined) >= 2 and joined[0] == joined[-1] and joined[0] in _WRAPPERS:
        joined = joined[1:-1].strip()  # a quote the model wrapped in quotes or backticks
    return [part for part in (p.strip() for p in _ELLIPSIS.split(joined)) if part]


class _Indexed(NamedTuple):
    text: str  # the source's lines, normalised, joined by one space
    starts: list[int]  # the offset of each line in `text`
    numbers: list[int]  # each line's number


def _index(source: Source) -> _Indexed:
    parts: list[str] = []
    starts: list[int] = []
    numbers: list[int] = []
    offset = 0
    for number, line in source.lines:
        norm = normalise(line)
        starts.append(offset)
        numbers.append(number)
        parts.append(norm)
        offset += len(norm) + 1
    return _Indexed(" ".join(parts), starts, numbers)


def _line_at(index: _Indexed, offset: int) -> int:
    return index.numbers[max(bisect.bisect_right(index.starts, offset) - 1, 0)]


def _hits(fragments: Sequence[str], source: Source, index: _Indexed) -> list[_Hit]:
    """Every place the fragments occur, in order, in one source."""
    out: list[_Hit] = []
    head, rest = fragments[0], fragments[1:]
    start = index.text.find(head)
    while start != -1:
        end = start + len(head)
        for fragment in rest:
            at = index.text.find(fragment, end)
            if at == -1:
                return out  # a later start cannot find what an earlier one could not
            end = at + len(fragment)
        out.append(_Hit(source, _line_at(index, start), _line_at(index, max(end - 1, start))))
        start = index.text.find(head, start + 1)
    return out


# --------------------------------------------------------------------------- the check

class Stated(NamedTuple):
    """What a finding's location says: the sources it names (by position) and a line range."""

    sources: frozenset[int]
    lines: tuple[int, int] | None


def read_location(location: Any, material: Sequence[Source]) -> Stated:
    text = location if isinstance(location, str) else ""
    named = set()
    for pos, source in enumerate(material):
        if source.name == "briefing":
            continue
        base = source.name.rsplit("/", 1)[-1]
        if source.name in text or (base and re.search(rf"(?<![\w./-]){re.escape(base)}(?![\w-])", text)):
            named.add(pos)
    match = _LINES.search(text)
    lines = None
    if match:
        first = int(match.group(1))
        last = int(match.group(2)) if match.group(2) else first
        lines = (min(first, last), max(first, last))
    return Stated(frozenset(named), lines)


def check_evidence(evidence: Any, location: Any, material: Sequence[Source]) -> Check:
    """The check for one finding's quote against the material (see the module docstring)."""
    if not isinstance(evidence, str) or not evidence.strip():
        return Check(ABSENT)
    fragments = _quote_fragments(evidence)
    if not fragments:
        return Check(ABSENT)
    hits: list[_Hit] = []
    for source in material:
        hits.extend(_hits(fragments, source, _index(source)))
    if not hits:
        return Check(NOT_FOUND)
    stated = read_location(location, material)
    named = [h for h in hits if material.index(h.source) in stated.sources] if stated.sources else hits
    if stated.lines is None:
        return Check(VERIFIED, named[0].at) if named else Check(MOVED, hits[0].at)
    near = [h for h in named if _near(h, stated.lines)]
    if near:
        return Check(VERIFIED, near[0].at)
    pool = named or hits
    best = min(pool, key=lambda h: _distance(h, stated.lines or (0, 0)))
    return Check(MOVED, best.at)


def _near(hit: _Hit, lines: tuple[int, int]) -> bool:
    return hit.first <= lines[1] + LINE_SLACK and hit.last >= lines[0] - LINE_SLACK


def _distance(hit: _Hit, lines: tuple[int, int]) -> int:
    return max(lines[0] - hit.last, hit.first - lines[1], 0)


def annotate(findings: Iterable[Quoted], material: Sequence[Source], *,
             only_quoted: bool = False) -> None:
    """Set each finding's `evidenceCheck` (and `evidenceLocation` when the quote was found), in
    place. `only_quoted`: leave a finding that gives no quote unchecked (a question council's key
    claims, which need not quote anything)."""
    indexed = list(material)
    for finding in findings:
        evidence = finding.get("evidence")
        if only_quoted and not (isinstance(evidence, str) and evidence.strip()):
            continue
        result = check_evidence(evidence, finding.get("location"), indexed)
        finding["evidenceCheck"] = result.check
        if result.at is not None:
            finding["evidenceLocation"] = result.at
        else:
            finding.pop("evidenceLocation", None)


def check_counts(findings: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    """How many findings got each check (only the checked ones are counted)."""
    from ..vocabulary import EVIDENCE_CHECKS

    counts: dict[str, int] = dict.fromkeys(EVIDENCE_CHECKS, 0)
    for finding in findings:
        check = finding.get("evidenceCheck")
        if check in counts:
            counts[check] += 1
    return counts


# How a check reads wherever a finding is shown (the reports, the judges' and the chair's packets).
CHECK_WORDS: dict[str, str] = {
    VERIFIED: "evidence verified in the material",
    MOVED: "evidence found elsewhere in the material",
    NOT_FOUND: "evidence not found in the material",
    ABSENT: "no evidence given",
}


def check_phrase(finding: Mapping[str, Any]) -> str | None:
    """`evidence not found in the material`, `evidence found elsewhere in the material (at app.py:12)`…;
    None for a finding that was never checked."""
    check = finding.get("evidenceCheck")
    if check not in CHECK_WORDS:
        return None
    where = finding.get("evidenceLocation")
    return CHECK_WORDS[check] + (f" (at {where})" if check in (VERIFIED, MOVED) and isinstance(where, str) else "")
