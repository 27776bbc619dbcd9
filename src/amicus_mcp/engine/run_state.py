"""`run.json`'s one writer: the run-state owner, checkpointing the manifest atomically.

The stages and the leg runner never touch the manifest (documents/run.py) themselves; they ask
the `RunState` to record what happened — a stage starting or ending, a leg launched or settled,
a degrade, a refusal, a chair attempt — and it decides when run.json is written:

    checkpoint()   now: at stage boundaries and whenever a leg ends (nothing finished is ever
                   only in memory) — except while a resumed run replays its finished legs
    note()         soon: a burst of launches is written once, COALESCE_S after the first
                   (`keep_saved` runs beside the stages to do it)

A kill at any moment leaves a readable, honest manifest. Once a run is `aborted` it stays
aborted (abort wins over any later write), with exit code 130/143. A reader that finds the
engine dead sees the manifest as `observed` makes it, and the engine's own readers write that
back (`control.observe_run`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import anyio

from ..documents.legs import ErrorRecord, InterruptedLeg, ToolCallDoc
from ..documents.run import (BudgetRefusal, ChairAttempt, DebateSummary, Degrade, LegEntry, Resume, RunManifest, Stage,
                             crash_in_flight)
from ..documents.usage import LegUsage, RunUsage
from ..fsio import sweep_temp_files
from ..vocabulary import IN_FLIGHT_LEG_STATUSES, Conformance, exit_status
from .run_dir import RunDir
from .store import now_iso, pid_alive

if TYPE_CHECKING:
    from ..documents.usage import RunUsageDoc

ENGINE_DIED = "Council engine process exited unexpectedly"
LEG_DIED = ("the council engine died while this leg was in flight (the provider may still have answered "
            "and billed it)")
# What a reopened run no longer is: it runs again, under another process.
REOPEN_DROPS = ("exit_code", "error", "completed_at", "abort_requested_at", "pid")
# run.json is written at once at stage boundaries and whenever a leg ends; a burst of leg
# launches is written once, this long after the first.
COALESCE_S = 0.2


class RunState:
    def __init__(self, run_dir: RunDir, manifest: RunManifest):
        self.run_dir = run_dir
        self.manifest = manifest
        # A resumed run first replays its finished legs from disk, in a burst: until it sends a
        # request, run.json writes are deferred (COALESCE_S), so no reader sees the attempt half
        # replayed ("0/3 legs") — the reopened run.json stands until the replay has caught up.
        self.replaying = False
        self._unsaved = False  # run.json is behind the manifest
        self._wake: anyio.Event | None = None  # set when a change waits to be written
        # The legs pre-flight planned for the stages after the one now launching (limits.RunPlan):
        # the planned total counts them from the start, and a repair launched now adds to it.
        self.ahead = 0

    # -- when run.json is written ------------------------------------------------------------

    def checkpoint(self) -> None:
        if self.replaying:
            self._defer()  # mid-replay: written once caught up, never half-replayed
            return
        self.save()

    def save(self) -> None:
        """Write run.json now — keeping an abort another process recorded (abort wins)."""
        self._unsaved = False
        manifest = self.manifest
        on_disk = self.run_dir.peek()
        if on_disk is not None and on_disk.get("status") == "aborted":
            if manifest.status != "aborted":  # someone (an abort from another process) got there first
                manifest.status = "aborted"
                code = on_disk.get("exitCode", 143)
                manifest.exit_code = 130 if code == 130 else 143  # what an abort exits with: SIGINT's, else SIGTERM's
            at = on_disk.get("abortRequestedAt")
            if isinstance(at, str) and not manifest.has("abort_requested_at"):
                manifest.abort_requested_at = at  # ... and their record of when
        self.run_dir.write(manifest)

    def _defer(self) -> None:
        self._unsaved = True
        if self._wake is not None:
            self._wake.set()

    def caught_up(self) -> None:
        """A resumed run is about to send its first request: its replay of finished legs is over
        (the wave's other legs replay in the same instant, so run.json is written a moment on)."""
        self.replaying = False

    def note(self) -> None:
        """A change run.json should show soon, not this instant (see COALESCE_S)."""
        if self._wake is not None:
            self._defer()
        else:  # no writer is running (a run driven without `keep_saved`): write now
            self.checkpoint()

    async def keep_saved(self) -> None:
        """Write what `note()` deferred, at most COALESCE_S after it; runs beside the stages."""
        while True:
            self._wake = anyio.Event()
            await self._wake.wait()
            await anyio.sleep(COALESCE_S)
            if self._unsaved:
                self.save()

    # -- what the stages record --------------------------------------------------------------

    def open(self, *, pid: int, created_at: str) -> None:
        """This process is the run's engine, and `created_at` the clock its prompts are dated by."""
        self.manifest.pid = pid
        self.manifest.created_at = created_at

    def stage(self, name: str, status: str, **extra: Any) -> None:
        """Mark a stage running / complete / skipped / error (extra: wave_id, judges, model,
        reason), and checkpoint."""
        entry = self.manifest.stage_named(name)
        if entry is None:
            entry = Stage(name=name, status=status, started_at=now_iso())  # type: ignore[arg-type]
            self.manifest.stages.append(entry)
        entry.status = status  # type: ignore[assignment]
        if status != "running":
            entry.completed_at = now_iso()
        for key, value in extra.items():
            setattr(entry, key, value)
        self.checkpoint()

    def plan(self, legs: int, *, ahead: int = 0) -> None:
        """`legsPlanned` is the run's planned total: the legs launched so far, `legs` more about
        to launch, and the `ahead` legs pre-flight planned for the later stages. It is set anew
        as each stage is planned (fewer usable reviews plan fewer judges; a skipped chair plans
        none); a repair or retry adds to it as it launches."""
        self.ahead = ahead
        self.manifest.legs_planned = len(self.manifest.legs) + legs + ahead
        self.note()

    def degrade(self, channel: str, what: str, why: str) -> None:
        self.manifest.add("degrades", Degrade(kind="degrade", channel=channel, what=what, why=why))

    def refuse(self, leg_id: str, model: str, stage: str) -> None:
        self.manifest.add("budget_refusals", BudgetRefusal(wave_id=leg_id, models=[model], reason="max-cost",
                                                           stage=stage, at=now_iso()))  # type: ignore[arg-type]

    def set_label_map(self, label_map: dict[str, str]) -> None:
        self.manifest.label_map = dict(label_map)
        self.checkpoint()

    def chair_attempt(self, attempt: ChairAttempt) -> None:
        self.manifest.add("chair_attempts", attempt)
        self.checkpoint()

    def chair_delivered(self, alias: str, conformance: Conformance) -> None:
        self.manifest.chair = alias
        self.manifest.chair_conformance = conformance

    def set_debate(self, summary: Mapping[str, object]) -> None:  # council/debate.py's summary, validated here
        self.manifest.debate = DebateSummary.model_validate(summary)

    def set_usage(self, usage: RunUsageDoc) -> None:
        self.manifest.usage = RunUsage.model_validate(usage)

    # -- legs (the leg runner's records) -----------------------------------------------------

    def launch(self, entry: LegEntry) -> None:
        """A leg about to be sent (or, not sent, recorded as it ended); past the plan (a repair,
        a retry) it raises the planned total."""
        manifest = self.manifest
        manifest.legs.append(entry)
        manifest.legs_planned = max(manifest.legs_planned or 0, len(manifest.legs) + self.ahead)

    def settle(self, entry: LegEntry, *, status: str, completed_at: str | None, duration_ms: int | None,
               usage: LegUsage | None, resolved_model: str | None = None, error: ErrorRecord | None = None,
               truncated: bool = False, schema_mismatch: str | None = None,
               tool_calls: list[ToolCallDoc] | None = None) -> None:
        """A launched leg's outcome; the served model, an error, a truncation and a structured
        reply's schema mismatch when there is one."""
        entry.status = status  # type: ignore[assignment]
        entry.completed_at = completed_at
        entry.duration_ms = duration_ms
        entry.usage = usage
        if resolved_model:
            entry.resolved_model = resolved_model
        if error is not None:
            entry.error = error
        if truncated:
            entry.truncated = True
        if schema_mismatch:
            entry.schema_mismatch = schema_mismatch
        if tool_calls:
            entry.tool_calls = tool_calls

    def queue(self, entry: LegEntry) -> None:
        """A launched leg waiting for its agent CLI's slot (shown `queued` until it starts)."""
        entry.status = "queued"
        self.note()

    def start(self, entry: LegEntry) -> None:
        """A queued leg's turn came: `running`, from now."""
        if entry.status == "queued":
            entry.status = "running"
            entry.started_at = now_iso()
            self.note()

    def abandon(self, entry: LegEntry) -> None:
        """A launched leg whose run was cancelled (a signal, an abort) while it was in flight."""
        entry.status = "aborted"

    def reuse(self, entry: LegEntry) -> None:
        """A leg an earlier attempt of this run finished, recorded again; this attempt's
        `resumes` entry counts it."""
        self.manifest.legs.append(entry)
        if self.manifest.resumes:
            self.manifest.resumes[-1].legs_reused += 1

    @property
    def attempt(self) -> int:
        """This attempt's number: 0 for the first, then one more per resume."""
        return len(self.manifest.resumes)

    def served_models(self, stage: str) -> set[str]:
        """The executables that actually served a stage's legs (resolved ids)."""
        return {leg.resolved_model for leg in self.manifest.legs if leg.stage == stage and leg.resolved_model}

    def refusals(self, stage: str) -> list[BudgetRefusal]:
        return [r for r in self.manifest.budget_refusals if r.stage == stage]

    def carry_over(self, resumed: RunManifest, lost: Sequence[InterruptedLeg]) -> None:
        """A resumed run's manifest keeps the earlier attempts' `resumes` (the last is this
        attempt's), plans the legs they planned (progress reads "n/7", not "n/3"), and lists the
        legs they lost in flight."""
        manifest = self.manifest
        manifest.resumes = [r.copy_doc() for r in resumed.resumes]
        if resumed.legs_planned is not None:
            manifest.legs_planned = max(manifest.legs_planned or 0, resumed.legs_planned)
        if lost:
            manifest.interrupted_legs = list(lost)

    def reopen(self, *, from_status: str, stage: str | None, pid: int | None, max_cost: float | None = None) -> None:
        """`running` again for another attempt, with its `resumes` entry (and the ceiling it
        raised), written at once (so an abort-wins check never mistakes the old `aborted` for a
        new abort)."""
        manifest = self.manifest
        manifest.drop(*REOPEN_DROPS)
        manifest.status = "running"
        entry = Resume(at=now_iso(), from_status=from_status, stage=stage, legs_reused=0)  # type: ignore[arg-type]
        if max_cost is not None:
            entry.max_cost = max_cost
        manifest.add("resumes", entry)
        if pid is not None:
            manifest.pid = pid
        self.run_dir.write(manifest, compact=False)

    def fail_to_start(self, *, code: str, message: str, exit_code: int) -> None:
        """A run that failed before its engine could run it (a worker that could not start, a
        pre-flight that no longer passes) ends `error`, saying why."""
        manifest = self.manifest
        manifest.status = "error"
        manifest.exit_code = exit_code  # type: ignore[assignment]
        manifest.completed_at = now_iso()
        manifest.error = ErrorRecord(code=code, message=message)
        self.run_dir.write(manifest)

    def abort(self, *, at: str) -> None:
        """An abort asked for from outside the engine (it wins over the engine's later writes)."""
        self.manifest.status = "aborted"
        self.manifest.exit_code = 143
        self.manifest.abort_requested_at = at
        self.save()

    # -- the end -----------------------------------------------------------------------------

    def finish(self, *, judged: bool, tier_counts: dict[str, int], overall_verdict: str | None,
               notices: Sequence[str], answer: str | None = None) -> None:
        """The tally's and the chair's outcome; `answer`: a question council's one-sentence answer."""
        manifest = self.manifest
        manifest.judged = judged
        manifest.tier_counts = dict(tier_counts)
        manifest.overall_verdict = overall_verdict  # type: ignore[assignment]
        if answer is not None:
            manifest.answer = answer
        if notices:
            manifest.notices = list(notices)

    def finalize(self, exit_code: int, *, error: dict[str, str] | None = None) -> None:
        manifest = self.manifest
        manifest.exit_code = exit_code  # type: ignore[assignment]
        manifest.status = exit_status(exit_code)
        manifest.completed_at = now_iso()
        if error is not None:
            manifest.error = ErrorRecord.model_validate(error)
        for stage in manifest.stages:
            if stage.status == "running":
                stage.status = "aborted" if manifest.status == "aborted" else "error"
                stage.completed_at = now_iso()
        self.save()
        # Final (by the engine, or by a reader that found its engine dead): what a killed
        # write left behind goes now, since nothing will ever rename it into place.
        sweep_temp_files(self.run_dir.path)


# --- liveness: the one check every reader of a run goes through -------------------------

def engine_alive(run_dir: RunDir, manifest: RunManifest) -> bool:
    return pid_alive(run_dir.engine_pid(manifest))


def observed(run_dir: RunDir, manifest: RunManifest) -> RunManifest | None:
    """The manifest as a reader must see it, when the file no longer tells the truth; else None.

    A run marked `running` whose engine process is gone ended in error, and a leg still marked
    `running` once the engine is gone is `crashed` (its request died with the process). Every
    reader (CLI status / list / wait, the MCP tools, the workspace) asks here; the engine's
    readers write the answer back (`control.observe_run`), the workspace only shows it."""
    running = manifest.status == "running"
    if not running and not any(leg.status in IN_FLIGHT_LEG_STATUSES for leg in manifest.legs):
        return None
    if engine_alive(run_dir, manifest):
        return None
    at = now_iso()
    view = manifest.copy_doc()
    crash_in_flight(view.legs, LEG_DIED)
    if running:
        view.status = "error"
        view.exit_code = 1
        view.completed_at = at
        view.error = ErrorRecord(code="INTERNAL", message=ENGINE_DIED)
        for stage in view.stages:
            if stage.status == "running":
                stage.status = "error"
                stage.completed_at = at
    return view
