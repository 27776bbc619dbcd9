"""Stage 1: every seat reviews the composed briefing, independently and at once.

Each seat gets its brief (standard, critic or lens), and each review is validated with at
most two repair re-prompts that may not change its findings count. A review that still
fails is kept `unstructured`, with its prose and no findings: the bench still ranks it, but
its findings are lost — a degrade. A seat whose leg dies, or that says nothing even after
repair, did not review.

A question council's seats answer the question instead (`answer-<seat>.md`), in the answer
contract (council/answers.py): the same ask → parse → repair routine, with repairs that may not
change the number of key claims. An answer whose block never reads is kept `unstructured`, its
prose judged and its claims lost; an empty answer is a dead seat (a repair, which has no
question to answer, cannot fill it).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import NamedTuple, cast

import anyio

from ..council import briefings, question_briefings
from ..council.anonymize import StageOneReview, strip_findings_block
from ..council.answers import AnswerResult, answer_details, count_attempted_claims, validate_answer
from ..council.findings import count_attempted_findings, read_last_json_block, validate_findings
from ..council.seats import Seat, seat_file_stem
from ..providers.routing import Route
from ..schemas import JsonObject
from .asking import Contract, Parsed, ask
from .context import RunContext
from .legs import Row

STAGE = 1
MAX_REPAIRS = 2


@dataclass
class SeatOutcome:
    seat: Seat
    route: Route
    review: StageOneReview | None = None  # None: the seat produced no usable review
    conformance: str = "clean"


async def run_stage1(ctx: RunContext) -> list[SeatOutcome]:
    """Every seat at once: standard seats, the critic and lens seats, each with its brief."""
    ctx.stage("stage1", "running", wave_id=f"{ctx.run_id}-s1")
    ctx.plan(len(ctx.prep.seats), wave="stage1")
    outcomes = [SeatOutcome(seat, route) for seat, route in zip(ctx.prep.seats, ctx.prep.routes)]
    async with anyio.create_task_group() as group:
        for index, outcome in enumerate(outcomes):
            group.start_soon(review_seat, ctx, index, outcome, brief_for(ctx, outcome.seat, outcome.route))
    ctx.stage("stage1", "complete")
    return outcomes


def brief_for(ctx: RunContext, seat: Seat, route: Route) -> str:
    """The seat's composed briefing, written once per distinct brief to the run dir."""
    structured = ctx.profile(route).structured_outputs
    question = ctx.prep.options.question
    stance = (question_briefings.question_stance if question else briefings.seat_stance)(seat["role"], seat["lens"])
    if seat["role"] == "critic":
        name = "briefing-stage1-critic"
    elif seat["lens"]:
        name = f"briefing-stage1-lens-{seat['lens']}"
    else:
        name = "briefing-stage1"
    compose = question_briefings.question_briefing if question else briefings.seat_briefing
    brief = compose(ctx.prep.briefing, date=ctx.date, stance=stance, structured=structured)
    if name != "briefing-stage1" or structured:
        ctx.write(f"{name}{'-structured' if structured else ''}.md", brief)
    return brief


def review_contract(ctx: RunContext, seat: Seat, route: Route) -> Contract:
    """A findings block that validates, repaired without adding or dropping a finding."""

    def refuse(failing: str, fixed: Parsed) -> str | None:
        attempted = count_attempted_findings(failing)
        if attempted is None or len(fixed["findings"]) == attempted:
            return None
        return f"repair for seat {seat['id']} changed the findings count ({attempted} → {len(fixed['findings'])}); refused"

    def merge(original: str, repair: str, fixed: Parsed) -> str:
        block = read_last_json_block(repair).value
        return _with_block(original, {"overall": block.get("overall"), "findings": fixed["findings"]})

    return Contract(
        stage="stage1", parse=validate_findings, max_repairs=MAX_REPAIRS, repair_empty=True,
        repair_prompt=lambda failing, parsed: briefings.findings_repair_prompt(
            failing, parsed["errors"], count_attempted_findings(failing)),
        repair_id=lambda: ctx.next_id("p"), refuse=refuse, merge=merge,
        schema=briefings.findings_output_schema(compact=ctx.profile(route).compact),
        to_text=briefings.review_from_structured,
    )


