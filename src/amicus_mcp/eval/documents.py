"""The eval's documents as pydantic models — the one declaration of each — and their schemas.

    eval-suite          suite.json of a suite               (suite.SuiteDocument)
    eval-case           case.json of one case               (suite.CaseDocument)
    eval-run-options    eval-options.json: what an eval is asked to do (a worker reads it)
    eval-run            eval-run.json: the eval's manifest (status, pid, cases), checkpointed
    eval-matches        cases/<id>/matches.json: every matcher decision of one case
    eval                eval.json: the scores
    eval-estimate       `amicus eval run --estimate --json`: the pre-flight estimate
    eval-compare        `amicus eval compare A B --json`
    eval-ledger-row     one line of <config dir>/eval-ledger.jsonl

The JSON Schemas shipped under schemas/ are generated from these models (`python -m
amicus_mcp.contracts --write` rewrites them; `--check`, in CI and a test, that they agree). Rates are fractions in
[0, 1] rounded to four places, `null` when there is nothing to divide by; a cost that is not
known is `null` and its legs are counted, never taken as $0.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..schemas import JsonObject, JsonSchema
from ..vocabulary import CaseStatus, EvidenceCheck, OverallVerdict, RunStatus, Tier, Verification
from .suite import CaseDocument, SuiteDocument

SCHEMA_ID = "amicus-mcp/schemas/{name}.schema.json"
RUN_OPTIONS_REF = "amicus-mcp/schemas/council-run-options.schema.json"

Rate = Annotated[float, Field(ge=0, le=1)] | None
Count = Annotated[int, Field(ge=0)]
DecisionBy = Literal["matcher", "prefilter", "clean-case", "undecided"]
Placement = Literal["lines", "anchors", "lines+anchors", "elsewhere", "unplaced", "clean"]
EvalStatus = RunStatus  # an eval run ends the way a council run does


class _Doc(BaseModel):
    model_config = ConfigDict(extra="forbid")


# --------------------------------------------------------------------------- small parts

class Money(_Doc):
    amount: float | None = Field(description="known spend in USD; null when no leg was priced")
    unpricedLegs: Count = Field(description="legs whose cost is unknown (never counted as $0)")


class Ratio(_Doc):
    found: Count
    planted: Count
    rate: Rate
    undecided: Count = Field(0, description="findings the matcher left undecided that might have found a flaw "
                                            "counted here as missed: when above 0, `rate` is only a floor")


class FindingCounts(_Doc):
    total: Count
    matched: Count = Field(description="findings matched to a planted flaw")
    unmatched: Count = Field(description="findings matched to none: noise, or a real flaw nobody planted")
    undecided: Count = Field(description="findings the matcher gave no usable answer about")


class TierPrecision(_Doc):
    findings: Count
    matched: Count
    unmatched: Count
    undecided: Count
    rate: Rate = Field(description="matched / (matched + unmatched)")


class BenchSeat(_Doc):
    seat: str
    model: str


class Bench(_Doc):
    seats: list[BenchSeat]
    chair: str | None
    matcher: str
    critic: str | None
    lenses: list[str] | None
    debate: bool
    maxCost: float | None = Field(description="the whole suite's ceiling on known spend, USD")


class SuiteSummary(_Doc):
    name: str
    version: int
    sha256: str
    cases: Count
    cleanCases: Count
    plantedFlaws: Count
    kinds: list[str]


# --------------------------------------------------------------------------- eval.json

class FlawResult(_Doc):
    id: str
    severity: str
    flawClass: str = Field(alias="class")
    tier: Tier | None = Field(description="the strongest tier of the findings matched to it; null when missed")
    foundBy: list[str] = Field(description="the seats with a finding matched to it")
    findings: list[str]

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class FindingResult(_Doc):
    id: str
    seat: str
    severity: str
    tier: Tier | None
    claim: str = Field(description="model-written text: escape it wherever it is shown")
    location: str = Field(description="model-written text")
    flaw: str | None
    by: DecisionBy
    placement: Placement
    reason: str | None = Field(description="the matcher's reason (model-written text)")
    evidenceCheck: EvidenceCheck | None = Field(None, description="the run's check of the finding's quoted evidence "
                                                                  "(emitted when the run checked it)")
    verification: Verification | None = Field(None, description="what the verifier answered (--verify runs only)")


class CaseResult(_Doc):
    caseId: str
    kind: str
    title: str
    clean: bool
    scored: bool = Field(description="false when the case's council produced no tally (see lostReason)")
    lostReason: str | None
    runId: str | None
    runStatus: str | None
    expectedVerdict: OverallVerdict
    verdict: OverallVerdict | None
    verdictCorrect: bool | None
    plantedFlaws: Count
    found: Count
    flaws: list[FlawResult]
    findingCounts: FindingCounts
    findings: list[FindingResult]
    falseAlarms: Count = Field(description="clean case: its blocker and major findings")
    cost: Money
    wallMs: Count | None


class SeatResult(_Doc):
    seat: str
    model: str
    resolvedModel: str | None
    recall: Ratio
    findings: FindingCounts
    falseAlarms: Count
    cleanCases: Count
    cleanCasesWithAlarm: Count
    falseAlarmRate: Rate = Field(description="share of clean cases where the seat raised a blocker or major finding")
    streetCredPeersOnly: float | None = Field(description="mean peers-only street-cred over the cases (lower is better)")
    cost: Money


class ModelResult(_Doc):
    model: str
    resolvedModel: str | None
    seats: list[str]
    recall: Ratio
    falseAlarms: Count
    cleanCasesWithAlarm: Count
    falseAlarmRate: Rate
    streetCredPeersOnly: float | None
    cost: Money


class TierCounts(_Doc):
    Confirmed: Count
    Contested: Count
    Singleton: Count
    Disputed: Count
    Missed: Count


class CouncilResult(_Doc):
    recall: Ratio
    recallUnrefuted: Ratio | None = Field(
        None, description="--verify: recall counting only findings the verifier did not refute (what the gate acts on)")
    bySeverity: dict[str, Ratio]
    byTier: TierCounts = Field(description="planted flaws by the strongest tier they reached (Missed: found by none)")


class Precision(_Doc):
    byTier: dict[str, TierPrecision]
    confirmed: TierPrecision
    note: str
    confirmedByEvidence: dict[str, TierPrecision] | None = Field(
        None, description="Confirmed precision split by each finding's evidence check (verified, moved, not-found, "
                          "absent); emitted when the runs checked evidence")
    confirmedByVerification: dict[str, TierPrecision] | None = Field(
        None, description="Confirmed precision split by the verifier's answer (holds, refuted, unsure, unverified); "
                          "emitted for a --verify eval")


class FalseAlarms(_Doc):
    cleanCases: Count
    findings: Count = Field(description="blocker and major findings raised on clean cases")
    confirmed: Count = Field(description="… of which ended Confirmed")
    casesWithAlarm: Count
    byEvidence: dict[str, Count] | None = Field(None, description="the false alarms by evidence check (emitted when checked)")
    byVerification: dict[str, Count] | None = Field(
        None, description="the false alarms by the verifier's answer (holds, refuted, unsure, unverified; --verify)")


class Verdicts(_Doc):
    cases: Count
    correct: Count
    wrong: Count
    noVerdict: Count
    accuracy: Rate = Field(description="correct / cases scored")


class Totals(_Doc):
    cost: Money
    councils: Money
    matching: Money
    wallMs: Count | None


class EvalDocument(_Doc):
    schemaVersion: Literal[2] = 2
    type: Literal["eval"] = "eval"
    evalId: str
    createdAt: str
    completedAt: str | None
    status: EvalStatus
    suite: SuiteSummary
    bench: Bench
    casesScored: Count
    casesLost: Count
    council: CouncilResult
    seats: list[SeatResult]
    models: list[ModelResult]
    precision: Precision
    falseAlarms: FalseAlarms
    verdicts: Verdicts
    totals: Totals
    cases: list[CaseResult]
    notes: list[str]
    tag: str | None = Field(None, description="the eval's --tag (its ledger rows carry it)")


# --------------------------------------------------------------------------- eval-matches

class Decision(_Doc):
    finding: str
    candidates: list[str]
    placement: Placement
    flaw: str | None
    by: DecisionBy
    reason: str | None


class MatchesDocument(_Doc):
    schemaVersion: Literal[2] = 2
    type: Literal["eval-matches"] = "eval-matches"
    caseId: str
    caseSha256: str
    runId: str
    tallySha256: str = Field(description="sha256 of the tally.json these decisions are about")
    matcher: str
    decisions: list[Decision]
    usage: Money
    legs: Count = Field(description="matcher calls made for this case")
    durationMs: Count | None


# --------------------------------------------------------------------------- manifest, options

class EstimateCase(_Doc):
    caseId: str
    legs: Count
    amount: float | None


class EvalEstimate(_Doc):
    schemaVersion: Literal[2] = 2
    type: Literal["eval-estimate"] = "eval-estimate"
    cases: Count
    legs: Count = Field(description="calls planned: every council leg and one matcher call per case")
    amount: float | None = Field(description="estimated USD at typical output lengths; null when nothing is priced")
    unpricedModels: list[str]
    maxCost: float | None
    perCase: list[EstimateCase]
    basis: str


class CaseProgress(_Doc):
    caseId: str
    status: CaseStatus
    runId: str
    runDir: str
    cost: Money | None = None
    error: dict[str, str] | None = None


class SuiteRef(_Doc):
    """The suite an eval runs: which, and where its copy was read from."""

    name: str
    version: int
    sha256: str
    path: str


class EvalManifest(_Doc):
    schemaVersion: Literal[2] = 2
    type: Literal["eval-run"] = "eval-run"
    id: str
    status: EvalStatus
    stage: Literal["councils", "matching", "scoring", "done"]
    pid: int | None
    exitCode: int | None = None
    createdAt: str
    completedAt: str | None = None
    evalDir: str
    suite: SuiteRef = Field(description="name, version, sha256 and path of the suite")
    models: list[str]
    chair: str | None
    matcher: str
    estimate: EvalEstimate
    concurrency: Count
    cases: list[CaseProgress]
    casesDone: Count
    casesTotal: Count
    cost: float | None = Field(default=None, description="known spend so far, USD")
    notices: list[str] = Field(default_factory=list)
    error: dict[str, str] | None = None
    report: str | None = None
    tag: str | None = Field(None, description="the eval's --tag: its cases' councils and its ledger rows carry it too")


class EvalRunOptions(_Doc):
    schemaVersion: Literal[2] = 2
    type: Literal["eval-run-options"] = "eval-run-options"
    suite: str | None = Field(description="the suite folder (absolute); null: the shipped suite")
    matcher: str
    cases: list[str] | None = Field(default=None, description="run only these case ids")
    # A council-run-options document (RunOptions.document()): the options model is its declaration,
    # and its schema checks it here (`schema_document`); a worker reads it back through run_options.
    bench: JsonObject = Field(description="the council options every case runs with (council-run-options)")


# --------------------------------------------------------------------------- estimate, compare, ledger

class CompareSide(_Doc):
    evalId: str
    dir: str
    suite: str
    models: list[str]
    chair: str | None
    cases: Count | None = Field(None, description="cases the eval ran")
    casesScored: Count | None = None


class CompareCases(_Doc):
    a: Count
    b: Count
    common: Count = Field(description="cases both evals scored: every figure is over these")


class CompareDifference(_Doc):
    option: str
    a: Any
    b: Any


class CompareRow(_Doc):
    metric: str
    a: float | None
    b: float | None
    delta: float | None
    aFloor: bool = Field(False, description="A's figure is only a floor (the matcher left findings undecided)")
    bFloor: bool = False


class CompareSeat(_Doc):
    """One seat's recall in each eval (a seat one eval did not have: null)."""

    seat: str
    a: float | None
    b: float | None
    delta: float | None
    aFloor: bool
    bFloor: bool


