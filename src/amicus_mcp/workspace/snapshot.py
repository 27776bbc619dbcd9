"""The workspace's data layer: one JSON snapshot of a run directory (or of the run list).

`run_snapshot` is what the page polls and what `amicus watch` renders in a terminal. It is
built from the run directory alone, so a historical run renders exactly like a live one,
and it never writes. Its `state` is `ok`, `unreadable` (run.json missing or not a council
manifest: the error and the run path) or `schema-mismatch` (another schema version: no
panels, no guessing). Everything model-derived in it is plain data — the page sets it as
text, never as markup.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path

from ..documents.council import TallyRecord
from ..documents.run import RunManifest, SeatRecord
from ..engine import RunDir
from ..engine import SessionStore
from ..errors import AmicusError
from ..vocabulary import QUESTION
from . import DEFAULT_STALL_S
from .fold import FOLD_FILE
from .identities import CLAUDE, masks, seat_labels, stage1_prefix
from .matrix import (decisions, dissent_panel, matrix_panel, ranking_panel, revote_index, street_cred, verdict_source,
                     voters)
from .panels import chair_panel, cost_panel, last_activity, run_total, seat_rows, stage_rail, stage_status
from .rundir import (SUPPORTED_RUN_SCHEMA, is_live, locate_run, observed, read_manifest,
                     read_optional, read_prose, run_ids, seat_files, seat_list)
from .views import (DegradeRow, ListRow, ListSnapshot, Prose, RunDetail, RunHeader, RunProse, RunSnapshot,
                    SeatProse, SnapshotBase, Stall)

SNAPSHOT_VERSION = 1


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


def iso(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


# --------------------------------------------------------------------------- one run


def run_snapshot(store: SessionStore, run_id: str, *, stall_after_s: float = DEFAULT_STALL_S,
                 now: datetime | None = None, texts: bool = True) -> RunSnapshot:
    """The snapshot of one run. Raises BadArgs/BadSession for an id the project does not know."""
    return snapshot_of(locate_run(store, run_id), run_id, stall_after_s=stall_after_s, now=now, texts=texts)


def snapshot_of(run_dir: Path, run_id: str, *, stall_after_s: float = DEFAULT_STALL_S,
                now: datetime | None = None, texts: bool = True) -> RunSnapshot:
    """The snapshot of the run in `run_dir` (found by the caller), shown as `run_id`."""
    moment = now or utc_now()
    manifest = read_manifest(run_dir)
    base: SnapshotBase = {"type": "workspace-run", "snapshotVersion": SNAPSHOT_VERSION, "runId": run_id,
            "runDir": str(run_dir), "generatedAt": iso(moment)}
    if manifest.error is not None:
        return {**base, "state": "unreadable", "live": False, "error": manifest.error}
    if manifest.doc is None:
        return {**base, "state": "schema-mismatch", "live": False,
                "schemaVersion": manifest.schema_version, "expectedSchemaVersion": SUPPORTED_RUN_SCHEMA}
    doc, crashed = observed(run_dir, manifest.doc)
    return {**base, "state": "ok", **_detail(run_dir, doc, crashed, moment, stall_after_s, texts)}


def _detail(run_dir: Path, doc: RunManifest, crashed: bool, now: datetime, stall_after_s: float,
            texts: bool) -> RunDetail:
    seats = seat_list(doc)
    labels, label_notes = seat_labels(run_dir, doc, seats)
    live = is_live(doc)
    rd = RunDir(run_dir)
    tally, tally_error = read_optional(rd.read_tally, rd.tally_path)
    provisional = False
    if tally is None and tally_error is None and live:  # a debate round is on: its first tally is on disk
        early, _ = read_optional(lambda: rd.read_tally(provisional=True), rd.provisional_tally_path)
        tally, provisional = (early, True) if early is not None else (None, False)
    verdict_doc, verdict_error = read_optional(rd.read_verdict, rd.verdict_path)
    verdict, verdict_notes = verdict_source(verdict_doc, verdict_error, tally, live=live)
    debate, debate_error = read_optional(rd.read_debate, rd.debate_path)
    rows = seat_rows(run_dir, doc, seats, labels, now=now, stall_after_s=stall_after_s, live=live,
                     voters=voters(verdict) if verdict else None)
    prose, collisions = _prose(run_dir, seats, labels, texts, stage1_prefix(doc))
    # provisional: the tiers before the debate round, which may move them
    matrix = matrix_panel(verdict, tally, seats, _judges(doc), revote_index(debate),
                          provisional=provisional) if verdict else None
    problems = [*label_notes, *collisions, *verdict_notes,
                *(f"tally.json could not be read ({e})" for e in [tally_error] if e),
                *(f"debate.json could not be read ({e})" for e in [debate_error] if e)]
    question = doc.intent == QUESTION
    detail: RunDetail = {
        "live": live,
        "header": _header(doc, crashed),
        "ranking": ranking_panel(verdict, labels) if verdict and question else [],
        "dissent": dissent_panel(verdict) if verdict and question else None,
        "stages": stage_rail(doc),
        "seats": rows,
        "reviews": prose["reviews"], "judges": prose["judges"], "revotes": prose["revotes"], "bundle": prose["bundle"],
        "matrix": matrix,
        "matrixNote": None if matrix else _no_matrix(doc, live),
        "chair": chair_panel(doc, live=live, output=_chair_output(run_dir) if texts else None),
        "streetCred": street_cred(verdict) if verdict else [],
        "decisions": decisions(verdict) if verdict else [],
        "cost": cost_panel(doc, rows),
        "stall": _stall(doc, now, stall_after_s, live),
        "banners": {"degrades": _degrades(doc), "notices": _notices(doc), "integrity": problems},
        "masks": masks(doc, seats, labels, _tally_models(tally), unmasked={r["key"] for r in rows if r.get("dead")}),
        "fold": {"folded": (run_dir / FOLD_FILE).is_file(), "available": not live},
        "debate": doc.debate.to_doc() if doc.debate is not None else None,
        "resume": _resume_hint(run_dir, doc, live),
    }
    if not question:  # a review has no ranking of answers (deleting keeps the other keys' order)
        del detail["ranking"], detail["dissent"]
    return detail


def _resume_hint(run_dir: Path, doc: RunManifest, live: bool) -> str | None:
    """The command that resumes a stopped run (shown, never run: the workspace stays read-only)."""
    from ..engine import resume_hint

    return None if live else resume_hint(RunDir(run_dir), doc)


def _header(doc: RunManifest, crashed: bool) -> RunHeader:
    done, total = doc.progress()
    header: RunHeader = {
        "status": doc.status, "exitCode": doc.exit_code, "error": doc.error.to_doc() if doc.error else None,
        "createdAt": doc.created_at, "completedAt": doc.completed_at, "abortRequestedAt": doc.abort_requested_at,
        "crashDetected": True if crashed else None, "chair": doc.chair, "critic": doc.critic,
        "overallVerdict": doc.overall_verdict, "judged": doc.judged, "tierCounts": doc.tier_counts,
        "intent": QUESTION, "answer": doc.answer,  # a question council: the page leads with the chair's answer
        "bench": [s.id for s in seat_list(doc)] or list(doc.bench),
        "currentStage": doc.running_stage(), "legsDone": done, "legsTotal": total,
        "resumedAt": doc.resumes[-1].at if doc.resumes else None,  # this attempt's start
    }
    if doc.intent != QUESTION:  # deleting keeps the other keys' order
        del header["intent"], header["answer"]
    return header


def _prose(run_dir: Path, seats: Sequence[SeatRecord], labels: Mapping[str, str],
           texts: bool, stage1: str = "review") -> tuple[RunProse, list[str]]:
    """Stage-1 reviews (a question council's answers), the Stage-2 bundle, judge prose and
    re-votes, from allowlisted files."""
    notes: list[str] = []

    def of(prefix: str) -> list[SeatProse]:
        found, collisions = seat_files(run_dir, seats, prefix)
        notes.extend(collisions)
        return [{"seat": f.seat, "label": labels.get(f.seat), **_file(f.path, texts)} for f in found]

    out: RunProse = {"reviews": of(stage1), "judges": of("judge"), "revotes": of("revote"), "bundle": None}
    claude = run_dir / f"{stage1}-claude.md"
    if CLAUDE in labels and claude.is_file():
        out["reviews"].append({"seat": CLAUDE, "label": labels[CLAUDE], **_file(claude, texts)})
    bundle = run_dir / "bundle-stage2.md"
    out["bundle"] = _file(bundle, texts) if bundle.is_file() else None
    return out, notes


def _file(path: Path, texts: bool) -> Prose:
    """A prose file's text for the page, or only its name (a view without the prose)."""
    return read_prose(path) if texts else {"file": path.name}


def _chair_output(run_dir: Path) -> Prose | None:
    path = run_dir / "chair-output.md"
    return read_prose(path) if path.is_file() else None


def _judges(doc: RunManifest) -> int | None:
    stage2 = doc.stage_named("stage2")
    return stage2.judges if stage2 is not None else None


def _no_matrix(doc: RunManifest, live: bool) -> str:
    tally = stage_status(doc, "tally")
    if live:
        return "the tally has not run yet" if tally is None else "the tally is being computed"
    return f"the run ended ({doc.status}) without a tally"


def _stall(doc: RunManifest, now: datetime, stall_after_s: float, live: bool) -> Stall:
    last = last_activity(doc)
    idle = (now - last).total_seconds() if last else None
    stalled = bool(live and idle is not None and idle >= stall_after_s)
    return {"stalled": stalled, "idleSeconds": round(idle) if idle is not None else None, "threshold": stall_after_s,
            "since": iso(last) if last else None}


def _degrades(doc: RunManifest) -> list[DegradeRow]:
    return [{"channel": d.channel, "what": d.what, "why": d.why} for d in doc.degrades]


def _notices(doc: RunManifest) -> list[str]:
    """The run's notices bar the ones that repeat a degrade (the engine notes each loss as a
    notice too; the page shows it once, as the loss)."""
    lost = {f"{d.what}: {d.why}" for d in doc.degrades}
    return [n for n in doc.notices if n not in lost]


def _tally_models(tally: TallyRecord | None) -> list[str]:
    if tally is None:
        return []
    meta = tally["meta"]
    names = [*meta["models"], str(meta.get("chair") or "")]
    names += [str(r["model"]) for r in tally["streetCred"] if r.get("model")]
    names += [str(r.get("model")) for r in tally["runStats"] if r.get("model")]
    return [n for n in names if n]


# --------------------------------------------------------------------------- the run list


def list_snapshot(store: SessionStore, *, now: datetime | None = None) -> ListSnapshot:
    """Every council run of the project, newest first: status, the chair's verdict, cost."""
    rows = [_list_row(store, run_id) for run_id in run_ids(store)]
    rows.sort(key=lambda r: str(r.get("createdAt") or ""), reverse=True)
    return {"type": "workspace-list", "snapshotVersion": SNAPSHOT_VERSION, "project": str(store.project),
            "generatedAt": iso(now or utc_now()), "runs": rows, "live": any(r["live"] for r in rows)}


def _list_row(store: SessionStore, run_id: str) -> ListRow:
    row: ListRow = {"runId": run_id, "live": False, "createdAt": None, "status": None, "overallVerdict": None,
                    "cost": None, "state": "unreadable"}
    try:
        manifest = read_manifest(locate_run(store, run_id))
    except AmicusError as err:
        row["error"] = err.message
        return row
    if manifest.error is not None:
        row["error"] = manifest.error
    elif manifest.doc is None:
        row.update({"state": "schema-mismatch", "createdAt": manifest.created_at, "schemaVersion": manifest.schema_version})
    else:
        doc, _ = observed(manifest.run_dir, manifest.doc)
        row.update({"state": "ok", "status": doc.status, "live": is_live(doc), "createdAt": doc.created_at,
                    "overallVerdict": doc.overall_verdict, "cost": run_total(doc)["text"], "tierCounts": doc.tier_counts})
    return row


def live_status(store: SessionStore, run_id: str | None) -> bool:
    """Whether the run (or, with no id, any run of the project) is still live."""
    ids = [run_id] if run_id else run_ids(store)
    for rid in ids:
        try:
            manifest = read_manifest(locate_run(store, rid))
        except AmicusError:
            continue
        if manifest.doc is not None and is_live(observed(manifest.run_dir, manifest.doc)[0]):
            return True
    return False
