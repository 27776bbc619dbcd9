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
from ..schemas import JsonObject
from .tally import TierOverride

__all__ = ["Basis", "DebateFinding", "DebateMark", "DebateRecord", "DebateRevote", "GateBlocker", "GateRecord",
           "LedgerRow", "Measured", "ModelStats", "ReReview", "RecordMeta", "RunFacts", "RunStatRow", "ScoredFinding", "Stats",
           "StreetCredRow", "TallyRecord", "TierCounts", "Verdict", "VerdictAnswer", "VerdictDegrade",
           "VerdictFinding", "VerdictRanking", "VerdictStreetCred", "VoteEntry", "check_document"]

_OPEN = ConfigDict(extra="allow", strict=True)
_CLOSED = ConfigDict(extra="forbid", strict=True)
Number = int | float
Count = Annotated[int, Field(ge=0)]
Rate = Annotated[Number, Field(ge=0, le=1)]  # a share of a whole
Name = Annotated[str, Field(min_length=1)]
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
    findingsUnverified: bool
    repairRefused: bool
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
    evidenceCheck: NotRequired[Annotated[EvidenceCheck, Field(description=(
        "Emitted when the run checked the finding's evidence quote against the material (council/evidence.py): "
        "verified, moved (found elsewhere), not-found, absent (no quote)."))]]
    verification: NotRequired[Annotated[Verification, Field(description=(
        "--verify: what a model that did not raise the finding answered after checking it against the source. A "
        "refuted finding keeps its tier and does not block the gate on its own."))]]
    evidenceLocation: NotRequired[Annotated[str, Field(description=(
        "Where the evidence check found the quote (path:line), when it did."))]]
    claim: NotRequired[Annotated[str, Field(description=(
        "A question council's verdict only: the key claim itself (model text), so the verdict reads without its tally "
        "record. A review's verdict never carries it."))]]
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

    rank: Annotated[int, Field(ge=1)]
    model: str
    seat: NotRequired[str]
    peersOnly: Number | None
    withSelf: Number | None
    perJudgeRank: dict[str, Number]
    claims: Count
    confirmedClaims: Count
    disputedClaims: Count


@with_config(_CLOSED)
class VerdictAnswer(TypedDict):
    """A question council's answer, as the judges read it, unblinded."""

    label: str
    model: str
    seat: NotRequired[str]
    structured: Annotated[bool, Field(description="false: its answer block never read; the judges ranked its prose")]
    answer: NotRequired[str]
    confidence: NotRequired[AnswerConfidence]
    assumptions: NotRequired[list[str]]
    claims: Annotated[list[str], Field(description="its key claims' run-global ids")]


@with_config(_OPEN)
class VerdictDegrade(TypedDict):
    """What the run lost (run.json `degrades`, carried into the verdict)."""

    kind: NotRequired[str]
    channel: NotRequired[str]
    what: str
    why: NotRequired[str]


class RunFacts(TypedDict, total=False):
    """What verdict.json carries beyond the tally (council/verdict.py RUN_FACT_KEYS, which
    keeps the well-formed, non-empty ones); the engine's headless run sets them key by key."""

    question: str | None
    answer: str | None
    synthesis: str | None
    dissent: list[str]
    hardQuestions: list[str]
    answers: list[VerdictAnswer]
    debate: JsonObject | None  # run.json `debate` (DebateSummary), as JSON
    degrades: list[JsonObject]  # run.json `degrades` (Degrade), as JSON
    notices: list[str]


