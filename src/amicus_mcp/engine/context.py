"""The one interface a council stage talks to the run through.

A stage (Stage 1, Stage 2, the debate round, the chair walk) never reaches into another
stage's state or into `run.json` directly. It asks the `RunContext` to:

    plan(n)         announce n more legs about to launch (run.json `legsPlanned`)
    leg(...)        launch one paid model call (the leg runner, legs.py)
    stat_row(...)   add a runStats row (the order is stable whatever order legs finish in)
    degrade(...)    record a loss (exit 2) — also a `Notice:` in human output
    notice(...)     record an informational note
    write(...)      write an artifact into the run directory (atomically; write_json too)
    stage(...)      mark a stage running / complete / skipped / error in run.json

and reads the run's fixed facts from `prep` (the briefing, the seats and their routes, the
chair) and what a model supports from `profile(route)`. What else a stage records on run.json
(the label map, a chair attempt, the debate's summary) it asks of `state`, the run-state owner
(run_state.py), which alone changes the manifest and decides when it is written.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from ..documents.run import RunManifest
from ..providers.profiles import Profile
from ..providers.routing import ProviderRegistry, Route
from ..schemas import JsonObject, JsonSchema
from .budget import Budget
from .legs import LegAsk, LegResult, LegRunner, Row, StatRows
from .preflight import Prepared
from .run_state import RunState
from .source_tools import Toolbox

__all__ = ["RunContext"]


@dataclass
class RunContext:
    prep: Prepared
    registry: ProviderRegistry
    manifest: RunManifest  # the run's first run.json (manifest.py), taken over by the run-state owner
    # A resumed run starts from its first attempt's clock: every prompt embeds the date, and a
    # prompt must be byte-identical for its finished leg to be found (legcache.py).
    started_at: datetime | None = None
    resuming: bool = False
    notices: list[str] = field(default_factory=list)
    degraded: bool = False
    rows: StatRows = field(default_factory=StatRows)
    _counters: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        plan = self.prep.plan
        self.budget = Budget(self.prep.options.max_cost, floors=plan.floors() if plan is not None else {})
        self.state = RunState(self.prep.dir, self.manifest)
        self.state.replaying = self.resuming
        self.runner = LegRunner(self.prep, self.registry, self.state, self.budget, notice=self.notice,
                                refuse=self.refuse, degrade=self.degrade)
        started = self.started_at or datetime.now(timezone.utc)
        self.started = started
        self.date = started.strftime("%Y-%m-%d")
        self.started_iso = started.isoformat(timespec="seconds").replace("+00:00", "Z")

    def open(self, pid: int) -> None:
        """This process runs the run from here (the clock the prompts and the tally's date were
        taken from is recorded: a resume reads it back)."""
        self.state.open(pid=pid, created_at=self.started.isoformat(timespec="milliseconds").replace("+00:00", "Z"))

    # -- facts --------------------------------------------------------------------------

    @property
    def run_id(self) -> str:
        return self.prep.run_id

    @property
    def exhausted(self) -> bool:
        return self.budget.exhausted

    def profile(self, route: Route) -> Profile:
        return self.registry.profile(route)

    # -- records ------------------------------------------------------------------------

    def next_id(self, suffix: str) -> str:
        self._counters[suffix] = self._counters.get(suffix, 0) + 1
        return f"{self.run_id}-{suffix}{self._counters[suffix]}"

    def write(self, name: str, text: str) -> None:
        self.prep.dir.write_text(name, text)

    def write_json(self, name: str, doc: Any) -> None:
        self.prep.dir.write_json(name, doc)

    def stage(self, name: str, status: str, **extra: Any) -> None:
        self.state.stage(name, status, **extra)

    def checkpoint(self) -> None:
        self.state.checkpoint()

    def notice(self, text: str) -> None:
        self.notices.append(text)

    def degrade(self, channel: str, what: str, why: str) -> None:
        self.degraded = True
        self.state.degrade(channel, what, why)
        self.notices.append(f"{what}: {why}")

    def refuse(self, ask: LegAsk) -> None:
        self.state.refuse(ask.leg_id, ask.model, ask.stage)
        self.degrade("budget", f"{ask.stage} launch for {ask.model} refused",
                     "the --max-cost ceiling has no room left for it")

    def stat_row(self, row: Row, result: LegResult | None, conformance: str = "clean",
                 repair_refused: bool = False) -> None:
        self.rows.add(row, result, conformance, repair_refused)

    # -- legs ---------------------------------------------------------------------------

    def plan(self, legs: int, *, wave: str) -> None:
        """Announce `legs` more legs of `wave` about to launch: they share the ceiling's room
        (budget.py), and run.json plans them beside the later waves' legs pre-flight planned."""
        self.budget.open_wave(wave, legs)
        plan = self.prep.plan
        self.state.plan(legs, ahead=plan.legs_after(wave) if plan is not None else 0)

    def plan_none(self) -> None:
        """Nothing more will launch (a stage skipped at the ceiling): the planned total is what ran."""
        self.state.plan(0)

    async def leg(self, *, leg_id: str, stage: str, role: str, route: Route, model: str, prompt: str,
                  seat_id: str | None = None, schema: JsonSchema | None = None,
                  to_text: Callable[[JsonObject], str] | None = None,
                  tools: Toolbox | None = None) -> LegResult | None:
        """One paid call (legs.py); None when the ceiling refused it."""
        return await self.runner.run(LegAsk(leg_id=leg_id, stage=stage, role=role, route=route, model=model,
                                            prompt=prompt, seat_id=seat_id, schema=schema, to_text=to_text,
                                            tools=tools))