class CompareFlaw(_Doc):
    caseId: str
    flaw: str
    foundBy: Literal["a", "b"]


class EvalComparison(_Doc):
    schemaVersion: Literal[2] = 2
    type: Literal["eval-compare"] = "eval-compare"
    a: CompareSide
    b: CompareSide
    sameSuite: bool
    cases: CompareCases | None = None
    differences: list[CompareDifference] = Field(default_factory=list,
                                                 description="options the two evals ran with that differ")
    rows: list[CompareRow]
    seats: list[CompareSeat]
    flaws: list[CompareFlaw] = Field(description="planted flaws one eval found and the other missed")
    notes: list[str]


class EvalLedgerRow(_Doc):
    schemaVersion: Literal[2] = 2
    type: Literal["eval-ledger-row"] = "eval-ledger-row"
    evalId: str
    date: str
    suite: str
    suiteVersion: int
    suiteSha256: str
    model: str
    resolvedModel: str | None
    seats: Count
    casesScored: Count
    plantedFlaws: Count
    found: Count
    recall: Rate
    undecided: Count | None = Field(None, description="findings the matcher left undecided that might have found "
                                                      "more: above 0, `recall` is only a floor (absent in rows "
                                                      "written before it was recorded: not known)")
    cleanCases: Count
    falseAlarms: Count
    cleanCasesWithAlarm: Count
    falseAlarmRate: Rate
    streetCredPeersOnly: float | None
    tag: str | None = Field(None, description="emit-when-set: the eval's --tag ('council stats --tag' filters by it)")


