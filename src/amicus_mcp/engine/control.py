"""status / list / abort / wait over the on-disk state of waves, legs and council runs.

Every front (CLI, MCP tools, workspace) calls these, so they all see the same truth. Readers
also notice dead processes: a wave or run still marked running whose process is gone is
seen as `crashed` (wave) or `error` (run, its in-flight legs `crashed`) with a reason by status,
wait and list alike, through `run_state.observed` (runs) and `status.observed_wave` (waves);
status and wait also write that finding back, list only reads.

A run is named by its id or by its run directory, wherever an id is taken. An id names one of
five things (`locate`): a council run, a leg of one (`<runId>-s1-1`, as its status lists it), a
job of a layer above (an eval), a fanout wave, or a wave's leg; an id that names none of them is one BAD_SESSION error that says
all it was looked up as.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Any, Literal, NamedTuple, NotRequired, TypedDict, Union, cast

import anyio

from ..documents.legs import LegRun
from ..documents.run import RunManifest, RunStatusView
from ..documents.sessions import SessionRow
from ..documents.usage import RunUsage, RunUsageDoc
from ..documents.wave import Wave
from ..errors import EXIT_DEGRADED, EXIT_ERROR, EXIT_OK, EXIT_WAIT_TIMEOUT, AmicusError, BadArgs, BadSession
from ..front import command
from ..fsio import sweep_temp_files
from ..schemas import JsonObject
from ..vocabulary import IN_FLIGHT_LEG_STATUSES, RESUMABLE_RUN_STATUSES, TERMINAL_RUN_STATUSES, TERMINAL_WAVE_STATUSES
from . import jobs
from .legcache import finished_by_id
from .resume import find_resumable, resume_command
from .run_dir import MANIFEST, RunDir, find_run, list_runs, read_pointer
from .run_state import ENGINE_DIED, RunState, observed
from .status import observed_wave
from .status import status_of as wave_or_leg_status
from .store import ID_SHAPE, SessionStore, now_iso, pid_alive

__all__ = ["ENGINE_DIED", "Located", "Observation", "Waited", "abort", "council_leg_status", "document", "is_terminal",
           "list_all", "locate", "observe_run", "run_dir_of", "run_or_wave", "run_status", "status", "wait"]

# What status names: a council run, a leg (a wave's, or a council run's), a wave, or a job of a
# layer above (an eval's manifest, a document of its own).
Observation = Union[RunStatusView, LegRun, Wave, jobs.JobManifest]


class Located(NamedTuple):
    kind: Literal["council-run", "council-leg", "job", "wave", "leg"]
    run_dir: RunDir | None = None  # a council run's, or the run a council leg belongs to
    manifest: Path | None = None  # a job's (an eval's) manifest


def locate(store: SessionStore, target: str) -> Located:
    """What `target` names in the project (a run directory names its run); BadSession or
    BadArgs when it names nothing there."""
    run_dir = run_dir_of(store, target)
    if run_dir is not None:
        return Located("council-run", run_dir)
    manifest = jobs.find_manifest(store, target)
    if manifest is not None:  # detached work of a layer above (an eval)
        return Located("job", manifest=manifest)
    if store.wave_path(target).exists():
        return Located("wave")
    if store.leg_path(target).exists():
        return Located("leg")
    owner = _run_of_leg(store, target)
    if owner is not None:
        return Located("council-leg", owner)
    raise BadSession(f"no council run, wave or leg '{target}' in {store.root}",
                     hint="check the id, or pass --project: the project it ran in")


def _run_of_leg(store: SessionStore, leg_id: str) -> RunDir | None:
    """The directory of the council run whose legs include `leg_id`: a council leg's id is its
    run's id, a dash, and the leg's place in the run (`s1-1`, `s2-3`, `ch1`, `p1`)."""
    for cut in (i for i, char in enumerate(leg_id) if char == "-"):
        try:
            run_dir = read_pointer(store, leg_id[:cut])
        except AmicusError:
            continue
        if run_dir is not None and run_dir.holds_run() and run_dir.read().leg_named(leg_id) is not None:
            return run_dir
    return None


def status(store: SessionStore, target: str) -> Observation:
    """The current observation of a council run (by id or run directory), a leg of one, a wave or
    a wave's leg."""
    found = locate(store, target)
    if found.kind == "council-run" and found.run_dir is not None:
        return run_status(found.run_dir)
    if found.kind == "council-leg" and found.run_dir is not None:
        return council_leg_status(found.run_dir, run_status(found.run_dir), target)
    if found.kind == "job" and found.manifest is not None:
        return jobs.job_status(found.manifest)
    return wave_or_leg_status(store, target)


