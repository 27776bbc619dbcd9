"""Leg documents: one model call, as a wave records it and as a council run keeps its answer.

    LegRun        `<sessions>/<legId>/run.json` and each entry of wave.json `legs`
                  (schemas/run.schema.json); `amicus status` of a council run's leg has the
                  same shape, saying where in its run it is (`runId`, `stage`, `role`, `seat`)
    FinishedLeg   `<runDir>/legs/<key>.json`, an answer a resumed run reuses
                  (schemas/council-leg.schema.json)
    LaunchRecord  `<runDir>/legs/<key>.<attempt>.launch`, written before a leg is sent, so a
                  resume can count a leg that was in flight when its attempt stopped
    InterruptedLeg  such a leg, as run.json `interruptedLegs` records it (a launch record is
                  one with its cache key)
    ErrorRecord   what went wrong with a leg, as `CODE` and a message (a run's legs carry it too)

A wave imports this module and not run.py: a fanout never builds the council-run models.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import ConfigDict, Field

from ..vocabulary import LegOutcome, LegStage, LegStatus, RunStatus, ToolCallResult
from .base import Document, Family, Frozen, WhenSet
from .usage import LegUsage, Number


Sha256Hex = Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]


class ErrorRecord(Frozen):
    """What went wrong, as `CODE` and a message (a provider's message may quote its reply)."""

    code: str
    message: str


class ToolCallDoc(Frozen):
    """One tool call a verifier leg made (`--verify` with tool calling): the tool and arguments
    the model sent (model text, cut) and how the call ended."""

    model_config = ConfigDict(extra="forbid")

    tool: str
    arguments: str
    result: ToolCallResult


class LegRun(Family):
    schema_version: Literal[2] = 2
    type: Literal["run"] = "run"
    leg_id: str = Field(alias="taskId")  # the key sessions on disk already have
    wave_id: str | None
    run_id: WhenSet[str] = None  # a council run's leg: the run it belongs to
    run_status: WhenSet[RunStatus] = None
    stage: WhenSet[LegStage] = None
    role: WhenSet[str] = None
    model: str | None  # the executable id that served the leg (null until known)
    model_input: str  # what the user typed: an alias or a raw id
    status: LegStatus
    summary: str | None  # the leg's output text
    error: ErrorRecord | None
    created_at: str
    completed_at: str | None
    duration_ms: Annotated[int, Field(ge=0)] | None
    usage: LegUsage | None
    finish: WhenSet[str] = None
    seat: WhenSet[str] = None
    truncated: WhenSet[Literal[True]] = None


class FinishedLeg(Family):
    model_config = ConfigDict(extra="forbid")

    schema_version: Literal[2] = 2
    type: Literal["council-leg"] = "council-leg"
    key: Sha256Hex
    leg_id: str
    stage: LegStage
    role: str
    model: str
    status: LegOutcome
    text: str | None
    usage: LegUsage | None
    resolved_model: str | None
    duration_ms: int | None
    error: ErrorRecord | None
    truncated: bool
    max_tokens: WhenSet[Annotated[int, Field(ge=1)]] = None
    schema_mismatch: WhenSet[str] = None  # why its structured reply failed the schema (`text` is that reply)
    tool_calls: WhenSet[list[ToolCallDoc]] = None  # the tool calls it made (a verifier with tools)
    started_at: str
    completed_at: str


class InterruptedLeg(Document):
    """A leg an earlier attempt had in flight when it stopped: probably billed, cost unknown
    (run.json `interruptedLegs`)."""

    id: str
    stage: LegStage
    role: str
    model: str
    seat: WhenSet[str] = None
    started_at: WhenSet[str] = None
    reserved: WhenSet[Annotated[Number, Field(ge=0)]] = None  # USD claimed against --max-cost


class LaunchRecord(InterruptedLeg):
    """The same leg as it was launched, under its cache key (`key` is written first: a
    document keeps the order it was built in)."""

    key: str

