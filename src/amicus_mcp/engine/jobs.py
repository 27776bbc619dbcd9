"""Detached work of the layers above the engine (an eval), as status / wait / abort see it.

Such a job keeps its state where the engine's own runs do: a manifest in its directory that
says its `type`, `status` and `pid`, and a pointer in the project's sessions directory,

    <project>/.claude/amicus_sessions/job-<id>.json   {"id", "type", "manifest": "<abs path>"}

so `engine.control` finds it by id, notices when its process died (the manifest is rewritten
`error`, saying so), and signals it to abort, without knowing what the job does.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import BadArgs
from ..fsio import atomic_write_json, read_json, sweep_temp_files
from ..schemas import JsonObject
from .store import SessionStore, now_iso, pid_alive

# A job's manifest is a layer above's document (eval/documents.py EvalManifest): the engine reads
# only its `type`, `status` and `pid` (and a listing's summary keys), each narrowed where it is read.
JobManifest = JsonObject

JOB_DIED = "the process running it exited unexpectedly"


def pointer_path(store: SessionStore, job_id: str) -> Path:
    store.session_dir(job_id)  # validates the id
    return store.root / f"job-{job_id}.json"


def write_pointer(store: SessionStore, job_id: str, kind: str, manifest: Path) -> None:
    atomic_write_json(pointer_path(store, job_id), {"id": job_id, "type": kind, "manifest": str(manifest)})


def find_manifest(store: SessionStore, job_id: str) -> Path | None:
    """The manifest a job's pointer names, when both exist."""
    path = pointer_path(store, job_id)
    if not path.is_file():
        return None
    try:
        doc = read_json(path, what="job pointer")
    except BadArgs:
        return None
    manifest = Path(doc.get("manifest", "")) if isinstance(doc, dict) else None
    return manifest if manifest is not None and manifest.is_file() else None


def read_manifest(path: Path) -> JobManifest:
    doc = read_json(path, what="job manifest")
    if not isinstance(doc, dict) or not isinstance(doc.get("type"), str):
        raise BadArgs(f"'{path}' is not a job manifest", hint="the file may have been edited by hand")
    return doc


def job_status(path: Path) -> JobManifest:
    """The manifest now; a `running` one whose process is gone is recorded as `error` first."""
    doc = read_manifest(path)
    if doc.get("status") == "running" and not pid_alive(doc.get("pid")):
        doc.update(status="error", exitCode=1, completedAt=now_iso(),
                   error={"code": "INTERNAL", "message": JOB_DIED})
        atomic_write_json(path, doc)
        sweep_temp_files(path.parent)
    return doc


def list_jobs(store: SessionStore) -> list[JobManifest]:
    """Every readable job manifest of the project."""
    if not store.root.is_dir():
        return []
    docs = []
    for pointer in sorted(store.root.glob("job-*.json")):
        manifest = find_manifest(store, pointer.stem.removeprefix("job-"))
        if manifest is None:
            continue
        try:
            docs.append(read_manifest(manifest))
        except BadArgs:
            continue
    return docs
