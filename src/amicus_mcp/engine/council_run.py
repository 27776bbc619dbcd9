"""`amicus council run`: the headless council — Stage 1 → Stage 2 → tally → chair → verdict.

One command, no Claude in the loop. Stage 4 (accept/deny) stays human: the engine writes an
*undecided* verdict and never invents a decision.

    pre-flight   every check before any spend (exit 1 through the error envelope)
    Stage 1      every seat reviews the composed briefing; each review is validated, with at
                 most two repair re-prompts that may not change its findings count; a review
                 that still fails is kept `unstructured` with no findings
    quorum       fewer than two usable reviews → COUNCIL_QUORUM (exit 1)
    Stage 2      one anonymized bundle to every judge; at most two repairs per judge; judges
                 that still fail are dropped (below two → `judged: false`, exit 2)
    tally        the pure tally; the ledger is appended once, at the end
    chair        requested chair → one retry → the best peers-only street-cred model from the
                 ledger that is not on the bench → give up (`overallVerdict: null`); one repair
                 for a missing VERDICT line
    outputs      tally-input.json, tally.json, verdict.json, report.html, run.json

`run.json` is checkpointed after every leg, stage and chair attempt. Exit codes: 0 clean;
1 error; 2 degraded (a dead seat, a seat whose findings were lost to an unstructured review, a
dropped judge, no chair verdict, a refused launch, an inexact cost under a ceiling); 130/143
aborted by SIGINT/SIGTERM.
"""

from __future__ import annotations

import json
import os
import random
import re
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import anyio

from ..council import briefings
from ..council.anonymize import Anonymized, JudgeAnswer, StageOneReview, anonymize, strip_findings_block, tally_input
from ..council.findings import count_attempted_findings, read_last_json_block, validate_findings
from ..council.ledger import append_ledger, derive_stats, read_ledger
from ..council.parse import chair_sections, parse_judge_output, parse_verdict_line
from ..council.report import build_report
from ..council.seats import Seat, build_seats, repeats_alias, seat_file_stem
from ..council.tally import tally
from ..council.verdict import build_verdict
from ..config import load_config
from ..errors import AmicusError, BadArgs, ClaudeReviewInvalid, CostExceeded, CouncilQuorum
from ..fsio import atomic_write_json, atomic_write_text, read_text
from ..providers.base import Completion, Message, Usage
from ..providers.errors import MalformedReply
from ..providers.catalog import Catalog
from ..providers.cost import leg_estimate, route_pricing
from ..providers.routing import ProviderRegistry, Route, resolve_model
from .briefing_inputs import apply_pack, blame_pack, check_briefing_source, compose_briefing, is_template_file
from .budget import Budget, Claim, output_cap
from .debate_round import DebateRound
from .preflight import (check_gateway, check_material, check_ready, check_timeout_minutes, dropped_notice,
                        prepare_bench, read_prompt_file)
from .run_state import RunState, read_run, write_pointer
from .store import SessionStore, new_task_id, now_iso, resolve_project
from .waves import call_route, finish_leg

DEFAULT_CHAIR = "deepseek"
# Offline there is no independent model: a bench made only of the embedded model is chaired
# by that same model under its explicit name, and the run says so.
LOCAL_CHAIR = "local/gemma3-270m-q4_k_m"
DEFAULT_TIMEOUT_MIN = 15.0
MAX_REPAIRS = 2


@dataclass
class RunOptions:
    """A run's options. None means "not typed": a pack (`pack`) may then supply the value,
    else pre-flight applies the default (`briefing_inputs.apply_pack`, then `prepare`)."""

    prompt_file: str | None = None
    models: Sequence[str] | None = None
    council: str | None = None
    chair: str | None = None  # default: DEFAULT_CHAIR, or LOCAL_CHAIR for an all-local bench
    out_dir: str | None = None
    max_cost: float | None = None
    timeout_min: float | None = None  # default DEFAULT_TIMEOUT_MIN
    gateway: str | None = None
    cost_gate: bool = True
    validate: bool = True
    project: str | None = None
    run_id: str | None = None
    critic: str | None = None  # a bench member that gets the adversarial brief
    lenses: Sequence[str] | None = None  # one expert lens per seat, assigned at random
    debate: bool | None = None  # Stage 2.5: one rebuttal round (default off)
    claude_review: str | None = None  # a file with Claude's own review, judged but never judging
    template: str | None = None  # a briefing template (name or file) composed with `artifact`
    artifact: str | None = None  # the file the council reviews, for a template
    vars: Mapping[str, str] | None = None  # the template's variables
    pack: str | None = None  # a policy pack (name or file) supplying the untyped options
    pack_record: dict[str, Any] | None = None  # set by apply_pack: run.json `pack`
    pack_fields: tuple[str, ...] = ()  # set by apply_pack: the options the pack supplied
    allow_secrets: bool = False  # send material that looks like it holds a secret (pre-flight refuses it)


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

    @property
    def lens_run(self) -> bool:
        return any(seat["role"].startswith("lens:") for seat in self.seats)


# --------------------------------------------------------------------------- pre-flight

