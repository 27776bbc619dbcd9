"""The workspace's view models, declared: the JSON the page (`static/app.js`), the inline MCP
view and `amicus watch` read.

    RunSnapshot    one run (`/api/runs/<id>`, the view's snapshot tool): `state` ok, unreadable
                   or schema-mismatch, each its own declaration
    ListSnapshot   the run list (`/api/runs`)

TypedDicts, not models: the snapshot is rebuilt on every poll from documents already checked
(run.json by its model, tally.json / verdict.json by their declarations), so it is declared for
the type checker, never validated again. The builders write every key in the order the page has
always received it; an optional key is declared NotRequired and present only where the page
expects it (a question council's ranking and dissent, a checked finding's evidence).
"""

from __future__ import annotations

from typing import Literal

from typing_extensions import NotRequired, TypedDict

from ..vocabulary import ChairLine, Conformance, Intent, RunStatus

# A JSON value passed through as read (a schema version another writer put there, a decision's
# duplicate id as the verdict holds it): `object`, so a reader narrows it before use.
JsonValue = object
# A document the run wrote and the page shows as it is (run.json's `error` and `debate`
# blocks, their models' to_doc()): its shape is the run manifest's, declared in documents/run.py.
RunBlock = dict[str, JsonValue]


# --- the panels of run.json (panels.py) ------------------------------------------------------------


class StageEntry(TypedDict):
    name: str
    status: str  # a stage status, or `pending` until it starts
    startedAt: str | None
    completedAt: str | None


class TokenFigure(TypedDict):
    input: int | None
    output: int | None
    text: str


class CostFigure(TypedDict):
    amount: float | None  # the known part
    unknownLegs: int
    text: str


class RunTotal(TypedDict):
    amount: float | None
    unknownLegs: int
    final: bool  # the engine's own total (a finished run) or the sum of the finished legs so far
    text: str


class LegErrorRow(TypedDict):
    code: str
    message: str


class SeatRow(TypedDict):
    key: str
    name: str
    role: str
    label: str
    status: str
    stage: str | None
    calls: int
    tokens: TokenFigure
    cost: CostFigure
    lastActivity: str | None
    retries: int
    stalled: bool
    resolvedModels: list[str]
    error: LegErrorRow | None
    # a bench seat's row (the chair's row has none of these)
    alias: NotRequired[str]
    dead: NotRequired[bool]
    deadReason: NotRequired[str | None]
    judgeDropped: NotRequired[bool]


class CostRow(TypedDict):
    key: str
    name: str
    label: str
    role: str
    calls: int
    cost: CostFigure
    dead: bool


class CostPanel(TypedDict):
    rows: list[CostRow]
    total: RunTotal
    maxCost: float | None
    maxCostText: str | None
    fraction: float | None
    refusals: int


class Prose(TypedDict):
    """A prose file: its name, and with texts its text (capped) or why it could not be read."""

    file: str
    text: NotRequired[str | None]
    error: NotRequired[str | None]
    truncated: NotRequired[bool]


class SeatProse(TypedDict):
    seat: str
    label: str | None
    file: str
    text: NotRequired[str | None]
    error: NotRequired[str | None]
    truncated: NotRequired[bool]


class ChairAttemptRow(TypedDict):
    model: str | None
    outcome: str | None
    reason: str | None


class ChairPanel(TypedDict):
    verdict: ChairLine | None
    line: NotRequired[Literal["ANSWER"]]  # a question council: the chair's ANSWER line
    answer: NotRequired[str | None]
    model: str | None
    conformance: Conformance | None
    attempts: list[ChairAttemptRow]
    output: Prose | None
    reason: str | None


# --- the matrix and the verdict's panels (matrix.py) -----------------------------------------------


class MatrixColumn(TypedDict):
    key: str
    seat: str | None
    unattributed: bool


class Revote(TypedDict):
    verdict: JsonValue  # as debate.json holds them (read as JSON: matrix.revote_index)
    reason: JsonValue
    seat: str
    previousVerdict: Literal["dispute"] | None


class VoteCell(TypedDict):
    kind: str | None
    raiser: bool
    revote: Revote | None


# `from` is a keyword: the functional form.
OverrideCell = TypedDict("OverrideCell", {"from": str | None, "to": str | None, "reason": str | None})


class DebateCell(TypedDict):
    action: str
    previousTier: str | None