def answer_contract(ctx: RunContext, seat: Seat, route: Route) -> Contract:
    """An answer block that validates, repaired without adding or dropping a key claim."""

    def refuse(failing: str, fixed: Parsed) -> str | None:
        attempted = count_attempted_claims(failing)
        if attempted is None or len(fixed["claims"]) == attempted:
            return None
        return f"repair for seat {seat['id']} changed the key claims count ({attempted} → {len(fixed['claims'])}); refused"

    def merge(original: str, repair: str, fixed: Parsed) -> str:
        return _with_block(original, {"answer": fixed["answer"], "claims": fixed["claims"],
                                      "assumptions": fixed["assumptions"], "confidence": fixed["confidence"]})

    return Contract(
        stage="stage1", parse=validate_answer, max_repairs=MAX_REPAIRS,
        repair_prompt=lambda failing, parsed: question_briefings.answer_repair_prompt(
            failing, parsed["errors"], count_attempted_claims(failing)),
        repair_id=lambda: ctx.next_id("p"), refuse=refuse, merge=merge,
        schema=question_briefings.answer_output_schema(compact=ctx.profile(route).compact),
        to_text=question_briefings.answer_from_structured,
    )


class _Form(NamedTuple):
    """What a Stage-1 document is called and how it is kept: a review, or a question's answer."""

    noun: str  # review | answer
    items: str  # findings | key claims
    block: str  # findings block | answer block


REVIEW_FORM = _Form("review", "findings", "findings block")
ANSWER_FORM = _Form("answer", "key claims", "answer block")


async def review_seat(ctx: RunContext, index: int, outcome: SeatOutcome, brief: str) -> None:
    seat, route = outcome.seat, outcome.route
    question = ctx.prep.options.question
    form = ANSWER_FORM if question else REVIEW_FORM
    contract = (answer_contract if question else review_contract)(ctx, seat, route)
    row = Row(model=seat["alias"], role=seat["role"], stage=STAGE, position=seat["position"], seat_id=seat["id"])
    answer = await ask(ctx, contract, leg_id=f"{ctx.run_id}-s1-{index + 1}", role="seat", route=route,
                       row=row, prompt=brief, seat_id=seat["id"])
    stem = seat_file_stem(seat["id"])
    file = f"answer-{stem}.md" if question else f"review-{stem}.md"
    if answer.first is None:
        ctx.stat_row(row, None)
        return
    if answer.dead:
        ctx.degrade("stage1", f"seat {seat['id']} did not {form.noun}", answer.first.why())
        if answer.first.text:
            ctx.write(file, answer.first.text)
        return
    if not answer.text.strip():
        ctx.degrade("stage1", f"seat {seat['id']} did not {form.noun}", "the model returned no text, even after repair")
        return
    outcome.conformance = answer.conformance
    if not answer.ok:
        ctx.degrade("stage1", f"seat {seat['id']}'s {form.items} were lost",
                    f"its {form.noun} never carried a valid {form.block}, even after repair ({answer.reason()}); "
                    f"the prose is judged, but it raises no {form.items}")
    if question:
        outcome.review = StageOneReview(seat["id"], seat["alias"], answer.text, answer.parsed["claims"] if answer.ok else [],
                                        structured=answer.ok, details=answer_details(cast(AnswerResult, answer.parsed)) if answer.ok else None)  # parsed by validate_answer
    else:
        findings = answer.parsed["findings"] if answer.ok else []
        if findings and answer.conformance == "repaired" and count_attempted_findings(answer.first.text or "") is None:
            # The first reply declared no findings block, so no count checked the repair's
            # findings: they stand on the repair alone (the report lists it as a loss).
            ctx.rows.flag(answer.first.leg_id, "findingsUnverified")
        outcome.review = StageOneReview(seat["id"], seat["alias"], answer.text, findings, structured=answer.ok)
    ctx.write(file, answer.text)


def _with_block(text: str, block: JsonObject) -> str:  # the block a reply ends with, as JSON
    return f"{strip_findings_block(text)}\n\n```json\n{json.dumps(block, indent=2, ensure_ascii=False)}\n```\n"
