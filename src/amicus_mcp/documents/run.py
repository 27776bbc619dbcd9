"""run.json: the council-run manifest (schemas/council-run.schema.json), and what it holds.

The engine's run-state owner (engine/run_state.py) is the one writer of a run's manifest: the
stages and the leg runner ask it to record a leg, a stage, a degrade, a chair attempt; every
reader (status, list, wait, resume, the MCP tools, the workspace, the CLI) takes the model.
A reader that finds the engine dead sees the manifest as `engine/run_state.observed` makes it.

`RunStatusView` is `amicus status` for a run: the manifest plus where it is (`currentStage`,
the legs done of the legs planned, whether and how it can be resumed).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Annotated, Any, ClassVar, Literal, NamedTuple

from pydantic import ConfigDict, Field

from ..vocabulary import (IN_FLIGHT_LEG_STATUSES, LEG_OUTCOMES, TAG_PATTERN, AnsweringIntent, ChairLine, Conformance, GatewayMode, LegStage,
                          LegStatus, PackSource, ResumedFromStatus, RunStatus, StageName, StageStatus, TemplateSource)
from .base import Document, Family, WhenSet
from .legs import ErrorRecord, InterruptedLeg, LegRun, Sha256Hex, ToolCallDoc
from .usage import Count, LegUsage, Number, RunUsage

ExitCode = Literal[0, 1, 2, 130, 143]
Sha256Tagged = Annotated[str, Field(pattern=r"^sha256:[0-9a-f]{64}$")]


class Stage(Document):
    name: StageName
    status: StageStatus
    started_at: WhenSet[str] = None
    completed_at: WhenSet[str] = None
    wave_id: WhenSet[str] = None
    judges: Annotated[WhenSet[Count], Field(description="stage2: the judges whose judgements were usable")] = None
    model: Annotated[WhenSet[str], Field(description=(
        "chair: the chair that delivered (a promoted one, when the requested chair failed)"))] = None
    reason: Annotated[WhenSet[str], Field(description="a skipped stage: why (max-cost)")] = None


class SeatRecord(Document):
    """One bench position (council/seats.py builds them; the model text never names one)."""

    id: str
    alias: str
    role: str  # seat | critic | lens:<slug>
    lens: str | None
    position: Annotated[int, Field(ge=1)]


class OptionsRecord(Document):
    """The options a reader of run.json needs (the whole set is options.json)."""

    timeout: Annotated[Number, Field(gt=0)]
    max_cost: Annotated[Number, Field(gt=0)] | None
    gateway: GatewayMode
    out_dir: str


class LegEntry(Document):
    """One council leg: launched (`running`), then settled; a reused one ran in an earlier attempt."""

    _caches: ClassVar[bool] = True  # its fields are scalars and frozen documents

    id: str
    stage: LegStage
    role: str
    model: str
    seat: WhenSet[str] = None
    status: Annotated[LegStatus, Field(description=(
        "queued: launched, waiting for its agent CLI's slot (agents.<name>.concurrency). crashed: in flight (queued "
        "or running) when the engine process died (error code CRASHED); written by the first reader that found the "
        "engine gone."))]
    started_at: str
    reserved: Annotated[WhenSet[Annotated[Number, Field(ge=0)]], Field(description=(
        "What the leg claimed against the --max-cost ceiling when it launched, USD (its prompt plus maxTokens of "
        "output; 0 when unpriced). A resume keeps holding it for a leg that was in flight when the process died."))] = None
    max_tokens: Annotated[WhenSet[Annotated[int, Field(ge=1)]], Field(description=(
        "The output cap the leg was sent with: the stage's cap, or less when the ceiling's share or the model's "
        "context window left less room."))] = None
    completed_at: str | None = None
    duration_ms: int | None = None
    usage: LegUsage | None = None
    reused: Annotated[WhenSet[Literal[True]], Field(description=(
        "Finished by an earlier attempt of this run and reused from legs/<key>.json by `council resume`: no request "
        "was sent. Present only when true."))] = None
    resolved_model: WhenSet[str] = None
    error: WhenSet[ErrorRecord] = None
    truncated: Annotated[WhenSet[Literal[True]], Field(description=(
        "The reply was cut at this leg's output cap (finish reason `length`): the call completed, the answer did "
        "not. Present only when true."))] = None
    schema_mismatch: Annotated[WhenSet[str], Field(description=(
        "The leg was sent a JSON Schema and its structured reply did not match it: the provider's reason (e.g. "
        "`ranking/0: 'Response C' is not one of …`). The reply is kept and read like any other; the stage's notice "
        "repeats the reason. Absent when it matched or no schema was sent."))] = None
    tool_calls: Annotated[WhenSet[list[ToolCallDoc]], Field(description=(
        "The read-only tool calls a verifier leg (--verify) made where its model supports tool calling, in order: "
        "the tool, its arguments and how it ended (ok; refused: outside the project, hidden or not a text file; "
        "unknown-tool; bad-arguments; over-budget: past --verify-tool-calls). Absent when it made none."))] = None

    @property
    def finished(self) -> bool:
        return self.status not in IN_FLIGHT_LEG_STATUSES


class ChairAttempt(Document):
    wave_id: str
    model: str
    outcome: Literal["completed", "error", "timeout", "no-output", "refused"]
    reason: str | None


class BudgetRefusal(Document):
    wave_id: str | None
    models: list[str]
    reason: Literal["max-cost"]
    stage: WhenSet[LegStage] = None
    at: str


class DroppedMember(Document):
    """A council member left off the bench before the run, with why."""

    member: str
    reason: str


class Degrade(Document):
    """A loss the run suffered (exit 2): which channel, what was lost, why."""

    kind: Literal["degrade", "heal", "info"]
    channel: str
    what: str
    why: str


class DebateSummary(Document):
    model_config = ConfigDict(extra="forbid")

    enabled: Literal[True]
    outcome: Literal["ran", "nothing-to-debate", "skipped-cost-ceiling"]
    contested: WhenSet[Count] = None
    disputed: WhenSet[Count] = None
    defended: WhenSet[Count] = None
    amended: WhenSet[Count] = None
    withdrawn: WhenSet[Count] = None
    no_response: WhenSet[Count] = None
    revote_judges: WhenSet[Count] = None
    revote_applied: WhenSet[Count] = None
    verdict_changes: WhenSet[Count] = None


class TemplateRecord(Document):
    name: str
    source: TemplateSource
    hash: Sha256Tagged
    path: str
    vars: Annotated[WhenSet[dict[str, str]], Field(description=(
        "every variable's value as composed (typed, from the pack, or the default); present when the template has "
        "variables"))] = None
    intent: Annotated[WhenSet[Literal["question"]], Field(description=(
        "present when the template frames a question (a review template's record carries no intent)"))] = None


class ArtifactRecord(Document):
    path: str
    hash: Sha256Tagged
    bytes: Annotated[int, Field(ge=1)]


class PackRecord(Document):
    name: str
    version: Annotated[int, Field(ge=1)]
    hash: Sha256Tagged
    source: PackSource
    path: str


class Resume(Document):
    """One `council resume` of the run; the last is the attempt now running."""

    model_config = ConfigDict(extra="forbid")

    at: str
    from_status: Annotated[ResumedFromStatus, Field(description=(
        "The status on disk when resumed (running: its process had died)."))]
    stage: Annotated[str | None, Field(description=(
        "The stage the earlier attempt stopped in (null: before Stage 1 started)."))]
    legs_reused: Annotated[Count, Field(description="Finished legs reused instead of re-sent.")]
    max_cost: Annotated[WhenSet[Annotated[Number, Field(gt=0)]], Field(description=(
        "The --max-cost this resume raised the run's ceiling to (`council resume --max-cost`); options.json and "
        "options.maxCost say the same from then on. Absent when the ceiling was kept."))] = None


class Reported(NamedTuple):
    """Marks a run.json field the run's report shows, as `label: value` under "About this run"
    (`reported_lines`): a field marked here reaches both renderers with no code of its own."""

    label: str


def reported_lines(manifest: Document) -> tuple[str, ...]:
    """The report's lines for the `Reported` fields a manifest has set, in declaration order."""
    lines = []
    for name, info in type(manifest).model_fields.items():
        mark = next((m for m in info.metadata if isinstance(m, Reported)), None)
        value = getattr(manifest, name, None)
        if mark is None or value is None or value == []:
            continue
        text = ", ".join(str(v) for v in value) if isinstance(value, (list, tuple)) else str(value)
        lines.append(f"{mark.label}: {text}")
    return tuple(lines)


