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
    judges: WhenSet[Count] = None  # stage2: the judges whose judgements were usable
    model: WhenSet[str] = None  # chair: the chair that delivered
    reason: WhenSet[str] = None  # a skipped stage: why (max-cost)


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
    status: LegStatus
    started_at: str
    reserved: WhenSet[Annotated[Number, Field(ge=0)]] = None  # USD claimed against --max-cost at launch
    max_tokens: WhenSet[Annotated[int, Field(ge=1)]] = None  # the output cap it was sent with
    completed_at: str | None = None
    duration_ms: int | None = None
    usage: LegUsage | None = None
    reused: WhenSet[Literal[True]] = None
    resolved_model: WhenSet[str] = None
    error: WhenSet[ErrorRecord] = None
    truncated: WhenSet[Literal[True]] = None
    schema_mismatch: WhenSet[str] = None  # its structured reply did not match the schema sent: the reason
    tool_calls: WhenSet[list[ToolCallDoc]] = None  # the tool calls a verifier leg made (`--verify`; set once, whole)

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
    vars: WhenSet[dict[str, str]] = None
    intent: WhenSet[Literal["question"]] = None  # a question template's record (a review's carries none)


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
    from_status: ResumedFromStatus
    stage: str | None
    legs_reused: Count
    max_cost: WhenSet[Annotated[Number, Field(gt=0)]] = None  # the --max-cost this resume raised the ceiling to


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
    tag: WhenSet[Annotated[str, Field(pattern=TAG_PATTERN)]] = None
    status: RunStatus
    exit_code: WhenSet[ExitCode] = None
    error: ErrorRecord | None = None
    stages: list[Stage]
    bench: Annotated[list[str], Field(min_length=2)]
    chair: str
    intent: WhenSet[AnsweringIntent] = None  # a review's manifest carries no intent
    critic: str | None = None
    lenses: list[str] | None = None
    label_map: dict[str, str] | None = None
    seats: list[SeatRecord] | None = None
    options: WhenSet[OptionsRecord] = None
    usage: RunUsage | None = None
    legs: list[LegEntry] = Field(default_factory=list)
    legs_planned: WhenSet[Count] = None
    chair_attempts: list[ChairAttempt] = Field(default_factory=list)
    chair_conformance: WhenSet[Conformance] = None
    budget_refusals: list[BudgetRefusal] = Field(default_factory=list)
    dropped_members: Annotated[list[DroppedMember], Field(min_length=1)] = Field(default_factory=list)
    degrades: list[Degrade] = Field(default_factory=list)
    debate: WhenSet[DebateSummary] = None
    template: WhenSet[TemplateRecord] = None
    artifact: WhenSet[ArtifactRecord] = None
    pack: WhenSet[PackRecord] = None
    judged: WhenSet[bool] = None
    overall_verdict: ChairLine | None = None  # a question council's: its ANSWER standing
    answer: WhenSet[str] = None  # a question council: the sentence on the chair's ANSWER line
    tier_counts: WhenSet[dict[str, int]] = None
    notices: list[str] = Field(default_factory=list)
    briefing_sha256: WhenSet[Sha256Hex] = None
    options_sha256: WhenSet[Sha256Hex] = None
    claude_review_sha256: WhenSet[Sha256Hex] = None
    resumes: list[Resume] = Field(default_factory=list)
    interrupted_legs: list[InterruptedLeg] = Field(default_factory=list)
    pid: WhenSet[int] = None
    created_at: WhenSet[str] = None
    completed_at: WhenSet[str] = None
    abort_requested_at: WhenSet[str] = None

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
