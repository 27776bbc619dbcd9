"""The council's own outputs, declared: the tally record, the verdict, a ledger row, the stats,
the gate and the debate record.

    TallyRecord    tally.json (`council tally --json`): the seed's council-tally schema is the
                   authority (tests/test_council_documents.py holds this declaration to it)
    Verdict        verdict.json (schemas/council-verdict.schema.json)
    LedgerRow      one line of the reliability ledger (council-ledger-row)
    Stats          `council stats --json` (council-stats)
    GateRecord     `council gate --json` (council-gate)
    DebateRecord   debate.json (council-debate)

TypedDicts, not models, as the tally input is (documents/tally.py): council/ builds these as plain
dicts in the key order the family has always written (a 2·10⁵-vote tally builds no instances),
a reader checks a file against its declaration (`check_document`) and keeps the dict it read, so
key order and unknown keys survive. Every declaration is open (a newer writer's key is kept)
unless its schema closes it (`additionalProperties: false`).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeVar

from pydantic import ConfigDict, Field, TypeAdapter, ValidationError, with_config
from typing_extensions import NotRequired, TypedDict

from ..vocabulary import (AnswerConfidence, AnsweringIntent, ChairLine, Confidence, Conformance, DebateAction,
                          DebatedTier, EvidenceCheck, GateLevel, Tier, Verification, VoteVerdict)
from .tally import TierOverride

__all__ = ["Basis", "DebateFinding", "DebateMark", "DebateRecord", "DebateRevote", "GateBlocker", "GateRecord",
           "LedgerRow", "Measured", "ModelStats", "ReReview", "RecordMeta", "RunStatRow", "ScoredFinding", "Stats",
           "StreetCredRow", "TallyRecord", "TierCounts", "Verdict", "VerdictAnswer", "VerdictDegrade",
           "VerdictFinding", "VerdictRanking", "VerdictStreetCred", "VoteEntry", "check_document"]

_OPEN = ConfigDict(extra="allow", strict=True)
_CLOSED = ConfigDict(extra="forbid", strict=True)
Number = int | float
Count = Annotated[int, Field(ge=0)]
ReReview = Literal["new", "still-open"]  # a re-review's word for a finding it matched (rereview.json)
# A JSON value the council passes through unread (a seat table entry, a usage block): the
# schema leaves its shape open; `object` makes a reader narrow it before use.
JsonValue = object


# --- tally.json -------------------------------------------------------------------------------


@with_config(_OPEN)
class RecordMeta(TypedDict):
    """The record's `meta`: the tally input's, echoed."""

    runId: str
    runType: NotRequired[str]
    date: NotRequired[str]
    models: list[str]
    chair: NotRequired[str | None]
    claudeInCouncil: NotRequired[bool]
    seats: NotRequired[list[JsonValue]]  # echoed verbatim; consumers tolerate any entry shape


@with_config(_OPEN)
class Basis(TypedDict):
    a: Number  # peers agreeing
    d: Number  # peers disputing
    n: Number  # peers neutral


@with_config(_OPEN)
class VoteEntry(TypedDict):
    """One judge's vote on a finding, as the record keeps it."""

    judge: NotRequired[str | None]
    verdict: str
    seat: NotRequired[str]


@with_config(_CLOSED)
class DebateMark(TypedDict):
    """What a debate did to a finding."""

    action: DebateAction
    previousTier: NotRequired[str | None]


@with_config(_OPEN)
class ScoredFinding(TypedDict):
    id: str
    raiser: NotRequired[str | None]
    severity: NotRequired[str | None]
    tier: Tier
    basis: Basis
    confidence: Confidence
    tierOverride: NotRequired[TierOverride | None]
    adjudications: NotRequired[list[VoteEntry]]
    raiserSeat: NotRequired[str | None]
    location: NotRequired[str]
    claim: NotRequired[str]
    evidence: NotRequired[str]
    evidenceCheck: NotRequired[EvidenceCheck]
    evidenceLocation: NotRequired[str]
    verification: NotRequired[Verification]
    verificationLines: NotRequired[list[str]]
    verificationReason: NotRequired[str]
    sameModelCorroboration: NotRequired[Literal[True]]
    unattributedPeerDrops: NotRequired[Annotated[int, Field(ge=1)]]
    debate: NotRequired[DebateMark]


@with_config(_OPEN)
class StreetCredRow(TypedDict):
    model: str
    withSelf: NotRequired[Number | None]
    peersOnly: NotRequired[Number | None]
    perJudgeRank: NotRequired[dict[str, float]]
    seat: NotRequired[str]


