"""The chair walk: the requested chair → one retry → the best peers-only street-cred model
from the ledger that is not on the bench → give up (`overallVerdict: null`).

A chair that answers but gives no `VERDICT:` line gets exactly one repair. Every attempt is
recorded on run.json `chairAttempts[]` and checkpointed, so a kill mid-walk keeps what
already happened.

A question council's chair walks the same way; its closing line is `ANSWER: <standing> — <the
answer>` instead (the standing is its `overallVerdict`), read, repaired, promoted past and given
up on exactly as a VERDICT line is.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..council import briefings, question_briefings
from ..council.anonymize import Anonymized
from ..council.answers import AnswerDetails
from ..council.ledger import derive_stats, read_ledger
from ..council.parse import parse_answer_line, parse_verdict_line
from ..council.ranking import aggregate_ranking
from ..config import load_config
from ..errors import AmicusError
from ..providers.catalog import Catalog
from ..providers.routing import Route, resolve_model
from .asking import Contract, Parsed, ask
from ..documents.run import ChairAttempt
from ..documents.tally import TallyInput
from .context import RunContext
from .legs import LegResult, Row
from .preflight import check_listed, check_ready, gate_threshold
from .run_dir import CHAIR_OUTPUT, CHAIR_PACKET

STAGE = 4


def verdict_contract(ctx: RunContext, route: Route) -> Contract:
    """A synthesis that ends with a VERDICT line; one repair asks for just the line."""

    def parse(text: str) -> Parsed:
        verdict = parse_verdict_line(text)
        errors = [] if verdict else [{"code": "NO_VERDICT", "detail": "no VERDICT line"}]
        return {"ok": verdict is not None, "errors": errors, "verdict": verdict}

    return Contract(
        stage="chair", parse=parse, max_repairs=1,
        repair_prompt=lambda failing, parsed: briefings.chair_repair_prompt(failing),
        repair_id=lambda: f"{ctx.run_id}-ch4",  # the walk's ids: ch1 chair, ch2 retry, ch3 promoted, ch4 repair
        merge=lambda original, repair, parsed: original,  # the synthesis stays the chair's own
        schema=briefings.chair_output_schema(compact=ctx.profile(route).compact),
        to_text=briefings.chair_from_structured,
    )


def answer_contract(ctx: RunContext, route: Route, *, task: bool = False) -> Contract:
    """A question chair's synthesis that ends with an ANSWER line; one repair asks for just the line.
    A task council's chair (`task`) closes the same way after a review chair's synthesis and hard
    questions, so its structured form is the review chair's with the ANSWER line's two parts."""

    def parse(text: str) -> Parsed:
        line = parse_answer_line(text)
        errors = [] if line else [{"code": "NO_ANSWER", "detail": "no ANSWER line"}]
        return {"ok": line is not None, "errors": errors, "verdict": line.standing if line else None,
                "answer": line.answer if line else None}

    return Contract(
        stage="chair", parse=parse, max_repairs=1,
        repair_prompt=lambda failing, parsed: question_briefings.chair_answer_repair_prompt(failing),
        repair_id=lambda: f"{ctx.run_id}-ch4",
        merge=lambda original, repair, parsed: original,  # the synthesis stays the chair's own
        schema=(briefings.chair_task_output_schema if task else question_briefings.chair_question_output_schema)(
            compact=ctx.profile(route).compact),
        to_text=briefings.chair_task_from_structured if task else question_briefings.chair_question_from_structured,
    )


@dataclass
class ChairOutcome:
    alias: str | None = None  # the chair that delivered
    verdict: str | None = None  # its VERDICT line (a question: its ANSWER line's standing)
    text: str | None = None  # its prose (synthesis, hard questions; a question's dissent)
    answer: str | None = None  # a question: the sentence on its ANSWER line


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


async def run_chair(ctx: RunContext, packet: str) -> ChairOutcome:
    """The walk to a chair that delivers; every field of the outcome may be None."""
    p = ctx.prep
    question = p.options.answers_chair  # a question's chair and a task's close on an ANSWER line
    lost = "no chair answer" if question else "no chair verdict"
    if ctx.exhausted:
        ctx.plan_none()
        ctx.stage("chair", "skipped", reason="max-cost")
        ctx.degrade("chair", lost, "the --max-cost ceiling was reached before the chair could run")
        ctx.stat_row(Row(model=p.chair, role="chair", stage=STAGE, was_chair=True), None)
        return ChairOutcome()
    ctx.plan(1, wave="chair")
    ctx.stage("chair", "running")
    ctx.write(CHAIR_PACKET, packet)
    walk = ChairWalk()
    for alias, route in chair_candidates(ctx, walk):
        leg_id = ctx.next_id("ch")
        contract = answer_contract(ctx, route, task=p.options.task) if question else verdict_contract(ctx, route)
        answer = await ask(ctx, contract, leg_id=leg_id, role="chair", route=route,
                           row=Row(model=alias, role="chair", stage=STAGE, was_chair=True), prompt=packet,
                           dead_row=Row(model=alias, role="chair-attempt", stage=STAGE))
        record_attempt(ctx, leg_id, alias, answer.first)
        if answer.first is None:
            walk.refused = True
            break  # refused for cost: the walk stops here
        if answer.dead:
            continue
        if answer.repairs and answer.repairs[-1].text:
            ctx.write("chair-repair-output.md", answer.repairs[-1].text)
        ctx.state.chair_delivered(alias, answer.conformance)  # type: ignore[arg-type]
        ctx.stage("chair", "complete", model=alias)
        if alias != p.chair:
            ctx.notice(f"chair promoted: {p.chair} failed twice, so {alias} (the best peers-only "
                       "street-cred in the ledger, off the bench) chaired instead")
        if not answer.ok:
            line = "ANSWER" if question else "VERDICT"
            ctx.degrade("chair", lost, f"the chair's output has no {line} line, even after one repair")
        return ChairOutcome(alias, answer.parsed["verdict"], answer.text, answer.parsed.get("answer"))
    ctx.stat_row(Row(model=p.chair, role="chair", stage=STAGE, was_chair=True), None)
    ctx.stage("chair", "error")
    ctx.degrade("chair", lost, walk.give_up_reason(p.chair))
    return ChairOutcome()


def record_attempt(ctx: RunContext, leg_id: str, alias: str, result: LegResult | None) -> None:
    if result is None:
        attempt = ChairAttempt(wave_id=leg_id, model=alias, outcome="refused", reason="max-cost")
    else:
        outcome = "completed" if result.usable else ("no-output" if result.status == "complete" else result.status)
        attempt = ChairAttempt(wave_id=leg_id, model=alias, outcome=outcome,  # type: ignore[arg-type]
                               reason=None if result.usable else result.why())
        if result.text:
            ctx.write(CHAIR_OUTPUT, result.text)
    ctx.state.chair_attempt(attempt)


def chair_candidates(ctx: RunContext, walk: ChairWalk) -> Iterator[tuple[str, Route]]:
    """The requested chair, its one retry, then the best non-bench model from the ledger."""
    p = ctx.prep
    yield p.chair, p.chair_route
    yield p.chair, p.chair_route
    # Exclude the bench by alias and by the executables that actually served it this run.
    served = ctx.state.served_models("stage1")
    promoted = promote_chair(exclude={s["alias"] for s in p.seats} | served | {p.chair, "claude"},
                             gateway=p.options.gateway, catalog=p.catalog, validate=p.options.validate_models,
                             cost_gate=p.options.cost_gate)
    walk.promoted = promoted[0] if promoted is not None else None
    walk.searched = True
    if promoted is not None:
        yield promoted


def promote_chair(*, exclude: set[str], gateway: str | None, catalog: Catalog, validate: bool = True,
                  cost_gate: bool = True) -> tuple[str, Route] | None:
    """The best peers-only street-cred model in the ledger that is not on the bench and that
    passes every check the requested chair passed (its key, the catalog, the cost gate)."""
    cfg = load_config()
    threshold = gate_threshold(cost_gate, cfg)
    rows = [r for r in derive_stats(read_ledger())["models"] if r.get("avgStreetCredPeersOnly") is not None]
    rows.sort(key=lambda r: (r["avgStreetCredPeersOnly"], -r["runs"], r["model"]))
    for row in rows:
        alias = (row.get("aliases") or [row["model"]])[0]
        if alias in exclude or row["model"] in exclude:
            continue
        try:
            route = resolve_model(alias, gateway=gateway, cfg=cfg)  # type: ignore[arg-type]
            check_ready(alias, route, cfg)
            check_listed([(alias, route)], catalog, validate=validate, threshold=threshold)
        except AmicusError:
            continue
        return alias, route
    return None


def chair_packet(ctx: RunContext, anon: Anonymized, authors: list[str], judges_input: TallyInput,
                 record: Mapping[str, Any]) -> str:
    """The de-anonymized packet: the briefing, the record, every finding (amended claims win),
    every review under its seat's name, and the rankings. A question council's packet carries
    the answers in the council's aggregate ranking, the key claims as tiered, every answer under
    its seat's name, and the rankings."""
    if ctx.prep.options.question:
        answers = [{"who": who, "label": label, "prose": prose, **_details(anon, label)}
                   for who, (label, prose) in zip(authors, anon.prose)]
        return question_briefings.question_chair_packet(
            briefing=ctx.prep.briefing, date=ctx.date, record=record, ranking=aggregate_ranking(record),
            answers=answers, rankings=judges_input["rankings"])
    named_reviews = [(who, prose) for who, (_, prose) in zip(authors, anon.prose)]
    claims = {f["id"]: f["claim"] for f in record["findings"] if isinstance(f.get("claim"), str)}
    findings = [{**f, "claim": claims.get(f["id"], f["claim"])} for f in anon.findings]
    return briefings.chair_packet(briefing=ctx.prep.briefing, date=ctx.date, record=record, findings=findings,
                                  reviews=named_reviews, rankings=judges_input["rankings"],
                                  scale="chair-task-scale" if ctx.prep.options.task else "chair-verdict-scale")


def _details(anon: Anonymized, label: str) -> AnswerDetails:
    detail = anon.details.get(label)
    if detail is None:  # an unstructured answer: nothing read of it but its prose
        return {"answer": None, "confidence": None, "assumptions": []}
    return {"answer": detail["answer"], "confidence": detail["confidence"], "assumptions": detail["assumptions"]}
