"""A council run's verdict and report, from the run's own files.

The verdict is a closed projection of the tally record: it does not carry what each finding
claims or where. A council run keeps its record as `tally.json` beside `verdict.json`, so every
rendering of a run's findings (`council report`, the CI action's step summary, `amicus_read`,
`council verdict --render`, `amicus_verdict` with `outDir`) takes them from there, through
`run_record`. A verdict away from its record says so (`council.report`); a verdict assembled by
hand (the skill path, the seed's worked example) is not a council run's and renders as it is.

Re-deciding a run (`council verdict … --decisions`, `amicus_verdict` with `outDir`) keeps what the
run decided — its chair's verdict and what it lost — from the run's own verdict (`previous_verdict`),
and never rewrites the run's own report.html with a verdict that is not the run's (`report_target`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from ..errors import AmicusError
from .run_dir import REPORT, VERDICT, RunDir, read_verdict_file, run_dir_near

if TYPE_CHECKING:
    from ..documents.council import TallyRecord, Verdict

__all__ = ["Redecided", "decided_report_html", "previous_verdict", "record_run_id", "redecide_run", "render_verdict",
           "report_target", "run_record"]


def run_record(verdict_path: Path, verdict: Mapping[str, object]) -> TallyRecord | None:
    """The tally record of the run `verdict` is a verdict of: the `tally.json` beside it (read by
    its checking reader, RunDir.read_tally), when it is that run's record. None for a
    hand-assembled verdict, or when the record is not there or not a valid tally record."""
    from ..council.report import HEADLESS

    if not isinstance(verdict, Mapping):
        return None
    in_run = run_dir_near(verdict.get("runId"), verdict_path.parent) is not None
    if verdict.get("runType") != HEADLESS and not in_run:
        return None  # not a council run's verdict: it renders as the seed shows
    try:
        record = RunDir(verdict_path.parent).read_tally()
    except AmicusError:
        return None  # the report then says the claims are unavailable
    return record if record["meta"]["runId"] == verdict.get("runId") else None


def render_verdict(verdict_path: Path, verdict: Verdict, *, fmt: Literal["md", "html"] = "md",
                   wave: Mapping[str, object] | None = None) -> str:
    """The report of a verdict file, with its run's claims and locations when it is a run's."""
    from ..council.report import build_report
    from .run_findings import as_json

    own = verdict_path.name == VERDICT  # a run's own verdict: its re-review and dismissed findings too
    record = run_record(verdict_path, verdict)
    return build_report(verdict, fmt=fmt, wave=wave, record=record,
                        rereview=as_json(RunDir(verdict_path.parent).read_rereview()) if own else None,
                        dismissed=as_json(RunDir(verdict_path.parent).read_dismissed()) if own else None,
                        run_lines=_run_lines(verdict_path.parent) if own and record is not None else ())


def decided_report_html(verdict: Verdict, record: TallyRecord, target: Path,
                        run_dir: Path | None) -> str:
    """The HTML page a re-decided verdict gets at `target` (`council verdict --render`,
    amicus_verdict with outDir): written into the run's own directory, it keeps the run's
    re-review and previously dismissed sections, as the page the run wrote did."""
    from ..council.report import build_report
    from .run_findings import as_json

    own = run_dir is not None and target.parent.resolve() == run_dir.resolve()
    return build_report(verdict, fmt="html", record=record,
                        rereview=as_json(RunDir(target.parent).read_rereview()) if own else None,
                        dismissed=as_json(RunDir(target.parent).read_dismissed()) if own else None,
                        run_lines=_run_lines(target.parent) if own else ())


def _run_lines(run_dir: Path) -> tuple[str, ...]:
    """The report lines of the run's run.json `Reported` fields (none when it cannot be read:
    the report is still the verdict's)."""
    from ..documents.run import reported_lines

    try:
        return reported_lines(RunDir(run_dir).read())
    except AmicusError:
        return ()


class Redecided(NamedTuple):
    verdict: Verdict
    run_dir: Path | None  # the directory of the run the record is the tally of (None: not a run's, or not near)


def redecide_run(record: Any, decisions: Any, *, near: tuple[Path, ...], out: Path | None = None,
                 overall_verdict: str | None = None, keep_verdict: bool = True,
                 answer: str | None = None) -> Redecided:
    """Stage-4 decisions over a tally record (`council verdict`, `amicus_verdict`), keeping what its
    run decided: the run is the one whose directory is among `near`, and the verdict it decided
    is `out`'s (the file being rewritten), else the run's own verdict.json (`previous_verdict`)."""
    from ..council.verdict import redecide

    run_id = record_run_id(record)
    run_dir = run_dir_near(run_id, *near)
    verdict = redecide(record, decisions, previous_verdict(run_id, out, run_dir), overall_verdict=overall_verdict,
                       keep_verdict=keep_verdict, answer=answer)
    return Redecided(verdict, run_dir)


def previous_verdict(run_id: Any, out: Path | None, run_dir: Path | None) -> Verdict | None:
    """What a re-decision of run `run_id` starts from: the verdict `out` already holds, else the
    run's own `verdict.json` (so `-o other.json` still keeps what the run decided). A file that is
    not a valid verdict of that run is passed over."""
    for path in (out, RunDir(run_dir).verdict_path if run_dir is not None else None):
        if path is None or not path.is_file():
            continue
        try:
            doc = read_verdict_file(path)
        except AmicusError:
            continue
        if doc["runId"] == run_id:
            return doc
    return None


def record_run_id(record: Any) -> Any:
    """The run id a (not yet validated) tally record names, or None."""
    meta = record.get("meta") if isinstance(record, Mapping) else None
    return meta.get("runId") if isinstance(meta, Mapping) else None


def report_target(out: Path, run_dir: Path | None) -> Path:
    """Where `--render` writes the HTML for the verdict at `out`: report.html beside it — unless
    that is the run's own report of its own verdict.json and `out` is another verdict, which then
    gets its own page (`other.json` → `other.html`) rather than overwriting the run's."""
    if run_dir is not None and out.parent.resolve() == run_dir.resolve() and out.name != VERDICT:
        own = out.with_suffix(".html")
        return own if own.name != REPORT else out.with_name(f"{out.name}.html")
    return out.parent / REPORT
