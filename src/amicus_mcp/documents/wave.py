"""wave.json: one prompt to N models at once (schemas/wave.schema.json)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from ..vocabulary import WaveStatus
from .base import Document, Family, WhenSet
from .legs import LegRun
from .usage import Count, WaveUsage


class WaveCounts(Document):
    total: Count
    complete: Count
    error: Count
    timeout: Count
    aborted: Count


class PromptRecord(Document):
    source: Literal["file", "inline"]
    file: str | None
    chars: Count


class WaveError(Document):
    """Why a wave failed as a whole (a crash: when a reader found its process gone)."""

    code: str
    message: str
    detected_at: WhenSet[str] = None


class Wave(Family):
    schema_version: Literal[2] = 2
    type: Literal["wave"] = "wave"
    wave_id: str
    status: WaveStatus
    error: WaveError | None
    counts: WaveCounts
    legs: list[LegRun]
    prompt: PromptRecord | None
    created_at: str
    completed_at: str | None
    duration_ms: Annotated[int, Field(ge=0)] | None
    usage: WaveUsage | None
    notices: list[str]
    pid: WhenSet[int] = None

    def leg_named(self, leg_id: str) -> LegRun | None:
        return next((leg for leg in self.legs if leg.leg_id == leg_id), None)


def counts_of(legs: list[LegRun]) -> dict[str, int]:
    counts = {"total": len(legs)}
    for bucket in ("complete", "error", "timeout", "aborted"):
        counts[bucket] = sum(1 for leg in legs if leg.status == bucket)
    return counts