@with_config(_OPEN)
class Verdict(TypedDict):
    """verdict.json: the tally with the chair's verdict and the user's decisions merged in."""

    schemaVersion: Literal[2]
    type: Literal["council-verdict"]
    overallVerdict: Annotated[ChairLine | None, Field(description=(
        "The chair's VERDICT line; for a question council (intent question) the standing on its ANSWER line."))]
    runId: str
    runType: NotRequired[str | None]
    date: NotRequired[str | None]
    chair: NotRequired[str | None]
    council: list[str]
    seats: NotRequired[Annotated[list[JsonValue], Field(description=(
        "meta.seats promoted; present only when the tally record carried one. An array, as the tally record's "
        "meta.seats must be (its items are as open as there)."))]]
    claudeInCouncil: NotRequired[bool | None]
    intent: NotRequired[Annotated[AnsweringIntent, Field(description=(
        "meta.intent of a question or task council's tally record (overallVerdict is then the ANSWER line's "
        "standing). Emitted only for these: a review's verdict carries no intent."))]]
    findings: list[VerdictFinding]
    streetCred: list[VerdictStreetCred]
    runStats: list[RunStatRow]
    tierCounts: TierCounts
    judged: NotRequired[Annotated[Literal[False], Field(description=(
        "Emitted only when the tally record says false: fewer than two judges ranked, so the tiers and street-cred "
        "rest on thin cross-review."))]]
    ranking: NotRequired[Annotated[list[VerdictRanking], Field(description=(
        "A question council: the answers' aggregate ranking (council/ranking.py), computed from the tally record: by "
        "peers-only mean place, then fewer Disputed claims, then more Confirmed ones; answers equal on all three "
        "share a rank. Emitted only for a question."))]]
    question: NotRequired[Annotated[str, Field(min_length=1, description=(
        "A question council: the question it was asked (the run's briefing, user text; bounded). The report shows "
        "it first and is titled by it. Emitted when set."))]]
    answer: NotRequired[Annotated[str, Field(description=(
        "A question council: the sentence after the standing on the chair's ANSWER line (model text). Emitted when "
        "set."))]]
    synthesis: NotRequired[Annotated[str, Field(description=(
        "The chair's synthesis (model text), when the run had a chair verdict. Emitted when set."))]]
    dissent: NotRequired[Annotated[list[str], Field(min_length=1, description=(
        "A question council: the chair's dissent, item by item (model text). Emitted when non-empty."))]]
    hardQuestions: NotRequired[Annotated[list[str], Field(min_length=1, description=(
        "The chair's hard questions (model text). Emitted when non-empty."))]]
    answers: NotRequired[Annotated[list[VerdictAnswer], Field(min_length=1, description=(
        "A question council run: each answer as the judges read it, under its label, unblinded (model text). "
        "Emitted when set."))]]
    # run.json `debate` (documents/run.py DebateSummary), as JSON
    debate: NotRequired[Annotated[dict[str, JsonValue], Field(description=(
        "A --debate run's round summary (run.json `debate`): outcome, defended/amended/withdrawn/noResponse counts, "
        "verdictChanges."))]]
    degrades: NotRequired[Annotated[list[VerdictDegrade], Field(min_length=1, description=(
        "What the run lost (run.json `degrades`), so `council report` renders 'What was lost' after Stage 4 too. "
        "Emitted only when non-empty."))]]
    notices: NotRequired[Annotated[list[str], Field(min_length=1, description=(
        "The run's informational notices (not losses), rendered under **Notes:**. Emitted only when non-empty."))]]


# --- the reliability ledger and its stats -----------------------------------------------------


@with_config(_CLOSED)
class BySeverity(TypedDict):
    blocker: Count
    major: Count
    minor: Count
    nit: Count


