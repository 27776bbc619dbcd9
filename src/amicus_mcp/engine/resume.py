"""Resuming a council run whose process died or was stopped, without re-paying what it got.

Every front goes through here: `amicus council resume` (foreground), `amicus_council_resume`
(a detached worker, `python -m amicus_mcp.engine.worker RUN_DIR --resume`), and the status
readers that say whether a run can be resumed.

    find_resumable   why a run can or cannot be resumed (nothing is written)
    check_resumable  the same, raising BAD_ARGS with the reason; then the inputs: the
                     briefing and the options must hash as they did when the run started
    reopen           run.json back to `running`, with this attempt's `resumes` entry
    prepare_resume   pre-flight of the run's own recorded inputs, its seats as they were
    resume_council   the whole resumed run, in this process (spawn.start_resumed_run: the same,
                     continued by a detached worker)
    resume_hint      the command a reader shows for a run that can be resumed

The run keeps its id, directory and `createdAt` (the prompts embed that date, so they are
byte-identical and every finished leg is found in `legs/` by its content key: see
legcache.py). The stages run again from the top; a finished leg answers at once from disk.

`max_cost` (`council resume --max-cost`, `amicus_council_resume` `maxCost`) raises the run's
ceiling for this and later attempts — the one option a resume may change, because the legs
already paid for answer the same whatever the ceiling: a run its ceiling stopped
(COST_EXCEEDED) is resumable again with a higher one. options.json and run.json's
`optionsSha256` and `options.maxCost` are rewritten with it, and the attempt's `resumes` entry
records it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from ..documents.run import RunManifest
from ..errors import AmicusError, BadArgs
from ..front import command
from ..fsio import read_text
from ..vocabulary import RESUMABLE_RUN_STATUSES
from .options import RunOptions, read_options
from .run_dir import BRIEFING, RunDir, resume_command
from .run_state import RunState, engine_alive

__all__ = ["FINAL_ERRORS", "Resumable", "Verdict", "check_resumable", "find_resumable", "prepare_resume", "reopen",
           "resume_command", "resume_council", "resume_hint", "stopped_stage"]

if TYPE_CHECKING:
    from ..providers.routing import ProviderRegistry
    from .preflight import Prepared

# Errors a run reaches on its own: resumed, it would reach them again from the same legs.
FINAL_ERRORS = {
    "COUNCIL_QUORUM": "it ended because fewer than two seats produced a usable review; resumed, the same reviews "
                      "would end it the same way",
    "COST_EXCEEDED": "it ended at its --max-cost ceiling; the spend already made still counts, so it would stop "
                     "there again unless resumed with a higher --max-cost",
}


class Verdict(NamedTuple):
    """Whether a run can be resumed, and if not, why."""

    resumable: bool
    reason: str
    status: str  # as on disk; `running` when its process is dead
    hint: str = "the run stays as it is; to review again, start a new council run"  # when not resumable


def find_resumable(run_dir: RunDir, manifest: RunManifest, *, max_cost: float | None = None) -> Verdict:
    """Whether `manifest` (the run's run.json) names a run `council resume` may continue (with
    its ceiling raised to `max_cost`, when given)."""
    status = manifest.status
    if status == "running":
        if engine_alive(run_dir, manifest):
            run_id = manifest.run_id
            wait = command(f"amicus wait {run_id}", "amicus_wait", id=run_id)
            abort = command(f"amicus abort {run_id}", "amicus_abort", id=run_id)
            return Verdict(False, "it is still running", status,
                           hint=f"wait for it to finish ({wait}), or stop it ({abort}) and resume it after")
        return Verdict(True, "its process is gone", status)
    if status in ("complete", "partial"):
        return Verdict(False, f"it finished ({status}); a finished run is not resumed — start a new one", status)
    if status not in RESUMABLE_RUN_STATUSES:
        return Verdict(False, f"its status is '{status}'", status)
    code = manifest.error.code if manifest.error is not None else None
    raised = max_cost is not None and (ceiling_of(manifest) is None or max_cost > (ceiling_of(manifest) or 0))
    if status == "error" and code == "COST_EXCEEDED" and not raised:
        return Verdict(False, FINAL_ERRORS[code], status,
                       hint=f"resume it with a higher ceiling: {resume_command(run_dir)} --max-cost AMOUNT (its error "
                            "says the least that finishes it)")
    if status == "error" and code in FINAL_ERRORS and code != "COST_EXCEEDED":
        return Verdict(False, FINAL_ERRORS[code], status)
    if not manifest.briefing_sha256 or not manifest.options_sha256:
        return Verdict(False, "it predates resumable runs (its run.json records no input hashes)", status)
    return Verdict(True, "it crashed" if status == "error" else "it was aborted", status)


def resume_hint(run_dir: RunDir, manifest: RunManifest) -> str | None:
    """The command that finishes a stopped run without sending again what it finished (what
    `council gate` and the workspace show); None when the run cannot be resumed."""
    return resume_command(run_dir) if find_resumable(run_dir, manifest).resumable else None


def ceiling_of(manifest: RunManifest) -> float | None:
    """The run's --max-cost as run.json records it (None: no ceiling)."""
    return manifest.options.max_cost if manifest.options is not None else None


class Resumable(NamedTuple):
    run_dir: RunDir
    manifest: RunManifest  # run.json as found
    status: str
    options: RunOptions  # with the raised ceiling, when this resume raises it
    briefing: str
    raised_to: float | None = None  # the --max-cost this resume raises the ceiling to


