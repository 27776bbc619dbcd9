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

The stages live in their own modules (stage1, stage2, debate_round, chair) and talk to the
run only through `RunContext` (context.py); every model answer goes through the one
ask → parse → repair routine (asking.py).
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import anyio

from ..council import briefings, question_briefings
from ..config import load_config
from ..council.anonymize import ANSWER_NOUN, REVIEW_NOUN, Anonymized, StageOneReview, anonymize, tally_input
from ..council.answers import answer_details, validate_answer
from ..council.findings import validate_findings
from ..council.ledger import append_ledger, read_ledger
from ..council.parse import chair_dissent, chair_sections
from ..council.report import build_report
from ..council.seats import Seat, build_seats, repeats_alias
from ..council.tally import tally
from ..council.verdict import merge_verdict
from ..errors import AmicusError, BadArgs, ClaudeReviewInvalid, CostExceeded, CouncilQuorum
from ..fsio import atomic_write_text, read_text
from ..providers.routing import ProviderRegistry, resolve_model
from ..vocabulary import QUESTION
from .briefing_inputs import (apply_pack, blame_pack, check_briefing_source, compose_briefing, is_template_file,
                              resolve_intent)
from .chair import chair_packet, run_chair
from .context import Prepared, RunContext
from .debate_round import DebateRound
from .defaults import apply_env_defaults
from .legcache import lost_launches
from .limits import check_ceiling, plan_run
from .options import BRIEFING_FILE, DEFAULT_TIMEOUT_MIN, RunOptions, write_options
from .preflight import (check_gateway, check_listed, check_material, check_ready, check_timeout_minutes,
                        dropped_notice, gate_threshold, naming, price_bench, read_catalog, read_prompt_file,
                        route_bench)
from .run_state import RunState, read_run, write_pointer
from .stage1 import SeatOutcome, run_stage1
from .stage2 import CrossReview, run_stage2
from .store import SessionStore, new_task_id, now_iso, parse_iso, resolve_project

DEFAULT_CHAIR = "deepseek"
# Offline there is no independent model: a bench made only of the embedded model is chaired
# by that same model under its explicit name, and the run says so.
LOCAL_CHAIR = "local/gemma3-270m-q4_k_m"

__all__ = ["DEFAULT_CHAIR", "LOCAL_CHAIR", "CouncilRun", "Prepared", "RunOptions", "prepare", "run_council"]


# --------------------------------------------------------------------------- pre-flight