def run_dir_of(store: SessionStore, target: str) -> RunDir | None:
    """The council run `target` names (its id or its directory); None when it can only be a
    wave or leg id; refused when it is neither an id nor a run directory."""
    run_dir = find_run(store, target)
    if run_dir is None and not ID_SHAPE.match(target):
        raise _not_found(target)
    return run_dir


def run_or_wave(store: SessionStore, target: str) -> RunDir | Wave | LegRun:
    """The council run `target` names (its id or its directory), else its wave or wave leg as
    status reads it (a crash recorded): what the inline view shows. Refused as `run_dir_of`
    refuses, BadSession when it names no wave or leg either."""
    run_dir = run_dir_of(store, target)
    return run_dir if run_dir is not None else wave_or_leg_status(store, target)


def council_leg_status(run_dir: RunDir, run: RunManifest, leg_id: str) -> LegRun:
    """A council leg as a leg run document (the shape a wave's leg has), from `run` — its run's
    run.json as the liveness check sees it, so a dead engine's in-flight leg is crashed — and,
    once it finished, its output from `legs/`; `runId`, `runStatus`, `stage`, `role` and `seat`
    say where in the run it is."""
    entry = run.leg_named(leg_id)  # a resumed run lists it again: the last
    assert entry is not None, leg_id
    stage = run.stage_named(entry.stage)
    finished = finished_by_id(run_dir, leg_id) if entry.finished else None
    leg = LegRun(leg_id=leg_id, wave_id=stage.wave_id if stage is not None else None, run_id=run.run_id,
                 run_status=run.status, stage=entry.stage, role=entry.role, model=entry.resolved_model,
                 model_input=entry.model, status=entry.status, summary=finished.text if finished else None,
                 error=entry.error, created_at=entry.started_at, completed_at=entry.completed_at,
                 duration_ms=entry.duration_ms, usage=entry.usage)
    if entry.seat:
        leg.seat = entry.seat
    if entry.truncated:
        leg.truncated = True
    return leg


def _not_found(target: str) -> AmicusError:
    path = Path(target).expanduser()
    if path.is_dir():
        return BadArgs(f"'{target}' is a directory but not a council run directory (it holds no {MANIFEST})",
                       hint=f"pass the run directory itself (the one holding {MANIFEST}), or the run id from "
                            f"{command('amicus list', 'amicus_list')}")
    return BadSession(f"no council run directory '{target}', and it is not a run, wave or leg id",
                      hint=f"pass a run id, wave id or leg id ({command('amicus list', 'amicus_list')} shows them), "
                           "or a run directory")


def observe_run(run_dir: RunDir) -> RunManifest:
    """run.json, with what its liveness check found (a dead engine) recorded on disk."""
    manifest = run_dir.read()
    view = observed(run_dir, manifest)
    if view is None:
        return manifest
    state = RunState(run_dir, view)
    state.save()
    if state.manifest.status != "running":
        sweep_temp_files(run_dir.path)  # its writer is dead: no temp file of its will ever be renamed
    return state.manifest


def run_status(run_dir: RunDir) -> RunStatusView:
    manifest = observe_run(run_dir)
    done, total = manifest.progress()
    view = RunStatusView.model_validate({**manifest.to_doc(), "currentStage": manifest.running_stage(),
                                         "legsTotal": total, "legsComplete": done})
    if manifest.status in RESUMABLE_RUN_STATUSES:
        view.resumable = find_resumable(run_dir, manifest).resumable
        if view.resumable:
            view.resume_command = resume_command(run_dir)
    if view.usage is None and view.legs:  # a run that never reached its end: what its legs say so far
        view.usage = RunUsage.model_validate(usage_so_far(view))
    return view


