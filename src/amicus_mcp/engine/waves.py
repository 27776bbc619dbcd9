"""Fanout waves: one prompt to N models at once.

A wave is a set of legs launched together. Each leg is one provider call with its own run
document; the wave document rolls them up. Both are written to the session store atomically
as each leg finishes, so another process (`amicus status`, the MCP server, the workspace)
can read progress at any moment.

Leg status: complete | error | timeout | aborted (a leg that never finished because its
process died is reported `crashed` by the readers). Wave status: running while any leg
runs; complete when every leg completed; partial when some did; aborted when none did and
one was aborted; error otherwise. An explicit abort (a signal) wins.

A leg never takes longer than its timeout plus `LEG_GRACE_S`: the provider enforces the
timeout itself, and an outer deadline catches anything that does not.
"""

from __future__ import annotations

import math
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, TypedDict

import anyio

from ..documents.legs import ErrorRecord, LegRun
from ..documents.usage import LegUsage, WaveUsage
from ..documents.wave import PromptRecord, Wave, WaveCounts, counts_of
from ..errors import AmicusError
from ..providers.base import Completion, CompletionRequest, Message, ToolCall, Usage
from ..providers.cost import rollup
from ..providers.errors import MalformedReply, ProviderError
from ..providers.routing import ProviderRegistry, Route, resolve_model
from ..secrets import redact_text, redact_tree
from ..vocabulary import TERMINAL_LEG_STATUSES, GatewayMode, WaveStatus
from .store import SessionStore, now_iso

if TYPE_CHECKING:
    from ..documents.usage import LegUsageDoc
    from ..schemas import JsonSchema

LEG_GRACE_S = 5.0

LegCallback = Callable[[LegRun], Awaitable[None] | None]


class PromptMeta(TypedDict):
    """The wave's `prompt` record, as its plan carries it."""

    source: Literal["file", "inline"]
    file: str | None
    chars: int


@dataclass
class WavePlan:
    wave_id: str
    models: Sequence[str]  # what the user typed, one entry per leg (repeats allowed)
    messages: tuple[Message, ...]
    timeout_s: float
    json_schema: JsonSchema | None = None
    gateway: GatewayMode | None = None
    prompt_meta: PromptMeta | None = None
    notices: list[str] = field(default_factory=list)
    pid: int | None = None

    def leg_id(self, index: int) -> str:
        return f"{self.wave_id}-{index + 1}"


def new_leg(plan: WavePlan, index: int) -> LegRun:
    return LegRun(leg_id=plan.leg_id(index), wave_id=plan.wave_id, model=None, model_input=plan.models[index],
                  status="running", summary=None, error=None, created_at=now_iso(), completed_at=None,
                  duration_ms=None, usage=None)


def wave_status(legs: Sequence[LegRun]) -> WaveStatus:
    statuses = [leg.status for leg in legs]
    if any(s not in TERMINAL_LEG_STATUSES for s in statuses):
        return "running"
    complete = statuses.count("complete")
    if statuses and complete == len(statuses):
        return "complete"
    if complete:
        return "partial"
    if "aborted" in statuses:
        return "aborted"
    return "error"


def wave_exit_code(status: str) -> int:
    return {"complete": 0, "partial": 2}.get(status, 1)


def build_wave_doc(plan: WavePlan, legs: list[LegRun], *, created_at: str, status: WaveStatus | None = None) -> Wave:
    status = status or wave_status(legs)
    finished = status != "running"
    wave = Wave(
        wave_id=plan.wave_id, status=status, error=None, counts=WaveCounts.model_validate(counts_of(legs)),
        legs=list(legs), prompt=None if plan.prompt_meta is None else PromptRecord.model_validate(plan.prompt_meta),
        created_at=created_at, completed_at=now_iso() if finished else None,
        duration_ms=_ms_since_iso(created_at) if finished else None,
        usage=WaveUsage.model_validate(rollup(leg.usage.to_doc() if leg.usage is not None else None for leg in legs)),
        notices=list(plan.notices),
    )
    if plan.pid is not None:
        wave.pid = plan.pid
    return wave