# --------------------------------------------------------------------------- schemas

DOCUMENTS: dict[str, tuple[type[BaseModel], str]] = {
    "eval-suite": (SuiteDocument, "A planted-flaw suite's suite.json (amicus_mcp.eval.suite)."),
    "eval-case": (CaseDocument, "One case of a planted-flaw suite: cases/<id>/case.json, the artifact beside it."),
    "eval-run-options": (EvalRunOptions, "What an eval is asked to do: eval-options.json in the eval directory."),
    "eval-run": (EvalManifest, "An eval's manifest, eval-run.json: status, pid, cases; checkpointed as cases finish."),
    "eval-matches": (MatchesDocument, "Every matcher decision of one case: cases/<id>/matches.json."),
    "eval": (EvalDocument, "The scores of one eval: eval.json (amicus eval run / amicus eval score)."),
    "eval-estimate": (EvalEstimate, "The pre-flight cost estimate of an eval (amicus eval run --estimate --json)."),
    "eval-compare": (EvalComparison, "Two evals side by side (amicus eval compare A B --json)."),
    "eval-ledger-row": (EvalLedgerRow, "One line of <config dir>/eval-ledger.jsonl: one model's measured results in one eval; "
                                       "counts and rates only, no content."),
}


def schema_document(name: str) -> JsonSchema:
    """The JSON Schema of document `name`, as shipped under schemas/."""
    model, description = DOCUMENTS[name]
    generated = model.model_json_schema(by_alias=True, mode="serialization")
    rest = {key: value for key, value in generated.items() if key not in ("title", "description")}
    if model is EvalRunOptions:  # the bench is a council-run-options document, checked as one
        rest["properties"]["bench"]["allOf"] = [{"$ref": RUN_OPTIONS_REF}]
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_ID.format(name=name),
            "title": f"amicus {name} document", "description": f"{description} Family v2.", **rest}
