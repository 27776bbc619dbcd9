"""A council run's directory: its layout, its manifest on disk, and the one way to find a run.

    <runDir>/run.json            the manifest (documents/run.py), checkpointed by run_state.py
             options.json        the run's options (engine/options.py), briefing.md beside it
             legs/               every answered leg and every launch (engine/legcache.py), and
                                 each re-review matcher call (matcher.<attempt>.<call>.call)
             engine.log          a spawned worker's output; spawn.pid its pid, until run.json
                                 carries the engine's own
             tally-input.json · tally.json · verdict.json · report.html · debate.json …
             rereview.json · matcher-prompt.md · matcher-output.md   a re-review (--baseline, --matcher)
    <project>/.claude/amicus_sessions/council-<runId>.json   the pointer that finds it by id

A run is named by its id (through its pointer) or by its directory; `find_run` is the one way
from either to the directory. Every front phrases "not found" its own way.

A fanout wave's directory shares the input names (options.json, briefing.md, engine.log).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, TypeVar

from ..errors import AmicusError, BadArgs, BadSession
from ..fsio import atomic_write_json, atomic_write_text, checked_name, read_json, read_text

if TYPE_CHECKING:  # the models are imported by what reads or writes one, not by every front
    from ..schemas import JsonObject
    from ..documents.council import DebateRecord, TallyRecord, Verdict
    from ..documents.base import Family
    from ..documents.pr_loop import DismissedDocument, RereviewDocument
    from ..documents.run import RunManifest

    F = TypeVar("F", bound=Family)


class Sessions(Protocol):
    """Where a project keeps its pointers (store.SessionStore, which names this layout's files)."""

    @property
    def root(self) -> Path: ...

    def session_dir(self, session_id: str) -> Path: ...


MANIFEST = "run.json"
LEG_FILE = "run.json"  # a fanout wave leg's own document: another document, the same file name
OPTIONS = "options.json"
BRIEFING = "briefing.md"  # the briefing as the run read it: a worker, and a resume, brief off this copy
LEGS = "legs"
ENGINE_LOG = "engine.log"
SPAWN_PID = "spawn.pid"
BRIEFING_STAGE1 = "briefing-stage1.md"
BUNDLE = "bundle-stage2.md"
TALLY_INPUT = "tally-input.json"
TALLY = "tally.json"
TALLY_PROVISIONAL = "tally-provisional.json"
DEBATE = "debate.json"
VERDICT = "verdict.json"
REPORT = "report.html"
CHAIR_PACKET = "chair-packet.md"
CHAIR_OUTPUT = "chair-output.md"
REREVIEW = "rereview.json"  # a re-review's matches to its baseline (council run --baseline)
# A re-review's matcher (--matcher; an eval case's too, in its case directory): its prompt and its
# reply, `-2` for the repair (engine/matcher.py).
MATCHER_PROMPT = "matcher-prompt{suffix}.md"
MATCHER_OUTPUT = "matcher-output{suffix}.md"
# Each call of a run's matcher, in legs/ (documents/legs.py MatcherCallRecord): what a resumed run
# counts of an earlier attempt's matcher spend. `attempt` is the run's attempt, `call` 1 or 2.
MATCHER_CALL = "matcher.{attempt}.{call}.call"
MATCHER_CALLS_GLOB = "matcher.*.call"
DISMISSED = "dismissed.json"  # the findings that match one the user denied before


class RunFiles(NamedTuple):
    """The run directory's file names a front names (in a message, beside a path it shows): one
    door name for them all (`RUN_FILES.report`), the layout itself staying here."""

    manifest: str = MANIFEST
    verdict: str = VERDICT
    report: str = REPORT
    rereview: str = REREVIEW
    engine_log: str = ENGINE_LOG


RUN_FILES = RunFiles()


class RunDir(NamedTuple):
    path: Path

    def __truediv__(self, name: str) -> Path:
        return self.path / name

    @property
    def manifest_path(self) -> Path:
        return self.path / MANIFEST

    @property
    def legs_path(self) -> Path:
        return self.path / LEGS

    def holds_run(self) -> bool:
        return self.manifest_path.is_file()

    # -- the manifest ------------------------------------------------------------------------

    def read(self) -> RunManifest:
        """run.json as its model; BadSession when it is missing or not a council-run manifest."""
        from ..documents.run import RunManifest

        doc = self.read_raw()
        if not isinstance(doc, dict) or doc.get("type") != "council-run":
            raise BadSession(f"'{self.manifest_path}' is not a council-run manifest",
                             hint="the file may have been edited by hand")
        return RunManifest.parse(doc, what="council-run manifest", where=self.manifest_path)

    def read_raw(self) -> Any:
        """run.json as JSON, unvalidated (a reader that must first see its schema version)."""
        return read_json(self.manifest_path, what="run manifest")

    def peek(self) -> JsonObject | None:
        """run.json as JSON, or None when it is absent or unreadable: the engine's own check for
        an abort another process recorded, before each checkpoint (on the run's hot path, so
        unvalidated: a reader narrows the keys it looks at)."""
        try:
            doc = self.read_raw()
        except BadArgs:
            return None
        return doc if isinstance(doc, dict) else None

    def write(self, manifest: RunManifest, *, compact: bool | None = None) -> None:
        """run.json now. While the engine runs it, it is written compact and without an fsync (a
        checkpoint is on the run's hot path and superseded by the next one; the indenting
        encoder is pure Python, ~8× the cost, and an fsync is a disk flush per leg); the final
        write, and any a reader is left with, is the indented, durable one, and so is the
        `running` manifest a front seeds for its worker (`compact=False`)."""
        if compact is None:
            compact = manifest.status == "running"
        atomic_write_json(self.manifest_path, manifest.to_doc(), indent=None if compact else 2, durable=not compact)

    # -- the council's outputs: the one place their paths are made -----------------------------

    @property
    def tally_path(self) -> Path:
        return self.path / TALLY

    @property
    def verdict_path(self) -> Path:
        return self.path / VERDICT

    @property
    def provisional_tally_path(self) -> Path:
        return self.path / TALLY_PROVISIONAL

    @property
    def debate_path(self) -> Path:
        return self.path / DEBATE

    def read_tally(self, *, provisional: bool = False) -> TallyRecord:
        """tally.json (`provisional`: the tally a debate round started from), checked against its
        declaration and kept as written; BadSession when it is missing or not a tally record."""
        from ..documents.council import TallyRecord

        return self._read_checked(self.provisional_tally_path if provisional else self.tally_path, TallyRecord,
                                  "council-tally", "tally record")

    def read_verdict(self) -> Verdict:
        """verdict.json, checked against its declaration and kept as written; BadSession when it
        is missing or not a council verdict."""
        return read_verdict_file(self.verdict_path)

    def read_debate(self) -> DebateRecord:
        """debate.json (a --debate run's round), checked against its declaration and kept as
        written; BadSession when it is missing or not a debate record."""
        from ..documents.council import DebateRecord

        return self._read_checked(self.debate_path, DebateRecord, "council-debate", "debate record")

    def read_rereview(self) -> RereviewDocument | None:
        """rereview.json (a run with --baseline) as its model, or None when the run has none."""
        from ..documents.pr_loop import RereviewDocument

        return _read_beside(self / REREVIEW, RereviewDocument, "council-rereview", what="re-review file",
                            hint="re-run the council with --baseline")

    def read_dismissed(self) -> DismissedDocument | None:
        """dismissed.json (findings matching one denied before) as its model, or None."""
        from ..documents.pr_loop import DismissedDocument

        return _read_beside(self / DISMISSED, DismissedDocument, "council-dismissed", what="dismissed file",
                            hint="re-run the council")

    def review_rationales(self, findings: Sequence[Mapping[str, Any]]) -> dict[str, str]:
        """Each finding's rationale, read back from its raiser's review (the tally keeps none)."""
        from ..council.findings import validate_findings
        from ..council.seats import seat_file_stem

        out: dict[str, str] = {}
        by_seat: dict[str, dict[str, str]] = {}
        for f in findings:
            seat = str(f.get("raiserSeat") or f.get("raiser") or "")
            if seat not in by_seat:
                path = self / f"review-{seat_file_stem(seat)}.md"
                raised = validate_findings(read_text(path, what="review"))["findings"] if path.is_file() else []
                by_seat[seat] = {str(g.get("id")): str(g.get("rationale") or "") for g in raised}
            fid = str(f.get("id"))
            out[fid] = by_seat[seat].get(fid[1:], "")
        return out

    @staticmethod
    def _read_checked(path: Path, declaration: Any, kind: str, what: str) -> Any:
        from ..documents.council import check_document

        if not path.is_file():
            raise BadSession(f"'{path}' does not exist", hint=f"the run wrote no {what}: it may have ended before it")
        doc = read_json(path, what=what)  # bounded
        if not isinstance(doc, dict) or doc.get("type") != kind:
            raise BadSession(f"'{path}' is not a {kind} document", hint="the file may have been edited by hand")
        return check_document(declaration, doc, what=what, where=path)

    # -- the engine's pid --------------------------------------------------------------------

    def engine_pid(self, manifest: RunManifest) -> int | None:
        """run.json's pid, else the pid a front recorded when it spawned the worker."""
        if manifest.pid is not None:
            return manifest.pid
        try:
            text = (self.path / SPAWN_PID).read_text(encoding="utf-8").strip()
        except OSError:
            return None
        return int(text) if text.isdigit() else None

    def write_spawn_pid(self, pid: int) -> None:
        atomic_write_text(self.path / SPAWN_PID, f"{pid}\n")

    def clear_spawn_pid(self) -> None:
        (self.path / SPAWN_PID).unlink(missing_ok=True)

    # -- artifacts ---------------------------------------------------------------------------

    def write_text(self, name: str, text: str) -> Path:
        return atomic_write_text(self.path / name, text)

    def write_json(self, name: str, doc: Any) -> Path:
        return atomic_write_json(self.path / name, doc)


def _read_beside(path: Path, model: type[F], kind: str, *, what: str, hint: str) -> F | None:
    """The document at `path` as its model (its `to_doc()` is the file as written), or None when absent."""
    if not path.is_file():
        return None
    doc = read_json(path, what=what)
    if not isinstance(doc, dict) or doc.get("type") != kind:
        raise BadArgs(f"'{path}' is not a {kind} document", hint=hint)
    try:
        return model.parse(doc, what=what, where=path)
    except BadSession as err:
        raise BadArgs(err.message, hint=hint) from None


def read_verdict_file(path: Path) -> Verdict:
    """A verdict document anywhere (a run's verdict.json, or `council verdict -o other.json`),
    checked as `RunDir.read_verdict` checks a run's."""
    from ..documents.council import Verdict

    return RunDir._read_checked(path, Verdict, "council-verdict", "verdict")


def read_tally_beside(path: Path) -> TallyRecord:
    """The tally record in the folder `path` (a verdict file, or its run directory) is in."""
    return RunDir(path if path.is_dir() else path.parent).read_tally()


# --- finding a run: by id through the project's pointer file, or by its directory ---------------

def pointer_path(store: Sessions, run_id: str) -> Path:
    return store.root / f"council-{run_id.removeprefix('council-')}.json"


def write_pointer(store: Sessions, run_id: str, run_dir: RunDir) -> None:
    from ..documents.pointers import RunPointer

    store.session_dir(run_id)  # validates the id
    atomic_write_json(pointer_path(store, run_id), RunPointer(run_id=run_id, run_dir=str(run_dir.path)).to_doc())


def read_pointer(store: Sessions, run_id: str) -> RunDir | None:
    """The directory run `run_id`'s pointer names (its run.json may not be written yet); None
    when the project has no such pointer, BadSession when the pointer names no directory."""
    path = pointer_path(store, run_id)
    if not path.is_file():
        return None
    doc = read_json(path, what="run pointer")
    run_dir = doc.get("runDir") if isinstance(doc, dict) else None
    if not isinstance(run_dir, str) or not run_dir:
        raise BadSession(f"the pointer file '{path}' names no run directory", hint="the file may have been edited by hand")
    return RunDir(Path(run_dir))


def resume_command(run_dir: RunDir) -> str:
    """The command that resumes the run, runnable from any directory (it names the run dir)."""
    import shlex

    return f"amicus council resume {shlex.quote(str(run_dir.path))}"


def find_run(store: Sessions, target: str, *, by_path: bool = True) -> RunDir | None:
    """The run `target` names: a run id whose pointer is in the project, else (`by_path`) a
    directory holding a run.json; None when it names no council run (a wave, a leg, nothing)."""
    checked_name(target, "id")  # BAD_ARGS for a control character, before any path is made of it
    try:
        store.session_dir(target)  # an id at all?
        by_id = read_pointer(store, target)
    except AmicusError:  # not an id, or a damaged pointer: it can still be a directory
        by_id = None
    if by_id is not None and by_id.holds_run():
        return by_id
    if not by_path:
        return None
    path = Path(target).expanduser()
    return RunDir(path.resolve()) if (path / MANIFEST).is_file() else None


def list_runs(store: Sessions) -> Iterator[RunDir]:
    """Every run directory the project's pointer files name (and that still holds a run.json)."""
    if not store.root.is_dir():
        return
    for pointer in sorted(store.root.glob("council-*.json")):
        try:
            run_dir = read_pointer(store, pointer.stem.removeprefix("council-"))
        except AmicusError:
            continue
        if run_dir is not None and run_dir.holds_run():
            yield run_dir


def run_dir_near(run_id: Any, *near: Path) -> Path | None:
    """The first of the directories `near` that is run `run_id`'s directory (its run.json is
    that run's manifest), e.g. the folder a verdict or a tally record was read from."""
    for folder in near:
        candidate = RunDir(folder)
        try:
            found = candidate.read().run_id if candidate.holds_run() else None
        except AmicusError:
            found = None
        if found is not None and found == run_id:
            return folder
    return None