async def prepare(options: RunOptions, *, briefing: str | None = None,
                  records: dict[str, Any] | None = None) -> Prepared:
    """Every check before any spend. A worker continuing a run another front prepared passes
    the run directory's own `briefing` copy and the `records` (template, artifact, pack) the
    front made of it: the caller's files may have changed since, and are not read again."""
    options = apply_env_defaults(apply_pack(options))
    options = options.model_copy(update={
        "timeout_min": DEFAULT_TIMEOUT_MIN if options.timeout_min is None else options.timeout_min,
        "debate": bool(options.debate)})
    if options.template and is_template_file(options.template):  # the worker runs elsewhere
        options = options.model_copy(update={"template": str(Path(options.template).expanduser().resolve())})
    if briefing is None:
        briefing, records = compose_or_read(options)
    else:
        briefing = check_material(briefing, what="the run's briefing", allow_secrets=options.allow_secrets)
    template_record = (records or {}).get("template")
    template_intent = (template_record.get("intent", "review") if isinstance(template_record, dict) else None)
    options = options.model_copy(update={"intent": resolve_intent(options, template_intent)})
    with blame_pack(options, "gateway"):
        gateway = check_gateway(options.gateway)
    with blame_pack(options, "timeout_min"):
        timeout_s = check_timeout_minutes(options.timeout_min)
    if options.max_cost is not None and not options.max_cost > 0:
        raise BadArgs(f"--max-cost must be a positive number of dollars, got {options.max_cost}", hint="e.g. --max-cost 2.00")
    # The chair is held to every check a seat is (its key, the catalog, the cost gate), before
    # anything is spent: a typo'd or over-priced chair never lets the run pay for two stages first.
    cfg = load_config()
    with blame_pack(options, "bench", "gateway"):
        routed = route_bench(options.models, options.council, gateway=gateway, minimum=2, cfg=cfg)
    all_local = all(r.kind == "embedded" for r in routed.routes)
    chair = options.chair or (LOCAL_CHAIR if all_local else DEFAULT_CHAIR)
    with blame_pack(options, "chair", "bench"), naming("--chair"):
        chair_route = resolve_model(chair, gateway=gateway, cfg=cfg)
        check_ready(chair, chair_route, cfg)
    catalog = await read_catalog([*routed.routes, chair_route])
    with blame_pack(options, "bench", "gateway"):
        bench = price_bench(routed, catalog, minimum=2, cost_gate=options.cost_gate,
                            validate=options.validate_models, cfg=cfg)
    with blame_pack(options, "chair", "bench"), naming("--chair"):
        check_listed([(chair, chair_route)], catalog, validate=options.validate_models,
                     threshold=gate_threshold(options.cost_gate, cfg))
    with blame_pack(options, "chair", "bench"):
        bench_ids = {m for m in bench.models} | {r.canonical for r in bench.routes}
        if chair in bench_ids or chair_route.canonical in bench_ids:
            raise BadArgs(
                f"the chair '{chair}' is also a bench seat",
                hint="the chair must be independent of the bench: pick another --chair",
            )
    with blame_pack(options, "critic", "lenses", "bench"):
        seats = seat_table(bench.models, critic=options.critic, lenses=options.lenses)
    claude_review = read_claude_review(options.claude_review, question=options.question) if options.claude_review else None
    if claude_review is not None:  # the bench reads it too: it is material like the briefing
        claude_review = check_material(claude_review, what=f"Claude's review '{options.claude_review}'",
                                       allow_secrets=options.allow_secrets)
    # Room in every model's window and under the ceiling, for every wave, before anything is spent.
    with blame_pack(options, "bench", "chair"):
        plan = plan_run(briefing=briefing, date=datetime.now(timezone.utc).strftime("%Y-%m-%d"), seats=seats,
                        routes=bench.routes, chair=chair, chair_route=chair_route, catalog=bench.catalog,
                        claude_review=claude_review, question=options.question)
    with blame_pack(options, "max_cost", "bench", "chair"):
        check_ceiling(plan, options.max_cost)
    store = SessionStore(resolve_project(options.project))
    run_id = options.run_id or new_task_id()
    store.task_dir(run_id)  # validates a caller-supplied id
    run_dir = Path(options.out_dir or f"council-{run_id}").resolve()
    _check_run_dir(run_dir, run_id)
    return Prepared(
        options=options, run_id=run_id, run_dir=run_dir, store=store, briefing=briefing,
        seats=seats, routes=bench.routes, chair=chair, chair_route=chair_route,
        dropped=bench.dropped, catalog=bench.catalog, timeout_s=timeout_s, claude_review=claude_review,
        records=dict(records or {}), plan=plan,
    )


def compose_or_read(options: RunOptions) -> tuple[str, dict[str, Any]]:
    """The briefing (from a template and its artifact, or the prompt file), checked for
    secrets, and what run.json records of where it came from."""
    check_briefing_source(options)
    records: dict[str, Any] = {"pack": options.pack_record} if options.pack_record else {}
    if not options.template:
        return read_prompt_file(options.prompt_file, allow_secrets=options.allow_secrets), records
    composed = compose_briefing(options)
    records.update(composed.records())
    text = check_material(composed.text, what=f"the briefing composed from template '{options.template}'",
                          allow_secrets=options.allow_secrets)
    return text, records


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


def read_claude_review(path: str, *, question: bool = False) -> str:
    """Claude's own review (a question council: Claude's own answer), validated like any
    other — before anything is spent."""
    what = "answer" if question else "review"
    try:
        text = read_text(path, what=f"Claude's {what} file")
    except AmicusError as err:
        raise ClaudeReviewInvalid(err.message, hint=err.hint) from None
    result: dict[str, Any] = dict(validate_answer(text) if question else validate_findings(text))
    if not result["ok"]:
        problems = "; ".join(f"{e['code']}: {e['detail']}" for e in result["errors"][:3])
        hint = ("end it with a ```json block {answer, claims[], assumptions[], confidence}; check it with "
                "'amicus council validate --intent question'" if question else
                "end it with a ```json block {overall, findings[]}; check it with 'amicus council validate'")
        raise ClaudeReviewInvalid(f"Claude's {what} '{path}' is not a valid {what}: {problems}", hint=hint)
    return text


