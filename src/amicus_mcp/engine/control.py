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
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import anyio

from ..errors import EXIT_DEGRADED, EXIT_ERROR, EXIT_OK, EXIT_WAIT_TIMEOUT, AmicusError, BadArgs, BadSession
from ..fsio import sweep_temp_files
from ..vocabulary import RESUMABLE_RUN_STATUSES, TERMINAL_RUN_STATUSES, TERMINAL_WAVE_STATUSES
from . import jobs
from .legcache import finished_by_id
from .resume import find_resumable, resume_command
from .run_state import (ENGINE_DIED, RunState, engine_pid, find_run, find_run_dir, legs_progress, list_run_dirs,
                        observed, read_run)
from .status import observed_wave
from .status import status_of as wave_or_leg_status
from .store import TASK_ID, SessionStore, now_iso, pid_alive

__all__ = ["ENGINE_DIED", "Located", "abort", "council_leg_status", "is_terminal",
           "list_all", "locate", "observe_run", "run_dir_of", "run_status", "status", "wait", "wait_exit_code"]


@dataclass(frozen=True)
class Located:
    kind: Literal["council-run", "council-leg", "job", "wave", "leg"]
    run_dir: Path | None = None  # a council run's, or the run a council leg belongs to
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
    if (store.task_dir(target) / "run.json").exists():
        return Located("leg")
    owner = _run_of_leg(store, target)
    if owner is not None:
        return Located("council-leg", owner)
    raise BadSession(f"no council run, wave or leg '{target}' in {store.root}",
                     hint="check the id, or pass --project: the project it ran in")


def _run_of_leg(store: SessionStore, leg_id: str) -> Path | None:
    """The directory of the council run whose legs include `leg_id`: a council leg's id is its
    run's id, a dash, and the leg's place in the run (`s1-1`, `s2-3`, `ch1`, `p1`)."""
    for cut in (i for i, char in enumerate(leg_id) if char == "-"):
        run_dir = find_run_dir(store, leg_id[:cut])
        if run_dir is not None and any(leg.get("id") == leg_id for leg in _legs(read_run(run_dir))):
            return run_dir
    return None


def status(store: SessionStore, task_id: str) -> dict[str, Any]:
    """The current snapshot of a council run (by id or run directory), a leg of one, a wave or
    a wave's leg."""
    found = locate(store, task_id)
    if found.kind == "council-run" and found.run_dir is not None:
        return run_status(found.run_dir)
    if found.kind == "council-leg" and found.run_dir is not None:
        return council_leg_status(found.run_dir, run_status(found.run_dir), task_id)
    if found.kind == "job" and found.manifest is not None:
        return jobs.job_status(found.manifest)
    return wave_or_leg_status(store, task_id)


def run_dir_of(store: SessionStore, target: str) -> Path | None:
    """The council run `target` names (its id or its directory); None when it can only be a
    wave or leg id; refused when it is neither an id nor a run directory."""
    run_dir = find_run(store, target)
    if run_dir is None and not TASK_ID.match(target):
        raise _not_found(target)
    return run_dir


def council_leg_status(run_dir: Path, run: dict[str, Any], leg_id: str) -> dict[str, Any]:
    """A council leg as a leg run document (the shape a wave's leg has), from `run` — its run's
    run.json as the liveness check sees it, so a dead engine's in-flight leg is crashed — and,
    once it finished, its output from `legs/`; `runId`, `runStatus`, `stage`, `role` and `seat`
    say where in the run it is."""
    entry = next(leg for leg in reversed(_legs(run)) if leg.get("id") == leg_id)  # a resumed run lists it again
    stage = next((s for s in run.get("stages", []) if s.get("name") == entry.get("stage")), {})
    finished = finished_by_id(run_dir, leg_id) if entry.get("status") != "running" else None
    doc: dict[str, Any] = {
        "schemaVersion": 2, "type": "run", "taskId": leg_id, "waveId": stage.get("waveId"), "runId": run.get("runId"),
        "runStatus": run.get("status"), "stage": entry.get("stage"), "role": entry.get("role"),
        "model": entry.get("resolvedModel"), "modelInput": entry.get("model"), "status": entry.get("status"),
        "summary": finished.get("text") if finished else None, "error": entry.get("error"),
        "createdAt": entry.get("startedAt"), "completedAt": entry.get("completedAt"),
        "durationMs": entry.get("durationMs"), "usage": entry.get("usage"),
    }
    if entry.get("seat"):
        doc["seat"] = entry["seat"]
    if entry.get("truncated"):
        doc["truncated"] = True
    return doc