async def prepare(options: RunOptions) -> Prepared:
    options = apply_pack(options)
    options = replace(options, timeout_min=DEFAULT_TIMEOUT_MIN if options.timeout_min is None else options.timeout_min,
                      debate=bool(options.debate))
    check_briefing_source(options)
    if options.template and is_template_file(options.template):  # the detached child runs elsewhere
        options = replace(options, template=str(Path(options.template).expanduser().resolve()))
    records: dict[str, Any] = {"pack": options.pack_record} if options.pack_record else {}
    if options.template:
        composed = compose_briefing(options)
        briefing = check_material(composed.text, what=f"the briefing composed from template '{options.template}'",
                                  allow_secrets=options.allow_secrets)
        records.update(composed.records())
    else:
        briefing = read_prompt_file(options.prompt_file, allow_secrets=options.allow_secrets)
    with blame_pack(options, "gateway"):
        gateway = check_gateway(options.gateway)
    with blame_pack(options, "timeout_min"):
        timeout_s = check_timeout_minutes(options.timeout_min)
    if options.max_cost is not None and not options.max_cost > 0:
        raise BadArgs(f"--max-cost must be a positive number of dollars, got {options.max_cost}", hint="e.g. --max-cost 2.00")
    with blame_pack(options, "bench", "gateway"):
        bench = await prepare_bench(options.models, options.council, gateway=gateway, minimum=2,
                                    cost_gate=options.cost_gate, validate=options.validate)
    all_local = all(r.kind == "embedded" for r in bench.routes)
    chair = options.chair or (LOCAL_CHAIR if all_local else DEFAULT_CHAIR)
    with blame_pack(options, "chair", "bench"):
        chair_route = resolve_model(chair, gateway=gateway)
        check_ready(chair, chair_route, load_config())
        bench_ids = {m for m in bench.models} | {r.canonical for r in bench.routes}
        if chair in bench_ids or chair_route.canonical in bench_ids:
            raise BadArgs(
                f"the chair '{chair}' is also a bench seat",
                hint="the chair must be independent of the bench: pick another --chair",
            )
    with blame_pack(options, "critic", "lenses", "bench"):
        seats = seat_table(bench.models, critic=options.critic, lenses=options.lenses)
    claude_review = read_claude_review(options.claude_review) if options.claude_review else None
    if claude_review is not None:  # the bench reads it too: it is material like the briefing
        claude_review = check_material(claude_review, what=f"Claude's review '{options.claude_review}'",
                                       allow_secrets=options.allow_secrets)
    store = SessionStore(resolve_project(options.project))
    run_id = options.run_id or new_task_id()
    store.task_dir(run_id)  # validates a caller-supplied id
    run_dir = Path(options.out_dir or f"council-{run_id}").resolve()
    _check_run_dir(run_dir, run_id)
    return Prepared(
        options=options, run_id=run_id, run_dir=run_dir, store=store, briefing=briefing,
        seats=seats, routes=bench.routes, chair=chair, chair_route=chair_route,
        dropped=bench.dropped, catalog=bench.catalog, timeout_s=timeout_s, claude_review=claude_review,
        records=records,
    )


_LENS = re.compile(r"^[a-z0-9][a-z0-9-]{0,47}$")


def seat_table(models: Sequence[str], *, critic: str | None, lenses: Sequence[str] | None) -> list[Seat]:
    """The bench's seats with their roles: one critic seat, or one random lens per seat."""
    if critic and lenses:
        raise BadArgs("--critic and --lenses cannot be combined", hint="pick one optional element for the bench's briefs")
    roles = ["seat"] * len(models)
    lens_of: list[str | None] = [None] * len(models)
    if critic:
        if critic not in models:
            raise BadArgs(f"the critic '{critic}' is not a bench seat", hint=f"--critic must name one of: {', '.join(models)}")
        roles[list(models).index(critic)] = "critic"  # the first seat of that alias
    if lenses:
        slugs = [lens.strip() for lens in lenses]
        if len(slugs) != len(models):
            raise BadArgs(f"--lenses has {len(slugs)} lens(es) for {len(models)} seats",
                          hint="give exactly one distinct lens per seat")
        bad = [lens for lens in slugs if not _LENS.match(lens)]
        if bad or len(set(slugs)) != len(slugs):
            raise BadArgs(f"lenses must be distinct lowercase slugs like security-architect; got {', '.join(slugs)}",
                          hint="letters, digits and '-', at most 48 characters")
        random.SystemRandom().shuffle(slugs)  # the lens↔seat assignment is random and private
        roles = [f"lens:{lens}" for lens in slugs]
        lens_of = list(slugs)
    return build_seats(models, roles=roles, lenses=lens_of)


def read_claude_review(path: str) -> str:
    """Claude's own review, validated like any other — before anything is spent."""
    try:
        text = read_text(path, what="Claude's review file")
    except AmicusError as err:
        raise ClaudeReviewInvalid(err.message, hint=err.hint) from None
    result = validate_findings(text)
    if not result["ok"]:
        problems = "; ".join(f"{e['code']}: {e['detail']}" for e in result["errors"][:3])
        raise ClaudeReviewInvalid(f"Claude's review '{path}' is not a valid review: {problems}",
                                  hint="end it with a ```json block {overall, findings[]}; check it with 'amicus council validate'")
    return text