def initial_manifest(prep: Prepared) -> dict[str, Any]:
    """The `running` run.json a run starts from (the MCP handler seeds the same document)."""
    options = prep.options
    doc: dict[str, Any] = {
        "schemaVersion": 2,
        "type": "council-run",
        "runId": prep.run_id,
        **({"tag": options.tag} if options.tag else {}),
        "status": "running",
        "stages": [],
        "bench": [seat["alias"] for seat in prep.seats],
        "chair": prep.chair,
        **({"intent": QUESTION} if options.question else {}),
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
        # What a resume checks before reusing anything: the inputs it would brief off again.
        "briefingSha256": sha256_text(prep.briefing),
        "optionsSha256": options_sha256(options),
    }
    if prep.claude_review is not None:
        doc["claudeReviewSha256"] = sha256_text(prep.claude_review)
    if prep.dropped:
        doc["droppedMembers"] = prep.dropped
    doc.update(prep.records)
    if options.debate:
        doc["debate"] = {"enabled": True, "outcome": "nothing-to-debate"}
    return doc


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def options_sha256(options: RunOptions) -> str:
    """The hash of the options document (key order aside), as options.json holds it."""
    return sha256_text(json.dumps(options.document(), sort_keys=True, ensure_ascii=False))


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


def write_inputs(prep: Prepared) -> None:
    """options.json and the briefing copy: what a worker (or a resumed run) reads back."""
    prep.run_dir.mkdir(parents=True, exist_ok=True)
    atomic_write_text(prep.run_dir / BRIEFING_FILE, prep.briefing)
    write_options(prep.run_dir, prep.options)


# --------------------------------------------------------------------------- the run

