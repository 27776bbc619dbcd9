"""The documents the pull-request loop writes into a run directory: `rereview.json` (a re-review's
matches to its baseline) and `dismissed.json` (the findings that match one the user denied
before). Closed models: each is written whole by one writer and read by the renderings."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import ConfigDict, Field

from .base import Family, Frozen

Score = Annotated[float, Field(ge=0, le=1)]
Count = Annotated[int, Field(ge=0)]


class _Closed(Frozen):
    model_config = ConfigDict(extra="forbid")


class RereviewDecision(_Closed):
    id: str
    status: Literal["new", "still-open"]
    baseline_id: str | None
    by: Literal["location", "claim"] | None
    score: Score | None


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

    schema_version: Literal[1] = 1
    type: Literal["council-rereview"] = "council-rereview"
    run_id: str | None
    baseline_run_id: str | None
    baseline: str
    decisions: list[RereviewDecision]
    resolved: list[ResolvedFinding]
    counts: RereviewCounts


class DismissedMatch(_Closed):
    id: str
    decision_id: str
    dismissed_in: str | None
    reason: str | None
    by: Literal["location", "claim"]
    score: Score


class DismissedDocument(Family):
    model_config = ConfigDict(extra="forbid")

    schema_version: Literal[1] = 1
    type: Literal["council-dismissed"] = "council-dismissed"
    run_id: str | None
    project: str
    findings: list[DismissedMatch]
