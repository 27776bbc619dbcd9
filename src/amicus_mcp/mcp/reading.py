"""`amicus_read`: the text of a council run, a wave or a leg, one page at a time.

    council run   `file` names a file in the run directory (reviews, judgements, chair
                  output, the JSON documents, the engine log, report.html); without it, the Markdown
                  report rendered from verdict.json
    wave          every leg's output, one `## <legId> · <model> · <status>` section each
    leg           the leg's output: a wave's leg, or a council run's (`<runId>-s1-1`, as its
                  status lists it; its answer as the run recorded it in `legs/`)

Reads never change anything on disk (no crash detection here: `amicus_status` does that).
Files are listed from the run directory itself and must match a plain-name pattern, so a
request cannot reach outside it.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Literal, NamedTuple

from ..errors import AmicusError, BadArgs

if TYPE_CHECKING:
    from ..documents.legs import LegRun
    from ..engine import SessionStore


READ_CAP = 51_200
_RUN_FILE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._#-]*\.(md|json|log|html)$")


EVAL_FILES = ("eval.md", "eval.json", "eval-run.json")


class Source(NamedTuple):
    kind: Literal["council-run", "wave", "leg", "eval-run"]
    name: str
    text: str
    files: list[str] | None = None
    path: Path | None = None  # the file the text is (or, for a run's report, is rendered in), for a resource link


class Page(NamedTuple):
    text: str
    offset: int
    total: int
    next_offset: int | None


def page(text: str, *, offset: int | None, limit: int, tail: bool) -> Page:
    """`limit` characters from `offset` (default 0), or the last `limit` with `tail`."""
    total = len(text)
    start = max(0, total - limit) if tail and offset is None else min(offset or 0, total)
    end = min(total, start + limit)
    return Page(text[start:end], start, total, end if end < total else None)


def read_source(store: SessionStore, target: str, file: str | None) -> Source:
    """What `amicus_read` shows for an id (a `SessionStore` from the engine)."""
    from ..engine import council_leg_status, locate
    from ..engine import observed
    from ..fsio import checked_name

    if file is not None:
        checked_name(file, "file")  # a file name in the run directory: never a control character
    found = locate(store, target)  # BadSession when the id names nothing
    if found.kind == "council-run" and found.run_dir is not None:
        return _run_source(found.run_dir.path, target, file)
    if found.kind == "job" and found.manifest is not None:
        return _eval_source(found.manifest.parent, target, file)
    if file is not None:
        raise BadArgs(f"'{target}' is not a council run: `file` applies to council runs only",
                      hint="read a wave or a leg without `file`")
    if found.kind == "wave":
        wave = store.read_wave(target)
        return Source("wave", "outputs", "\n\n".join(_leg_section(leg) for leg in wave.legs))
    if found.kind == "council-leg" and found.run_dir is not None:
        run = found.run_dir.read()
        leg = council_leg_status(found.run_dir, observed(found.run_dir, run) or run, target)  # seen, not recorded
        return Source("leg", "output", _leg_text(leg))
    return Source("leg", "output", _leg_text(store.read_leg(target)))


def run_files(run_dir: Path) -> list[str]:
    """The files `file` may name: plain names of regular files in the run directory. A
    symlink counts only when it resolves into the run directory itself (resolving is the
    costly part of a listing, so only symlinks pay for it)."""
    home = run_dir.resolve()
    names = []
    with os.scandir(run_dir) as entries:
        for entry in entries:
            if not _RUN_FILE.match(entry.name) or not entry.is_file():
                continue
            if entry.is_symlink() and Path(entry.path).resolve().parent != home:
                continue
            names.append(entry.name)
    return sorted(names)


def _run_source(run_dir: Path, run_id: str, file: str | None) -> Source:
    from ..fsio import read_text

    files = run_files(run_dir)
    if file is not None:
        if file not in files:
            raise BadArgs(f"run {run_id} has no file '{file}'", hint=f"name one of: {', '.join(files)}")
        return Source("council-run", file, read_text(run_dir / file, what="run file"), files, run_dir / file)
    from ..engine import RUN_FILES, RunDir

    if RUN_FILES.verdict not in files:
        raise BadArgs(f"run {run_id} has no verdict.json yet, so there is no report to read",
                      hint=f"wait for the run to finish, or name one of its files with `file`: {', '.join(files)}")
    from ..engine import render_verdict

    try:
        verdict = RunDir(run_dir).read_verdict()
    except AmicusError as err:
        raise BadArgs(f"run {run_id}'s {RUN_FILES.verdict} cannot be read: {err.message}",
                      hint=f"name one of its files with `file`: {', '.join(files)}") from None
    html = run_dir / RUN_FILES.report if RUN_FILES.report in files else None
    return Source("council-run", "report", render_verdict(RunDir(run_dir).verdict_path, verdict), files, html)


def _eval_source(eval_dir: Path, eval_id: str, file: str | None) -> Source:
    """An eval: its Markdown scores by default, or one of its top-level documents."""
    from ..fsio import read_text

    present = [name for name in EVAL_FILES if (eval_dir / name).is_file()]
    name = file or "eval.md"
    if name not in present:
        if file is not None:
            raise BadArgs(f"eval {eval_id} has no file '{file}'", hint=f"name one of: {', '.join(present)}")
        raise BadArgs(f"eval {eval_id} has no eval.md yet, so there are no scores to read",
                      hint="wait for it to finish (amicus_wait); `file` can read eval-run.json meanwhile")
    return Source("eval-run", name, read_text(eval_dir / name, what="eval file"), present, eval_dir / name)


def _leg_text(leg: LegRun) -> str:
    if leg.summary:
        return leg.summary
    if leg.error is not None:
        return f"(no output: {leg.status} — {leg.error.code}: {leg.error.message})"
    return f"(no output yet: {leg.status})"


def _leg_section(leg: LegRun) -> str:
    return f"## {leg.leg_id} · {leg.model or leg.model_input} · {leg.status}\n\n{_leg_text(leg)}"