@with_config(_OPEN)
class RunStatRow(TypedDict, total=False):
    """A runStats row (normalized by council/tally.py: its keys in this order, defaults filled)."""

    model: str | None
    role: str
    wasChair: bool
    conformance: str
    findingsUnverified: JsonValue
    repairRefused: JsonValue
    waveId: str
    resolvedModel: str
    seat: str
    status: str
    durationMs: Number | None
    ttftMs: Count
    usage: dict[str, JsonValue] | None  # the leg's usage block (documents/usage.py), as JSON


@with_config(_OPEN)
class TierCounts(TypedDict):
    Confirmed: Number
    Contested: Number
    Singleton: Number
    Disputed: Number


@with_config(_OPEN)
class TallyRecord(TypedDict):
    """tally.json: the deterministic tally of one run."""

    schemaVersion: Literal[2]
    type: Literal["council-tally"]
    meta: RecordMeta
    judged: bool
    streetCred: list[StreetCredRow]
    findings: list[ScoredFinding]
    runStats: list[RunStatRow]
    tierCounts: TierCounts


# --- verdict.json -----------------------------------------------------------------------------


@with_config(_CLOSED)
class VerdictFinding(TypedDict):
    id: str
    raiser: str | None
    severity: str | None
    tier: Tier
    basis: Basis
    confidence: Confidence
    tierOverride: TierOverride | None
    duplicateOf: str | None
    adjudications: list[VoteEntry]
    decision: str | None
    applied: bool
    raiserSeat: NotRequired[str]
    sameModelCorroboration: NotRequired[Literal[True]]
    evidenceCheck: NotRequired[EvidenceCheck]
    verification: NotRequired[Verification]
    evidenceLocation: NotRequired[str]
    claim: NotRequired[str]
    debate: NotRequired[DebateMark]


@with_config(_CLOSED)
class VerdictStreetCred(TypedDict):
    model: str
    withSelf: Number | None
    peersOnly: Number | None
    seat: NotRequired[str]


@with_config(_CLOSED)
class VerdictRanking(TypedDict):
    """A question council's aggregate ranking of its answers."""

    rank: int
    model: str
    seat: NotRequired[str]
    peersOnly: Number | None
    withSelf: Number | None
    perJudgeRank: dict[str, Number]
    claims: int
    confirmedClaims: int
    disputedClaims: int


@with_config(_CLOSED)
class VerdictAnswer(TypedDict):
    """A question council's answer, as the judges read it, unblinded."""

    label: str
    model: str
    seat: NotRequired[str]
    structured: bool
    answer: NotRequired[str]
    confidence: NotRequired[AnswerConfidence]
    assumptions: NotRequired[list[str]]
    claims: list[str]


@with_config(_OPEN)
class VerdictDegrade(TypedDict):
    """What the run lost (run.json `degrades`, carried into the verdict)."""

    kind: NotRequired[str]
    channel: NotRequired[str]
    what: str
    why: NotRequired[str]


@with_config(_OPEN)
class Verdict(TypedDict):
    """verdict.json: the tally with the chair's verdict and the user's decisions merged in."""

    schemaVersion: Literal[2]
    type: Literal["council-verdict"]
    overallVerdict: ChairLine | None
    runId: str
    runType: NotRequired[str | None]
    date: NotRequired[str | None]
    chair: NotRequired[str | None]
    council: list[str]
    seats: NotRequired[list[JsonValue]]
    claudeInCouncil: NotRequired[bool | None]
    intent: NotRequired[AnsweringIntent]
    findings: list[VerdictFinding]
    streetCred: list[VerdictStreetCred]
    runStats: list[RunStatRow]
    tierCounts: TierCounts
    judged: NotRequired[Literal[False]]
    ranking: NotRequired[list[VerdictRanking]]
    question: NotRequired[str]
    answer: NotRequired[str]
    synthesis: NotRequired[str]
    dissent: NotRequired[list[str]]
    hardQuestions: NotRequired[list[str]]
    answers: NotRequired[list[VerdictAnswer]]
    debate: NotRequired[dict[str, JsonValue]]  # run.json `debate` (documents/run.py DebateSummary), as JSON
    degrades: NotRequired[list[VerdictDegrade]]
    notices: NotRequired[list[str]]


# --- the reliability ledger and its stats -----------------------------------------------------


@with_config(_CLOSED)
class BySeverity(TypedDict):
    blocker: int
    major: int
    minor: int
    nit: int


