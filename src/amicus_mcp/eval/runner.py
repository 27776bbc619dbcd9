"""`amicus eval run`: one council per case through the engine, then matching, then the scores.

    pre-flight  the suite loaded and every case checked; the bench options (a pack applied) with
                every council's own pre-flight (`engine.prepare`) done for every case; the
                matcher checked like a seat (`engine.prepare_model`: route, key, catalog, cost
                gate); the estimate of the whole suite; the eval directory. Nothing is sent
                before all of it passed.
    councils    the cases' councils run concurrently (`engine.run_prepared`, as `council run`
                runs one), as many at once as keep the legs in flight within the fan-out cap; each gets an even
                share of the suite's --max-cost as its own ceiling, and is kept out of the
                reliability ledger (the eval ledger records the eval's results instead)
    matching    per case, the pre-filter places every finding, then one matcher call (at most one
                more for what it left unanswered) decides among the candidates; every decision is
                written to the case's matches.json. The matcher's calls are held to what the
                councils left of the ceiling.
    scoring     the pure scorer over what is on disk (exactly what `amicus eval score` reads),
                eval.json / eval.md / eval.html, and the eval ledger rows

eval-run.json is rewritten as each case starts and finishes. Exit codes: 0 clean; 1 error
(pre-flight, or nothing could be scored); 2 degraded (a case lost or partial, a finding left
undecided, a matcher call refused by the ceiling); 130/143 aborted (SIGINT/SIGTERM).
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from ..council import briefings
from ..engine import RunDir
from ..errors import AmicusError, BadArgs
from ..fsio import atomic_write_json, atomic_write_text
from ..providers.cost import ASSUMED_OUTPUT_TOKENS, CHARS_PER_TOKEN, leg_estimate, route_pricing
from ..providers.routing import ProviderRegistry, Route
from ..textcodec import decode_text
from ..vocabulary import CEILING_ERROR_CODES, TERMINAL_RUN_STATUSES, exit_status
from .documents import (CaseProgress, Decision, DecisionBy, EstimateCase, EvalDocument, EvalEstimate, EvalManifest,
                        EvalRunOptions, MatchesDocument, Money, SuiteRef)
from .evaldir import BRIEFING_FILE, EvalDir, read_manifest, sha256_file, write_manifest, write_reports
from .matching import Question, frame, targets
from .prefilter import candidates
from .scoring import share_note
from .suite import CASE_FILE, CASES_DIR, SUITE_FILE, Case, Suite, case_briefing, load_suite

if TYPE_CHECKING:
    from ..documents.council import ScoredFinding
    from ..engine import Prepared, RunOptions
    from ..schemas import JsonObject

PER_FINDING_CHARS = 600  # a finding as the matcher prompt shows it, for the estimate
TYPICAL_FINDINGS = 5  # per review, for the estimate


@dataclass
class EvalPlan:
    """Everything pre-flight established; nothing has been sent or written yet."""

    eval_id: str
    directory: EvalDir
    options: EvalRunOptions  # what eval-options.json records
    suite: Suite
    cases: list[Case]
    preps: dict[str, Prepared]  # case id → the case's council, prepared
    matcher: str
    matcher_route: Route
    max_cost: float | None
    timeout_s: float
    concurrency: int
    notices: list[str] = field(default_factory=list)
    estimate: EvalEstimate = field(init=False)  # set once the plan is whole: the estimate reads it

    def first(self) -> Prepared:
        """The first case's Prepared: the bench, chair and settings every case shares."""
        return next(iter(self.preps.values()))


# --------------------------------------------------------------------------- pre-flight