class CouncilRun:
    """The stages in order over one RunContext: Stage 1 → quorum → Stage 2 → tally →
    (debate) → chair → final tally, ledger, verdict and report."""

    def __init__(self, prep: Prepared, registry: ProviderRegistry, *, resumed: dict[str, Any] | None = None):
        """`resumed`: the run.json of a run being resumed (resume.py reopened it): the run keeps
        its clock, and its `resumes` (the last entry is this attempt's)."""
        self.prep = prep
        self.chair_answer: str | None = None  # a question council: the sentence on the chair's ANSWER line
        self.answers: list[dict[str, Any]] = []  # a question council: verdict.json `answers`
        started = parse_iso(resumed["createdAt"]) if resumed is not None else None
        self.ctx = RunContext(prep, registry, started_at=started, resuming=resumed is not None)
        manifest = initial_manifest(prep)
        lost: list[dict[str, Any]] = []
        if resumed is not None:
            manifest["resumes"] = list(resumed["resumes"])
            # The legs the first attempt planned are planned again: progress reads "n/7", not "n/3".
            planned = resumed.get("legsPlanned")
            if isinstance(planned, int) and not isinstance(planned, bool):
                manifest["legsPlanned"] = max(manifest["legsPlanned"], planned)
            lost = lost_launches(prep.run_dir)
            if lost:
                manifest["interruptedLegs"] = lost
        self.ctx.open(manifest)
        if lost:
            self.hold_interrupted(lost)
        if prep.dropped:
            self.ctx.notice(dropped_notice(prep.dropped))
        if prep.chair_route.kind == "embedded" and any(r.kind == "embedded" for r in prep.routes):
            self.ctx.notice("the chair runs on the same embedded model as the bench: offline there is no "
                            "independent model, so this verdict is not independent of the reviews")

    def hold_interrupted(self, lost: Sequence[dict[str, Any]]) -> None:
        """Legs an earlier attempt had in flight when its process stopped: the provider probably
        finished and billed them, so the run's cost is a floor from here on, and the ceiling keeps
        counting what each reserved. Each gets a cost row (cost unknown) so every report shows it."""
        ctx = self.ctx
        for leg in lost:
            reserved = leg.get("reserved")
            ctx.budget.hold(float(reserved) if isinstance(reserved, (int, float)) else 0.0)
            position = next((s["position"] for s in self.prep.seats if s["id"] == leg.get("seat")), 0)
            ctx.add_row({"model": leg["model"], "role": "interrupted", "wasChair": False, "conformance": None,
                         "status": "interrupted", "durationMs": None, "usage": None, "waveId": leg["id"]},
                        stage=STAGE_ROWS.get(str(leg.get("stage")), 4), position=position, secondary=True)
        held = sum(float(leg.get("reserved") or 0.0) for leg in lost)
        ctx.notice(f"{len(lost)} leg(s) were in flight when an earlier attempt of this run stopped "
                   f"({', '.join(leg['id'] for leg in lost)}): the provider may have finished and billed them, "
                   f"so the cost is at least the total shown"
                   + (f", and the --max-cost ceiling keeps counting the ${held:.4f} they reserved"
                      if self.prep.options.max_cost is not None else ""))

    @property
    def state(self) -> RunState:  # the run's manifest (run.json), for run_council's abort path
        return self.ctx.state

    async def run(self) -> tuple[dict[str, Any], int]:
        ctx, p = self.ctx, self.prep
        if not ctx.resuming:  # a resumed run's inputs are on disk, checked against its hashes
            write_inputs(p)
        ctx.checkpoint()  # a resumed run's is deferred until its replay has caught up (context.py)
        write_pointer(p.store, p.run_id, p.run_dir)
        try:
            return await self._stages_saved()
        except (CouncilQuorum, CostExceeded) as err:
            ctx.record("usage", ctx.budget.usage_block())
            ctx.state.finalize(1, error={"code": err.code, "message": err.message})
            return ctx.state.doc, 1
        except Exception as exc:  # a bug: recorded as INTERNAL (exit 1) rather than a manifest left `running`
            ctx.record("usage", ctx.budget.usage_block())
            ctx.state.finalize(1, error={"code": "INTERNAL", "message": f"{type(exc).__name__}: {exc}"})
            return ctx.state.doc, 1

    async def _stages_saved(self) -> tuple[dict[str, Any], int]:
        """The stages, with the writer of deferred run.json changes beside them. A stage's
        error leaves the group as itself (not wrapped in an exception group)."""
        failure: Exception | None = None
        async with anyio.create_task_group() as group:
            group.start_soon(self.ctx.keep_saved)
            try:
                result = await self._stages()
            except Exception as exc:
                failure = exc
            group.cancel_scope.cancel()
        if failure is not None:
            raise failure
        return result

    async def _stages(self) -> tuple[dict[str, Any], int]:
        ctx, p = self.ctx, self.prep
        # The standard composed briefing is always on record, whatever briefs the seats got.
        compose = question_briefings.question_briefing if p.options.question else briefings.seat_briefing
        ctx.write("briefing-stage1.md", compose(p.briefing, date=ctx.date))
        outcomes = await run_stage1(ctx)
        usable = [o for o in outcomes if o.review is not None]
        refused = [r for r in ctx.state.doc.get("budgetRefusals", []) if r.get("stage") == "stage1"]
        noun = "answer" if p.options.question else "review"
        if len(usable) < 2 and refused:  # the ceiling took the bench below two, not the seats
            raise CostExceeded(f"the ${p.options.max_cost} --max-cost ceiling had no room for {len(refused)} of "
                               f"{len(outcomes)} Stage-1 {noun}s, so only {len(usable)} {noun}(s) exist; a council needs 2",
                               hint="raise --max-cost (the spend already made counts against it) or use cheaper models")
        if len(usable) < 2:
            raise CouncilQuorum(f"only {len(usable)} of {len(outcomes)} seats produced a usable {noun}; a council needs 2",
                                hint="check the seats' errors in run.json `legs`, then re-run")
        if ctx.exhausted:
            held = (f" (and ${ctx.budget.held:.4f} reserved by legs lost in flight, which may have been billed)"
                    if ctx.budget.held else "")
            raise CostExceeded(f"known spend ${ctx.budget.known:.4f}{held} reached the ${p.options.max_cost} --max-cost "
                               "ceiling after Stage 1",
                               hint="raise --max-cost or use cheaper models")

        reviews = [o.review for o in usable if o.review is not None]
        if p.claude_review is not None:  # Claude's review is judged, always under the last label
            reviews.append(self.claude_entry())
        anon = anonymize(reviews, ANSWER_NOUN if p.options.question else REVIEW_NOUN)
        ctx.record("labelMap", anon.label_map)
        ctx.checkpoint()
        cross = await run_stage2(ctx, anon, usable)

        # A debated run's first tally is provisional; its `tally` stage is stamped after the round.
        first_tally = "tally-provisional" if p.options.debate else "tally"
        ctx.stage(first_tally, "running")
        provisional_input = self.tally_input(anon, cross, p.chair)
        record = tally(provisional_input)
        ctx.stage(first_tally, "complete")
        round_ = None
        if p.options.debate:
            round_ = await DebateRound(ctx, anon, cross.judges, record, provisional_input, cross.prose).run()
            record = round_.final_record
            ctx.stage("tally", "complete")

        packet = chair_packet(ctx, anon, self.authors(usable), self.tally_input(anon, cross, p.chair, rows=False), record)
        chair = await run_chair(ctx, packet)
        chair_alias, verdict_line = chair.alias, chair.verdict
        self.chair_answer = chair.answer
        self.answers = self.answers_fact(anon) if p.options.question else []

        final_input = self.tally_input(anon, cross, chair_alias or p.chair)
        if round_ is not None:
            final_input = round_.reassemble(final_input)
        record = tally(final_input)
        ctx.write_json("tally-input.json", final_input)
        ctx.write_json("tally.json", record)
        if p.lens_run:
            ctx.notice("lens run: not recorded in the reliability ledger (lens reviews are not comparable)")
        elif not p.options.ledger:
            ctx.notice("eval case: not recorded in the reliability ledger (the eval ledger records the eval's results)")
        elif ctx.resuming and ledger_holds(p.run_id):
            pass  # an earlier attempt of this run got as far as the ledger: its rows are appended once
        else:
            warning = append_ledger(record, tag=p.options.tag)
            if warning:
                ctx.notice(warning)

        ctx.stage("verdict", "running")
        decisions = round_.decisions() if round_ is not None else []
        self.check_cost_floor()  # before the verdict, so its degrades say so too
        verdict = merge_verdict(record, decisions, overall_verdict=verdict_line, run=self.run_facts(chair.text))
        ctx.write_json("verdict.json", verdict)
        ctx.write("report.html", build_report(verdict, fmt="html", record=record))
        ctx.stage("verdict", "complete")
        return self.finish(record, verdict)

    def authors(self, usable: Sequence[SeatOutcome]) -> list[str]:
        return [o.seat["id"] for o in usable] + (["claude"] if self.prep.claude_review is not None else [])

    def tally_input(self, anon: Anonymized, cross: CrossReview, chair: str, *, rows: bool = True) -> dict[str, Any]:
        return tally_input(meta=self.meta(chair), anonymized=anon, judges=cross.judges,
                           run_stats=self.ctx.run_stats if rows else [])

    def claude_entry(self) -> StageOneReview:
        text = self.prep.claude_review or ""
        question = self.prep.options.question
        self.ctx.write("answer-claude.md" if question else "review-claude.md", text)
        self.ctx.add_row({"model": "claude", "role": "claude", "wasChair": False, "conformance": "clean",
                          "status": "complete", "durationMs": None, "usage": None},
                         stage=1, position=len(self.prep.seats) + 1)
        if question:
            parsed = validate_answer(text)
            return StageOneReview("claude", "claude", text, parsed["claims"], structured=True,
                                  details=answer_details(parsed))
        return StageOneReview("claude", "claude", text, validate_findings(text)["findings"], structured=True)

    def answers_fact(self, anon: Anonymized) -> list[dict[str, Any]]:
        """verdict.json `answers`: each answer as the judges read it, by label, unblinded."""
        out = []
        for label in anon.labels:
            alias, seat = anon.label_map[label], anon.seat_map[label]
            entry: dict[str, Any] = {"label": label, "model": alias}
            if seat != alias:
                entry["seat"] = seat
            detail = anon.details.get(label)
            entry["structured"] = detail is not None
            if detail is not None:
                entry.update(answer=detail["answer"], confidence=detail["confidence"],
                             assumptions=list(detail["assumptions"]))
            entry["claims"] = [f["id"] for f in anon.findings if f["label"] == label]
            out.append(entry)
        return out

    def meta(self, chair: str) -> dict[str, Any]:
        aliases = [s["alias"] for s in self.prep.seats]
        claude = self.prep.claude_review is not None
        meta: dict[str, Any] = {"runId": self.prep.run_id, "runType": "headless", "date": self.ctx.started_iso,
                                "models": aliases + (["claude"] if claude else []), "chair": chair,
                                "claudeInCouncil": claude}
        if repeats_alias(aliases):
            meta["seats"] = self.prep.seats
        if self.prep.options.question:  # emit when set: a review's meta is unchanged
            meta["intent"] = QUESTION
        return meta

    def check_cost_floor(self) -> None:
        usage = self.ctx.budget.usage_block()
        if self.prep.options.max_cost is not None and not usage["costExact"]:
            self.ctx.degrade("budget", "cost total is a floor",
                             f"{usage['unknownLegs']} leg(s) had no known cost under a --max-cost ceiling")

    def run_facts(self, chair_text: str | None) -> dict[str, Any]:
        """What verdict.json carries beyond the tally: the chair's sections, the debate
        summary, the degrades and the informational notices (a degrade is also a notice line
        in run.json; in the verdict it is listed once, as a loss)."""
        doc = self.ctx.state.doc
        degrades = list(doc.get("degrades", []))
        lost = {f"{d['what']}: {d['why']}" for d in degrades}
        facts: dict[str, Any] = {"debate": doc.get("debate"), "degrades": degrades,
                                 "notices": [n for n in self.ctx.notices if n not in lost]}
        if self.prep.options.question:
            read = chair_dissent(chair_text) if chair_text else None
            return {"answer": self.chair_answer, "synthesis": read.synthesis if read else None,
                    "dissent": read.hard_questions if read else [], "answers": self.answers, **facts}
        sections = chair_sections(chair_text) if chair_text else None
        return {"synthesis": sections.synthesis if sections else None,
                "hardQuestions": sections.hard_questions if sections else [], **facts}

    def finish(self, record: dict[str, Any], verdict: dict[str, Any]) -> tuple[dict[str, Any], int]:
        ctx = self.ctx
        doc = ctx.state.doc
        doc["usage"] = ctx.budget.usage_block()
        doc["judged"] = record["judged"]
        doc["tierCounts"] = record["tierCounts"]
        doc["overallVerdict"] = verdict["overallVerdict"]
        if isinstance(verdict.get("answer"), str):  # a question council's one-sentence answer
            doc["answer"] = verdict["answer"]
        if ctx.notices:
            doc["notices"] = ctx.notices
        code = 2 if ctx.degraded else 0
        ctx.state.finalize(code)
        return doc, code