def usage_so_far(run: RunManifest) -> RunUsageDoc:
    """run.json's `usage` block from the legs alone, for a run that never wrote its own (its
    process died): settled legs as billed, every leg not settled (in flight, crashed, lost by an
    earlier attempt) of unknown cost — so the total is a floor, and says so."""
    from ..providers.cost import rollup

    docs = [leg.usage.to_doc() if leg.usage is not None and leg.status not in IN_FLIGHT_LEG_STATUSES else None
            for leg in run.legs]
    docs += [None] * len(run.interrupted_legs or [])
    total = rollup(docs)
    unknown = total["cost"]["unpricedLegs"]
    return {"cost": total["cost"], "tokens": total["tokens"], "unknownLegs": unknown, "subtreeUnknownLegs": 0,
            "costExact": unknown == 0}


def document(observation: Observation) -> JsonObject:
    """An observation as JSON-ready data (what `--json` prints): its model's document, or a job's manifest."""
    return observation if isinstance(observation, dict) else observation.to_doc()


def is_terminal(observation: Observation) -> bool:
    if isinstance(observation, RunManifest):
        return observation.status in TERMINAL_RUN_STATUSES
    if isinstance(observation, Wave):
        return observation.status in TERMINAL_WAVE_STATUSES
    if isinstance(observation, LegRun):
        # Once it finished (a queued leg has not even started), or once the council run it belongs
        # to has (nothing runs it any more).
        return observation.status not in IN_FLIGHT_LEG_STATUSES or observation.run_status in TERMINAL_RUN_STATUSES
    return observation.get("status") not in ("running", None)  # a job


def list_all(store: SessionStore, *, tag: str | None = None) -> list[SessionRow]:
    """Every council run, eval and wave in the project, newest first, one summary row each;
    with a `tag`, only the runs and evals started with it (a wave has none). An eval is one
    row: its cases' councils are not listed on their own (`amicus status EVAL_ID` names each)."""
    rows: list[SessionRow] = []
    owned: set[str] = set()  # council runs that are an eval's cases
    for job in jobs.list_jobs(store):
        listed = job.get("cases")
        cases = [c for c in listed if isinstance(c, dict)] if isinstance(listed, list) else []
        owned |= {str(c.get("runId")) for c in cases if c.get("runId")}
        # A job's manifest is a layer above's (an eval's): its summary keys are taken as its schema
        # (eval-run) declares them, never checked here, as a listing reads every job.
        row = cast(SessionRow, {"id": job.get("id"), "type": job["type"], "status": job.get("status"),
                                "createdAt": job.get("createdAt"), "models": job.get("models", []),
                                "chair": job.get("chair"), "cost": job.get("cost")})
        if "cases" in job:
            row["cases"] = len(cases)
        tag_ = job.get("tag")
        if isinstance(tag_, str):
            row["tag"] = tag_
        rows.append(row)
    for run in _runs(store):
        if run.run_id in owned:
            continue
        cost = run.usage.cost.amount if run.usage is not None else None
        row = SessionRow(id=run.run_id, type="council-run", status=run.status, createdAt=run.created_at,
                         models=list(run.bench), chair=run.chair, overallVerdict=run.overall_verdict, cost=cost)
        if run.intent is not None:  # a question's line is ANSWER
            row["intent"] = run.intent
        if run.tag is not None:
            row["tag"] = run.tag
        rows.append(row)
    for wave in store.list_waves():
        wave = observed_wave(wave) or wave
        cost = wave.usage.cost.amount if wave.usage is not None and wave.usage.cost is not None else None
        rows.append({"id": wave.wave_id, "type": "wave", "status": wave.status, "createdAt": wave.created_at,
                     "models": [leg.model_input for leg in wave.legs], "cost": cost})
    if tag is not None:
        rows = [row for row in rows if row.get("tag") == tag]
    return sorted(rows, key=lambda r: str(r.get("createdAt") or ""), reverse=True)


def _runs(store: SessionStore) -> list[RunManifest]:
    """Every run as the liveness check sees it; a list only reads (status and wait record)."""
    runs = []
    for run_dir in list_runs(store):
        try:
            manifest = run_dir.read()
        except (BadArgs, BadSession):
            continue
        runs.append(observed(run_dir, manifest) or manifest)
    return runs