def _ms_since_iso(iso: str) -> int | None:
    from datetime import datetime

    try:
        started = datetime.fromisoformat(iso.replace("Z", "+00:00"))
    except ValueError:
        return None
    return max(0, int((time.time() - started.timestamp()) * 1000))


async def call_leg(
    registry: ProviderRegistry,
    spec: str,
    messages: tuple[Message, ...],
    *,
    timeout_s: float,
    json_schema: JsonSchema | None = None,
    gateway: GatewayMode | None = None,
) -> Completion:
    """One bounded provider call for what the user typed (`spec`)."""
    route = resolve_model(spec, gateway=gateway)
    return await call_route(registry, route, messages, timeout_s=timeout_s, json_schema=json_schema)


async def call_route(
    registry: ProviderRegistry,
    route: Route,
    messages: tuple[Message, ...],
    *,
    timeout_s: float,
    json_schema: JsonSchema | None = None,
    max_tokens: int | None = None,
    tools: tuple[dict[str, object], ...] | None = None,
    tool_choice: Literal["auto", "none"] = "auto",
    on_start: Callable[[], None] | None = None,
    on_queued: Callable[[], None] | None = None,
) -> Completion:
    """One bounded provider call on an already-resolved route. The schema is sent only where
    the route's profile says it is honoured (ProviderRegistry.complete).

    Model output is untrusted: a reply that quotes a key value (or anything shaped like a
    credential) is masked here, before it is written to the run directory or forwarded to
    another model in a bundle or packet.
    """
    bound = timeout_s + LEG_GRACE_S
    # A provider that queues legs (an agent CLI's per-CLI limit) starts the clock when it starts
    # the leg: a leg's turn in the queue is not its time to answer.
    queues = bool(getattr(registry.provider_for(route), "queues", False))
    scope = anyio.CancelScope(deadline=math.inf if queues else anyio.current_time() + bound)

    def started() -> None:
        scope.deadline = anyio.current_time() + bound
        if on_start is not None:
            on_start()

    request = CompletionRequest(model=route.model, messages=messages, json_schema=json_schema, timeout_s=timeout_s,
                                max_tokens=max_tokens, tools=tools, tool_choice=tool_choice, on_start=started,
                                on_queued=on_queued)
    completion: Completion | None = None
    try:
        with scope:
            completion = await registry.complete(route, request)
    except MalformedReply as exc:
        if exc.text is not None:
            exc.text = redact_text(exc.text)
        raise
    if completion is None:  # the scope's deadline passed (as anyio.fail_after would say it)
        raise TimeoutError
    return completion._replace(
        text=redact_text(completion.text), structured=redact_tree(completion.structured),
        reasoning=None if completion.reasoning is None else redact_text(completion.reasoning))


@dataclass
class Outcome:
    """How one provider call ended: what a wave's leg document and a council leg both record."""

    status: str  # complete | error | timeout | aborted
    completed_at: str
    duration_ms: int
    model: str | None = None  # the executable id that served it
    summary: str | None = None  # its text
    usage: LegUsageDoc | None = None  # its usage document; None when nothing is known
    finish: str | None = None  # the provider's finish reason
    truncated: bool = False  # cut at the output cap: complete as a call, not as an answer
    error: dict[str, str] | None = None
    schema_mismatch: str | None = None  # a structured reply the schema refused: the provider's reason
    tool_calls: tuple[ToolCall, ...] = ()  # the tools the reply asked to call (a tool-calling leg's turn)


def outcome_of(started: float, *, completion: Completion | None = None, error: BaseException | None = None,
               status: str | None = None) -> Outcome:
    """A call's outcome from its completion, its error, or an abort (`status="aborted"`)."""
    ended = Outcome("complete", now_iso(), int((time.monotonic() - started) * 1000))
    if completion is not None:
        ended.model, ended.summary, ended.usage = completion.resolved_model, completion.text, completion.usage.to_doc()
        ended.finish = completion.finish_reason or None
        ended.truncated = completion.finish_reason == "length"
        return ended
    if status == "aborted":
        ended.status = "aborted"
        ended.error = {"code": "ABORTED", "message": "the wave was aborted before this leg finished"}
        return ended
    ended.status, ended.error = _classify(error)
    usage = getattr(error, "usage", None)
    if usage is not None:  # a failed call can still have been billed
        ended.usage = usage.to_doc()
    elif refused_before_generating(error):
        ended.usage = Usage(cost_amount=0.0, cost_source="reported").to_doc()
    return ended