async def run_council(options: RunOptions, *, registry: ProviderRegistry | None = None,
                      briefing: str | None = None, records: dict[str, Any] | None = None) -> tuple[dict[str, Any], int]:
    """Pre-flight, then the whole run with signal handling. Returns (run.json, exit code)."""
    prep = await prepare(options, briefing=briefing, records=records)
    return await run_prepared(prep, registry=registry)


async def run_prepared(prep: Prepared, *, registry: ProviderRegistry | None = None,
                       resumed: dict[str, Any] | None = None) -> tuple[dict[str, Any], int]:
    """A prepared run (new, or `resumed` from its run.json) with signal handling."""
    from .signals import run_until_signal

    own = registry is None
    active = registry or ProviderRegistry()
    engine = CouncilRun(prep, active, resumed=resumed)
    try:
        result, signal_exit = await run_until_signal(engine.run)
    finally:
        if own:
            await active.aclose()
    if signal_exit is not None or result is None:
        engine.state.doc["usage"] = engine.ctx.budget.usage_block()
        engine.state.doc["status"] = "aborted"
        engine.state.finalize(signal_exit or 143)
        return engine.state.doc, signal_exit or 143
    return result


STAGE_ROWS = {"stage1": 1, "stage2": 2, "debate": 3, "chair": 4}  # runStats order, as the stages number it


def ledger_holds(run_id: str) -> bool:
    """Whether the reliability ledger already has rows for this run."""
    return any(row.get("runId") == run_id for row in read_ledger())
