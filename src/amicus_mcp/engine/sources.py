"""The material a run read, for the evidence check, and the one read-only, root-confined reader.

`SourceReader` is the only way the evidence check (and the verifier's tools) read a file: a
name is resolved against the project roots with every symlink followed, and refused unless the
real file lies inside a root (so `../x`, an absolute path elsewhere and a symlink pointing out
are all refused), is a regular file, is UTF-8 text and is under the size bound. It never writes.
Names come from model text and from the briefing; they are looked up, never trusted.

`run_material` assembles what a council run read: the artifact (each side of a diff, and the
whole text), the files the briefing names that exist inside the project, and the briefing itself
(last, so a quote found in the artifact is placed there rather than in the briefing's copy).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import NamedTuple

from ..council.evidence import Source, diff_sources, looks_like_diff, text_source
from ..errors import BadArgs
from ..fsio import read_bytes_bounded
from ..textcodec import NotText, decode_text

MAX_SOURCE_BYTES = 400 * 1024  # a file read for the evidence check or by a verifier (the artifact's bound)
MAX_REFERENCED = 20  # files the briefing names that the check reads at most
MAX_SEARCH_FILES = 2000  # files a search walks at most
MAX_SEARCH_HITS = 20
SKIPPED_DIRS = frozenset({".git", ".hg", ".svn", "node_modules", ".venv", "venv", "__pycache__", ".amicus",
                          ".mypy_cache", ".pytest_cache", ".tox", "dist", "build"})
BRIEFING = "briefing"
# A path-like token in a briefing: `src/app.py`, `./lib/util.ts`, `README.md` (a name with a suffix).
_PATHLIKE = re.compile(r"(?<![\w./-])(?:\./)?([\w.-]+(?:/[\w.-]+)*\.[A-Za-z0-9]{1,8})(?![\w/-])")


class Refused(BadArgs):
    """A name the reader will not read (outside the roots, not a file, binary, too large)."""


class Line(NamedTuple):
    path: str
    number: int
    text: str


class SourceReader:
    """Read-only access to files inside `roots` (see the module docstring)."""

    def __init__(self, roots: Sequence[Path], *, max_bytes: int = MAX_SOURCE_BYTES):
        self.roots = tuple(Path(r).resolve() for r in roots)
        self.max_bytes = max_bytes

    def resolve(self, name: str) -> Path:
        """The real path of `name` inside a root, or Refused."""
        if not isinstance(name, str) or not name.strip() or "\x00" in name:
            raise Refused("a file name is required", hint="name a file inside the project")
        raw = Path(name.strip()).expanduser()
        candidates = [raw] if raw.is_absolute() else [root / raw for root in self.roots]
        for candidate in candidates:
            try:
                real = candidate.resolve(strict=True)  # every symlink followed
            except (OSError, RuntimeError):
                continue
            if self.inside(real) and real.is_file():
                return real
        raise Refused(f"'{name}' is not a file inside the project",
                      hint="only files inside the project roots can be read (no '..', no symlink out)")

    def inside(self, real: Path) -> bool:
        return any(real == root or real.is_relative_to(root) for root in self.roots)

    def relative(self, real: Path) -> str:
        for root in self.roots:
            if real.is_relative_to(root):
                return real.relative_to(root).as_posix()
        return real.name

    def read(self, name: str) -> str:
        real = self.resolve(name)
        try:
            raw = read_bytes_bounded(real, what=f"'{name}'", limit=self.max_bytes)
        except BadArgs as exc:
            raise Refused(exc.message, hint=exc.hint) from None
        try:
            return decode_text(raw)
        except NotText as exc:
            raise Refused(f"'{name}' {exc}", hint="only text files can be read") from None

    def read_lines(self, name: str, first: int | None = None, last: int | None = None) -> list[Line]:
        """Lines `first`..`last` (1-based, inclusive; the whole file by default)."""
        real = self.resolve(name)
        path = self.relative(real)
        lines = self.read(name).splitlines()
        lo = max(first or 1, 1)
        hi = min(last or len(lines), len(lines))
        return [Line(path, n, lines[n - 1]) for n in range(lo, hi + 1)]

    def search(self, needle: str, *, max_hits: int = MAX_SEARCH_HITS) -> list[Line]:
        """Lines holding `needle` (exact text) in the text files inside the roots, bounded."""
        if not isinstance(needle, str) or not needle.strip():
            raise Refused("a search needs some text", hint="pass the string to look for")
        hits: list[Line] = []
        seen: set[Path] = set()
        for path in self._walk():
            try:
                real = self.resolve(str(path))
                if real in seen:  # a symlink to a file already searched
                    continue
                seen.add(real)
                text = self.read(str(path))
            except Refused:
                continue
            for number, line in enumerate(text.splitlines(), start=1):
                if needle in line:
                    hits.append(Line(self.relative(real), number, line))
                    if len(hits) >= max_hits:
                        return hits
        return hits

    def _walk(self) -> Iterator[Path]:
        seen = 0
        for root in self.roots:
            for here, dirs, files in os.walk(root):  # os.walk does not follow directory symlinks
                dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.startswith("."))
                for name in sorted(files):
                    seen += 1
                    if seen > MAX_SEARCH_FILES:
                        return
                    yield Path(here) / name


def referenced_names(text: str) -> list[str]:
    """The path-like names a briefing mentions, in order, each once."""
    out: list[str] = []
    for match in _PATHLIKE.finditer(text):
        name = match.group(1)
        if name not in out and not name.startswith("."):
            out.append(name)
    return out


def run_material(briefing: str, reader: SourceReader, *, artifact: Path | None = None) -> list[Source]:
    """What a council run read, as the evidence check's sources (see the module docstring)."""
    sources: list[Source] = []
    texts: list[str] = [briefing]
    if artifact is not None:
        try:
            text = reader.read(str(artifact))
            name = reader.relative(reader.resolve(str(artifact)))
        except Refused:
            # The artifact lies outside the project (the caller named it): it is in the briefing verbatim.
            text, name = "", ""
        if text:
            texts.insert(0, text)
            sources.extend(diff_sources(text) if looks_like_diff(text) else [])
            sources.append(text_source(name, text))
    if looks_like_diff(briefing):
        sources.extend(diff_sources(briefing))
    read: set[str] = {s.name for s in sources if s.side is None}
    for name in [n for t in texts for n in referenced_names(t)][: MAX_REFERENCED * 3]:
        if len(read) >= MAX_REFERENCED + (1 if artifact is not None else 0):
            break
        try:
            real = reader.resolve(name)
            rel = reader.relative(real)
            if rel in read:
                continue
            sources.append(text_source(rel, reader.read(name)))
            read.add(rel)
        except Refused:
            continue
    sources.append(text_source(BRIEFING, briefing))
    return sources