def initial_manifest(prep: Prepared) -> dict[str, Any]:
    """The `running` run.json a run starts from (the MCP handler seeds the same document)."""
    options = prep.options
    doc: dict[str, Any] = {
        "schemaVersion": 2,
        "type": "council-run",
        "runId": prep.run_id,
        "status": "running",
        "stages": [],
        "bench": [seat["alias"] for seat in prep.seats],
        "chair": prep.chair,
        "critic": next((seat["alias"] for seat in prep.seats if seat["role"] == "critic"), None),
        "lenses": sorted(seat["lens"] for seat in prep.seats if seat["lens"]) or None,
        "labelMap": None,
        "seats": prep.seats,
        "options": {"timeout": options.timeout_min, "maxCost": options.max_cost,
                    "gateway": options.gateway or "auto", "outDir": str(prep.run_dir)},
        "usage": None,
        "legs": [],
        "legsPlanned": len(prep.seats),  # Stage 1; each later stage adds its legs when it is planned
        "chairAttempts": [],
        "createdAt": now_iso(),
    }
    if prep.dropped:
        doc["droppedMembers"] = prep.dropped
    doc.update(prep.records)
    if options.debate:
        doc["debate"] = {"enabled": True, "outcome": "nothing-to-debate"}
    return doc


def _check_run_dir(run_dir: Path, run_id: str) -> None:
    if run_dir.exists() and not run_dir.is_dir():
        raise BadArgs(f"--out-dir '{run_dir}' exists and is not a directory", hint="name a new folder")
    manifest = run_dir / "run.json"
    if manifest.exists():
        try:
            other = read_run(run_dir).get("runId")
        except AmicusError:
            other = None
        if other != run_id:
            raise BadArgs(f"--out-dir '{run_dir}' already holds another run ({other or 'unreadable run.json'})",
                          hint="pick a new --out-dir; a run directory is never reused")


# --------------------------------------------------------------------------- the run

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


@dataclass
class SeatOutcome:
    seat: Seat
    route: Route
    review: StageOneReview | None = None  # None: the seat produced no usable review
    conformance: str = "clean"
    first: LegResult | None = None


