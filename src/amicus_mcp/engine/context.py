"""The one interface a council stage talks to the run through.

A stage (Stage 1, Stage 2, the debate round, the chair walk) never reaches into another
stage's state or into `run.json` directly. It asks the `RunContext` to:

    plan(n)         announce n more legs about to launch (run.json `legsPlanned`)
    leg(...)        launch one paid model call: claim the budget, run it bounded, record it
    stat_row(...)   add a runStats row (the order is stable whatever order legs finish in)
    degrade(...)    record a loss (exit 2) — also a `Notice:` in human output
    notice(...)     record an informational note
    write(...)      write an artifact into the run directory (atomically; write_json too)
    stage(...)      mark a stage running / complete / skipped / error in run.json
    record(...)     set or append a top-level run.json field the stage owns
    checkpoint()    write run.json now (note() for a change that can wait a moment)

and reads the run's fixed facts from `prep` (the briefing, the seats and their routes, the
chair) and what a model supports from `profile(route)`.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import anyio

from ..council.seats import Seat
from ..fsio import atomic_write_json, atomic_write_text
from ..providers.base import Completion, Message, Usage
from ..providers.catalog import Catalog
from ..providers.cost import prompt_tokens, route_pricing
from ..providers.errors import ContextTooLong, MalformedReply
from ..providers.profiles import Profile
from ..providers.routing import ProviderRegistry, Route
from .budget import Budget, Claim, floor_cap, output_cap
from .limits import RunPlan, context_window
from .legcache import base_key, leg_key, read_finished, write_finished, write_launch
from .options import RunOptions
from .run_state import RunState
from .store import SessionStore, now_iso
from .waves import call_route, finish_leg

# run.json is written at once at stage boundaries and whenever a leg ends (nothing finished is
# ever only in memory); a burst of leg launches is written once, this long after the first.
COALESCE_S = 0.2


@dataclass
class Prepared:
    """Everything pre-flight established; nothing has been spent or written yet."""

    options: RunOptions
    run_id: str
    run_dir: Path
    store: SessionStore
    briefing: str
    seats: list[Seat]
    routes: list[Route]
    chair: str
    chair_route: Route
    dropped: list[dict[str, str]]
    catalog: Catalog
    timeout_s: float
    claude_review: str | None = None  # the validated text of Claude's review
    records: dict[str, Any] = field(default_factory=dict)  # run.json `template`, `artifact`, `pack`
    plan: RunPlan | None = None  # the waves' windows and floors (limits.py); None: nothing planned

    @property
    def lens_run(self) -> bool:
        return any(seat["role"].startswith("lens:") for seat in self.seats)

    def seat_route(self, seat_id: str) -> tuple[Seat, Route]:
        for seat, route in zip(self.seats, self.routes):
            if seat["id"] == seat_id:
                return seat, route
        raise KeyError(f"no bench seat '{seat_id}'")


@dataclass
class LegResult:
    leg_id: str
    status: str  # complete | error | timeout
    text: str | None
    usage: dict[str, Any] | None
    resolved_model: str | None
    duration_ms: int | None
    error: dict[str, str] | None
    truncated: bool = False  # cut at the output cap (`finish_reason: length`)

    @property
    def usable(self) -> bool:
        return self.status == "complete" and bool(self.text and self.text.strip())

    def why(self) -> str:
        """Why this leg gave nothing usable, in one line."""
        if self.error:
            return f"{self.error['code']}: {self.error['message']}"
        return "the model returned no text"


@dataclass(frozen=True)
class Row:
    """Who a runStats row is about, and where it sorts (stage, bench position)."""

    model: str
    role: str
    stage: int
    position: int = 0
    seat_id: str | None = None
    alias: str | None = None
    was_chair: bool = False


@dataclass
class RunContext:
    prep: Prepared
    registry: ProviderRegistry
    state: RunState = field(init=False)
    budget: Budget = field(init=False)
    notices: list[str] = field(default_factory=list)
    degraded: bool = False
    _rows: list[tuple[tuple[int, int, int, int], dict[str, Any]]] = field(default_factory=list)
    _counters: dict[str, int] = field(default_factory=dict)
    _unsaved: bool = False  # run.json is behind the document
    _wake: anyio.Event | None = None  # set when a change waits to be written

    # A resumed run starts from its first attempt's clock: every prompt embeds the date, and a
    # prompt must be byte-identical for its finished leg to be found (legcache.py).
    started_at: datetime | None = None
    resuming: bool = False
    _ordinals: dict[str, int] = field(default_factory=dict)
    # A resumed run first replays its finished legs from disk, in a burst: until it sends a
    # request, run.json writes are deferred (COALESCE_S), so no reader sees the attempt half
    # replayed ("0/3 legs") — the reopened run.json stands until the replay has caught up.
    replaying: bool = False

    def __post_init__(self) -> None:
        self.replaying = self.resuming
        plan = self.prep.plan
        self.budget = Budget(self.prep.options.max_cost, floors=plan.floors() if plan is not None else {})
        started = self.started_at or datetime.now(timezone.utc)
        self.started = started
        self.date = started.strftime("%Y-%m-%d")
        self.started_iso = started.isoformat(timespec="seconds").replace("+00:00", "Z")

    def open(self, manifest: dict[str, Any]) -> None:
        manifest["pid"] = os.getpid()
        # The clock the prompts and the tally's date were taken from (a resume reads it back).
        manifest["createdAt"] = self.started.isoformat(timespec="milliseconds").replace("+00:00", "Z")
        self.state = RunState(self.prep.run_dir, manifest)

    # -- facts --------------------------------------------------------------------------

    @property
    def run_id(self) -> str:
        return self.prep.run_id

    @property
    def exhausted(self) -> bool:
        return self.budget.exhausted

    def profile(self, route: Route) -> Profile:
        return self.registry.profile(route)

    def served_models(self, stage: str) -> set[str]:
        """The executables that actually served a stage's legs (resolved ids)."""
        return {leg["resolvedModel"] for leg in self.state.doc["legs"]
                if leg.get("stage") == stage and leg.get("resolvedModel")}

    # -- records ------------------------------------------------------------------------

    def next_id(self, suffix: str) -> str:
        self._counters[suffix] = self._counters.get(suffix, 0) + 1
        return f"{self.run_id}-{suffix}{self._counters[suffix]}"

    def write(self, name: str, text: str) -> None:
        atomic_write_text(self.prep.run_dir / name, text)

    def write_json(self, name: str, doc: Any) -> None:
        atomic_write_json(self.prep.run_dir / name, doc)

    def checkpoint(self) -> None:
        if self.replaying:
            self._defer()  # mid-replay: written once caught up, never half-replayed
            return
        self._write()

    def _write(self) -> None:
        self._unsaved = False
        self.state.checkpoint()

    def _defer(self) -> None:
        self._unsaved = True
        if self._wake is not None:
            self._wake.set()

    def caught_up(self) -> None:
        """A resumed run is about to send its first request: its replay of finished legs is over
        (the wave's other legs replay in the same instant, so run.json is written a moment on)."""
        self.replaying = False

    def note(self) -> None:
        """A change run.json should show soon, not this instant (see COALESCE_S)."""
        if self._wake is not None:
            self._defer()
        else:  # no writer is running (a run driven without `keep_saved`): write now
            self.checkpoint()

    async def keep_saved(self) -> None:
        """Write what `note()` deferred, at most COALESCE_S after it; runs beside the stages."""
        while True:
            self._wake = anyio.Event()
            await self._wake.wait()
            await anyio.sleep(COALESCE_S)
            if self._unsaved:
                self._write()

    def stage(self, name: str, status: str, **extra: Any) -> None:
        self.state.stage(name, status, save=False, **extra)
        self.checkpoint()

    def record(self, key: str, value: Any) -> None:
        self.state.doc[key] = value

    def append(self, key: str, value: Any) -> None:
        self.state.doc.setdefault(key, []).append(value)

    def notice(self, text: str) -> None:
        self.notices.append(text)

    def degrade(self, channel: str, what: str, why: str) -> None:
        self.degraded = True
        self.state.degrade(channel, what, why)
        self.notices.append(f"{what}: {why}")

    def refuse(self, leg_id: str, model: str, stage: str) -> None:
        self.append("budgetRefusals", {"waveId": leg_id, "models": [model], "reason": "max-cost", "stage": stage,
                                       "at": now_iso()})
        self.degrade("budget", f"{stage} launch for {model} refused", "the --max-cost ceiling has no room left for it")

    def stat_row(self, row: Row, result: LegResult | None, conformance: str = "clean",
                 repair_refused: bool = False) -> None:
        doc: dict[str, Any] = {"model": row.model, "role": row.role, "wasChair": row.was_chair,
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
        self.add_row(doc, stage=row.stage, position=row.position, secondary=row.role in ("repair", "chair-attempt"))

    def add_row(self, doc: dict[str, Any], *, stage: int, position: int, secondary: bool = False) -> None:
        self._rows.append(((stage, position, int(secondary), len(self._rows)), doc))

    @property
    def run_stats(self) -> list[dict[str, Any]]:
        """runStats rows in a stable order (stage, bench position, launch order), whatever
        order the concurrent legs finished in — so the same run gives the same documents."""
        return [row for _, row in sorted(self._rows, key=lambda item: item[0])]

    # -- legs ---------------------------------------------------------------------------

    def plan(self, legs: int, *, wave: str) -> None:
        """Announce `legs` more legs of `wave` about to launch: they share the ceiling's room
        (budget.py); run.json `legsPlanned` is the legs launched so far plus those planned,
        never less than before (repairs are counted as they launch)."""
        self.budget.open_wave(wave, legs)
        doc = self.state.doc
        doc["legsPlanned"] = max(doc.get("legsPlanned", 0), len(doc["legs"]) + legs)
        self.note()

    async def leg(self, *, leg_id: str, stage: str, role: str, route: Route, model: str, prompt: str,
                  seat_id: str | None = None, schema: dict[str, Any] | None = None,
                  to_text: Callable[[dict[str, Any]], str] | None = None) -> LegResult | None:
        """One paid call: claim the budget, run it bounded, record it. None when refused.

        The claim reserves the leg's output cap and the call sends that cap as `max_tokens`, so
        a leg can never spend more output than it reserved. The cap is the stage's, lowered to
        what the model's context window leaves after the prompt and to the leg's share of the
        ceiling (budget.py); a leg whose window cannot hold its floor cap is not sent. The
        embedded model keeps its own configured bound (its claim is $0 whatever the length)."""
        nominal = output_cap(stage, role)
        structured = schema is not None and self.profile(route).structured_outputs
        sent_schema = schema if structured else None
        compact = self.profile(route).compact
        # Keyed by the stage's nominal cap, never the fitted one: a resumed run's room differs.
        key = self.leg_key(route, seat_id=seat_id, prompt=prompt, schema=sent_schema,
                           max_tokens=None if compact else nominal)
        first = role != "repair"
        finished = read_finished(self.prep.run_dir, key, damaged=lambda why: self.notice(
            f"legs/{key}.json, the saved answer of {stage} {role} leg {leg_id} ({model}), is damaged ({why}): "
            "the leg is sent again and paid for again"))
        if finished is not None:  # answered before this run was resumed: reuse it, spend already made
            self.budget.skip(stage, first)
            return self.reuse(finished, leg_id=leg_id, stage=stage, role=role, model=model, seat_id=seat_id)
        tokens = prompt_tokens(len(prompt))
        window = context_window(route, self.prep.catalog)
        cap = self.cap_for(stage, role, tokens, window)
        if cap < floor_cap(stage, role):
            self.budget.skip(stage, first)
            return self.not_sent(leg_id=leg_id, stage=stage, role=role, model=model, seat_id=seat_id,
                                 error=window_error(route, model, tokens, window or 0, floor_cap(stage, role)))
        claim: Claim | None = self.budget.claim(wave=stage, first=first, prompt_tokens=tokens,
                                                pricing=route_pricing(route, self.prep.catalog), cap=cap,
                                                floor=floor_cap(stage, role))
        if claim is None:
            self.refuse(leg_id, model, stage)
            return None
        cap = claim.cap
        max_tokens = None if compact else cap
        entry = self.new_entry(leg_id=leg_id, stage=stage, role=role, model=model, seat_id=seat_id)
        entry["reserved"] = round(claim.amount, 10)  # what a resume keeps holding if this process dies
        if max_tokens is not None:
            entry["maxTokens"] = max_tokens
        self.state.doc["legs"].append(entry)
        # On disk before the request goes: a process killed while it is in flight leaves a record
        # a resume counts as probably billed (run.json's own write of it may be coalesced away).
        write_launch(self.prep.run_dir, key, attempt=len(self.state.doc.get("resumes") or []), entry=entry)
        self.caught_up()
        self.note()
        started = time.monotonic()
        doc: dict[str, Any] = {"modelInput": model}
        try:
            completion = await call_route(self.registry, route, (Message("user", prompt),),
                                          timeout_s=self.prep.timeout_s, json_schema=sent_schema,
                                          max_tokens=max_tokens)
        except anyio.get_cancelled_exc_class():
            entry["status"] = "aborted"
            self.budget.settle(claim, None)  # it may have been billed: its cost is unknown
            raise
        except MalformedReply as exc:
            if exc.text:  # the model answered, badly: a content problem the repair loop owns
                finish = getattr(exc, "finish_reason", None)
                finish_leg(doc, started, completion=Completion(exc.text, finish, None, exc.usage or Usage()))
            else:
                finish_leg(doc, started, error=exc)
        except Exception as exc:  # one leg's failure is that leg's outcome
            finish_leg(doc, started, error=exc)
        else:
            finish_leg(doc, started, completion=completion)
            if to_text is not None and isinstance(completion.structured, dict):
                doc["summary"] = to_text(completion.structured)
        self.budget.settle(claim, doc.get("usage"))
        result = LegResult(leg_id, doc["status"], doc.get("summary"), doc.get("usage"), doc.get("model"),
                           doc.get("durationMs"), doc.get("error"))
        entry.update(status=result.status, completedAt=doc["completedAt"], durationMs=result.duration_ms,
                     usage=result.usage)
        if result.resolved_model:
            entry["resolvedModel"] = result.resolved_model
        if result.error:
            entry["error"] = result.error
        if doc.get("truncated"):
            result.truncated = entry["truncated"] = True
            self.notice(truncation_notice(stage, role, leg_id, model, cap))
        # On disk before run.json says the leg finished: a kill between the two loses nothing.
        write_finished(self.prep.run_dir, key, leg_id=leg_id, stage=stage, role=role, model=model,
                       result={"status": result.status, "text": result.text, "usage": result.usage,
                               "resolvedModel": result.resolved_model, "durationMs": result.duration_ms,
                               "error": result.error, "truncated": result.truncated, "maxTokens": max_tokens,
                               "startedAt": entry["startedAt"], "completedAt": entry["completedAt"]})
        self.checkpoint()
        return result

    def cap_for(self, stage: str, role: str, tokens: int, window: int | None) -> int:
        """The leg's output cap before the ceiling has its say: the stage's, a Stage-1 review's
        lowered so every judge and the chair can read all the reviews (limits.py), and never
        more than the model's window leaves after the prompt."""
        cap = output_cap(stage, role)
        plan = self.prep.plan
        if stage == "stage1" and role != "repair" and plan is not None:
            cap = min(cap, plan.review_cap)
        return cap if window is None else min(cap, window - tokens)

    def not_sent(self, *, leg_id: str, stage: str, role: str, model: str, seat_id: str | None,
                 error: Exception) -> LegResult:
        """A leg the run can see will not fit the model's window: recorded as failed, never sent
        (a known $0, like a provider's own refusal)."""
        entry = self.new_entry(leg_id=leg_id, stage=stage, role=role, model=model, seat_id=seat_id)
        doc: dict[str, Any] = {}
        finish_leg(doc, time.monotonic(), error=error)
        self.budget.settle(None, doc.get("usage"))
        entry.update(status=doc["status"], completedAt=doc["completedAt"], durationMs=0, usage=doc.get("usage"),
                     error=doc["error"])
        self.state.doc["legs"].append(entry)
        self.checkpoint()
        return LegResult(leg_id, doc["status"], None, doc.get("usage"), None, 0, doc["error"])

    def leg_key(self, route: Route, *, seat_id: str | None, prompt: str, schema: dict[str, Any] | None,
                max_tokens: int | None) -> str:
        """The leg's content key, with its ordinal among legs asking the very same thing (taken
        synchronously at launch, so a resumed run numbers them in the same order)."""
        base = base_key(route, seat_id=seat_id, prompt=prompt, schema=schema, max_tokens=max_tokens)
        ordinal = self._ordinals.get(base, 0)
        self._ordinals[base] = ordinal + 1
        return leg_key(route, seat_id=seat_id, prompt=prompt, schema=schema, max_tokens=max_tokens, ordinal=ordinal)

    def new_entry(self, *, leg_id: str, stage: str, role: str, model: str, seat_id: str | None) -> dict[str, Any]:
        entry: dict[str, Any] = {"id": leg_id, "stage": stage, "role": role, "model": model,
                                 "status": "running", "startedAt": now_iso()}
        if seat_id is not None:
            entry["seat"] = seat_id
        return entry

    def reuse(self, finished: dict[str, Any], *, leg_id: str, stage: str, role: str, model: str,
              seat_id: str | None) -> LegResult:
        """A leg finished by an earlier attempt of this run: no request; its recorded spend
        counts against the ceiling; run.json marks it `reused`."""
        self.budget.settle(None, finished.get("usage"))
        result = LegResult(leg_id, finished["status"], finished.get("text"), finished.get("usage"),
                           finished.get("resolvedModel"), finished.get("durationMs"), finished.get("error"),
                           truncated=bool(finished.get("truncated")))
        entry = self.new_entry(leg_id=leg_id, stage=stage, role=role, model=model, seat_id=seat_id)
        # When it really ran (in the earlier attempt), not when it was read back.
        entry.update(status=result.status, startedAt=finished["startedAt"], completedAt=finished["completedAt"],
                     durationMs=result.duration_ms, usage=result.usage, reused=True)
        if result.resolved_model:
            entry["resolvedModel"] = result.resolved_model
        if result.error:
            entry["error"] = result.error
        if result.truncated:
            entry["truncated"] = True
            sent = finished.get("maxTokens")
            self.notice(truncation_notice(stage, role, leg_id, model, sent if isinstance(sent, int) else output_cap(stage, role)))
        self.state.doc["legs"].append(entry)
        resumes = self.state.doc.get("resumes")
        if resumes:
            resumes[-1]["legsReused"] += 1
        self.note()
        return result


def window_error(route: Route, model: str, tokens: int, window: int, floor: int) -> ContextTooLong:
    err = ContextTooLong(f"not sent: the prompt is about {tokens:,} tokens, and {model}'s {window:,}-token context "
                         f"window leaves less than the {floor:,} tokens the smallest answer needs",
                         provider=route.provider, model=route.model)
    err.refused_by_status = True  # nothing was sent, so nothing was billed: a known $0
    return err


def truncation_notice(stage: str, role: str, leg_id: str, model: str, cap: int) -> str:
    return f"{stage} {role} leg {leg_id} ({model}) was cut at its {cap:,}-token output cap; its reply is incomplete"