@with_config(_OPEN)
class LedgerRow(TypedDict):
    """One model's row for one run in the reliability ledger (one JSON line)."""

    schemaVersion: Literal[2]
    runId: Annotated[str | Number | None, Field(description=(
        "meta.runId copied verbatim (null when absent or not a string/number). Only a NON-EMPTY STRING is an identity "
        "for `council stats` runs counting; an empty or numeric id counts each row on its own."))]
    date: Annotated[str | None, Field(description="meta.date when it is a string, else null.")]
    runType: Annotated[str | None, Field(description="meta.runType when it is a string, else null.")]
    intent: NotRequired[Annotated[Literal["question"], Field(description=(
        "A question council's row (its findings are the answers' key claims, its street-cred the answers' places). "
        "Emitted only for a question."))]]
    model: Annotated[Name, Field(description="The council alias (a meta.models entry).")]
    role: Annotated[Name, Field(description=(
        "Role of the last joinable runStats row folded into this row that names one (seat, critic, chair, claude, "
        "council, redteam, lens:<slug>); 'council' when none does."))]
    wasChair: bool
    judged: Annotated[bool, Field(description="The tally's `judged` (>= 2 rankings).")]
    streetCredWithSelf: Annotated[Number | None, Field(description=(
        "Mean of the alias's streetCred[].withSelf over its seats (one seat except on a twin bench); null when not "
        "judged, when unranked, and on every row but the first of the alias's block."))]
    streetCredPeersOnly: Annotated[Number | None, Field(description=(
        "As streetCredWithSelf, for streetCred[].peersOnly. The number `council stats` averages."))]
    findingsRaised: Annotated[Count, Field(description=(
        "Findings whose raiser is this alias; 0 on every row but the first of the block."))]
    bySeverity: BySeverity
    confirmRate: Annotated[Rate | None, Field(description=(
        "Confirmed-tier share of the alias's raised findings; null when not judged, nothing raised, or not the "
        "block's first row."))]
    factErrorRate: Annotated[Rate | None, Field(description=(
        "Disputed-tier share of the alias's raised findings; null under the same conditions as confirmRate."))]
    conformance: Annotated[Conformance, Field(description=(
        "Worst-wins fold (clean < repaired < unstructured) over the folded runStats rows; clean when none says "
        "otherwise."))]
    tag: NotRequired[Annotated[str, Field(pattern=r"^[A-Za-z0-9._-]{1,64}$", description=(
        "Emit-when-set: the run's tag (council run --tag); `council stats --tag` counts only the rows that carry it."))]]
    resolvedModel: NotRequired[Annotated[Name, Field(description=(
        "Emit-when-set: the executable id that served this row's legs. Never derived from the alias; absent when no "
        "joinable row carried one."))]]


@with_config(_CLOSED)
class ConformanceCounts(TypedDict):
    clean: Count
    repaired: Count
    unstructured: Count


@with_config(_CLOSED)
class Measured(TypedDict):
    """What the eval suites measured of a model (eval-ledger rows), beside the ledger's own."""

    evals: Annotated[int, Field(ge=1)]
    found: Annotated[Count, Field(description="planted flaws the model found, over its evals")]
    planted: Count
    recall: Annotated[Rate | None, Field(description="found / planted; only a floor when floorEvals > 0")]
    undecided: NotRequired[Annotated[Count, Field(description=(
        "findings the matcher left undecided over these evals (rows that recorded it): they might have found more"))]]
    floorEvals: NotRequired[Annotated[Count, Field(description=(
        "evals whose recall for the model is only a floor (the matcher left findings undecided)"))]]
    cleanCases: Count
    cleanCasesWithAlarm: Annotated[Count, Field(description="clean cases on which it raised a blocker or major finding")]
    falseAlarmRate: Rate | None
    suites: list[str]


@with_config(_OPEN)
class ModelStats(TypedDict):
    model: Annotated[Name, Field(description="Group key: the resolved executable id, or the alias for legacy rows.")]
    runs: Annotated[Count, Field(description=(
        "Distinct non-empty string runIds, plus one per row without one (empty or numeric runIds count each row). 0 "
        "only for a model an eval measured that no council run recorded."))]
    lowN: Annotated[bool, Field(description="runs < 3.")]
    avgStreetCredPeersOnly: Annotated[Number | None, Field(description=(
        "Mean of the rows' numeric streetCredPeersOnly; null if never judged."))]
    lifetimeConfirmRate: Rate | None
    lifetimeFactErrorRate: Rate | None
    conformance: ConformanceCounts
    aliases: Annotated[list[Name], Field(json_schema_extra={"uniqueItems": True}, description=(
        "Every alias seen for the group, most recently seen first; aliases[0] is the launch-preferred name."))]
    legacy: NotRequired[Annotated[Literal[True], Field(description=(
        "Present (true) only when no row of the group carries resolvedModel; omitted otherwise."))]]
    measured: NotRequired[Annotated[Measured, Field(description=(
        "Present only when an eval measured the model (the eval ledger, <configDir>/eval-ledger.jsonl): pooled over "
        "its evals. Absent: the figures above rest on peer agreement only."))]]