@dataclass
class CouncilRun:
    prep: Prepared
    registry: ProviderRegistry
    state: RunState = field(init=False)
    budget: Budget = field(init=False)
    rows: list[tuple[tuple[int, int, int, int], dict[str, Any]]] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    degraded: bool = False
    _counters: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        p = self.prep
        self.budget = Budget(p.options.max_cost)
        started = datetime.now(timezone.utc)
        self.date = started.strftime("%Y-%m-%d")
        self.started_iso = started.isoformat(timespec="seconds").replace("+00:00", "Z")
        doc = initial_manifest(p)
        doc["pid"] = os.getpid()
        self.state = RunState(p.run_dir, doc)
        self.judge_prose: dict[str, str] = {}  # seat id → the judge's final Stage-2 text
        if p.dropped:
            self.notices.append(dropped_notice(p.dropped))
        self.chair_text: str | None = None  # the delivering chair's prose (synthesis, questions)
        if p.chair_route.kind == "embedded" and any(r.kind == "embedded" for r in p.routes):
            self.notices.append("the chair runs on the same embedded model as the bench: offline there is no "
                                "independent model, so this verdict is not independent of the reviews")

    # -- plumbing -----------------------------------------------------------------------

    def next_id(self, suffix: str) -> str:
        self._counters[suffix] = self._counters.get(suffix, 0) + 1
        return f"{self.prep.run_id}-{suffix}{self._counters[suffix]}"

    def write(self, name: str, text: str) -> None:
        atomic_write_text(self.prep.run_dir / name, text)

    def degrade(self, channel: str, what: str, why: str) -> None:
        self.degraded = True
        self.state.degrade(channel, what, why)
        self.notices.append(f"{what}: {why}")

    def plan(self, legs: int) -> None:
        """Announce `legs` more legs about to launch: run.json `legsPlanned` is the legs launched
        so far plus those planned, never less than before (repairs are counted as they launch)."""
        doc = self.state.doc
        doc["legsPlanned"] = max(doc.get("legsPlanned", 0), len(doc["legs"]) + legs)
        self.state.checkpoint()

    def refuse(self, leg_id: str, model: str, stage: str) -> None:
        self.state.doc.setdefault("budgetRefusals", []).append(
            {"waveId": leg_id, "models": [model], "reason": "max-cost", "stage": stage, "at": now_iso()})
        self.degrade("budget", f"{stage} launch for {model} refused", "the --max-cost ceiling has no room left for it")

    async def leg(self, *, leg_id: str, stage: str, role: str, route: Route, model: str,
                  prompt: str, seat_id: str | None = None,
                  schema: dict[str, Any] | None = None,
                  to_text: Callable[[dict[str, Any]], str] | None = None) -> LegResult | None:
        """One paid call: claim the budget, run it bounded, record it. None when refused.

        The claim reserves the stage's output cap and the call sends that cap as `max_tokens`,
        so a leg can never spend more output than it reserved. The embedded model keeps its own
        configured bound (its claim is $0 whatever the length)."""
        cap = output_cap(stage, role)
        estimate = leg_estimate(len(prompt), route_pricing(route, self.prep.catalog), output_tokens=cap)
        claim: Claim | None = self.budget.claim(estimate)
        if claim is None:
            self.refuse(leg_id, model, stage)
            return None
        structured = schema is not None and route.kind == "embedded"
        entry: dict[str, Any] = {"id": leg_id, "stage": stage, "role": role, "model": model,
                                 "status": "running", "startedAt": now_iso()}
        if seat_id is not None:
            entry["seat"] = seat_id
        self.state.doc["legs"].append(entry)
        self.state.checkpoint()
        started = time.monotonic()
        doc: dict[str, Any] = {"modelInput": model}
        try:
            completion = await call_route(self.registry, route, (Message("user", prompt),),
                                          timeout_s=self.prep.timeout_s, json_schema=schema if structured else None,
                                          max_tokens=None if route.kind == "embedded" else cap)
        except anyio.get_cancelled_exc_class():
            entry["status"] = "aborted"
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
            if structured and to_text is not None and isinstance(completion.structured, dict):
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
            self.notices.append(f"{stage} {role} leg {leg_id} ({model}) was cut at its {cap:,}-token output cap; "
                                "its reply is incomplete")
        self.state.checkpoint()
        return result

    @property
    def run_stats(self) -> list[dict[str, Any]]:
        """runStats rows in a stable order (stage, bench position, launch order), whatever
        order the concurrent legs finished in — so the same run gives the same documents."""
        return [row for _, row in sorted(self.rows, key=lambda item: item[0])]

    def stat_row(self, *, model: str, role: str, result: LegResult | None, conformance: str = "clean",
                 was_chair: bool = False, seat_id: str | None = None, alias: str | None = None,
                 stage: int = 0, position: int = 0, repairRefused: bool = False) -> None:
        row: dict[str, Any] = {"model": model, "role": role, "wasChair": was_chair, "conformance": conformance}
        if repairRefused:
            row["repairRefused"] = True
        if result is not None:
            row["waveId"] = result.leg_id
            if result.resolved_model:
                row["resolvedModel"] = result.resolved_model
            if result.truncated:
                row["truncated"] = True
        if seat_id is not None and seat_id != (alias or model):
            row["seat"] = seat_id
        row["status"] = result.status if result is not None else "error"
        row["durationMs"] = result.duration_ms if result is not None else None
        row["usage"] = result.usage if result is not None else None
        secondary = role in ("repair", "chair-attempt")
        self.rows.append(((stage, position, int(secondary), len(self.rows)), row))

    # -- the stages ---------------------------------------------------------------------

    async def run(self) -> tuple[dict[str, Any], int]:
        p = self.prep
        p.run_dir.mkdir(parents=True, exist_ok=True)
        self.state.checkpoint()
        write_pointer(p.store, p.run_id, p.run_dir)
        try:
            return await self._stages()
        except (CouncilQuorum, CostExceeded) as err:
            self.state.doc["usage"] = self.budget.usage_block()
            self.state.finalize(1, error={"code": err.code, "message": err.message})
            return self.state.doc, 1
        except Exception as exc:  # a bug: recorded as INTERNAL (exit 1) rather than a manifest left `running`
            self.state.doc["usage"] = self.budget.usage_block()
            self.state.finalize(1, error={"code": "INTERNAL", "message": f"{type(exc).__name__}: {exc}"})
            return self.state.doc, 1

    async def _stages(self) -> tuple[dict[str, Any], int]:
        p = self.prep
        # The standard composed briefing is always on record, whatever briefs the seats got.
        self.write("briefing-stage1.md", briefings.seat_briefing(p.briefing, date=self.date))
        outcomes = await self.stage1()
        usable = [o for o in outcomes if o.review is not None]
        if len(usable) < 2:
            raise CouncilQuorum(f"only {len(usable)} of {len(outcomes)} seats produced a usable review; a council needs 2",
                                hint="check the seats' errors in run.json `legs`, then re-run")
        if self.budget.exhausted:
            raise CostExceeded(f"known spend ${self.budget.known:.4f} reached the ${p.options.max_cost} ceiling after Stage 1",
                               hint="raise --max-cost or use cheaper models")

        reviews = [o.review for o in usable if o.review is not None]
        if p.claude_review is not None:  # Claude's review is judged, always under the last label
            reviews.append(self.claude_entry())
        anon = anonymize(reviews)
        self.state.doc["labelMap"] = anon.label_map
        self.state.checkpoint()
        judges = await self.stage2(anon, usable)

        # A debated run's first tally is provisional; its `tally` stage is stamped after the round.
        first_tally = "tally-provisional" if p.options.debate else "tally"
        self.state.stage(first_tally, "running")
        record = tally(tally_input(meta=self.meta(p.chair), anonymized=anon, judges=judges, run_stats=self.run_stats))
        self.state.stage(first_tally, "complete")
        round_ = None
        if p.options.debate:
            round_ = await DebateRound(self, anon, judges, record).run()
            record = round_.final_record
            self.state.stage("tally", "complete")

        chair_alias, verdict_line = await self.chair(anon, usable, judges, record)

        final_input = tally_input(meta=self.meta(chair_alias or p.chair), anonymized=anon, judges=judges, run_stats=self.run_stats)
        if round_ is not None:
            final_input = round_.reassemble(final_input)
        record = tally(final_input)
        atomic_write_json(p.run_dir / "tally-input.json", final_input)
        atomic_write_json(p.run_dir / "tally.json", record)
        if p.lens_run:
            self.notices.append("lens run: not recorded in the reliability ledger (lens reviews are not comparable)")
        else:
            warning = append_ledger(record)
            if warning:
                self.notices.append(warning)

        self.state.stage("verdict", "running")
        decisions = round_.decisions() if round_ is not None else []
        self.check_cost_floor()  # before the verdict, so its degrades say so too
        verdict = build_verdict(record, decisions, overall_verdict=verdict_line, run=self.run_facts())
        atomic_write_json(p.run_dir / "verdict.json", verdict)
        self.write("report.html", build_report(verdict, fmt="html", record=record))
        self.state.stage("verdict", "complete")
        return self.finish(record, verdict)

    def claude_entry(self) -> StageOneReview:
        text = self.prep.claude_review or ""
        self.write("review-claude.md", text)
        self.rows.append(((1, len(self.prep.seats) + 1, 0, len(self.rows)),
                          {"model": "claude", "role": "claude", "wasChair": False, "conformance": "clean",
                           "status": "complete", "durationMs": None, "usage": None}))
        return StageOneReview("claude", "claude", text, validate_findings(text)["findings"], structured=True)

    def meta(self, chair: str) -> dict[str, Any]:
        aliases = [s["alias"] for s in self.prep.seats]
        claude = self.prep.claude_review is not None
        meta: dict[str, Any] = {"runId": self.prep.run_id, "runType": "headless", "date": self.started_iso,
                                "models": aliases + (["claude"] if claude else []), "chair": chair,
                                "claudeInCouncil": claude}
        if repeats_alias(aliases):
            meta["seats"] = self.prep.seats
        return meta

    def check_cost_floor(self) -> None:
        usage = self.budget.usage_block()
        if self.prep.options.max_cost is not None and not usage["costExact"]:
            self.degrade("budget", "cost total is a floor", f"{usage['unknownLegs']} leg(s) had no known cost under a --max-cost ceiling")

    def run_facts(self) -> dict[str, Any]:
        """What verdict.json carries beyond the tally: the chair's sections, the debate
        summary, the degrades and the informational notices (a degrade is also a notice line
        in run.json; in the verdict it is listed once, as a loss)."""
        degrades = list(self.state.doc.get("degrades", []))
        lost = {f"{d['what']}: {d['why']}" for d in degrades}
        sections = chair_sections(self.chair_text) if self.chair_text else None
        return {
            "synthesis": sections.synthesis if sections else None,
            "hardQuestions": sections.hard_questions if sections else [],
            "debate": self.state.doc.get("debate"),
            "degrades": degrades,
            "notices": [n for n in self.notices if n not in lost],
        }

    def finish(self, record: dict[str, Any], verdict: dict[str, Any]) -> tuple[dict[str, Any], int]:
        doc = self.state.doc
        doc["usage"] = self.budget.usage_block()
        doc["judged"] = record["judged"]
        doc["tierCounts"] = record["tierCounts"]
        doc["overallVerdict"] = verdict["overallVerdict"]
        if self.notices:
            doc["notices"] = self.notices
        code = 2 if self.degraded else 0
        self.state.finalize(code)
        return doc, code

    # Stage 1 ---------------------------------------------------------------------------

    async def stage1(self) -> list[SeatOutcome]:
        """Every seat at once: standard seats, the critic and lens seats, each with its brief."""
        p = self.prep
        self.state.stage("stage1", "running", waveId=f"{p.run_id}-s1")
        outcomes = [SeatOutcome(seat, route) for seat, route in zip(p.seats, p.routes)]
        async with anyio.create_task_group() as group:
            for index, outcome in enumerate(outcomes):
                group.start_soon(self.review_seat, index, outcome, self.brief_for(outcome.seat, outcome.route))
        self.state.stage("stage1", "complete")
        return outcomes

    def seat_route(self, seat_id: str) -> tuple[Seat, Route]:
        for seat, route in zip(self.prep.seats, self.prep.routes):
            if seat["id"] == seat_id:
                return seat, route
        raise KeyError(f"no bench seat '{seat_id}'")

    def brief_for(self, seat: Seat, route: Route) -> str:
        """The seat's composed briefing, written once per distinct brief to the run dir."""
        structured = route.kind == "embedded"
        if seat["role"] == "critic":
            stance, name = "stance-critic", "briefing-stage1-critic"
        elif seat["lens"]:
            stance, name = briefings.lens_stance(seat["lens"]), f"briefing-stage1-lens-{seat['lens']}"
        else:
            stance, name = "stance-standard", "briefing-stage1"
        brief = briefings.seat_briefing(self.prep.briefing, date=self.date, stance=stance, structured=structured)
        if name != "briefing-stage1" or structured:
            self.write(f"{name}{'-structured' if structured else ''}.md", brief)
        return brief

    async def review_seat(self, index: int, outcome: SeatOutcome, brief: str) -> None:
        seat, route = outcome.seat, outcome.route
        first = await self.leg(leg_id=f"{self.prep.run_id}-s1-{index + 1}", stage="stage1", role="seat", route=route,
                               model=seat["alias"], seat_id=seat["id"], prompt=brief,
                               schema=briefings.findings_output_schema(), to_text=briefings.review_from_structured)
        outcome.first = first
        if first is None:
            self.stat_row(model=seat["alias"], role=seat["role"], result=None, seat_id=seat["id"], stage=1, position=seat["position"])
            return
        if first.status != "complete":
            self.stat_row(model=seat["alias"], role=seat["role"], result=first, seat_id=seat["id"], stage=1, position=seat["position"])
            self.degrade("stage1", f"seat {seat['id']} produced no review", _why(first))
            if first.text:
                self.write(f"review-{seat_file_stem(seat['id'])}.md", first.text)
            return
        # An empty reply completed but said nothing: the repair prompt asks for the block anyway.
        text, findings, conformance, refused = await self.validated_review(seat, route, first.text or "")
        extra = {"repairRefused": True} if refused else {}
        if not text.strip():
            self.stat_row(model=seat["alias"], role=seat["role"], result=first, conformance=conformance, seat_id=seat["id"],
                          stage=1, position=seat["position"], **extra)
            self.degrade("stage1", f"seat {seat['id']} produced no review", "the model returned no text, even after repair")
            return
        outcome.conformance = conformance
        if conformance == "unstructured":
            self.degrade("stage1", f"seat {seat['id']}'s findings were lost",
                         "its review never carried a valid findings block, even after repair; the prose is judged, "
                         "but it raises no findings")
        outcome.review = StageOneReview(seat["id"], seat["alias"], text, findings, structured=conformance != "unstructured")
        # The primary row carries the first leg's usage; repair legs have rows of their own.
        self.stat_row(model=seat["alias"], role=seat["role"], result=first, conformance=conformance, seat_id=seat["id"],
                      stage=1, position=seat["position"], **extra)
        self.write(f"review-{seat_file_stem(seat['id'])}.md", text)

    async def validated_review(self, seat: Seat, route: Route, text: str) -> tuple[str, list[Any], str, bool]:
        """(final review text, its findings, conformance, a repair was refused) after at most
        two repairs. A repair that changes the findings count is refused: a repair fixes form,
        never substance."""
        result = validate_findings(text)
        if result["ok"]:
            return text, result["findings"], "clean", False
        attempted = count_attempted_findings(text)
        refused = False
        for _ in range(MAX_REPAIRS):
            if self.budget.exhausted:
                break
            repair = await self.leg(leg_id=self.next_id("p"), stage="stage1", role="repair", route=route,
                                    model=seat["alias"], seat_id=seat["id"],
                                    prompt=briefings.findings_repair_prompt(text, result["errors"], attempted),
                                    schema=briefings.findings_output_schema(), to_text=briefings.review_from_structured)
            if repair is None:
                break
            fixed = validate_findings(repair.text or "") if repair.usable else {"ok": False, "findings": []}
            accepted = fixed["ok"] and (attempted is None or len(fixed["findings"]) == attempted)
            self.stat_row(model=seat["alias"], role="repair", result=repair, conformance="repaired" if accepted else "unstructured",
                          stage=1, position=seat["position"])
            if accepted:
                block = read_last_json_block(repair.text or "").value
                repaired = _with_block(text, {"overall": block.get("overall"), "findings": fixed["findings"]})
                return repaired, fixed["findings"], "repaired", refused
            if fixed["ok"]:
                refused = True
                self.notices.append(f"repair for seat {seat['id']} changed the findings count "
                                    f"({attempted} → {len(fixed['findings'])}); refused")
        return text, [], "unstructured", refused

    # Stage 2 ---------------------------------------------------------------------------

    async def stage2(self, anon: Anonymized, usable: list[SeatOutcome]) -> list[JudgeAnswer]:
        p = self.prep
        bundle = briefings.judge_bundle(briefing=p.briefing, date=self.date, reviews=anon.prose, findings=anon.findings)
        self.write("bundle-stage2.md", bundle)
        self.plan(len(usable))
        self.state.stage("stage2", "running", waveId=f"{p.run_id}-s2")
        answers: list[JudgeAnswer | None] = [None] * len(usable)

        async def judge(index: int, outcome: SeatOutcome) -> None:
            answers[index] = await self.judge_seat(index, outcome, anon, bundle)

        async with anyio.create_task_group() as group:
            for index, outcome in enumerate(usable):
                group.start_soon(judge, index, outcome)
        judged = [a for a in answers if a is not None]
        if len(judged) < 2:
            self.degrade("stage2", "cross-review is thin", f"only {len(judged)} judge(s) produced a usable judgement; the tally is judged:false")
        self.state.stage("stage2", "complete", judges=len(judged))
        return judged

    async def judge_seat(self, index: int, outcome: SeatOutcome, anon: Anonymized, bundle: str) -> JudgeAnswer | None:
        seat, route = outcome.seat, outcome.route
        schema = briefings.judge_output_schema(anon.labels, anon.finding_ids)
        first = await self.leg(leg_id=f"{self.prep.run_id}-s2-{index + 1}", stage="stage2", role="judge", route=route,
                               model=seat["alias"], seat_id=seat["id"], prompt=bundle,
                               schema=schema, to_text=briefings.judge_from_structured)
        if first is None:
            return None
        stem = seat_file_stem(seat["id"])
        if not first.usable:
            self.stat_row(model=seat["alias"], role="judge", result=first, stage=2, position=seat["position"])
            self.degrade("stage2", f"judge {seat['id']} produced no judgement", _why(first))
            return None
        text = first.text or ""
        parsed = parse_judge_output(text, anon.labels, anon.finding_ids)
        conformance = "clean"
        for _ in range(MAX_REPAIRS):
            if parsed["ok"] or self.budget.exhausted:
                break
            repair = await self.leg(leg_id=self.next_id("q"), stage="stage2", role="repair", route=route,
                                    model=seat["alias"], seat_id=seat["id"],
                                    prompt=briefings.judge_repair_prompt(text, parsed["errors"], anon.labels, anon.finding_ids),
                                    schema=schema, to_text=briefings.judge_from_structured)
            if repair is None:
                break
            retry = parse_judge_output(repair.text or "", anon.labels, anon.finding_ids) if repair.usable else {"ok": False}
            self.stat_row(model=seat["alias"], role="repair", result=repair, conformance="repaired" if retry["ok"] else "unstructured",
                          stage=2, position=seat["position"])
            if retry["ok"]:
                parsed, conformance = retry, "repaired"
                text = f"{text.rstrip()}\n\n<!-- repaired judgement block -->\n{repair.text}"
        self.write(f"judge-{stem}.md", text)
        self.judge_prose[seat["id"]] = text
        if not parsed["ok"]:
            self.stat_row(model=seat["alias"], role="judge", result=first, conformance="unstructured", stage=2, position=seat["position"])
            codes = ", ".join(e["code"] for e in parsed["errors"])
            self.degrade("stage2", f"judge {seat['id']} dropped", f"its judgement never parsed ({codes})")
            return None
        self.stat_row(model=seat["alias"], role="judge", result=first, conformance=conformance, stage=2, position=seat["position"])
        return JudgeAnswer(seat["id"], seat["alias"], parsed["ranking"], parsed["adjudications"])

    # The chair -------------------------------------------------------------------------

    async def chair(self, anon: Anonymized, usable: list[SeatOutcome], judges: list[JudgeAnswer],
                    record: dict[str, Any]) -> tuple[str | None, str | None]:
        """(the chair that delivered, its verdict line) — either may be None."""
        p = self.prep
        if self.budget.exhausted:
            self.state.stage("chair", "skipped", reason="max-cost")
            self.degrade("chair", "no chair verdict", "the --max-cost ceiling was reached before the chair could run")
            self.stat_row(model=p.chair, role="chair", result=None, was_chair=True, stage=4)
            return None, None
        self.plan(1)
        self.state.stage("chair", "running")
        rankings = tally_input(meta=self.meta(p.chair), anonymized=anon, judges=judges, run_stats=[])["rankings"]
        authors = [o.seat["id"] for o in usable] + (["claude"] if p.claude_review is not None else [])
        named_reviews = [(who, prose) for who, (_, prose) in zip(authors, anon.prose)]
        # The record's claim wins: after a debate it is the amended one.
        claims = {f["id"]: f["claim"] for f in record["findings"] if isinstance(f.get("claim"), str)}
        findings = [{**f, "claim": claims.get(f["id"], f["claim"])} for f in anon.findings]
        packet = briefings.chair_packet(briefing=p.briefing, date=self.date, record=record,
                                        findings=findings, reviews=named_reviews, rankings=rankings)
        self.write("chair-packet.md", packet)

        walk = ChairWalk()
        for alias, route in self.chair_candidates(walk):
            result = await self.chair_attempt(alias, route, packet)
            if result is None:
                walk.refused = True
                break  # refused for cost: the walk stops here
            if result.usable:
                self.chair_text = result.text
                verdict, conformance = await self.verdict_line(alias, route, result.text or "")
                self.stat_row(model=alias, role="chair", result=result, conformance=conformance, was_chair=True, stage=4)
                self.state.doc["chair"] = alias
                self.state.doc["chairConformance"] = conformance
                self.state.stage("chair", "complete", model=alias)
                if alias != p.chair:
                    self.notices.append(f"chair promoted: {p.chair} failed twice, so {alias} (the best peers-only "
                                        "street-cred in the ledger, off the bench) chaired instead")
                return alias, verdict
            self.stat_row(model=alias, role="chair-attempt", result=result, stage=4)
        self.stat_row(model=p.chair, role="chair", result=None, was_chair=True, stage=4)
        self.state.stage("chair", "error")
        self.degrade("chair", "no chair verdict", walk.give_up_reason(p.chair))
        return None, None

    def chair_candidates(self, walk: ChairWalk) -> Iterator[tuple[str, Route]]:
        """The requested chair, its one retry, then the best non-bench model from the ledger."""
        p = self.prep
        yield p.chair, p.chair_route
        yield p.chair, p.chair_route
        # Exclude the bench by alias and by the executables that actually served it this run.
        served = {leg["resolvedModel"] for leg in self.state.doc["legs"] if leg.get("stage") == "stage1" and leg.get("resolvedModel")}
        promoted = promote_chair(exclude={s["alias"] for s in p.seats} | served | {p.chair, "claude"}, gateway=p.options.gateway)
        walk.promoted = promoted[0] if promoted is not None else None
        walk.searched = True
        if promoted is not None:
            yield promoted

    async def chair_attempt(self, alias: str, route: Route, packet: str) -> LegResult | None:
        leg_id = self.next_id("ch")
        result = await self.leg(leg_id=leg_id, stage="chair", role="chair", route=route, model=alias, prompt=packet,
                                schema=briefings.chair_output_schema(), to_text=briefings.chair_from_structured)
        if result is None:
            self.state.doc["chairAttempts"].append({"waveId": leg_id, "model": alias, "outcome": "refused", "reason": "max-cost"})
        else:
            outcome = "completed" if result.usable else ("no-output" if result.status == "complete" else result.status)
            reason = None if result.usable else _why(result)
            self.state.doc["chairAttempts"].append({"waveId": leg_id, "model": alias, "outcome": outcome, "reason": reason})
            if result.text:
                self.write("chair-output.md", result.text)
        self.state.checkpoint()
        return result

    async def verdict_line(self, alias: str, route: Route, text: str) -> tuple[str | None, str]:
        verdict = parse_verdict_line(text)
        if verdict is not None:
            return verdict, "clean"
        if not self.budget.exhausted:
            repair = await self.leg(leg_id=f"{self.prep.run_id}-ch4", stage="chair", role="repair", route=route,
                                    model=alias, prompt=briefings.chair_repair_prompt(text))
            if repair is not None:
                verdict = parse_verdict_line(repair.text or "")
                self.stat_row(model=alias, role="repair", result=repair,
                              conformance="repaired" if verdict is not None else "unstructured", stage=4)
                if repair.text:
                    self.write("chair-repair-output.md", repair.text)
                if verdict is not None:
                    return verdict, "repaired"
        self.degrade("chair", "no chair verdict", "the chair's output has no VERDICT line, even after one repair")
        return None, "unstructured"