async def prepare_eval(bench: Any, *, suite: str | None, matcher: str | None, cases: Sequence[str] | None = None,
                       eval_id: str | None = None, out_dir: str | None = None,
                       run_ids: dict[str, str] | None = None) -> EvalPlan:
    """Every check before anything is sent. `bench` is the RunOptions the front built from the
    same flags `council run` takes (its briefing fields must be unset: each case has its own).
    A worker continuing an eval a front prepared passes that eval's id and run ids."""
    from ..engine import pack_sets_template, prepare, with_defaults
    from ..engine import briefing_fields, flag_of, run_options
    from ..engine import max_legs, prepare_model
    from ..engine import new_id

    options: RunOptions = bench
    for attr in briefing_fields():  # every case brings its own briefing
        if getattr(options, attr):
            raise BadArgs(f"{flag_of(attr)} does not apply to an eval: every case brings its own briefing and artifact",
                          hint="name the suite with --suite; the bench flags (--models/--council/--pack, --chair, "
                               "--critic, --lenses, --debate, --max-cost) apply to every case")
    if not matcher:
        raise BadArgs("an eval needs a matcher model: --matcher MODEL",
                      hint="a model that decides which planted flaw each finding identifies, e.g. --matcher gemini")
    loaded = load_suite(suite)
    chosen = _select(loaded, cases)
    _check_secrets(loaded, chosen, allow_secrets=bool(options.allow_secrets))
    eval_id = eval_id or new_id()
    directory = EvalDir(Path(out_dir or f"eval-{eval_id}").expanduser().resolve())
    _check_eval_dir(directory, eval_id)

    preps: dict[str, Prepared] = {}
    notices: list[str] = []
    # The pack and the environment's defaults are applied once, up front: their --max-cost is the
    # suite's. Each case's council is prepared with no ceiling of its own (infinite, so no default
    # replaces it) until the suite's has been checked against all of them (check_suite_ceiling).
    options = with_defaults(options.model_copy(
        update={"prompt_file": str(directory.case_dir(chosen[0].id) / BRIEFING_FILE)}))
    ceiling: float | None = options.max_cost
    if ceiling is not None and not ceiling > 0:
        raise BadArgs(f"--max-cost must be a positive number of dollars, got {ceiling}", hint="e.g. --max-cost 2.00")
    if options.pack_record and options.pack and pack_sets_template(options.pack):
        notices.append(f"pack '{options.pack_record['name']}' sets a template; an eval's cases bring their own "
                       "briefing, so it is not used")
    for case in chosen:
        case_dir = directory.case_dir(case.id)
        # A prompt file (this case's briefing copy) keeps a pack's template out of the options.
        case_options = options.model_copy(update={
            "prompt_file": str(case_dir / BRIEFING_FILE), "out_dir": str(directory.council_dir(case.id)),
            "run_id": (run_ids or {}).get(case.id) or new_id(), "ledger": False, "max_cost": math.inf})
        preps[case.id] = await prepare(case_options, briefing=case_briefing(case))
    share = None if ceiling is None else check_suite_ceiling(preps, ceiling)
    for prep in preps.values():
        prep.options = prep.options.model_copy(update={"max_cost": share})
    first = next(iter(preps.values()))
    with_matcher = await prepare_model(matcher, flag="--matcher", options=first.options)
    route = with_matcher.routes[0]
    bench_ids = {seat["alias"] for seat in first.seats} | {r.canonical for r in first.routes}
    if matcher in bench_ids or route.canonical in bench_ids:
        notices.append(f"the matcher '{matcher}' also sits on the bench: it decides about its own findings among "
                       "the others (it never sees who raised which)")
    record = run_options(first.options.document())
    eval_options = EvalRunOptions(suite=str(loaded.path) if suite is not None else None, matcher=matcher,
                                  cases=list(cases) if cases else None,
                                  bench=_bench_document(record, ceiling))
    plan = EvalPlan(eval_id=eval_id, directory=directory, options=eval_options, suite=loaded, cases=chosen,
                    preps=preps, matcher=matcher, matcher_route=route, max_cost=ceiling, timeout_s=first.timeout_s,
                    concurrency=max(1, max_legs() // max(1, len(first.seats))), notices=notices)
    plan.estimate = estimate(plan, catalog=with_matcher.catalog)
    return plan


def _check_secrets(suite: Suite, chosen: Sequence[Case], *, allow_secrets: bool) -> None:
    """Each case's briefing is material sent to every model: the secret scan, every case named."""
    from ..engine import check_material
    from ..errors import SecretInMaterial

    found: list[SecretInMaterial] = []
    for case in chosen:
        where = suite.path / CASES_DIR / case.id
        try:
            check_material(case_briefing(case), what=f"case '{case.id}' ({where})", allow_secrets=allow_secrets)
        except SecretInMaterial as err:
            found.append(err)
    if len(found) == 1:
        raise found[0]
    if found:
        raise SecretInMaterial("; ".join(err.message for err in found), hint=found[0].hint)


def check_suite_ceiling(preps: Mapping[str, Prepared], ceiling: float) -> float:
    """Each case's council's share of the suite's --max-cost (an even split); COST_CEILING_TOO_LOW,
    in the suite's own figures, when a share cannot hold the dearest case's council at its floor.
    The smallest ceiling it names holds every council (rounded up to 1/100 cent, checked)."""
    import math

    from ..errors import CostCeilingTooLow

    count = len(preps)
    share = ceiling / count
    needs = {case_id: math.fsum(prep.plan.floors().values()) if prep.plan is not None else 0.0
             for case_id, prep in preps.items()}
    dearest = max(needs, key=lambda case_id: needs[case_id])
    if needs[dearest] <= share:
        return share
    smallest = math.ceil(needs[dearest] * count * 10_000) / 10_000
    while smallest / count < needs[dearest]:  # float rounding must not name a ceiling one hair short
        smallest += 0.0001
    cases = "case" if count == 1 else "cases"
    raise CostCeilingTooLow(
        f"the --max-cost ${ceiling:g} ceiling cannot hold this eval: its {count} {cases} share it evenly "
        f"(${share:.4f} each), and the dearest, '{dearest}', reserves ${needs[dearest]:.4f} even with every answer "
        f"at its smallest output cap. The smallest ceiling that fits the {count} {cases} is ${smallest:.4f} "
        "(the matcher is paid from what the councils leave)",
        hint=f"raise --max-cost to at least {smallest:.4f}, run fewer cases (--case), or pick cheaper models "
             "or fewer seats")


def _bench_document(options: RunOptions, ceiling: float | None) -> JsonObject:
    """The council options every case ran with, as eval-options.json records them (the options
    model's document): the suite's ceiling instead of one case's share, and no case's briefing."""
    doc = dict(options.document())
    doc.update(maxCost=ceiling, promptFile=None)
    doc.pop("ledger", None)
    return doc


def _select(suite: Suite, wanted: Sequence[str] | None) -> list[Case]:
    if not wanted:
        return list(suite.cases)
    known = {c.id: c for c in suite.cases}
    unknown = [w for w in wanted if w not in known]
    if unknown:
        raise BadArgs(f"--case {', '.join(unknown)}: no such case in suite '{suite.doc.name}'",
                      hint=f"its cases: {', '.join(known)}")
    return [known[w] for w in dict.fromkeys(wanted)]


def _check_eval_dir(directory: EvalDir, eval_id: str) -> None:
    path = directory.path
    if path.exists() and not path.is_dir():
        raise BadArgs(f"--out-dir '{path}' exists and is not a directory", hint="name a new folder")
    if directory.manifest.exists():
        try:
            other = read_manifest(directory).id
        except AmicusError:
            other = None
        if other != eval_id:
            raise BadArgs(f"--out-dir '{path}' already holds another eval ({other or 'unreadable eval-run.json'})",
                          hint="pick a new --out-dir; an eval directory is never reused")
    elif path.is_dir() and any(path.iterdir()):
        raise BadArgs(f"--out-dir '{path}' is not empty", hint="name a new folder for the eval")


# --------------------------------------------------------------------------- the estimate

def estimate(plan: EvalPlan, *, catalog: Any) -> EvalEstimate:
    """The whole suite's cost at typical output lengths: every council leg (Stage 1, Stage 2, the
    chair, a debate round when on) and one matcher call per case."""
    rows: list[EstimateCase] = []
    unpriced: set[str] = set()
    legs_total = 0
    for case in plan.cases:
        prep = plan.preps[case.id]
        seats = len(prep.seats)
        review_chars = ASSUMED_OUTPUT_TOKENS * CHARS_PER_TOKEN
        stage1 = len(briefings.seat_briefing(prep.briefing, date="2000-01-01"))
        bundle = stage1 + seats * review_chars
        planned: list[tuple[Route, int, str]] = [(r, stage1, s["alias"]) for r, s in zip(prep.routes, prep.seats)]
        planned += [(r, bundle, s["alias"]) for r, s in zip(prep.routes, prep.seats)]
        planned.append((prep.chair_route, bundle, prep.chair))
        if prep.options.debate:
            planned += [(r, review_chars, s["alias"]) for r, s in zip(prep.routes, prep.seats) for _ in (0, 1)]
        flaws_chars = sum(len(f.description) + 80 for f in case.doc.plantedFlaws)
        planned.append((plan.matcher_route, flaws_chars + seats * TYPICAL_FINDINGS * PER_FINDING_CHARS, plan.matcher))
        amounts = []
        for route, chars, name in planned:
            amount = leg_estimate(chars, route_pricing(route, catalog))
            if amount is None:
                unpriced.add(name)
            else:
                amounts.append(amount)
        legs_total += len(planned)
        rows.append(EstimateCase(caseId=case.id, legs=len(planned), amount=round(sum(amounts), 6) if amounts else None))
    known = [r.amount for r in rows if r.amount is not None]
    return EvalEstimate(cases=len(rows), legs=legs_total, amount=round(sum(known), 6) if known else None,
                        unpricedModels=sorted(unpriced), maxCost=plan.max_cost, perCase=rows,
                        basis=(f"the catalog's prices at a typical {ASSUMED_OUTPUT_TOKENS:,} output tokens a call (the "
                               "same assumption as `amicus fanout --estimate`); repairs and retries are not counted, "
                               "and models listed as unpriced add nothing"))


def describe_estimate(est: EvalEstimate) -> str:
    from ..providers.cost import format_cost
    from .report_md import counted

    amount = format_cost(est.amount, "estimated" if est.amount is not None else "unknown")
    text = f"Estimate: {amount} for {counted(est.cases, 'case')}, {counted(est.legs, 'call')}"
    if est.unpricedModels:
        text += f" (no price known for {', '.join(est.unpricedModels)}: their cost is not in the figure)"
    if est.maxCost is not None:
        text += f"; ceiling ${est.maxCost:.2f}"
    return text


# --------------------------------------------------------------------------- writing inputs

def write_inputs(plan: EvalPlan, *, pid: int | None) -> EvalManifest:
    """The eval directory before anything is sent: the suite's copy, each case's briefing,
    eval-options.json and the `running` manifest (and the pointer that finds it by id)."""
    from ..engine import write_job_pointer

    d = plan.directory
    d.path.mkdir(parents=True, exist_ok=True)
    # The copy is written from the bytes the suite check read (never re-read through a path).
    # Each was checked to be text (textcodec's policy; the copy is UTF-8 without a BOM); a configured
    # key's value is masked, as in every file.
    atomic_write_text(d.path / SUITE_FILE, decode_text(plan.suite.raw))
    for case in plan.cases:
        target = d.case_dir(case.id)
        target.mkdir(parents=True, exist_ok=True)
        atomic_write_text(target / CASE_FILE, decode_text(case.case_raw))
        atomic_write_text(target / case.doc.artifact, decode_text(case.artifact_raw))
        atomic_write_text(target / BRIEFING_FILE, plan.preps[case.id].briefing)
    atomic_write_json(d.options, plan.options.model_dump(mode="json"))
    manifest = EvalManifest(
        id=plan.eval_id, status="running", stage="councils", pid=pid, createdAt=_now(), evalDir=str(d.path),
        suite=SuiteRef(name=plan.suite.doc.name, version=plan.suite.doc.version, sha256=plan.suite.sha256,
                       path=str(plan.suite.path)),
        models=[seat["alias"] for seat in plan.first().seats], chair=plan.first().chair, matcher=plan.matcher,
        estimate=plan.estimate, concurrency=plan.concurrency,
        cases=[CaseProgress(caseId=c.id, status="pending", runId=plan.preps[c.id].run_id,
                            runDir=str(plan.preps[c.id].run_dir)) for c in plan.cases],
        casesDone=0, casesTotal=len(plan.cases), notices=list(plan.notices), tag=plan.first().options.tag)
    write_manifest(d, manifest)
    write_job_pointer(plan.first().store, plan.eval_id, "eval-run", d.manifest)
    return manifest


def _now() -> str:
    from ..engine import now_iso

    return now_iso()


# --------------------------------------------------------------------------- the run

class EvalRun:
    """The stages in order, keeping the manifest current."""

    def __init__(self, plan: EvalPlan, manifest: EvalManifest, registry: ProviderRegistry):
        self.plan = plan
        self.manifest = manifest
        self.registry = registry
        self.degraded = False

    def save(self) -> None:
        self.manifest.casesDone = sum(1 for c in self.manifest.cases if c.status not in ("pending", "running"))
        known = [c.cost.amount for c in self.manifest.cases if c.cost is not None and c.cost.amount is not None]
        self.manifest.cost = round(sum(known), 6) if known else None
        write_manifest(self.plan.directory, self.manifest)

    def progress(self, case_id: str) -> CaseProgress:
        return next(c for c in self.manifest.cases if c.caseId == case_id)

    async def run(self) -> int:
        from ..engine import run_until_signal, signal_received

        await self.councils()
        if signal_received():
            return self.finish(signal_received() or 143)
        self.manifest.stage = "matching"
        self.save()
        await run_until_signal(self.match_all)  # a signal stops the matcher's calls too
        if signal_received():
            return self.finish(signal_received() or 143)
        self.manifest.stage = "scoring"
        self.save()
        return self.score()

    # -- councils -------------------------------------------------------------------------

    async def councils(self) -> None:
        limiter = anyio.CapacityLimiter(self.plan.concurrency)
        async with anyio.create_task_group() as group:
            for case in self.plan.cases:
                group.start_soon(self.council, case, limiter)

    async def council(self, case: Case, limiter: anyio.CapacityLimiter) -> None:
        from ..engine import run_prepared
        from ..engine import signal_received

        async with limiter:
            progress = self.progress(case.id)
            if signal_received():
                progress.status = "skipped"
                self.save()
                return
            progress.status = "running"
            self.save()
            try:
                run, code = await run_prepared(self.plan.preps[case.id], registry=self.registry)
            except AmicusError as err:  # a case's own failure is that case's outcome
                progress.status = "error"
                progress.cost = Money(amount=None, unpricedLegs=0)
                progress.error = {"code": err.code, "message": err.message}
                self.degraded = True
                self.save()
                return
            progress.status = run.status if run.status in TERMINAL_RUN_STATUSES else "error"
            progress.cost = Money(amount=run.usage.cost.amount if run.usage is not None else None,
                                  unpricedLegs=run.usage.unknown_legs if run.usage is not None else 0)
            if run.error is not None:
                note = share_note(self.plan.max_cost, len(self.plan.cases)) if run.error.code in CEILING_ERROR_CODES else ""
                progress.error = {"code": run.error.code, "message": run.error.message + note}
            if code != 0:
                self.degraded = True
            self.save()

    # -- matching -------------------------------------------------------------------------

    async def match_all(self) -> None:
        from ..engine import Budget

        spent = [c.cost.amount for c in self.manifest.cases if c.cost is not None and c.cost.amount is not None]
        ceiling = None if self.plan.max_cost is None else max(0.0, self.plan.max_cost - sum(spent))
        budget = Budget(ceiling)
        limiter = anyio.CapacityLimiter(max(1, self.plan.concurrency))
        async with anyio.create_task_group() as group:
            for case in self.plan.cases:
                tally = RunDir(self.plan.directory.council_dir(case.id)).tally_path
                if tally.is_file():
                    group.start_soon(self.match_case, case, tally, budget, limiter)

    async def match_case(self, case: Case, tally_path: Path, budget: Any, limiter: anyio.CapacityLimiter) -> None:
        async with limiter:
            started = time.monotonic()
            matcher = Matcher(self, case, budget)
            doc = await matcher.decide(tally_path)
            doc = doc.model_copy(update={"durationMs": int((time.monotonic() - started) * 1000)})
            atomic_write_json(self.plan.directory.matches(case.id), doc.model_dump(mode="json"))
            if any(d.by == "undecided" for d in doc.decisions):
                self.degraded = True

    # -- scoring --------------------------------------------------------------------------

    def score(self) -> int:
        from .evaldir import rescore

        self.manifest.stage = "done"
        self.manifest.status = "partial" if self.degraded else "complete"
        self.manifest.completedAt = _now()
        code = 2 if self.degraded else 0
        self.manifest.exitCode = code
        try:  # scored from the ending manifest in memory; disk says terminal only once the reports exist
            doc = rescore(self.plan.directory, self.manifest)
        except AmicusError as err:
            self.manifest.stage = "scoring"
            return self.finish(1, error={"code": err.code, "message": err.message})
        if doc.casesScored == 0:  # every council failed: say why the first one did
            self.manifest.stage = "scoring"
            first = next((c.error for c in self.manifest.cases if c.error), None) or {"code": "COUNCIL_QUORUM"}
            return self.finish(1, error={"code": first["code"],
                                         "message": "no case produced a tally, so there is nothing to score"})
        paths = write_reports(self.plan.directory, doc)
        self.manifest.report = str(paths["eval.html"])
        if self.plan.first().lens_run:
            self.manifest.notices.append("lens eval: not recorded in the eval ledger (lens reviews are not comparable)")
        else:
            warning = append_eval_ledger(doc)
            if warning:
                self.manifest.notices.append(warning)
        self.save()
        return code

    def finish(self, code: int, *, error: dict[str, str] | None = None) -> int:
        self.manifest.status = exit_status(code)
        self.manifest.exitCode = code
        self.manifest.completedAt = _now()
        if error is not None:
            self.manifest.error = error
        self.save()
        return code


# --------------------------------------------------------------------------- the matcher

class Matcher:
    """One case's matching: the pre-filter, then the matcher's call(s), then every decision."""

    def __init__(self, run: EvalRun, case: Case, budget: Any):
        self.run, self.case, self.budget = run, case, budget
        self.usages: list[Any] = []
        self.legs = 0

    async def decide(self, tally_path: Path) -> MatchesDocument:
        tally = RunDir(tally_path.parent).read_tally()
        findings = [f for f in tally.get("findings", []) if isinstance(f, dict)]
        rationale = self.rationales(tally_path.parent, findings)
        decisions: dict[str, Decision] = {}
        questions: list[Question] = []
        for f in findings:
            fid, location, claim = str(f.get("id")), str(f.get("location") or ""), str(f.get("claim") or "")
            found = candidates(self.case.doc.plantedFlaws, location=location, claim=claim)
            if not found.flaws:
                by: DecisionBy = "clean-case" if found.placement == "clean" else "prefilter"
                decisions[fid] = Decision(finding=fid, candidates=[], placement=found.placement, flaw=None, by=by,
                                          reason=None)
            else:
                questions.append(Question(fid, str(f.get("severity")), location, claim, rationale.get(fid, ""),
                                          found.flaws))
                decisions[fid] = Decision(finding=fid, candidates=list(found.flaws), placement=found.placement,
                                          flaw=None, by="undecided", reason=None)
        answers = await self.ask(questions) if questions else {}
        for fid, (flaw, reason) in answers.items():
            decisions[fid] = decisions[fid].model_copy(update={"flaw": flaw, "by": "matcher", "reason": reason})
        from ..providers.cost import rollup

        cost = rollup(self.usages)["cost"]
        return MatchesDocument(caseId=self.case.id, caseSha256=self.case.sha256, runId=str(tally["meta"]["runId"]),
                               tallySha256=sha256_file(tally_path), matcher=self.run.plan.matcher,
                               decisions=[decisions[str(f.get("id"))] for f in findings],
                               usage=Money(amount=cost["amount"], unpricedLegs=cost["unpricedLegs"]),
                               legs=self.legs, durationMs=None)

    def rationales(self, council: Path, findings: Sequence[ScoredFinding]) -> dict[str, str]:
        """Each finding's rationale, read back from its raiser's review (the tally keeps none)."""
        return RunDir(council).review_rationales(findings)

    async def ask(self, questions: list[Question]) -> dict[str, tuple[str | None, str]]:
        """The engine's matcher leg (engine/matcher.py) over this case's planted flaws; what it
        could not do is said in the eval's notices, and those findings stay undecided."""
        from ..engine import MatcherLeg, run_matcher

        plan = self.run.plan
        leg = MatcherLeg(model=plan.matcher, route=plan.matcher_route, catalog=plan.first().catalog,
                         registry=self.registry, budget=self.budget, timeout_s=plan.timeout_s,
                         directory=plan.directory.case_dir(self.case.id))
        outcome = await run_matcher(leg, frame(self.case), targets(self.case), questions)
        self.legs += outcome.legs
        self.usages.extend(outcome.usages)
        for loss in outcome.losses:
            if loss.kind == "refused":
                self.run.manifest.notices.append(
                    f"case {self.case.id}: the matcher call was refused by the suite's --max-cost "
                    f"${plan.max_cost:g} ceiling (what the councils left of it could not hold it); its findings "
                    "stay undecided")
            elif loss.kind == "failed":
                self.run.manifest.notices.append(f"case {self.case.id}: {loss.detail}")
        return outcome.answers

    @property
    def registry(self) -> ProviderRegistry:
        return self.run.registry


# --------------------------------------------------------------------------- the ledger

def append_eval_ledger(doc: EvalDocument) -> str | None:
    """One content-free row per model (eval-ledger-row) in the eval ledger; best effort."""
    from ..config import eval_ledger_path
    from ..council.ledger import append_rows
    from .scoring import ledger_rows

    rows = [row.model_dump(mode="json", exclude=None if row.tag else {"tag"}) for row in ledger_rows(doc)]  # tag: emit-when-set
    return append_rows(rows, eval_ledger_path(), what="eval ledger")


# --------------------------------------------------------------------------- entry points

async def run_eval(plan: EvalPlan, *, registry: ProviderRegistry | None = None,
                   manifest: EvalManifest | None = None) -> tuple[EvalManifest, int]:
    """An eval from its plan to its scores, with signal handling. Returns (eval-run.json, exit code).
    `manifest`: the one a front already wrote (a detached worker takes it over)."""
    import os

    from ..engine import run_until_signal

    if manifest is None:
        manifest = write_inputs(plan, pid=os.getpid())
    else:
        manifest.pid = os.getpid()
        write_manifest(plan.directory, manifest)
    own = registry is None
    active = registry or ProviderRegistry()
    engine = EvalRun(plan, manifest, active)
    try:
        code, signal_code = await run_until_signal(engine.run, graceful=True)
    except Exception as exc:  # a bug: the manifest must not stay `running`
        engine.finish(1, error={"code": "INTERNAL", "message": f"{type(exc).__name__}: {exc}"})
        raise
    finally:
        if own:
            await active.aclose()
    if signal_code is not None and engine.manifest.status == "running":
        code = engine.finish(signal_code)
    return engine.manifest, int(code if code is not None else 1)


def start_eval(plan: EvalPlan) -> EvalManifest:
    """Start a prepared eval as a detached worker (`python -m amicus_mcp.eval.worker DIR`)."""
    import os
    import sys

    from ..engine import RUN_FILES, spawn_detached
    from ..errors import InternalError

    manifest = write_inputs(plan, pid=os.getpid())  # this (live) process stands for the worker until it runs
    argv = [sys.executable, "-m", "amicus_mcp.eval.worker", str(plan.directory.path)]
    try:
        pid = spawn_detached(argv, cwd=plan.first().store.project, log_path=plan.directory.path / RUN_FILES.engine_log)
    except OSError as exc:
        manifest.status, manifest.exitCode, manifest.completedAt = "error", 1, _now()
        manifest.error = {"code": "INTERNAL", "message": f"could not start the eval: {exc.strerror or exc}"}
        write_manifest(plan.directory, manifest)
        raise InternalError(manifest.error["message"], hint="check the Python environment amicus runs in") from None
    current = read_manifest(plan.directory)
    if current.pid == os.getpid():  # the worker has not written its own pid yet
        current.pid = pid
        write_manifest(plan.directory, current)
    return current