def check_resumable(run_dir: RunDir, *, reopened: bool = False, max_cost: float | None = None) -> Resumable:
    """Everything a resume checks before anything is sent. `reopened`: a front already checked
    the run and reopened it for a worker (run.json says `running` with the worker's pid).
    `max_cost`: the ceiling this resume raises the run's to (never lowers)."""
    from .manifest import options_sha256, sha256_text

    manifest = run_dir.read()
    run_id = manifest.run_id
    if max_cost is not None:
        _check_raise(manifest, max_cost)
    if not reopened:
        verdict = find_resumable(run_dir, manifest, max_cost=max_cost)
        if not verdict.resumable:
            raise BadArgs(f"council run {run_id} cannot be resumed: {verdict.reason}", hint=verdict.hint)
        status = verdict.status
    elif manifest.resumes:
        status = manifest.resumes[-1].from_status
    else:
        raise BadArgs(f"council run {run_id} was not reopened for a resume",
                      hint=f"resume it with {command(f'amicus council resume {run_id}', 'amicus_council_resume', id=run_id)}")
    try:
        options = read_options(run_dir.path)
    except AmicusError as err:
        raise BadArgs(f"council run {run_id} cannot be resumed: {err.message}",
                      hint="its options.json was edited or damaged; start a new run") from None
    if not isinstance(options, RunOptions):
        raise BadArgs(f"council run {run_id} cannot be resumed: its options.json is not a council run's",
                      hint="start a new run")
    if options_sha256(options) != manifest.options_sha256:
        raise BadArgs(f"council run {run_id} cannot be resumed: its options.json changed since the run started",
                      hint="reusing its answers with other options would mix two runs; start a new run")
    briefing = read_text(run_dir / BRIEFING, what="the run's briefing copy")
    if sha256_text(briefing) != manifest.briefing_sha256:
        raise BadArgs(f"council run {run_id} cannot be resumed: its briefing.md changed since the run started",
                      hint="the reviews already paid for are of the old briefing; start a new run for the new one")
    if max_cost is not None:
        options = options.model_copy(update={"max_cost": max_cost})
    return Resumable(run_dir, manifest, status, options, briefing, raised_to=max_cost)


def _check_raise(manifest: RunManifest, max_cost: float) -> None:
    import math

    ceiling = ceiling_of(manifest)
    if not math.isfinite(max_cost) or max_cost <= 0:
        raise BadArgs(f"--max-cost must be a positive number of USD, got {max_cost}", hint="e.g. --max-cost 0.50")
    if ceiling is not None and max_cost <= ceiling:
        raise BadArgs(f"--max-cost {max_cost} does not raise council run {manifest.run_id}'s ${ceiling} ceiling",
                      hint="a resume can only raise the ceiling (the spend already made counts against it); "
                           "leave --max-cost out to keep it")


def stopped_stage(manifest: RunManifest) -> str | None:
    """The stage the earlier attempt stopped in: the last one that did not complete, else the last."""
    open_ = [s.name for s in manifest.stages if s.status not in ("complete", "skipped")]
    if open_:
        return open_[-1]
    return manifest.stages[-1].name if manifest.stages else None


def reopen(target: Resumable, *, pid: int | None) -> RunManifest:
    """run.json `running` again, with this attempt's `resumes` entry (run_state.RunState.reopen)."""
    from .manifest import options_sha256
    from .options import write_options

    manifest = target.manifest.copy_doc()
    raised = target.raised_to
    if raised is not None:  # the new ceiling is the run's from now on: its options, hashed again
        write_options(target.run_dir.path, target.options)
        manifest.options_sha256 = options_sha256(target.options)
        if manifest.options is not None:
            manifest.options.max_cost = raised
    state = RunState(target.run_dir, manifest)
    state.reopen(from_status=target.status, stage=stopped_stage(target.manifest), pid=pid, max_cost=raised)
    return state.manifest


async def prepare_resume(target: Resumable) -> Prepared:
    """Pre-flight over the run's own inputs (the bench must still resolve), with the seats
    the first attempt drew (a lens assignment is random) and Claude's review unchanged."""
    from ..documents.run import records_of
    from .manifest import sha256_text
    from .preflight import prepare

    manifest = target.manifest
    options = target.options.model_copy(update={"run_id": manifest.run_id, "out_dir": str(target.run_dir.path)})
    prep = await prepare(options, briefing=target.briefing, records=records_of(manifest))
    seats = manifest.seats or []
    if [s.alias for s in seats] != [s["alias"] for s in prep.seats]:
        raise BadArgs(f"council run {manifest.run_id} cannot be resumed: its bench no longer matches run.json's seats",
                      hint="start a new run")
    prep.seats = [seat.to_doc() for seat in seats]  # type: ignore[misc]
    now = sha256_text(prep.claude_review) if prep.claude_review is not None else None
    if manifest.claude_review_sha256 != now:
        raise BadArgs(f"council run {manifest.run_id} cannot be resumed: Claude's review file changed since the run started",
                      hint="the bench already judged the old review; start a new run for the new one")
    return prep


async def resume_council(run_dir: RunDir, *, reopened: bool = False, registry: ProviderRegistry | None = None,
                         max_cost: float | None = None) -> tuple[RunManifest, int]:
    """Check, reopen and run a resumable run to its end, in this process (its ceiling raised
    to `max_cost`, when given)."""
    import os

    from .council_run import run_prepared

    target = check_resumable(run_dir, reopened=reopened, max_cost=max_cost)
    prep = await prepare_resume(target)
    manifest = target.manifest if reopened else reopen(target, pid=os.getpid())
    return await run_prepared(prep, registry=registry, resumed=manifest)
