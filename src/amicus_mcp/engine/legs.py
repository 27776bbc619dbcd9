"""The leg runner: one paid model call of a council run — cache → claim → call → settle → record.

    cache    a leg an earlier attempt of this run answered is found by its content key
             (legcache.py) and reused: no request, its recorded spend counts
    claim    the leg's output cap, fitted to the model's context window and to its share of the
             --max-cost ceiling (budget.py); a leg whose window cannot hold its floor cap is
             recorded as not sent, one the ceiling has no room for is refused
    call     the request, bounded by the leg's timeout (waves.call_route), with the claimed cap
             as `max_tokens` (the embedded model keeps its own configured bound)
    settle   the claim replaced by what the leg really cost
    record   run.json's leg entry (through the run-state owner), the leg's answer under
             `legs/<key>.json` before run.json says it finished, and a notice when the answer
             was cut at its cap

Beside it, `StatRows`: the runStats rows of the tally input, in a stable order whatever order
the concurrent legs finish in.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, NotRequired, TypedDict, cast

import anyio

from ..documents.legs import ErrorRecord, FinishedLeg
from ..documents.run import LegEntry
from ..documents.usage import LegUsage
from ..providers.base import Completion, Message, Usage
from ..providers.cost import prompt_tokens, route_pricing, usage_from_doc
from ..providers.errors import ContextTooLong, MalformedReply
from ..providers.openai_compat import sum_usage
from ..providers.profiles import Profile
from ..providers.routing import ProviderRegistry, Route
from .budget import Budget, Claim, floor_cap, output_cap
from .legcache import base_key, leg_key, read_finished, write_finished, write_launch
from .limits import context_window
from .preflight import Prepared
from .run_state import RunState
from .source_tools import TOOLS_SPENT, Toolbox
from .store import now_iso
from .waves import Outcome, call_route, outcome_of

if TYPE_CHECKING:
    from ..documents.usage import LegUsageDoc
    from ..schemas import JsonObject, JsonSchema


@dataclass
class LegResult:
    leg_id: str
    status: str  # complete | error | timeout
    text: str | None
    usage: LegUsageDoc | None  # the usage document, as the tally's runStats and the budget read it
    resolved_model: str | None
    duration_ms: int | None
    error: dict[str, str] | None
    truncated: bool = False  # cut at the output cap (`finish_reason: length`)
    schema_mismatch: str | None = None  # its structured reply did not match the schema: why (the text is kept)

    @property
    def usable(self) -> bool:
        return self.status == "complete" and bool(self.text and self.text.strip())

    def why(self) -> str:
        """Why this leg gave nothing usable, in one line."""
        if self.error:
            return f"{self.error['code']}: {self.error['message']}"
        return "the model returned no text"


class LegAsk(NamedTuple):
    """One leg a stage asks for."""

    leg_id: str
    stage: str  # stage1 | stage2 | debate | chair
    role: str  # seat, critic, lens:…, judge, rebuttal, revote, chair, repair
    route: Route
    model: str  # the alias or id the run calls it by
    prompt: str
    seat_id: str | None = None
    schema: JsonSchema | None = None  # sent wherever the model's profile honours it
    to_text: Callable[[JsonObject], str] | None = None  # a structured answer as its document
    tools: Toolbox | None = None  # read-only tools, offered where the model supports tool calling

    @property
    def first(self) -> bool:
        """The wave's own leg (its claim shares the wave's room), not a repair."""
        return self.role != "repair"

    def entry(self, **fields: Any) -> LegEntry:
        """Its run.json leg entry: who it is, then `fields` in order."""
        who: dict[str, str] = {"id": self.leg_id, "stage": self.stage, "role": self.role, "model": self.model}
        if self.seat_id is not None:
            who["seat"] = self.seat_id
        return LegEntry.model_validate({**who, **{LegEntry._wire[k]: v for k, v in fields.items()}})


class LegRunner:
    def __init__(self, prep: Prepared, registry: ProviderRegistry, state: RunState, budget: Budget, *,
                 notice: Callable[[str], None], refuse: Callable[[LegAsk], None],
                 degrade: Callable[[str, str, str], None]):
        self.prep = prep
        self.registry = registry
        self.state = state
        self.budget = budget
        self.notice = notice
        self.refuse = refuse  # the ceiling had no room: the run records the refusal (a degrade)
        self.degrade = degrade  # a loss: what was lost, and why
        self._ordinals: dict[str, int] = {}

    def profile(self, route: Route) -> Profile:
        return self.registry.profile(route)

    async def run(self, ask: LegAsk) -> LegResult | None:
        """One paid call: claim the budget, run it bounded, record it. None when refused.

        The claim reserves the leg's output cap and the call sends that cap as `max_tokens`, so
        a leg can never spend more output than it reserved."""
        profile = self.profile(ask.route)
        sent_schema = ask.schema if ask.schema is not None and profile.structured_outputs else None
        toolbox = ask.tools if ask.tools is not None and ask.tools.budget > 0 and profile.tool_calls else None
        # Keyed by the stage's nominal cap, never the fitted one: a resumed run's room differs.
        key = self.key(ask, sent_schema, max_tokens=None if profile.compact else output_cap(ask.stage, ask.role),
                       tools=None if toolbox is None else toolbox.signature)
        finished = read_finished(self.prep.dir, key, damaged=lambda why: self.notice(
            f"legs/{key}.json, the saved answer of {ask.stage} {ask.role} leg {ask.leg_id} ({ask.model}), is damaged "
            f"({why}): the leg is sent again and paid for again"))
        if finished is not None:  # answered before this run was resumed: reuse it, spend already made
            self.budget.skip(ask.stage, ask.first)
            if toolbox is not None:
                toolbox.restore(finished.tool_calls or [])
            return self.reuse(ask, finished)
        tokens = prompt_tokens(len(ask.prompt))
        window = context_window(ask.route, self.prep.catalog)
        cap = self.cap_for(ask, tokens, window)
        floor = floor_cap(ask.stage, ask.role)
        if cap < floor:
            self.budget.skip(ask.stage, ask.first)
            return self.not_sent(ask, window_error(ask.route, ask.model, tokens, window or 0, floor))
        claim = self.budget.claim(wave=ask.stage, first=ask.first, prompt_tokens=tokens,
                                  pricing=route_pricing(ask.route, self.prep.catalog), cap=cap, floor=floor)
        if claim is None:
            self.refuse(ask)
            return None
        max_tokens = None if profile.compact else claim.cap
        launch: dict[str, object] = {"status": "running", "started_at": now_iso(),
                                  "reserved": round(claim.amount, 10)}  # what a resume holds if this process dies
        if max_tokens is not None:
            launch["max_tokens"] = max_tokens
        entry = ask.entry(**launch)
        self.state.launch(entry)
        # On disk before the request goes: a process killed while it is in flight leaves a record
        # a resume counts as probably billed (run.json's own write of it may be coalesced away).
        write_launch(self.prep.dir, key, attempt=self.state.attempt, entry=entry)
        self.state.caught_up()
        self.state.note()
        try:
            if toolbox is None:
                ended = await self.call(ask, sent_schema, max_tokens, entry=entry)
            else:
                def grew(reserved: float) -> None:
                    # A killed attempt's resume holds what the launch record says it reserved: every
                    # turn claimed so far, not the first turn's alone (run.json keeps the launch's own).
                    record = entry.copy_doc()
                    record.reserved = round(reserved, 10)
                    write_launch(self.prep.dir, key, attempt=self.state.attempt, entry=record)

                ended = await self.call_with_tools(ask, toolbox, sent_schema, claim, floor, grew=grew)
        except anyio.get_cancelled_exc_class():
            self.state.abandon(entry)
            self.budget.settle(claim, None)  # it may have been billed: its cost is unknown
            raise
        self.budget.settle(claim, ended.usage)
        result = LegResult(ask.leg_id, ended.status, ended.summary, ended.usage, ended.model, ended.duration_ms,
                           ended.error, truncated=ended.truncated, schema_mismatch=ended.schema_mismatch)
        self.state.settle(entry, status=result.status, completed_at=ended.completed_at, duration_ms=result.duration_ms,
                          usage=_usage(result.usage), resolved_model=result.resolved_model,
                          error=_error(result.error), truncated=result.truncated,
                          schema_mismatch=result.schema_mismatch,
                          tool_calls=None if toolbox is None else toolbox.documents())
        if result.truncated:
            self.cut(ask, claim.cap)
        # On disk before run.json says the leg finished: a kill between the two loses nothing. A
        # conversation the ceiling cut short is no answer: a resume (with more room) asks again.
        if toolbox is None or not toolbox.out_of_room:
            write_finished(self.prep.dir, self.finished(ask, key, result, entry, max_tokens))
        self.state.checkpoint()
        return result

    async def call(self, ask: LegAsk, schema: JsonSchema | None, max_tokens: int | None,
                   messages: tuple[Message, ...] | None = None,
                   tools: tuple[dict[str, object], ...] | None = None, entry: LegEntry | None = None,
                   tool_choice: Literal["auto", "none"] = "auto") -> Outcome:
        """The request, and how it ended: one leg's failure is that leg's outcome. A leg that waits
        for its agent CLI's slot shows `queued` in run.json until it starts (`entry`), and its
        duration runs from then."""
        started = time.monotonic()

        def begin() -> None:
            nonlocal started
            started = time.monotonic()
            if entry is not None:
                self.state.start(entry)

        def wait() -> None:
            if entry is not None:
                self.state.queue(entry)

        try:
            completion = await call_route(self.registry, ask.route, messages or (Message("user", ask.prompt),),
                                          timeout_s=self.prep.timeout_s, json_schema=schema, max_tokens=max_tokens,
                                          tools=tools, tool_choice=tool_choice, on_start=begin, on_queued=wait)
        except MalformedReply as exc:
            if exc.text:  # the model answered, badly: a content problem the repair loop owns
                finish = getattr(exc, "finish_reason", None)
                ended = outcome_of(started, completion=Completion(exc.text, finish, None, exc.usage or Usage()))
                ended.schema_mismatch = exc.message  # the real reason, for the repair prompt, notices and run.json
                return ended
            return outcome_of(started, error=exc)
        except anyio.get_cancelled_exc_class():
            raise
        except Exception as exc:
            return outcome_of(started, error=exc)
        ended = outcome_of(started, completion=completion)
        ended.tool_calls = completion.tool_calls
        if ask.to_text is not None and isinstance(completion.structured, dict):
            ended.summary = ask.to_text(completion.structured)
        return ended

    async def call_with_tools(self, ask: LegAsk, toolbox: Toolbox, schema: JsonSchema | None, claim: Claim,
                              floor: int, *, grew: Callable[[float], None]) -> Outcome:
        """A leg whose model may call the read-only tools: turn after turn, each tool call run here
        and its result sent back, until the model answers without calling, its budget of calls is
        spent (it is then asked for its answer: tool_choice "none"), or the ceiling has no room for
        another turn. Each further turn claims its own room (its prompt has grown), and `grew` is told
        the leg's reservation so far (its launch record is rewritten with it); the leg settles once,
        with every turn's usage summed, its duration the whole conversation's."""
        started = time.monotonic()
        messages: tuple[Message, ...] = (Message("user", ask.prompt),)
        pricing = route_pricing(ask.route, self.prep.catalog)
        usages: list[LegUsageDoc | None] = []
        turn_claims: list[Claim] = []
        try:
            while True:
                # Spent: the tools stay offered (the conversation holds their calls, which an API
                # may refuse without them) but the model is told to answer without calling.
                # (A budget of none offers no tools at all.)
                last = toolbox.spent
                offer = None if last and len(messages) == 1 else toolbox.specs
                cap = claim.cap if not turn_claims else turn_claims[-1].cap
                ended = await self.call(ask, schema, None if self.profile(ask.route).compact else cap,
                                        messages=messages, tools=offer, tool_choice="none" if last else "auto")
                usages.append(ended.usage)
                if ended.status != "complete" or not ended.tool_calls or last:
                    break
                # The model's turn, then one answer per call it made (the API wants every call answered).
                messages += (Message("assistant", ended.summary or "", tool_calls=tuple(ended.tool_calls)),)
                # Reading and searching the project is file work: off the event loop.
                messages += tuple([Message("tool", await anyio.to_thread.run_sync(toolbox.run, call), tool_call_id=call.id)
                                   for call in ended.tool_calls])
                if toolbox.spent:
                    messages += (Message("user", TOOLS_SPENT.format(budget=toolbox.budget)),)
                tokens = prompt_tokens(sum(len(m.content) + sum(len(c.arguments) for c in m.tool_calls)
                                           for m in messages))
                more = self.budget.claim(wave=ask.stage, first=False, prompt_tokens=tokens, pricing=pricing,
                                         cap=claim.cap, floor=floor)
                if more is None:  # no room for another turn: the leg ends with what it has (no answer)
                    toolbox.out_of_room = True
                    ended.summary, ended.tool_calls = "", ()
                    break
                turn_claims.append(more)
                grew(claim.amount + sum(c.amount for c in turn_claims))
        finally:
            for extra in turn_claims:
                self.budget.release(extra)
        ended.usage = sum_usage_docs(usages)
        ended.duration_ms = int((time.monotonic() - started) * 1000)
        if ended.status == "complete" and ended.tool_calls:
            ended.summary = ""  # still calling when it had to answer: no answer
            toolbox.unanswered = True
        return ended

    def cap_for(self, ask: LegAsk, tokens: int, window: int | None) -> int:
        """The leg's output cap before the ceiling has its say: the stage's, a Stage-1 review's
        lowered so every judge and the chair can read all the reviews (limits.py), and never
        more than the model's window leaves after the prompt."""
        cap = output_cap(ask.stage, ask.role)
        plan = self.prep.plan
        if ask.stage == "stage1" and ask.first and plan is not None:
            cap = min(cap, plan.review_cap)
        return cap if window is None else min(cap, window - tokens)

    def cut(self, ask: LegAsk, cap: int) -> None:
        """A reply cut at its output cap: a notice; a loss when it was a review cut at the cap a
        reader's window lowered (the review would have fit the stage's own cap)."""
        plan = self.prep.plan
        if ask.stage == "stage1" and ask.first and plan is not None and plan.cap_lowered and cap <= plan.review_cap:
            self.degrade("stage1", f"the review of {ask.model} was cut at {cap:,} tokens",
                         f"{plan.cap_reason()} (leg {ask.leg_id}); its reply is incomplete")
        else:
            self.notice(truncation_notice(ask, cap))

    def key(self, ask: LegAsk, schema: JsonSchema | None, *, max_tokens: int | None,
            tools: object = None) -> str:
        """The leg's content key, with its ordinal among legs asking the very same thing (taken
        synchronously at launch, so a resumed run numbers them in the same order)."""
        base = base_key(ask.route, seat_id=ask.seat_id, prompt=ask.prompt, schema=schema, max_tokens=max_tokens,
                        tools=tools)
        ordinal = self._ordinals.get(base, 0)
        self._ordinals[base] = ordinal + 1
        return leg_key(ask.route, seat_id=ask.seat_id, prompt=ask.prompt, schema=schema, max_tokens=max_tokens,
                       ordinal=ordinal, tools=tools)

    def not_sent(self, ask: LegAsk, error: Exception) -> LegResult:
        """A leg the run can see will not fit the model's window: recorded as failed, never sent
        (a known $0, like a provider's own refusal)."""
        started = now_iso()
        ended = outcome_of(time.monotonic(), error=error)
        self.budget.settle(None, ended.usage)
        self.state.launch(ask.entry(status=ended.status, started_at=started, completed_at=ended.completed_at,
                                    duration_ms=0, usage=_usage(ended.usage), error=_error(ended.error)))
        self.state.checkpoint()
        return LegResult(ask.leg_id, ended.status, None, ended.usage, None, 0, ended.error)

    def reuse(self, ask: LegAsk, finished: FinishedLeg) -> LegResult:
        """A leg finished by an earlier attempt of this run: no request; its recorded spend
        counts against the ceiling; run.json marks it `reused`."""
        usage = cast("LegUsageDoc", finished.usage.to_doc()) if finished.usage is not None else None
        self.budget.settle(None, usage)
        error = finished.error.to_doc() if finished.error is not None else None
        result = LegResult(ask.leg_id, finished.status, finished.text, usage, finished.resolved_model,
                           finished.duration_ms, error, truncated=finished.truncated,
                           schema_mismatch=finished.schema_mismatch)
        # When it really ran (in the earlier attempt), not when it was read back.
        fields: dict[str, object] = {"status": result.status, "started_at": finished.started_at,
                                  "completed_at": finished.completed_at, "duration_ms": result.duration_ms,
                                  "usage": finished.usage, "reused": True}
        if result.resolved_model:
            fields["resolved_model"] = result.resolved_model
        if finished.error is not None:
            fields["error"] = finished.error
        if result.truncated:
            fields["truncated"] = True
            self.cut(ask, finished.max_tokens or output_cap(ask.stage, ask.role))
        if result.schema_mismatch:
            fields["schema_mismatch"] = result.schema_mismatch
        if finished.tool_calls:
            fields["tool_calls"] = finished.tool_calls
        self.state.reuse(ask.entry(**fields))
        self.state.note()
        return result

    @staticmethod
    def finished(ask: LegAsk, key: str, result: LegResult, entry: LegEntry, max_tokens: int | None) -> FinishedLeg:
        """The leg's answer as `legs/<key>.json` keeps it."""
        doc = FinishedLeg(key=key, leg_id=ask.leg_id, stage=ask.stage, role=ask.role, model=ask.model,  # type: ignore[arg-type]
                          status=result.status, text=result.text, usage=entry.usage,  # type: ignore[arg-type]
                          resolved_model=result.resolved_model, duration_ms=result.duration_ms, error=entry.error,
                          truncated=result.truncated, started_at=entry.started_at,
                          completed_at=entry.completed_at)  # type: ignore[arg-type]
        if max_tokens is not None:
            doc.max_tokens = max_tokens
        if result.schema_mismatch:
            doc.schema_mismatch = result.schema_mismatch
        if entry.tool_calls:
            doc.tool_calls = list(entry.tool_calls)
        return doc


