"""`run.json`: the council run's manifest, checkpointed atomically after every step.

A kill at any moment leaves a readable, honest manifest. Once a run is `aborted` it stays
aborted (abort wins over any later write), with exit code 130/143.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import AmicusError, BadArgs, BadSession
from ..fsio import atomic_write_json, read_json, sweep_temp_files
from .store import SessionStore, now_iso, pid_alive

EXIT_STATUS = {0: "complete", 1: "error", 2: "partial", 130: "aborted", 143: "aborted"}
STAGE_ORDER = ("stage1", "stage2", "tally", "chair", "verdict")
ENGINE_DIED = "Council engine process exited unexpectedly"
LEG_DIED = ("the council engine died while this leg was in flight (the provider may still have answered "
            "and billed it)")


def legs_progress(doc: dict[str, Any]) -> tuple[int, int]:
    """(legs finished, legs in the plan) for a run.json: the plan is `legsPlanned`, or the
    legs launched when repairs and retries took it past the plan (or an older run has none)."""
    legs = [leg for leg in doc.get("legs") or [] if isinstance(leg, dict)]
    planned = doc.get("legsPlanned")
    planned = planned if isinstance(planned, int) and not isinstance(planned, bool) else 0
    done = sum(1 for leg in legs if leg.get("status") != "running")
    return done, max(planned, len(legs))


class RunState:
    def __init__(self, run_dir: Path, doc: dict[str, Any]):
        self.run_dir = run_dir
        self.doc = doc

    @property
    def path(self) -> Path:
        return self.run_dir / "run.json"

    def checkpoint(self) -> None:
        """Write run.json now. While the run is going the document is written compact (a
        checkpoint is on the run's hot path, and the indenting encoder is pure Python, ~8× the
        cost); the final write, and any a reader is left with, is the indented one."""
        on_disk = _read_if_present(self.path)
        if on_disk is not None and on_disk.get("status") == "aborted":
            if self.doc.get("status") != "aborted":
                # Someone (an abort from another process) got there first: keep their verdict.
                self.doc["status"] = "aborted"
                self.doc["exitCode"] = on_disk.get("exitCode", 143)
            if "abortRequestedAt" in on_disk:  # ... and their record of when it was asked for
                self.doc.setdefault("abortRequestedAt", on_disk["abortRequestedAt"])
        running = self.doc.get("status") == "running"
        atomic_write_json(self.path, self.doc, indent=None if running else 2)

    def stage(self, name: str, status: str, *, save: bool = True, **extra: Any) -> None:
        stages = self.doc["stages"]
        entry = next((s for s in stages if s["name"] == name), None)
        if entry is None:
            entry = {"name": name, "status": status, "startedAt": now_iso()}
            stages.append(entry)
        entry["status"] = status
        if status != "running":
            entry["completedAt"] = now_iso()
        entry.update(extra)
        if save:
            self.checkpoint()

    def degrade(self, channel: str, what: str, why: str) -> None:
        self.doc.setdefault("degrades", []).append({"kind": "degrade", "channel": channel, "what": what, "why": why})

    def finalize(self, exit_code: int, *, error: dict[str, str] | None = None) -> None:
        self.doc["exitCode"] = exit_code
        self.doc["status"] = EXIT_STATUS.get(exit_code, "partial")
        self.doc["completedAt"] = now_iso()
        if error is not None:
            self.doc["error"] = error
        for stage in self.doc["stages"]:
            if stage["status"] == "running":
                stage["status"] = "aborted" if self.doc["status"] == "aborted" else "error"
                stage["completedAt"] = now_iso()
        self.checkpoint()
        # Final (by the engine, or by a reader that found its engine dead): what a killed
        # write left behind goes now, since nothing will ever rename it into place.
        sweep_temp_files(self.run_dir)


# --- liveness: the one check every reader of a run goes through -------------------------

def engine_alive(run_dir: Path, doc: dict[str, Any]) -> bool:
    return pid_alive(engine_pid(run_dir, doc))


def observed(run_dir: Path, doc: dict[str, Any]) -> dict[str, Any] | None:
    """run.json as a reader must see it, when the file no longer tells the truth; else None.

    A run marked `running` whose engine process is gone ended in error, and a leg still marked
    `running` once the engine is gone is `crashed` (its request died with the process). Every
    reader (CLI status / list / wait, the MCP tools, the workspace) asks here; the engine's
    readers write the answer back (`control.observe_run`), the workspace only shows it."""
    running = doc.get("status") == "running"
    legs = [leg for leg in doc.get("legs") or [] if isinstance(leg, dict)]
    if not running and not any(leg.get("status") == "running" for leg in legs):
        return None
    if engine_alive(run_dir, doc):
        return None
    at = now_iso()
    view = {**doc, "legs": [_crashed(leg) if leg.get("status") == "running" else leg for leg in legs]}
    if running:
        view.update(status="error", exitCode=1, completedAt=at, error={"code": "INTERNAL", "message": ENGINE_DIED})
        view["stages"] = [{**s, "status": "error", "completedAt": at} if isinstance(s, dict) and s.get("status") == "running"
                          else s for s in doc.get("stages") or []]
    return view


def _crashed(leg: dict[str, Any]) -> dict[str, Any]:
    return {**leg, "status": "crashed", "completedAt": None, "error": {"code": "CRASHED", "message": LEG_DIED}}


def _read_if_present(path: Path) -> dict[str, Any] | None:
    try:
        doc = read_json(path, what="run manifest")
    except BadArgs:
        return None
    return doc if isinstance(doc, dict) else None


# --- finding runs by id: pointer files in the project's sessions dir -----------------------

def pointer_path(store: SessionStore, run_id: str) -> Path:
    return store.root / f"council-{run_id.removeprefix('council-')}.json"


def write_pointer(store: SessionStore, run_id: str, run_dir: Path) -> None:
    store.task_dir(run_id)  # validates the id
    atomic_write_json(pointer_path(store, run_id), {"runId": run_id, "runDir": str(run_dir)})


def find_run_dir(store: SessionStore, run_id: str) -> Path | None:
    path = pointer_path(store, run_id)
    if not path.exists():
        return None
    doc = read_json(path, what="run pointer")
    run_dir = Path(doc.get("runDir", "")) if isinstance(doc, dict) else None
    if run_dir is None or not (run_dir / "run.json").exists():
        return None
    return run_dir


def find_run(store: SessionStore, target: str) -> Path | None:
    """The run directory `target` names: a run id whose pointer is in the project, else a
    directory holding a run.json; None when it names no council run (a wave, a leg, nothing)."""
    try:
        run_dir = find_run_dir(store, target)
    except AmicusError:  # not an id at all: it can still be a directory
        run_dir = None
    if run_dir is not None:
        return run_dir
    path = Path(target).expanduser()
    return path.resolve() if (path / "run.json").is_file() else None


def run_dir_near(run_id: Any, *near: Path) -> Path | None:
    """The first of the directories `near` that is run `run_id`'s directory (its run.json is
    that run's manifest), e.g. the folder a verdict or a tally record was read from."""
    for folder in near:
        try:
            doc = read_run(folder) if (folder / "run.json").is_file() else None
        except AmicusError:
            doc = None
        if doc is not None and doc.get("runId") == run_id:
            return folder
    return None


def read_run(run_dir: Path) -> dict[str, Any]:
    doc = read_json(run_dir / "run.json", what="run manifest")
    if not isinstance(doc, dict) or doc.get("type") != "council-run":
        raise BadSession(f"'{run_dir / 'run.json'}' is not a council-run manifest", hint="the file may have been edited by hand")
    return doc


def list_run_dirs(store: SessionStore) -> list[Path]:
    """Every run directory the project's pointer files name (and that still holds a run.json)."""
    if not store.root.is_dir():
        return []
    dirs = []
    for pointer in sorted(store.root.glob("council-*.json")):
        try:
            run_dir = find_run_dir(store, pointer.stem.removeprefix("council-"))
        except AmicusError:
            continue
        if run_dir is not None:
            dirs.append(run_dir)
    return dirs


def engine_pid(run_dir: Path, doc: dict[str, Any]) -> int | None:
    """run.json's pid, else the MCP handler's spawn.pid."""
    if isinstance(doc.get("pid"), int):
        return doc["pid"]
    spawn = run_dir / "spawn.pid"
    try:
        text = spawn.read_text(encoding="utf-8").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None