class RunManifest(Family):
    """`<runDir>/run.json`."""

    schema_version: Literal[2] = 2
    type: Literal["council-run"] = "council-run"
    run_id: str
    tag: Annotated[WhenSet[Annotated[str, Field(pattern=TAG_PATTERN)]], Field(description=(
        "Emit-when-set: the run's tag (council run --tag / tag); also on its ledger rows, and a filter for council "
        "stats and amicus list."))] = None
    status: RunStatus
    exit_code: WhenSet[ExitCode] = None
    error: ErrorRecord | None = None
    stages: list[Stage]
    bench: Annotated[list[str], Field(min_length=2)]
    chair: str
    intent: Annotated[WhenSet[AnsweringIntent], Field(description=(
        "A question council (`--intent question`): its seats answered a question, its judges ranked the answers and "
        "voted on their key claims, its chair gave an ANSWER line. A task council (`--intent task`): reviewed like "
        "a review, its chair gave an ANSWER line, no ledger rows. Emitted only for these; a review's manifest "
        "carries no intent."))] = None
    critic: str | None = None
    lenses: list[str] | None = None
    label_map: dict[str, str] | None = None
    seats: list[SeatRecord] | None = None
    options: WhenSet[OptionsRecord] = None
    usage: RunUsage | None = None
    legs: list[LegEntry] = Field(default_factory=list)
    legs_planned: Annotated[WhenSet[Count], Field(description=(
        "The run's planned total of legs: written at run start for every seat, judge and the chair pre-flight "
        "planned, and set anew as each stage is planned (fewer usable reviews plan fewer judges; a debate's defense "
        "and re-vote legs are added when planned; a chair skipped at the ceiling plans none). A repair or retry "
        "raises it as it launches; readers show max(legsPlanned, len(legs))."))] = None
    chair_attempts: list[ChairAttempt] = Field(default_factory=list)
    chair_conformance: WhenSet[Conformance] = None
    budget_refusals: list[BudgetRefusal] = Field(default_factory=list)
    dropped_members: Annotated[list[DroppedMember], Field(min_length=1)] = Field(default_factory=list)
    degrades: list[Degrade] = Field(default_factory=list)
    debate: WhenSet[DebateSummary] = None
    template: Annotated[WhenSet[TemplateRecord], Field(description=(
        "the briefing template the briefing was composed from (--template); present only on a template run"))] = None
    artifact: Annotated[WhenSet[ArtifactRecord], Field(description=(
        "the file the template run reviewed (--artifact), as read at pre-flight"))] = None
    pack: Annotated[WhenSet[PackRecord], Field(description=(
        "the policy pack (--pack) whose settings were this run's defaults"))] = None
    judged: WhenSet[bool] = None
    overall_verdict: Annotated[ChairLine | None, Field(description=(
        "The chair's VERDICT line; a question council's: the standing on its ANSWER line (Converged | Split | "
        "Insufficient)."))] = None
    answer: Annotated[WhenSet[str], Field(description=(
        "A question council: the sentence after the standing on the chair's ANSWER line. Emitted when set."))] = None
    tier_counts: WhenSet[dict[str, int]] = None
    notices: list[str] = Field(default_factory=list)
    briefing_sha256: Annotated[WhenSet[Sha256Hex], Field(description=(
        "sha256 of briefing.md as the run read it; a resume refuses a briefing that no longer matches."))] = None
    options_sha256: Annotated[WhenSet[Sha256Hex], Field(description=(
        "sha256 of the run's options document (options.json); a resume refuses options that no longer match."))] = None
    claude_review_sha256: Annotated[WhenSet[Sha256Hex], Field(description=(
        "sha256 of Claude's review as the run read it (--claude-review); a resume refuses a review that changed."))] = None
    resumes: Annotated[list[Resume], Field(description=(
        "Each time `council resume` continued this run, oldest first."))] = Field(default_factory=list)
    interrupted_legs: Annotated[list[InterruptedLeg], Field(description=(
        "Legs an earlier attempt had in flight when its process stopped (SIGKILL, a crash, an abort) and never saw "
        "answered (a legs/<key>.<attempt>.launch record with no answer of its own): the provider probably finished "
        "and billed them, so each counts as a leg of unknown cost (usage.costExact false) and the --max-cost "
        "ceiling keeps counting what it reserved. Present only on a resumed run that lost some."))] = Field(default_factory=list)
    pid: WhenSet[int] = None
    created_at: WhenSet[str] = None
    completed_at: WhenSet[str] = None
    abort_requested_at: Annotated[WhenSet[str], Field(description=(
        "When an abort was asked for (`amicus abort`, amicus_abort, the workspace); the abort wins over any later "
        "write."))] = None

    # -- what readers ask of a run ----------------------------------------------------------

    def progress(self) -> tuple[int, int]:
        """(legs done, legs in the plan): a leg is done once its call came back (complete, error,
        timeout) — an aborted or crashed one is not; the plan is `legsPlanned`, or the legs
        launched when repairs and retries took it past the plan (or an older run has none)."""
        done = sum(1 for leg in self.legs if leg.status in LEG_OUTCOMES)
        return done, max(self.legs_planned or 0, len(self.legs))

    def running_stage(self) -> str | None:
        return next((s.name for s in self.stages if s.status == "running"), None)

    def stage_named(self, name: str) -> Stage | None:
        return next((s for s in self.stages if s.name == name), None)

    def leg_named(self, leg_id: str) -> LegEntry | None:
        """The leg with this id (the last, when a resumed run lists it again)."""
        return next((leg for leg in reversed(self.legs) if leg.id == leg_id), None)


