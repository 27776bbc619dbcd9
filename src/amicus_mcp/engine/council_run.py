"""`amicus council run`: the headless council — Stage 1 → Stage 2 → tally → chair → verdict.

One command, no Claude in the loop. Stage 4 (accept/deny) stays human: the engine writes an
*undecided* verdict and never invents a decision.

    pre-flight   every check before any spend (exit 1 through the error envelope)
    Stage 1      every seat reviews the composed briefing; each review is validated, with at
                 most two repair re-prompts that may not change its findings count; a review
                 that still fails is kept `unstructured` with no findings
    quorum       fewer than two usable reviews → COUNCIL_QUORUM (exit 1)
    Stage 2      one anonymized bundle to every judge; at most two repairs per judge; a judge
                 that still fails keeps its valid ranking and votes (stage2.salvaged), and is
                 dropped when nothing valid is left (below two rankings → `judged: false`, exit 2)
    tally        the pure tally; the ledger is appended once, at the end
    chair        requested chair → one retry → the best peers-only street-cred model from the
                 ledger that is not on the bench → give up (`overallVerdict: null`); one repair
                 for a missing VERDICT line
    re-review    with --baseline: rereview.json (engine/rereview.py), matched against the verdict
                 before it is written, so the matcher's cost rows and losses are in the verdict
                 and the report, and a run stopped during the matcher leaves no verdict.json
    outputs      tally-input.json, tally.json, verdict.json, report.html, run.json

`run.json` is checkpointed after every leg, stage and chair attempt. Exit codes: 0 clean;
1 error; 2 degraded (a dead seat, a seat whose findings were lost to an unstructured review, a
dropped judge, no chair verdict, a refused launch, an inexact cost under a ceiling, a re-review
matcher's lost decisions); 130/143
aborted by SIGINT/SIGTERM.

Pre-flight is `preflight.prepare`; the first manifest and the input hashes are manifest.py's.
The stages live in their own modules (stage1, stage2, debate_round, chair) and talk to the
run only through `RunContext` (context.py); every leg goes through the leg runner (legs.py) and
every model answer through the one ask → parse → repair routine (asking.py); run.json has one
writer, the run-state owner (run_state.py).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import anyio

from ..council import briefings, question_briefings
from ..council.anonymize import ANSWER_NOUN, REVIEW_NOUN, Anonymized, StageOneReview, anonymize, tally_input
from ..council.answers import answer_details, validate_answer
from ..council.findings import validate_findings
from ..council.ledger import TASK_NO_LEDGER, append_ledger, read_ledger
from ..council.parse import chair_dissent, chair_sections
from ..council.report import build_report
from ..council.rereview import rereview_line
from ..council.seats import repeats_alias
from ..council.tally import tally
from ..council.verdict import merge_verdict, question_fact
from ..documents.legs import InterruptedLeg
from ..documents.run import RunManifest
from ..errors import CostExceeded, CouncilQuorum
from ..providers.routing import ProviderRegistry
from ..vocabulary import ANSWERING_INTENTS
from .chair import chair_packet, run_chair
from .context import RunContext
from .legcache import lost_launches
from .manifest import initial_manifest, write_inputs
from .options import RunOptions
from .preflight import Prepared, dropped_notice, prepare
from .run_dir import BRIEFING_STAGE1, REPORT, TALLY, TALLY_INPUT, VERDICT, write_pointer
from .run_state import RunState
from .stage1 import SeatOutcome, run_stage1
from .stage2 import CrossReview, run_stage2
from .store import parse_iso

if TYPE_CHECKING:
    from ..documents.base import Document
    from ..documents.council import RunFacts, TallyRecord, VerdictAnswer
    from ..documents.tally import TallyInput, TallyMeta
    from ..documents.usage import LegUsageDoc
    from .legs import StatRow


__all__ = ["CouncilRun", "run_council", "run_prepared"]


# --------------------------------------------------------------------------- the run


class CouncilRun:
    """The stages in order over one RunContext: Stage 1 → quorum → Stage 2 → tally →
    (debate) → chair → final tally, ledger, (re-review), verdict and report."""

    def __init__(self, prep: Prepared, registry: ProviderRegistry, *, resumed: RunManifest | None = None):
        """`resumed`: the run.json of a run being resumed (resume.py reopened it): the run keeps
        its clock, and its `resumes` (the last entry is this attempt's)."""
        self.prep = prep
        self.chair_answer: str | None = None  # a question council: the sentence on the chair's ANSWER line
        self.answers: list[VerdictAnswer] = []  # a question council: verdict.json `answers`
        self.material: list[Any] = []  # what the evidence check (and the verifier) read
        started = parse_iso(resumed.created_at) if resumed is not None and resumed.created_at else None
        self.ctx = RunContext(prep, registry, initial_manifest(prep), started_at=started, resuming=resumed is not None)
        lost: list[InterruptedLeg] = lost_launches(prep.dir) if resumed is not None else []
        if resumed is not None:
            self.ctx.state.carry_over(resumed, lost)
        self.ctx.open(pid=os.getpid())
        if lost:
            self.hold_interrupted(lost)
        if resumed is not None and prep.options.matcher:
            self.count_earlier_matcher_calls()
        if prep.dropped:
            self.ctx.notice(dropped_notice(prep.dropped))
        if prep.matcher_loss is not None:  # dropped at pre-flight: a loss, in run.json from the start
            self.ctx.degrade("rereview", "re-review matcher", prep.matcher_loss)
        for said in prep.plan.notices() if prep.plan is not None else []:  # a lowered cap, an unchecked window
            self.ctx.notice(said)
        if prep.chair_notice:
            self.ctx.notice(prep.chair_notice)
        if prep.options.max_cost is not None and prep.subscription_seats:
            self.ctx.notice(f"--max-cost cannot bound {', '.join(prep.subscription_seats)}: an agent CLI bills its "
                            "own subscription or quota, and amicus sees no price for its legs")
        if prep.offline_chair:
            self.ctx.notice("the chair runs on the same embedded model as the bench: offline there is no "
                            "independent model, so this verdict is not independent of the reviews")

    def hold_interrupted(self, lost: Sequence[InterruptedLeg]) -> None:
        """Legs an earlier attempt had in flight when its process stopped: the provider probably
        finished and billed them, so the run's cost is a floor from here on, and the ceiling keeps
        counting what each reserved. Each gets a cost row (cost unknown) so every report shows it."""
        ctx = self.ctx
        for leg in lost:
            ctx.budget.hold(float(leg.reserved or 0.0))
            position = next((s["position"] for s in self.prep.seats if s["id"] == leg.seat), 0)
            ctx.rows.add_doc({"model": leg.model, "role": "interrupted", "wasChair": False, "conformance": None,
                              "status": "interrupted", "durationMs": None, "usage": None, "waveId": leg.id},
                             stage=STAGE_ROWS.get(leg.stage, 4), position=position, secondary=True)
        held = sum(float(leg.reserved or 0.0) for leg in lost)
        ctx.notice(f"{len(lost)} leg(s) were in flight when an earlier attempt of this run stopped "
                   f"({', '.join(leg.id for leg in lost)}): the provider may have finished and billed them, "
                   f"so the cost is at least the total shown"
                   + (f", and the --max-cost ceiling keeps counting the ${held:.4f} they reserved"
                      if self.prep.options.max_cost is not None else ""))

    def count_earlier_matcher_calls(self) -> None:
        """An earlier attempt's re-review matcher calls (legs/, engine/matcher.py): each was paid for
        and is not reused, so it counts once here — a settled one by its usage, one still in flight
        when that attempt stopped as a leg of unknown cost whose reservation the ceiling keeps —
        each with its cost row, so the report's total says what run.json's does."""
        from ..documents.legs import MatcherCallRecord
        from ..errors import AmicusError
        from ..fsio import read_json
        from .rereview import MATCHER_ROW_STAGE
        from .run_dir import MATCHER_CALLS_GLOB

        ctx, model = self.ctx, str(self.prep.options.matcher)
        counted = 0
        for path in sorted(self.prep.dir.legs_path.glob(MATCHER_CALLS_GLOB)):
            try:
                call = MatcherCallRecord.model_validate(read_json(path, what="matcher call record"))
            except (AmicusError, ValueError):
                continue  # a torn record of a call that may never have been sent: nothing to count
            counted += 1
            if call.status == "running":
                ctx.budget.hold(float(call.reserved))
                row: StatRow = {"model": model, "role": "matcher", "wasChair": False, "conformance": None,
                                "status": "interrupted", "durationMs": None, "usage": None}
            else:
                usage = cast("LegUsageDoc", call.usage.to_doc()) if call.usage is not None else None
                ctx.budget.settle(None, usage)
                row = {"model": model, "role": "matcher", "wasChair": False, "conformance": None,
                       "status": call.status, "durationMs": None, "usage": usage}
            ctx.rows.add_doc(row, stage=MATCHER_ROW_STAGE, position=0)  # before this attempt's (added later)
        if counted:
            ctx.notice(f"{counted} re-review matcher call(s) of an earlier attempt of this run are counted in its cost "
                       "(the matcher is asked again; a call in flight when that attempt stopped may have been billed)")

    def shortfall(self, refused_reviews: int) -> str:
        """By how much the ceiling falls short of finishing the run — `refused_reviews` Stage-1
        legs, the judges and the chair, each at its floor — and how to resume it with enough."""
        from .run_dir import resume_command

        plan, ceiling = self.prep.plan, self.prep.options.max_cost
        if plan is None or ceiling is None:
            return f"Raise the ceiling and resume it: {resume_command(self.prep.dir)} --max-cost AMOUNT"
        review_floors = sorted((leg.floor_reservation() for leg in plan.legs if leg.wave == "stage1"), reverse=True)
        floors = plan.floors()
        still = sum(review_floors[:refused_reviews]) + floors.get("stage2", 0.0) + floors.get("chair", 0.0)
        needed = max(self.ctx.budget.ceiling_for(still), ceiling)
        return (f"To finish, the run needs a ceiling of at least ${needed:.4f} (${needed - ceiling:.4f} more): "
                f"{resume_command(self.prep.dir)} --max-cost {needed:.4f}")

    @property
    def state(self) -> RunState:  # the run's manifest owner, for run_council's abort path
        return self.ctx.state

    async def run(self) -> tuple[RunManifest, int]:
        ctx, p = self.ctx, self.prep
        if not ctx.resuming:  # a resumed run's inputs are on disk, checked against its hashes
            write_inputs(p)
        ctx.checkpoint()  # a resumed run's is deferred until its replay has caught up (run_state.py)
        write_pointer(p.store, p.run_id, p.dir)
        try:
            return await self._stages_saved()
        except (CouncilQuorum, CostExceeded) as err:
            return self.fail({"code": err.code, "message": err.message})
        except Exception as exc:  # a bug: recorded as INTERNAL (exit 1) rather than a manifest left `running`
            return self.fail({"code": "INTERNAL", "message": f"{type(exc).__name__}: {exc}"})

    def fail(self, error: dict[str, str]) -> tuple[RunManifest, int]:
        state = self.ctx.state
        state.set_usage(self.ctx.budget.usage_block())
        state.finalize(1, error=error)
        return state.manifest, 1

    async def _stages_saved(self) -> tuple[RunManifest, int]:
        """The stages, with the writer of deferred run.json changes beside them. A stage's
        error leaves the group as itself (not wrapped in an exception group)."""
        failure: Exception | None = None
        async with anyio.create_task_group() as group:
            group.start_soon(self.ctx.state.keep_saved)
            try:
                result = await self._stages()
            except Exception as exc:
                failure = exc
            group.cancel_scope.cancel()
        if failure is not None:
            raise failure
        return result

    async def _stages(self) -> tuple[RunManifest, int]:
        ctx, p = self.ctx, self.prep
        # The standard composed briefing is always on record, whatever briefs the seats got.
        compose = question_briefings.question_briefing if p.options.question else briefings.seat_briefing
        ctx.write(BRIEFING_STAGE1, compose(p.briefing, date=ctx.date))
        outcomes = await run_stage1(ctx)
        usable = [o for o in outcomes if o.review is not None]
        refused = ctx.state.refusals("stage1")
        noun = "answer" if p.options.question else "review"
        if len(usable) < 2 and refused:  # the ceiling took the bench below two, not the seats
            raise CostExceeded(f"the ${p.options.max_cost} --max-cost ceiling had no room for {len(refused)} of "
                               f"{len(outcomes)} Stage-1 {noun}s ({ctx.budget.spent()} counts against it), so only "
                               f"{len(usable)} {noun}(s) exist; a council needs 2. {self.shortfall(len(refused))}",
                               hint="raise --max-cost (the spend already made counts against it) or use cheaper models")
        if len(usable) < 2:
            raise CouncilQuorum(f"only {len(usable)} of {len(outcomes)} seats produced a usable {noun}; a council needs 2",
                                hint="check the seats' errors in run.json `legs`, then re-run")
        if ctx.exhausted:
            raise CostExceeded(f"{ctx.budget.spent()} reached the ${p.options.max_cost} --max-cost ceiling after "
                               f"Stage 1. {self.shortfall(0)}", hint="raise --max-cost or use cheaper models")

        reviews = [o.review for o in usable if o.review is not None]
        if p.claude_review is not None:  # Claude's review is judged, always under the last label
            reviews.append(self.claude_entry())
        anon = anonymize(reviews, ANSWER_NOUN if p.options.question else REVIEW_NOUN)
        ctx.state.set_label_map(anon.label_map)
        self.check_evidence(anon)
        cross = await run_stage2(ctx, anon, usable)

        # A debated run's first tally is provisional; its `tally` stage is stamped after the round.
        first_tally = "tally-provisional" if p.options.debate else "tally"
        ctx.stage(first_tally, "running")
        provisional_input = self.tally_input(anon, cross, p.chair)
        record = tally(provisional_input)
        ctx.stage(first_tally, "complete")
        round_ = None
        if p.options.debate:
            from .debate_round import DebateRound  # only a debated run pays for the round's code

            round_ = await DebateRound(ctx, anon, cross.judges, record, provisional_input, cross.prose).run()
            record = round_.final_record
            ctx.stage("tally", "complete")
        # The tiers are settled here; the chair only adds its verdict (and its own row and alias,
        # rewritten below). On disk now, a live view shows the matrix through the chair's wait.
        ctx.write_json(TALLY, record)

        if p.options.verify and not p.options.question:  # a question's claims have no source to check
            from .verify import run_verify  # only a verified run pays for the verifier's code

            await run_verify(ctx, anon, record, self.material)

        packet = chair_packet(ctx, anon, self.authors(usable), self.tally_input(anon, cross, p.chair, rows=False), record)
        chair = await run_chair(ctx, packet)
        chair_alias, verdict_line = chair.alias, chair.verdict
        self.chair_answer = chair.answer
        self.answers = self.answers_fact(anon) if p.options.question else []

        def final_tally() -> TallyRecord:  # the settled tiers, with every cost row so far
            final_input = self.tally_input(anon, cross, chair_alias or p.chair)
            if round_ is not None:
                final_input = round_.reassemble(final_input)
            done = tally(final_input)
            ctx.write_json(TALLY_INPUT, final_input)
            ctx.write_json(TALLY, done)
            return done

        record = final_tally()
        if p.lens_run:
            ctx.notice("lens run: not recorded in the reliability ledger (lens reviews are not comparable)")
        elif p.options.task:
            ctx.notice(TASK_NO_LEDGER)
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
        rereview = None
        if p.options.baseline:  # the run's findings as its verdict states them, before it is written
            from .rereview import write_rereview

            stated = merge_verdict(record, decisions, overall_verdict=verdict_line, run=self.run_facts(chair.text))
            rereview = (await write_rereview(ctx, stated, record)).to_doc()
            record = final_tally()  # again: the matcher's calls are cost rows of the run too
        # After every paid call and before the verdict, so its degrades and the report's total say so too.
        self.check_cost_floor()
        verdict = merge_verdict(record, decisions, overall_verdict=verdict_line, run=self.run_facts(chair.text))
        ctx.write_json(VERDICT, verdict)
        if rereview is not None:  # run.json's notices; the report says it in its own re-review section
            ctx.notice(rereview_line(rereview))
        from ..documents.run import reported_lines
        from .run_findings import as_json

        ctx.write(REPORT, build_report(verdict, fmt="html", record=record, rereview=rereview,
                                       dismissed=as_json(ctx.prep.dir.read_dismissed()),
                                       run_lines=reported_lines(ctx.state.manifest)))
        ctx.stage("verdict", "complete")
        return self.finish(record, verdict)

    def check_evidence(self, anon: Anonymized) -> None:
        """Each finding's quote looked up in the material the run read (no model call), before
        the judges see the findings, so a vote is cast knowing the check. A question council's
        key claims are checked only when they quote something."""
        from ..council.evidence import annotate
        from .sources import SourceReader, run_material

        p = self.prep
        reader = SourceReader([p.store.project])
        artifact = Path(p.options.artifact) if p.options.artifact else None
        self.material = run_material(p.briefing, reader, artifact=artifact)
        annotate(anon.findings, self.material, only_quoted=p.options.question)

    def authors(self, usable: Sequence[SeatOutcome]) -> list[str]:
        return [o.seat["id"] for o in usable] + (["claude"] if self.prep.claude_review is not None else [])

    def tally_input(self, anon: Anonymized, cross: CrossReview, chair: str, *, rows: bool = True) -> TallyInput:
        return tally_input(meta=self.meta(chair), anonymized=anon, judges=cross.judges,
                           run_stats=self.ctx.rows.rows if rows else [])

    def claude_entry(self) -> StageOneReview:
        text = self.prep.claude_review or ""
        question = self.prep.options.question
        self.ctx.write("answer-claude.md" if question else "review-claude.md", text)
        self.ctx.rows.add_doc({"model": "claude", "role": "claude", "wasChair": False, "conformance": "clean",
                               "status": "complete", "durationMs": None, "usage": None},
                              stage=1, position=len(self.prep.seats) + 1)
        if question:
            parsed = validate_answer(text)
            return StageOneReview("claude", "claude", text, parsed["claims"], structured=True,
                                  details=answer_details(parsed))
        return StageOneReview("claude", "claude", text, validate_findings(text)["findings"], structured=True)

    def answers_fact(self, anon: Anonymized) -> list[VerdictAnswer]:
        """verdict.json `answers`: each answer as the judges read it, by label, unblinded."""
        out = []
        for label in anon.labels:
            alias, seat = anon.label_map[label], anon.seat_map[label]
            entry: dict[str, object] = {"label": label, "model": alias}  # built in the key order verdict.json keeps
            if seat != alias:
                entry["seat"] = seat
            detail = anon.details.get(label)
            entry["structured"] = detail is not None
            if detail is not None:
                entry["answer"] = detail["answer"]
                entry["confidence"] = detail["confidence"]
                entry["assumptions"] = list(detail["assumptions"])
            entry["claims"] = [f["id"] for f in anon.findings if f["label"] == label]
            out.append(cast("VerdictAnswer", entry))
        return out

    def meta(self, chair: str) -> TallyMeta:
        aliases = [s["alias"] for s in self.prep.seats]
        claude = self.prep.claude_review is not None
        meta: TallyMeta = {"runId": self.prep.run_id, "runType": "headless", "date": self.ctx.started_iso,
                                "models": aliases + (["claude"] if claude else []), "chair": chair,
                                "claudeInCouncil": claude}
        if repeats_alias(aliases):
            meta["seats"] = self.prep.seats
        if self.prep.options.intent in ANSWERING_INTENTS:  # emit when set: a review's meta is unchanged
            meta["intent"] = self.prep.options.intent
        return meta

    def check_cost_floor(self) -> None:
        usage = self.ctx.budget.usage_block()
        if self.prep.options.max_cost is not None and not usage["costExact"]:
            self.ctx.degrade("budget", "cost total is a floor",
                             f"{usage['unknownLegs']} leg(s) had no known cost under a --max-cost ceiling")

    def run_facts(self, chair_text: str | None) -> RunFacts:
        """What verdict.json carries beyond the tally: the chair's sections, the debate
        summary, the degrades and the informational notices (a degrade is also a notice line
        in run.json; in the verdict it is listed once, as a loss)."""
        manifest = self.ctx.state.manifest
        degrades = [d.to_doc() for d in manifest.degrades]
        lost = {f"{d['what']}: {d['why']}" for d in degrades}
        # The verdict takes these in its own order (RUN_FACT_KEYS), whatever order they are set in.
        facts: RunFacts = {"debate": manifest.debate.to_doc() if manifest.debate is not None else None,
                           "degrades": degrades,
                           "notices": [n for n in self.ctx.notices if n not in lost]}
        if self.prep.options.question:
            read = chair_dissent(chair_text) if chair_text else None
            facts["question"] = question_fact(self.prep.briefing)
            facts["answer"] = self.chair_answer
            facts["synthesis"] = read.synthesis if read else None
            facts["dissent"] = read.hard_questions if read else []
            facts["answers"] = self.answers
            return facts
        sections = chair_sections(chair_text) if chair_text else None
        if self.prep.options.task:
            facts["answer"] = self.chair_answer  # its ANSWER line's sentence
        facts["synthesis"] = sections.synthesis if sections else None
        facts["hardQuestions"] = sections.hard_questions if sections else []
        return facts

    def finish(self, record: TallyRecord, verdict: Mapping[str, Any]) -> tuple[RunManifest, int]:
        ctx = self.ctx
        ctx.state.set_usage(ctx.budget.usage_block())
        answer = verdict.get("answer")
        counts = cast("dict[str, int]", record["tierCounts"])  # a tally's counts are whole numbers
        ctx.state.finish(judged=record["judged"], tier_counts=counts,
                         overall_verdict=verdict["overallVerdict"], notices=ctx.notices,
                         answer=answer if isinstance(answer, str) else None)
        code = 2 if ctx.degraded else 0
        ctx.state.finalize(code)
        return ctx.state.manifest, code


async def run_council(options: RunOptions, *, registry: ProviderRegistry | None = None,
                      briefing: str | None = None, records: dict[str, Document] | None = None) -> tuple[RunManifest, int]:
    """Pre-flight, then the whole run with signal handling. Returns (run.json, exit code)."""
    prep = await prepare(options, briefing=briefing, records=records)
    return await run_prepared(prep, registry=registry)


async def run_prepared(prep: Prepared, *, registry: ProviderRegistry | None = None,
                       resumed: RunManifest | None = None) -> tuple[RunManifest, int]:
    """A prepared run (new, or `resumed` from its run.json) with signal handling."""
    from .signals import run_until_signal

    own = registry is None
    active = registry or ProviderRegistry(project=prep.store.project)
    engine = CouncilRun(prep, active, resumed=resumed)
    try:
        result, signal_exit = await run_until_signal(engine.run)
    finally:
        if own:
            await active.aclose()
    if signal_exit is not None or result is None:
        state = engine.state
        state.set_usage(engine.ctx.budget.usage_block())
        state.finalize(signal_exit or 143)  # aborted
        return state.manifest, signal_exit or 143
    return result


STAGE_ROWS = {"stage1": 1, "stage2": 2, "debate": 3, "verify": 3, "chair": 4}  # runStats order, as the stages number it


def ledger_holds(run_id: str) -> bool:
    """Whether the reliability ledger already has rows for this run."""
    return any(row.get("runId") == run_id for row in read_ledger())