class Aborted(TypedDict):
    """What `abort` did: the target was already over, or it was asked to stop."""

    id: str
    alreadyTerminal: NotRequired[bool]
    aborted: NotRequired[bool]
    status: NotRequired[object]
    signalled: NotRequired[bool]


def abort(store: SessionStore, target: str) -> Aborted:
    """Abort a running council run or wave: SIGTERM to its process, which records `aborted`."""
    found = locate(store, target)
    if found.kind == "council-leg" and found.run_dir is not None:
        run_id = found.run_dir.read().run_id
        raise BadSession(f"'{target}' is a leg of council run {run_id}; abort the run instead",
                         hint=f"abort {run_id}, the run's id")
    run_dir = found.run_dir
    if run_dir is not None:
        observation = run_status(run_dir)
        if observation.status in TERMINAL_RUN_STATUSES:
            return {"id": target, "alreadyTerminal": True, "status": observation.status}
        pid = run_dir.engine_pid(observation)
        state = RunState(run_dir, run_dir.read())
        state.abort(at=now_iso())  # abort wins: the engine's later checkpoints keep it
        return {"id": target, "aborted": True, "signalled": _terminate(pid)}
    if found.kind == "job" and found.manifest is not None:
        job = jobs.job_status(found.manifest)
        if job.get("status") != "running":
            return {"id": target, "alreadyTerminal": True, "status": job.get("status")}
        return {"id": target, "aborted": True, "signalled": _terminate(job.get("pid"))}
    wave = wave_or_leg_status(store, target)
    if not isinstance(wave, Wave):
        # A fanout leg belongs to a wave; a council run's leg (no wave) to its run.
        owner, kind = (wave.wave_id, "wave") if wave.wave_id is not None else (wave.run_id, "run")
        if owner is None:
            raise BadSession(f"'{target}' is a leg of no wave or run: there is nothing to abort",
                             hint="amicus abort takes a run's or a wave's id")
        raise BadSession(f"'{target}' is a leg; abort its {kind} ({owner}) instead",
                         hint=f"{command(f'amicus abort {owner}', 'amicus_abort', id=owner)} aborts the {kind}")
    if wave.status in TERMINAL_WAVE_STATUSES:
        return {"id": target, "alreadyTerminal": True, "status": wave.status}
    return {"id": target, "aborted": True, "signalled": _terminate(wave.pid)}


def _terminate(pid: Any) -> bool:
    if not pid_alive(pid) or pid == os.getpid():
        return False
    try:
        os.kill(pid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        return False
    return True


class Waited(NamedTuple):
    """What a wait saw last, and whether it gave up at its timeout."""

    observation: Observation
    timed_out: bool
    waited_ms: int

    def to_doc(self) -> JsonObject:
        return {**document(self.observation), "timedOut": self.timed_out, "waitedMs": self.waited_ms}

    @property
    def exit_code(self) -> int:
        """What `amicus wait` exits with (README "Exit codes"): 0 complete, 2 partial (degraded),
        1 failed / crashed / aborted, 3 still running at the timeout."""
        if self.timed_out:
            return EXIT_WAIT_TIMEOUT
        return WAIT_EXIT.get(str(document(self.observation).get("status")), EXIT_ERROR)


async def wait(store: SessionStore, target: str, *, timeout_s: float, poll_s: float = 0.5) -> Waited:
    """Block until the run/wave/leg is terminal or `timeout_s` passes; the observation + timing."""
    started = time.monotonic()
    observation = status(store, target)
    while not is_terminal(observation):
        left = timeout_s - (time.monotonic() - started)
        if left <= 0:
            break
        await anyio.sleep(min(poll_s, left))
        observation = status(store, target)
    waited = int((time.monotonic() - started) * 1000)
    return Waited(observation, not is_terminal(observation), waited)


# What `amicus wait` exits with: the outcome of what it waited on (README "Exit codes").
WAIT_EXIT = {"complete": EXIT_OK, "partial": EXIT_DEGRADED}