def _legs(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return [leg for leg in doc.get("legs") or [] if isinstance(leg, dict)]


def _not_found(target: str) -> AmicusError:
    path = Path(target).expanduser()
    if path.is_dir():
        return BadArgs(f"'{target}' is a directory but not a council run directory (it holds no run.json)",
                       hint="pass the run directory itself (the one holding run.json), or the run id from 'amicus list'")
    return BadSession(f"no council run directory '{target}', and it is not a run, wave or leg id",
                      hint="pass a run id, wave id or leg id (amicus list), or a run directory")


def observe_run(run_dir: Path) -> dict[str, Any]:
    """run.json, with what its liveness check found (a dead engine) recorded on disk."""
    doc = read_run(run_dir)
    view = observed(run_dir, doc)
    if view is None:
        return doc
    state = RunState(run_dir, view)
    state.checkpoint()
    if state.doc.get("status") != "running":
        sweep_temp_files(run_dir)  # its writer is dead: no temp file of its will ever be renamed
    return state.doc


def run_status(run_dir: Path) -> dict[str, Any]:
    doc = observe_run(run_dir)
    current = next((s["name"] for s in doc.get("stages", []) if s.get("status") == "running"), None)
    done, total = legs_progress(doc)
    snapshot = {**doc, "currentStage": current, "legsTotal": total, "legsComplete": done}
    if doc.get("status") in RESUMABLE_RUN_STATUSES:
        snapshot["resumable"] = find_resumable(run_dir, doc).resumable
        if snapshot["resumable"]:
            snapshot["resumeCommand"] = resume_command(run_dir)
    return snapshot


def is_terminal(snapshot: dict[str, Any]) -> bool:
    kind = snapshot.get("type")
    if kind == "council-run":
        return snapshot.get("status") in TERMINAL_RUN_STATUSES
    if kind == "wave":
        return snapshot.get("status") in TERMINAL_WAVE_STATUSES
    # A leg: once it finished, or once the council run it belongs to has (nothing runs it any more).
    return snapshot.get("status") not in ("running", None) or snapshot.get("runStatus") in TERMINAL_RUN_STATUSES


def list_all(store: SessionStore) -> list[dict[str, Any]]:
    """Every council run and wave in the project, newest first, one summary row each."""
    rows: list[dict[str, Any]] = []
    for run in _runs(store):
        cost = ((run.get("usage") or {}).get("cost") or {})
        rows.append({"id": run["runId"], "type": "council-run", "status": run.get("status"),
                     "createdAt": run.get("createdAt"), "models": run.get("bench", []), "chair": run.get("chair"),
                     "overallVerdict": run.get("overallVerdict"), "cost": cost.get("amount")})
    for job in jobs.list_jobs(store):
        rows.append({"id": job.get("id"), "type": job["type"], "status": job.get("status"),
                     "createdAt": job.get("createdAt"), "models": job.get("models", []),
                     "chair": job.get("chair"), "cost": job.get("cost")})
    for wave in store.list_waves():
        wave = observed_wave(wave) or wave
        rows.append({"id": wave["waveId"], "type": "wave", "status": wave.get("status"),
                     "createdAt": wave.get("createdAt"), "models": [leg.get("modelInput") for leg in wave.get("legs", [])],
                     "cost": ((wave.get("usage") or {}).get("cost") or {}).get("amount")})
    return sorted(rows, key=lambda r: str(r.get("createdAt") or ""), reverse=True)


def _runs(store: SessionStore) -> list[dict[str, Any]]:
    """Every run as the liveness check sees it; a list only reads (status and wait record)."""
    runs = []
    for run_dir in list_run_dirs(store):
        try:
            doc = read_run(run_dir)
        except (BadArgs, BadSession):
            continue
        runs.append(observed(run_dir, doc) or doc)
    return runs


def abort(store: SessionStore, task_id: str) -> dict[str, Any]:
    """Abort a running council run or wave: SIGTERM to its process, which records `aborted`."""
    found = locate(store, task_id)
    if found.kind == "council-leg" and found.run_dir is not None:
        run_id = read_run(found.run_dir).get("runId")
        raise BadSession(f"'{task_id}' is a leg of council run {run_id}; abort the run instead",
                         hint=f"abort {run_id}, the run's id")
    run_dir = found.run_dir
    if run_dir is not None:
        doc = run_status(run_dir)
        if doc["status"] in TERMINAL_RUN_STATUSES:
            return {"id": task_id, "alreadyTerminal": True, "status": doc["status"]}
        pid = engine_pid(run_dir, doc)
        state = RunState(run_dir, read_run(run_dir))
        state.doc["status"] = "aborted"  # abort wins: the engine's later checkpoints keep it
        state.doc["exitCode"] = 143
        state.doc["abortRequestedAt"] = now_iso()
        state.checkpoint()
        return {"id": task_id, "aborted": True, "signalled": _terminate(pid)}
    if found.kind == "job" and found.manifest is not None:
        job = jobs.job_status(found.manifest)
        if job.get("status") != "running":
            return {"id": task_id, "alreadyTerminal": True, "status": job.get("status")}
        return {"id": task_id, "aborted": True, "signalled": _terminate(job.get("pid"))}
    wave = wave_or_leg_status(store, task_id)
    if wave.get("type") != "wave":
        raise BadSession(f"'{task_id}' is a leg; abort its wave ({wave.get('waveId')}) instead", hint="amicus abort WAVE_ID")
    if wave["status"] in TERMINAL_WAVE_STATUSES:
        return {"id": task_id, "alreadyTerminal": True, "status": wave["status"]}
    return {"id": task_id, "aborted": True, "signalled": _terminate(wave.get("pid"))}


def _terminate(pid: Any) -> bool:
    if not pid_alive(pid) or pid == os.getpid():
        return False
    try:
        os.kill(pid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        return False
    return True


async def wait(store: SessionStore, task_id: str, *, timeout_s: float, poll_s: float = 0.5) -> dict[str, Any]:
    """Block until the run/wave/leg is terminal or `timeout_s` passes; the snapshot + timing."""
    started = time.monotonic()
    snapshot = status(store, task_id)
    while not is_terminal(snapshot):
        left = timeout_s - (time.monotonic() - started)
        if left <= 0:
            break
        await anyio.sleep(min(poll_s, left))
        snapshot = status(store, task_id)
    waited = int((time.monotonic() - started) * 1000)
    return {**snapshot, "timedOut": not is_terminal(snapshot), "waitedMs": waited}


# What `amicus wait` exits with: the outcome of what it waited on (README "Exit codes").
WAIT_EXIT = {"complete": EXIT_OK, "partial": EXIT_DEGRADED}


def wait_exit_code(snapshot: dict[str, Any]) -> int:
    """0 complete, 2 partial (degraded), 1 failed / crashed / aborted, 3 still running at the timeout."""
    if snapshot.get("timedOut"):
        return EXIT_WAIT_TIMEOUT
    return WAIT_EXIT.get(str(snapshot.get("status")), EXIT_ERROR)