@with_config(_OPEN)
class Stats(TypedDict):
    schemaVersion: Literal[2]
    type: Literal["council-stats"]
    tag: NotRequired[Annotated[str, Field(description=(
        "Emit-when-set: the stats count only the runs with this tag (council stats --tag)."))]]
    models: list[ModelStats]


# --- the gate ---------------------------------------------------------------------------------


@with_config(_OPEN)
class GateBlocker(TypedDict):
    id: str | None
    tier: Tier | None
    raiser: NotRequired[str]
    reReview: NotRequired[Annotated[ReReview, Field(description=(
        "--gate-on new: the blocker's re-review status; only new ones are counted"))]]
    previouslyDismissed: NotRequired[Annotated[Literal[True], Field(description=(
        "the blocker matches a finding the user denied in an earlier run (dismissed.json): not counted unless "
        "Confirmed again with evidenceCheck verified"))]]
    evidenceCheck: NotRequired[Annotated[EvidenceCheck, Field(description=(
        "the run's check of the finding's quoted evidence, when it made one"))]]
    verification: NotRequired[Annotated[Verification, Field(description=(
        "what the verifier (--verify) answered, when it checked this finding"))]]


# exitCode follows passed: 0 when it passed, 4 when not (council/gate.py), as the schema states it.
@with_config(ConfigDict(extra="allow", strict=True, json_schema_extra={
    "if": {"properties": {"passed": {"const": True}}}, "then": {"properties": {"exitCode": {"const": 0}}},
    "else": {"properties": {"exitCode": {"const": 4}}}}))
class GateRecord(TypedDict):
    schemaVersion: Literal[2]
    type: Literal["council-gate"]
    failOn: GateLevel
    passed: bool
    exitCode: Literal[0, 4]
    reason: Annotated[str, Field(description="one line: why the gate passed or failed")]
    runId: str | None
    overallVerdict: Annotated[ChairLine | None, Field(description=(
        "the chair's verdict; a question council's ANSWER standing (only --fail-on never gates one)"))]
    allowNoVerdict: bool
    judged: Annotated[bool, Field(description=(
        "false when the verdict says judged: false (the run was never cross-reviewed); such a run fails every level "
        "but never unless allowUnjudged"))]
    allowUnjudged: bool
    tierCounts: dict[str, Count]
    blockers: Annotated[list[GateBlocker], Field(description="every blocker-severity finding, with its tier")]
    requireEvidence: NotRequired[Annotated[Literal[True], Field(description=(
        "--require-evidence: a blocker whose evidence is not-found or absent does not block on its own (emitted only "
        "when set)"))]]
    heldBack: NotRequired[Annotated[list[str | None], Field(description=(
        "the blockers that do not block on their own: refuted by the verifier, or (requireEvidence) evidence "
        "not-found or absent; emitted when any"))]]
    source: NotRequired[Annotated[str, Field(description="the verdict file read")]]
    gateOn: NotRequired[Annotated[Literal["new"], Field(description=(
        "--gate-on new: a re-review's blocker levels count only the findings new since its baseline (absent: every "
        "finding counts)"))]]


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
    # run.json `debate` (documents/run.py DebateSummary), as JSON: the schema names only its two keys
    summary: Annotated[dict[str, JsonValue], Field(json_schema_extra={"required": ["enabled", "outcome"]})]
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
