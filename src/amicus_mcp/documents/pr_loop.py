"""The documents of the pull-request loop: `rereview.json` (a re-review's matches to its baseline)
and `dismissed.json` (the findings that match one the user denied before) in a run directory,
the decisions memory (`council-decisions.json` beside the ledger, and `amicus decisions list
--json`), and `council pr-review --json`. Closed models: each is written whole by one writer
and read by the renderings.

They are of the family's version 2 (`PR_LOOP_VERSION`); the first releases wrote 1 by a slip,
and a file written then still reads (`ReadVersion`)."""

from __future__ import annotations

from typing import Annotated, Final, Literal

from pydantic import ConfigDict, Field

from ..vocabulary import DeterministicMatch, KeptDecision, MatchedBy, ReviewEvent, RolledCostSource, Severity, Tier
from .base import Family, Frozen, WhenSet

PR_LOOP_VERSION: Final = 2
# What a reader accepts: 1 from a file written before the slip was fixed.
ReadVersion = Annotated[Literal[1, 2], Field(description="2; a file written before the family's version was used "
                                                         "reads as 1")]

Score = Annotated[float, Field(ge=0, le=1)]
Count = Annotated[int, Field(ge=0)]


class _Closed(Frozen):
    model_config = ConfigDict(extra="forbid")


class RereviewDecision(_Closed):
    id: str
    status: Literal["new", "still-open"]
    baseline_id: str | None
    by: MatchedBy | None
    score: Score | None
    reason: Annotated[WhenSet[str], Field(description="by the matcher: its one-line reason (model output)")] = None


class MatcherCost(_Closed):
    amount: Annotated[float, Field(ge=0)] | None  # 0.0: no call made; null: a call of unknown cost
    unpriced_legs: Count
    source: Annotated[WhenSet[RolledCostSource], Field(description=(
        "where the amount comes from, as a run's usage says it (an estimate renders with ~); absent when no "
        "call was made, or in a file written before it was kept"))] = None


class RereviewMatcher(_Closed):
    """The matcher model's part of a re-review (`--matcher`): what it was asked, what it decided, what
    it cost, and what it could not do (those findings keep the location and claim decision)."""

    model: str
    asked: Count  # findings put to it
    decided: Count  # of them, answered by it
    legs: Count  # calls made
    cost: MatcherCost
    losses: list[str]


class ResolvedFinding(_Closed):
    baseline_id: str
    severity: str | None
    tier: str | None
    claim: str | None
    location: str | None


class RereviewCounts(_Closed):
    new: Count
    still_open: Count = Field(alias="still-open")
    resolved: Count


class RereviewDocument(Family):
    model_config = ConfigDict(extra="forbid")

    schema_version: ReadVersion = PR_LOOP_VERSION
    type: Literal["council-rereview"] = "council-rereview"
    run_id: str | None
    baseline_run_id: str | None
    baseline: Annotated[str, Field(description="the baseline's verdict.json, as the run resolved it")]
    decisions: list[RereviewDecision]
    resolved: list[ResolvedFinding]
    counts: RereviewCounts
    matcher: Annotated[WhenSet[RereviewMatcher], Field(description=(
        "a re-review with --matcher: what the matcher model was asked and decided, its cost (amount null when "
        "unknown) and its losses (those findings keep the location and claim decision)"))] = None


class DismissedMatch(_Closed):
    id: str
    decision_id: str
    dismissed_in: Annotated[str | None, Field(description="the run the finding was dismissed in")]
    reason: str | None
    by: DeterministicMatch
    score: Score


class DismissedDocument(Family):
    model_config = ConfigDict(extra="forbid")

    schema_version: ReadVersion = PR_LOOP_VERSION
    type: Literal["council-dismissed"] = "council-dismissed"
    run_id: str | None
    project: str
    findings: list[DismissedMatch]


class RememberedDecision(_Closed):
    """One accept / deny the user gave, kept for the project's later runs."""

    id: Annotated[str, Field(pattern=r"^D[0-9a-f]{10}$")]
    project: str
    run_id: str | None
    finding_id: str
    decision: KeptDecision
    reason: str | None
    severity: str | None
    claim: str | None
    location: str | None
    decided_at: str


class DecisionsDocument(Family):
    """The decisions memory; listed (`amicus decisions list --json`) it names its file and project."""

    schema_version: ReadVersion = PR_LOOP_VERSION
    type: Literal["council-decisions"] = "council-decisions"
    path: WhenSet[str] = None
    project: str | None = None
    decisions: list[RememberedDecision]


class ReviewComment(_Closed):
    path: Annotated[str, Field(min_length=1)]
    line: Annotated[int, Field(ge=1)]
    side: Literal["RIGHT"]
    body: str


class ReviewBody(Frozen):
    """The review as GitHub's API takes it (snake_case: its keys are GitHub's)."""

    model_config = ConfigDict(extra="forbid", alias_generator=None)

    event: ReviewEvent
    body: str
    commit_id: WhenSet[str] = None
    comments: list[ReviewComment]


class PrReviewDocument(Family):
    model_config = ConfigDict(extra="forbid")

    schema_version: ReadVersion = PR_LOOP_VERSION
    type: Literal["council-pr-review"] = "council-pr-review"
    run_id: str | None
    repo: Annotated[str, Field(pattern=r"^[^/\s]+/[^/\s]+$")]
    pr: Annotated[int, Field(ge=1)]
    head_sha: Annotated[str, Field(pattern=r"^[0-9a-f]{40}$",
                                   description="The pull request's head commit the review is pinned to (commit_id).")]
    min_severity: Severity
    min_tier: Tier
    review: ReviewBody
    inline: Annotated[list[str], Field(description="The ids of the findings commented on the diff's lines.")]
    in_body: Annotated[list[str], Field(description="The ids of the findings at or above the thresholds listed in the "
                                                    "body: no file, no line, or a line the diff does not show.")]
    preview: str
    posted: bool
    review_id: int | None
    review_url: str | None