def sum_usage_docs(docs: list[LegUsageDoc | None]) -> LegUsageDoc | None:
    """Several turns' usage documents as one (a total cost only when every turn's is known)."""
    parsed = [usage_from_doc(d) for d in docs]
    if not parsed:
        return None
    if len(parsed) == 1:
        return docs[0]
    return sum_usage([u if u is not None else Usage() for u in parsed]).to_doc()


def _usage(doc: LegUsageDoc | None) -> LegUsage | None:
    return None if doc is None else LegUsage.model_validate(doc)


def _error(doc: dict[str, str] | None) -> ErrorRecord | None:
    return None if not doc else ErrorRecord.model_validate(doc)


def window_error(route: Route, model: str, tokens: int, window: int, floor: int) -> ContextTooLong:
    err = ContextTooLong(f"not sent: the prompt is about {tokens:,} tokens, and {model}'s {window:,}-token context "
                         f"window leaves less than the {floor:,} tokens the smallest answer needs",
                         provider=route.provider, model=route.model)
    err.refused_by_status = True  # nothing was sent, so nothing was billed: a known $0
    return err


def truncation_notice(ask: LegAsk, cap: int) -> str:
    return (f"{ask.stage} {ask.role} leg {ask.leg_id} ({ask.model}) was cut at its {cap:,}-token output cap; "
            "its reply is incomplete")


