"""Reading a council run directory for the workspace — read-only, bounded, allowlisted.

Every path the workspace opens is built here: the run directory comes from the project's
pointer file (`council-<runId>.json`), and a seat's files from `run.json`'s own `seats`
table through `seat_file_stem` — never from model text. Two seats whose ids sanitize onto
the same file name are both refused (a collision), so no file is ever attributed to the
wrong seat. Reads are capped, and nothing here writes: a run that says `running` while its
engine process is gone is *shown* as an error, and recording that finding on disk is left
to the engine's own status readers (`amicus status`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NamedTuple, TypeVar

from ..council.seats import seat_file_stem
from ..documents.run import RunManifest, SeatRecord
from ..engine import RunDir, read_pointer
from ..engine import observed as observed_run
from ..engine import ID_SHAPE, SessionStore
from ..errors import AmicusError, BadArgs, BadSession
from ..vocabulary import TERMINAL_RUN_STATUSES
from .views import Prose

SUPPORTED_RUN_SCHEMA = 2
TEXT_LIMIT = 1_000_000  # characters of one prose file sent to the page

T = TypeVar("T")


class Manifest(NamedTuple):
    """run.json as read: `doc` when it is a council-run manifest of the schema version this
    reads, else `error` (unreadable) or just its `schema_version` and `created_at` (another)."""

    run_dir: Path
    doc: RunManifest | None
    error: str | None
    schema_version: object = None  # as the other version wrote them (shown, never read further)
    created_at: object = None


class SeatFile(NamedTuple):
    seat: str
    path: Path


def check_run_id(run_id: str) -> str:
    if not ID_SHAPE.match(run_id):
        raise BadArgs(f"'{run_id}' is not a run id", hint="run ids are letters, digits, '-' and '_' (see 'amicus list')")
    return run_id


def locate_run(store: SessionStore, run_id: str) -> Path:
    """The run directory a project's pointer file names (run.json may still be missing)."""
    run_dir = read_pointer(store, check_run_id(run_id))
    if run_dir is None:
        raise BadSession(f"no council run '{run_id}' in {store.project}",
                         hint="check the id with 'amicus list', or pass the project it ran in with --project")
    return run_dir.path


def run_ids(store: SessionStore) -> list[str]:
    """Every council run id the project's sessions dir points at."""
    if not store.root.is_dir():
        return []
    ids = (p.stem.removeprefix("council-") for p in store.root.glob("council-*.json"))
    return sorted(i for i in ids if ID_SHAPE.match(i))


def read_manifest(run_dir: Path) -> Manifest:
    directory = RunDir(run_dir)
    path = directory.manifest_path
    if not path.is_file():
        return Manifest(run_dir, None, f"run.json is missing from {run_dir}")
    try:
        raw = directory.read_raw()
    except AmicusError as err:
        return Manifest(run_dir, None, err.message)
    if not isinstance(raw, dict) or raw.get("type") != "council-run":
        return Manifest(run_dir, None, f"'{path}' is not a council-run manifest")
    if raw.get("schemaVersion") != SUPPORTED_RUN_SCHEMA:  # another version: shown as such, never guessed at
        return Manifest(run_dir, None, None, schema_version=raw.get("schemaVersion"), created_at=raw.get("createdAt"))
    try:
        return Manifest(run_dir, RunManifest.parse(raw, what="council-run manifest", where=path), None,
                        schema_version=SUPPORTED_RUN_SCHEMA)
    except AmicusError as err:
        return Manifest(run_dir, None, err.message)


def observed(run_dir: Path, doc: RunManifest) -> tuple[RunManifest, bool]:
    """(the manifest as a reader should see it, by the engine's one liveness check; whether
    that found a crash): a `running` run whose engine is gone is an error, its in-flight legs
    crashed (in memory only — the workspace does not write the finding back)."""
    view = observed_run(RunDir(run_dir), doc)
    if view is None:
        return doc, False
    return view, doc.status == "running"


def is_live(doc: RunManifest) -> bool:
    return doc.status not in TERMINAL_RUN_STATUSES


def seat_files(run_dir: Path, seats: Sequence[SeatRecord], prefix: str) -> tuple[list[SeatFile], list[str]]:
    """(existing `<prefix>-<stem>.md` files of the seats, collision notes). Seats whose
    stems collide are refused together and named in a note."""
    by_stem: dict[str, list[str]] = {}
    for seat in seats:
        by_stem.setdefault(seat_file_stem(seat.id), []).append(seat.id)
    found: list[SeatFile] = []
    notes: list[str] = []
    for stem, claimants in by_stem.items():
        path = run_dir / f"{prefix}-{stem}.md"
        if len(claimants) > 1:
            if path.is_file():
                notes.append(f"{path.name} is claimed by seats {', '.join(claimants)}; it is attributed to neither")
            continue
        if path.is_file():
            found.append(SeatFile(claimants[0], path))
    return found, notes


def read_prose(path: Path) -> Prose:
    """A prose file for the page: its text (capped), or the reason it could not be read."""
    try:
        with path.open(encoding="utf-8", errors="replace") as handle:
            text = handle.read(TEXT_LIMIT + 1)
    except OSError as exc:
        return {"file": path.name, "text": None, "error": exc.strerror or str(exc), "truncated": False}
    truncated = len(text) > TEXT_LIMIT
    return {"file": path.name, "text": text[:TEXT_LIMIT], "error": None, "truncated": truncated}


def read_optional(read: Callable[[], T], path: Path) -> tuple[T | None, str | None]:
    """(what `read` reads, None), (None, None) when `path` is absent, or (None, the error) when it
    cannot be read or is not the document it should be (a view shows the problem, not a crash)."""
    if not path.is_file():
        return None, None
    try:
        return read(), None
    except AmicusError as err:
        return None, err.message


def seat_list(doc: RunManifest) -> list[SeatRecord]:
    """run.json's seat table (seats with an id)."""
    return [seat for seat in doc.seats or [] if seat.id]