@with_config(_OPEN)
class LedgerRow(TypedDict):
    """One model's row for one run in the reliability ledger (one JSON line)."""

    schemaVersion: Literal[2]
    runId: str | Number | None
    date: str | None
    runType: str | None
    intent: NotRequired[Literal["question"]]
    model: str
    role: str
    wasChair: bool
    judged: bool
    streetCredWithSelf: Number | None
    streetCredPeersOnly: Number | None
    findingsRaised: int
    bySeverity: BySeverity
    confirmRate: Number | None
    factErrorRate: Number | None
    conformance: Conformance
    tag: NotRequired[str]
    resolvedModel: NotRequired[str]


@with_config(_CLOSED)
class ConformanceCounts(TypedDict):
    clean: int
    repaired: int
    unstructured: int


@with_config(_CLOSED)
class Measured(TypedDict):
    """What the eval suites measured of a model (eval-ledger rows), beside the ledger's own."""

    evals: int
    found: int
    planted: int
    recall: Number | None
    undecided: NotRequired[int]
    floorEvals: NotRequired[int]
    cleanCases: int
    cleanCasesWithAlarm: int
    falseAlarmRate: Number | None
    suites: list[str]


@with_config(_OPEN)
class ModelStats(TypedDict):
    model: str
    runs: int
    lowN: bool
    avgStreetCredPeersOnly: Number | None
    lifetimeConfirmRate: Number | None
    lifetimeFactErrorRate: Number | None
    conformance: ConformanceCounts
    aliases: list[str]
    legacy: NotRequired[Literal[True]]
    measured: NotRequired[Measured]


@with_config(_OPEN)
class Stats(TypedDict):
    schemaVersion: Literal[2]
    type: Literal["council-stats"]
    tag: NotRequired[str]
    models: list[ModelStats]


# --- the gate ---------------------------------------------------------------------------------


@with_config(_OPEN)
class GateBlocker(TypedDict):
    id: str | None
    tier: Tier | None
    raiser: NotRequired[str]
    reReview: NotRequired[ReReview]
    previouslyDismissed: NotRequired[Literal[True]]
    evidenceCheck: NotRequired[EvidenceCheck]
    verification: NotRequired[Verification]


@with_config(_OPEN)
class GateRecord(TypedDict):
    schemaVersion: Literal[2]
    type: Literal["council-gate"]
    failOn: GateLevel
    passed: bool
    exitCode: Literal[0, 4]
    reason: str
    runId: str | None
    overallVerdict: ChairLine | None
    allowNoVerdict: bool
    judged: bool
    allowUnjudged: bool
    tierCounts: dict[str, Count]
    blockers: list[GateBlocker]
    requireEvidence: NotRequired[Literal[True]]
    heldBack: NotRequired[list[str | None]]
    source: NotRequired[str]
    gateOn: NotRequired[Literal["new"]]


# --- debate.json ------------------------------------------------------------------------------


@with_config(_OPEN)
class DebateRevote(TypedDict):
    judge: str
    verdict: VoteVerdict
    reason: NotRequired[str]


@with_config(_OPEN)
class DebateFinding(TypedDict):
    id: str
    raiser: str | None
    previousTier: DebatedTier
    tier: Tier | None
    action: DebateAction
    argument: NotRequired[str]
    claim: NotRequired[str]
    disputers: list[str]
    revotes: list[DebateRevote]


@with_config(_OPEN)
class DebateRecord(TypedDict):
    schemaVersion: Literal[2]
    type: Literal["council-debate"]
    runId: str
    summary: dict[str, JsonValue]  # run.json `debate` (documents/run.py DebateSummary), as JSON
    findings: list[DebateFinding]


# --- checking a document read from a file -----------------------------------------------------

D = TypeVar("D")
_ADAPTERS: dict[type, TypeAdapter[Any]] = {}


def check_document(declaration: type[D], doc: object, *, what: str, where: object = None) -> D:
    """`doc` as the declared document, unchanged (its key order and unknown keys kept); a
    `BadSession` naming the first problems when it is not one."""
    from ..errors import BadSession
    from .base import problems

    adapter = _ADAPTERS.get(declaration)
    if adapter is None:
        adapter = _ADAPTERS[declaration] = TypeAdapter(declaration)
    try:
        adapter.validate_python(doc)
    except ValidationError as exc:
        place = f"'{where}'" if where is not None else what
        raise BadSession(f"{place} is not a valid {what}: {problems(exc)}",
                         hint="the file may have been edited by hand, or written by another version") from None
    return doc  # type: ignore[return-value]  # validated above: the dict read is the document