def finish_leg(leg: LegRun, started: float, *, completion: Completion | None = None,
               error: BaseException | None = None, status: str | None = None) -> None:
    """Fill a wave's leg document from its outcome (a completion, an error, or an abort)."""
    ended = outcome_of(started, completion=completion, error=error, status=status)
    leg.completed_at = ended.completed_at
    leg.duration_ms = ended.duration_ms
    leg.status = ended.status  # type: ignore[assignment]
    if ended.status == "complete":
        leg.model = ended.model
        leg.summary = ended.summary
        leg.usage = _usage(ended.usage)
        if ended.finish:
            leg.finish = ended.finish
        if ended.truncated:
            leg.truncated = True
        return
    leg.error = ErrorRecord.model_validate(ended.error)
    if ended.usage is not None:
        leg.usage = _usage(ended.usage)


def _usage(doc: LegUsageDoc | None) -> LegUsage | None:
    return None if doc is None else LegUsage.model_validate(doc)


def refused_before_generating(error: BaseException | None) -> bool:
    """A 4xx/5xx reply with no usage: the server refused the call, so it cost a known $0.

    A timeout, a dropped connection or a malformed 2xx body may have been billed and stays
    unknown."""
    return isinstance(error, ProviderError) and error.refused_by_status and error.usage is None


def _classify(error: BaseException | None) -> tuple[str, dict[str, str]]:
    if isinstance(error, ProviderError):
        return error.leg_status, {"code": error.code, "message": error.message}
    if isinstance(error, TimeoutError):
        return "timeout", {"code": "TIMEOUT", "message": "the leg did not finish within its timeout"}
    if isinstance(error, AmicusError):
        return "error", {"code": error.code, "message": error.message}
    return "error", {"code": "INTERNAL", "message": f"{type(error).__name__}: {error}"}


async def run_wave(
    plan: WavePlan,
    store: SessionStore,
    registry: ProviderRegistry,
    *,
    on_leg_done: LegCallback | None = None,
) -> Wave:
    """Run every leg concurrently; return the final wave document (also on disk).

    Cancelling the caller's scope (a signal, an abort) marks unfinished legs `aborted` and
    writes the aborted wave document before the cancellation propagates.
    """
    created_at = now_iso()
    legs = [new_leg(plan, i) for i in range(len(plan.models))]
    started = [time.monotonic()] * len(legs)
    write_lock = anyio.Lock()

    async def checkpoint(status: WaveStatus | None = None) -> Wave:
        async with write_lock:
            doc = build_wave_doc(plan, legs, created_at=created_at, status=status)
            store.write_wave(doc)
            return doc

    for leg in legs:
        store.write_leg(leg)
    await checkpoint()

    async def run_one(index: int) -> None:
        leg = legs[index]
        started[index] = time.monotonic()
        try:
            completion = await call_leg(
                registry, plan.models[index], plan.messages,
                timeout_s=plan.timeout_s, json_schema=plan.json_schema, gateway=plan.gateway,
            )
        except anyio.get_cancelled_exc_class():
            raise
        except Exception as exc:  # every failure of one leg is that leg's outcome, not the wave's
            finish_leg(leg, started[index], error=exc)
        else:
            finish_leg(leg, started[index], completion=completion)
        store.write_leg(leg, leg.summary)
        await checkpoint()
        if on_leg_done is not None:
            result = on_leg_done(leg)
            if result is not None:
                await result

    try:
        async with anyio.create_task_group() as group:
            for index in range(len(legs)):
                group.start_soon(run_one, index)
    except anyio.get_cancelled_exc_class():
        with anyio.CancelScope(shield=True):
            for leg, leg_started in zip(legs, started):
                if leg.status == "running":
                    finish_leg(leg, leg_started, status="aborted")
                    store.write_leg(leg)
            await checkpoint(status="aborted")
        raise
    return await checkpoint()