# run.json's records of where the briefing came from, by key, in the order they are written.
RECORDS: dict[str, type[Document]] = {"template": TemplateRecord, "artifact": ArtifactRecord, "pack": PackRecord}


def input_records(raw: Mapping[str, Any]) -> dict[str, Document]:
    """The records a front made of the briefing's sources (dicts, in their order), as models."""
    return {name: RECORDS[name].model_validate(dict(doc)) for name, doc in raw.items()}


def records_of(manifest: RunManifest) -> dict[str, Document]:
    """What run.json records of the briefing's sources, for a worker or a resume to keep."""
    return {name: getattr(manifest, name) for name in RECORDS if manifest.has(name)}


class RunStatusView(RunManifest):
    """`amicus status` of a council run: run.json (as observed) and where the run is."""

    current_stage: str | None = None
    legs_total: Count = 0
    legs_complete: Count = 0
    resumable: WhenSet[bool] = None
    resume_command: WhenSet[str] = None


def crash_in_flight(legs: Iterable[LegEntry | LegRun], why: str) -> None:
    """In a view of a run or wave whose process is gone: every leg still `running` is `crashed`,
    its error saying why (a reader's view; nothing is written). A queued one too: its turn died with it."""
    for leg in legs:
        if leg.status in IN_FLIGHT_LEG_STATUSES:
            leg.status = "crashed"
            leg.completed_at = None
            leg.error = ErrorRecord(code="CRASHED", message=why)
