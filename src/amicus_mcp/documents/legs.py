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

    tool: Annotated[str, Field(description="the tool name the model sent (model text, cut)")]
    arguments: Annotated[str, Field(description="the arguments the model sent (model text, cut)")]
    result: ToolCallResult


class LegRun(Family):
    schema_version: Literal[2] = 2
    type: Literal["run"] = "run"
    leg_id: str = Field(alias="taskId")  # the key sessions on disk already have
    wave_id: str | None
    run_id: Annotated[WhenSet[str], Field(description=(
        "a council run's leg (`amicus status <runId>-s1-1`): the run it belongs to"))] = None
    run_status: Annotated[WhenSet[RunStatus], Field(description="a council run's leg: its run's status")] = None
    stage: Annotated[WhenSet[LegStage], Field(description="a council run's leg: its stage")] = None
    role: Annotated[WhenSet[str], Field(description=(
        "a council run's leg: its role (seat, judge, repair, chair…)"))] = None
    model: Annotated[str | None, Field(description="the executable id that served the leg (null until known)")]
    model_input: Annotated[str, Field(description="what the user typed: an alias or a raw id")]
    status: LegStatus
    summary: Annotated[str | None, Field(description="the leg's output text")]
    error: ErrorRecord | None
    created_at: str
    completed_at: str | None
    duration_ms: Annotated[int, Field(ge=0)] | None
    usage: LegUsage | None
    finish: WhenSet[str] = None
    seat: Annotated[WhenSet[str], Field(description="a council run's leg: the bench seat it is for")] = None
    truncated: Annotated[WhenSet[Literal[True]], Field(description=(
        "The reply was cut at the output cap (finish reason `length`): the call completed, the answer did not. "
        "Present only when true."))] = None


class FinishedLeg(Family):
    model_config = ConfigDict(extra="forbid")

    schema_version: Literal[2] = 2
    type: Literal["council-leg"] = "council-leg"
    key: Annotated[Sha256Hex, Field(description=(
        "sha256 of provider, model, seat, prompt, schema sent, the stage's nominal output cap and the content's "
        "ordinal in the run"))]
    leg_id: Annotated[str, Field(description=(
        "The leg's id in the attempt that made it (ids are not stable across attempts)"))]
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
    max_tokens: Annotated[WhenSet[Annotated[int, Field(ge=1)]], Field(description=(
        "The output cap the leg was sent with (the stage's cap, or less under a tight ceiling or a small context "
        "window). Absent when no cap was sent."))] = None
    schema_mismatch: Annotated[WhenSet[str], Field(description=(
        "Why the structured reply did not match the JSON Schema it was sent with (the provider's check, e.g. "
        "`ranking/0: 'Response C' is not one of …`); `text` is that reply. Absent when it matched or no schema was "
        "sent."))] = None
    tool_calls: Annotated[WhenSet[list[ToolCallDoc]], Field(description=(
        "The read-only tool calls a verifier leg (--verify) made where its model supports tool calling, in order: "
        "the tool, its arguments and how it ended (ok; refused: outside the project, hidden or not a text file; "
        "unknown-tool; bad-arguments; over-budget: past --verify-tool-calls). Absent when it made none."))] = None
    started_at: Annotated[str, Field(description="When the leg was launched (the attempt that ran it)")]
    completed_at: Annotated[str, Field(description="When its answer arrived")]


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


class MatcherCallRecord(Document):
    """A re-review matcher call in the run's legs/ (engine/matcher.py): written `running` with what
    it reserved before it is sent, and again once settled, with its usage. A resumed run counts an
    earlier attempt's: one still `running` was probably billed (its cost unknown, its reservation
    held), a settled one's usage is spend already made."""

    started_at: str
    reserved: Annotated[Number, Field(ge=0)]  # USD claimed against --max-cost
    status: Literal["running", "complete", "error"]
    usage: WhenSet[LegUsage] = None


class LaunchRecord(InterruptedLeg):
    """The same leg as it was launched, under its cache key (`key` is written first: a
    document keeps the order it was built in)."""

    key: str