class MatrixRow(TypedDict):
    id: str
    severity: str | None
    raiser: str | None
    tier: str
    basis: str
    thin: bool
    override: OverrideCell | None
    decision: str | None
    applied: bool
    duplicateOf: str | None
    debate: DebateCell | None
    claim: str | None
    location: str | None
    votes: list[VoteCell]
    # the evidence check (issue 30), only on a checked finding, so older runs' rows are unchanged
    evidenceCheck: NotRequired[str | None]
    evidenceText: NotRequired[str | None]
    evidence: NotRequired[str | None]
    verification: NotRequired[str | None]


class MatrixPanel(TypedDict):
    columns: list[MatrixColumn]
    rows: list[MatrixRow]
    total: int
    shown: int
    judges: int
    peersReduced: bool
    hasUnattributed: bool
    provisional: bool  # the tiers before a debate round, which may move them


class StreetCredEntry(TypedDict):
    name: str
    peersOnly: str
    withSelf: str


class DecisionEntry(TypedDict):
    id: str
    decision: str
    applied: bool
    duplicateOf: str | None
    override: OverrideCell | None


class JudgePlace(TypedDict):
    judge: str
    place: str


class RankingEntry(TypedDict):
    rank: int
    label: str | None
    name: str
    peersOnly: str
    withSelf: str
    perJudge: list[JudgePlace]
    claims: str
    answer: str | None
    confidence: str | None
    assumptions: list[str]


class DissentPanel(TypedDict):
    chair: list[str]
    disputed: list[str]


# --- one run (snapshot.py) ---------------------------------------------------------------------------


class RunHeader(TypedDict):
    status: RunStatus
    exitCode: int | None
    error: RunBlock | None
    createdAt: str | None
    completedAt: str | None
    abortRequestedAt: str | None
    crashDetected: Literal[True] | None
    chair: str
    critic: str | None
    overallVerdict: ChairLine | None
    judged: bool | None
    tierCounts: dict[str, int] | None
    intent: NotRequired[Intent]  # a question council (`question`): the page leads with the chair's answer
    answer: NotRequired[str | None]
    bench: list[str]
    currentStage: str | None
    legsDone: int
    legsTotal: int
    resumedAt: str | None  # this attempt's start


class Stall(TypedDict):
    stalled: bool
    idleSeconds: int | None
    threshold: float
    since: str | None


class DegradeRow(TypedDict):
    channel: str
    what: str
    why: str


class Banners(TypedDict):
    degrades: list[DegradeRow]
    notices: list[str]
    integrity: list[str]


class FoldState(TypedDict):
    folded: bool
    available: bool


class RunProse(TypedDict):
    reviews: list[SeatProse]  # a question council's answers
    judges: list[SeatProse]
    revotes: list[SeatProse]
    bundle: Prose | None


class RunDetail(TypedDict):
    """What a readable run shows, after the snapshot's own keys."""

    live: bool
    header: RunHeader
    ranking: NotRequired[list[RankingEntry]]  # a question council's
    dissent: NotRequired[DissentPanel | None]
    stages: list[StageEntry]
    seats: list[SeatRow]
    reviews: list[SeatProse]
    judges: list[SeatProse]
    revotes: list[SeatProse]
    bundle: Prose | None
    matrix: MatrixPanel | None
    matrixNote: str | None
    chair: ChairPanel
    streetCred: list[StreetCredEntry]
    decisions: list[DecisionEntry]
    cost: CostPanel
    stall: Stall
    banners: Banners
    masks: list[list[str]]  # [[model name, blind label], …], longest name first
    fold: FoldState
    debate: RunBlock | None
    resume: str | None


class SnapshotBase(TypedDict):
    type: Literal["workspace-run"]
    snapshotVersion: int
    runId: str
    runDir: str
    generatedAt: str


class UnreadableSnapshot(SnapshotBase):
    state: Literal["unreadable"]
    live: Literal[False]
    error: str


class MismatchSnapshot(SnapshotBase):
    state: Literal["schema-mismatch"]
    live: Literal[False]
    schemaVersion: JsonValue
    expectedSchemaVersion: int


class ReadableSnapshot(SnapshotBase, RunDetail):
    state: Literal["ok"]


RunSnapshot = UnreadableSnapshot | MismatchSnapshot | ReadableSnapshot


# --- the run list ------------------------------------------------------------------------------------


class ListRow(TypedDict):
    runId: str
    live: bool
    createdAt: JsonValue
    status: RunStatus | None
    overallVerdict: ChairLine | None
    cost: str | None
    state: Literal["ok", "unreadable", "schema-mismatch"]
    error: NotRequired[str]
    schemaVersion: NotRequired[JsonValue]
    tierCounts: NotRequired[dict[str, int] | None]


class ListSnapshot(TypedDict):
    type: Literal["workspace-list"]
    snapshotVersion: int
    project: str
    generatedAt: str
    runs: list[ListRow]
    live: bool