@dataclass
class ChairWalk:
    """How far the chair walk got, so its give-up says what really happened."""

    searched: bool = False  # the ledger was searched for a promotion candidate
    promoted: str | None = None  # the candidate it found
    refused: bool = False  # the --max-cost ceiling stopped the walk

    def give_up_reason(self, chair: str) -> str:
        if self.refused:
            return "the --max-cost ceiling refused the next chair attempt"
        if self.promoted is not None:
            return f"the chair {chair}, its retry and the promoted fallback {self.promoted} all failed"
        if self.searched:
            return (f"the chair {chair} and its retry failed, and no promotion candidate exists (no model off the "
                    "bench has a peers-only street-cred in the ledger)")
        return f"the chair {chair} failed"


def promote_chair(*, exclude: set[str], gateway: str | None) -> tuple[str, Route] | None:
    """The best peers-only street-cred model in the ledger that is not on the bench."""
    rows = [r for r in derive_stats(read_ledger())["models"] if r.get("avgStreetCredPeersOnly") is not None]
    rows.sort(key=lambda r: (r["avgStreetCredPeersOnly"], -r["runs"], r["model"]))
    for row in rows:
        alias = (row.get("aliases") or [row["model"]])[0]
        if alias in exclude or row["model"] in exclude:
            continue
        try:
            return alias, resolve_model(alias, gateway=gateway)  # type: ignore[arg-type]
        except AmicusError:
            continue
    return None


def _why(result: LegResult) -> str:
    if result.error:
        return f"{result.error['code']}: {result.error['message']}"
    return "the model returned no text"


def _with_block(text: str, block: dict[str, Any]) -> str:
    return f"{strip_findings_block(text)}\n\n```json\n{json.dumps(block, indent=2, ensure_ascii=False)}\n```\n"


async def run_council(options: RunOptions, *, registry: ProviderRegistry | None = None) -> tuple[dict[str, Any], int]:
    """Pre-flight, then the whole run with signal handling. Returns (run.json, exit code)."""
    from .signals import run_until_signal

    prep = await prepare(options)
    own = registry is None
    active = registry or ProviderRegistry()
    engine = CouncilRun(prep, active)
    try:
        result, signal_exit = await run_until_signal(engine.run)
    finally:
        if own:
            await active.aclose()
    if signal_exit is not None or result is None:
        engine.state.doc["usage"] = engine.budget.usage_block()
        engine.state.doc["status"] = "aborted"
        engine.state.finalize(signal_exit or 143)
        return engine.state.doc, signal_exit or 143
    return result
