"""status / list / abort / wait over the on-disk state of waves, legs and council runs.

Every front (CLI, MCP tools, workspace) calls these, so they all see the same truth. Readers
also notice dead processes: a wave or run still marked running whose process is gone is
rewritten as `crashed` (wave) or `error` (run) with a reason.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Any

import anyio

from ..errors import BadSession
from . import jobs
from .resume import RESUMABLE, find_resumable, resume_command
from .run_state import RunState, engine_pid, find_run_dir, legs_progress, list_runs, read_run
from .status import status_of as wave_or_leg_status
from .store import SessionStore, now_iso, pid_alive

TERMINAL_RUN = ("complete", "partial", "error", "aborted")
TERMINAL_WAVE = ("complete", "partial", "error", "aborted", "crashed")
ENGINE_DIED = "Council engine process exited unexpectedly"


def status(store: SessionStore, task_id: str) -> dict[str, Any]:
    """The current snapshot of a council run, a wave or a leg."""
    run_dir = find_run_dir(store, task_id)
    if run_dir is not None:
        return run_status(run_dir)
    manifest = jobs.find_manifest(store, task_id)
    if manifest is not None:  # detached work of a layer above (an eval)
        return jobs.job_status(manifest)
    return wave_or_leg_status(store, task_id)


def run_status(run_dir: Path) -> dict[str, Any]:
    doc = read_run(run_dir)
    if doc.get("status") == "running" and not pid_alive(engine_pid(run_dir, doc)):
        state = RunState(run_dir, doc)
        state.finalize(1, error={"code": "INTERNAL", "message": ENGINE_DIED})
        doc = state.doc
    current = next((s["name"] for s in doc.get("stages", []) if s.get("status") == "running"), None)
    done, total = legs_progress(doc)
    snapshot = {**doc, "currentStage": current, "legsTotal": total, "legsComplete": done}
    if doc.get("status") in RESUMABLE:
        snapshot["resumable"] = find_resumable(run_dir, doc).resumable
        if snapshot["resumable"]:
            snapshot["resumeCommand"] = resume_command(run_dir)
    return snapshot


def is_terminal(snapshot: dict[str, Any]) -> bool:
    kind = snapshot.get("type")
    if kind == "council-run":
        return snapshot.get("status") in TERMINAL_RUN
    if kind == "wave":
        return snapshot.get("status") in TERMINAL_WAVE
    return snapshot.get("status") not in ("running", None)


def list_all(store: SessionStore) -> list[dict[str, Any]]:
    """Every council run and wave in the project, newest first, one summary row each."""
    rows: list[dict[str, Any]] = []
    for run in list_runs(store):
        cost = ((run.get("usage") or {}).get("cost") or {})
        rows.append({"id": run["runId"], "type": "council-run", "status": run.get("status"),
                     "createdAt": run.get("createdAt"), "models": run.get("bench", []), "chair": run.get("chair"),
                     "overallVerdict": run.get("overallVerdict"), "cost": cost.get("amount")})
    for job in jobs.list_jobs(store):
        rows.append({"id": job.get("id"), "type": job["type"], "status": job.get("status"),
                     "createdAt": job.get("createdAt"), "models": job.get("models", []),
                     "chair": job.get("chair"), "cost": job.get("cost")})
    for wave in store.list_waves():
        rows.append({"id": wave["waveId"], "type": "wave", "status": wave.get("status"),
                     "createdAt": wave.get("createdAt"), "models": [leg.get("modelInput") for leg in wave.get("legs", [])],
                     "cost": ((wave.get("usage") or {}).get("cost") or {}).get("amount")})
    return sorted(rows, key=lambda r: str(r.get("createdAt") or ""), reverse=True)


def abort(store: SessionStore, task_id: str) -> dict[str, Any]:
    """Abort a running council run or wave: SIGTERM to its process, which records `aborted`."""
    run_dir = find_run_dir(store, task_id)
    if run_dir is not None:
        doc = run_status(run_dir)
        if doc["status"] in TERMINAL_RUN:
            return {"id": task_id, "alreadyTerminal": True, "status": doc["status"]}
        pid = engine_pid(run_dir, doc)
        state = RunState(run_dir, read_run(run_dir))
        state.doc["status"] = "aborted"  # abort wins: the engine's later checkpoints keep it
        state.doc["exitCode"] = 143
        state.doc["abortRequestedAt"] = now_iso()
        state.checkpoint()
        return {"id": task_id, "aborted": True, "signalled": _terminate(pid)}
    manifest = jobs.find_manifest(store, task_id)
    if manifest is not None:
        job = jobs.job_status(manifest)
        if job.get("status") != "running":
            return {"id": task_id, "alreadyTerminal": True, "status": job.get("status")}
        return {"id": task_id, "aborted": True, "signalled": _terminate(job.get("pid"))}
    wave = wave_or_leg_status(store, task_id)
    if wave.get("type") != "wave":
        raise BadSession(f"'{task_id}' is a leg; abort its wave ({wave.get('waveId')}) instead", hint="amicus abort WAVE_ID")
    if wave["status"] in TERMINAL_WAVE:
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