# --------------------------------------------------------------------------- stat rows


class Row(NamedTuple):
    """Who a runStats row is about, and where it sorts (stage, bench position)."""

    model: str
    role: str
    stage: int
    position: int = 0
    seat_id: str | None = None
    alias: str | None = None
    was_chair: bool = False


class StatRow(TypedDict):
    """One runStats row of the tally input (documents/tally.py's `RunStat` reads it), in the
    order its keys are written: status, durationMs and usage are always set, after the rest."""

    model: str
    role: str
    wasChair: bool
    conformance: str | None
    repairRefused: NotRequired[bool]
    waveId: NotRequired[str]
    resolvedModel: NotRequired[str]
    truncated: NotRequired[bool]
    seat: NotRequired[str]
    findingsUnverified: NotRequired[bool]
    status: NotRequired[str]
    durationMs: NotRequired[int | None]
    usage: NotRequired[LegUsageDoc | None]


# A fact about a leg learned after its row was added (`StatRows.flag`).
RowFlag = Literal["findingsUnverified"]


@dataclass
class StatRows:
    """The tally input's runStats rows, sorted by stage, bench position and launch order."""

    _rows: list[tuple[tuple[int, int, int, int], StatRow]] = field(default_factory=list)

    def add(self, row: Row, result: LegResult | None, conformance: str = "clean", repair_refused: bool = False) -> None:
        """One leg's row (`result` None: a leg that never ran)."""
        doc: StatRow = {"model": row.model, "role": row.role, "wasChair": row.was_chair,
                               "conformance": conformance}
        if repair_refused:
            doc["repairRefused"] = True
        if result is not None:
            doc["waveId"] = result.leg_id
            if result.resolved_model:
                doc["resolvedModel"] = result.resolved_model
            if result.truncated:
                doc["truncated"] = True
        if row.seat_id is not None and row.seat_id != (row.alias or row.model):
            doc["seat"] = row.seat_id
        doc["status"] = result.status if result is not None else "error"
        doc["durationMs"] = result.duration_ms if result is not None else None
        doc["usage"] = result.usage if result is not None else None
        self.add_doc(doc, stage=row.stage, position=row.position, secondary=row.role in ("repair", "chair-attempt"))

    def add_doc(self, doc: StatRow, *, stage: int, position: int, secondary: bool = False) -> None:
        self._rows.append(((stage, position, int(secondary), len(self._rows)), doc))

    def flag(self, leg_id: str, key: RowFlag) -> None:
        """Set `key: true` on the row of leg `leg_id` (a fact learned after the row was added)."""
        for _, doc in self._rows:
            if doc.get("waveId") == leg_id:
                doc[key] = True

    @property
    def rows(self) -> list[StatRow]:
        """The rows in a stable order (stage, bench position, launch order), whatever order the
        concurrent legs finished in — so the same run gives the same documents."""
        return [row for _, row in sorted(self._rows, key=lambda item: item[0])]
