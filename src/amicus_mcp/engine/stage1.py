"""Stage 1: every seat reviews the composed briefing, independently and at once.

Each seat gets its brief (standard, critic or lens), and each review is validated with at
most two repair re-prompts that may not change its findings count. A review that still
fails is kept `unstructured`, with its prose and no findings: the bench still ranks it, but
its findings are lost — a degrade. A seat whose leg dies, or that says nothing even after
repair, produced no review.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import anyio

from ..council import briefings
from ..council.anonymize import StageOneReview, strip_findings_block
from ..council.findings import count_attempted_findings, read_last_json_block, validate_findings
from ..council.seats import Seat, seat_file_stem
from ..providers.routing import Route
from .asking import Contract, Parsed, ask
from .context import Row, RunContext

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
    stance = briefings.seat_stance(seat["role"], seat["lens"])
    if seat["role"] == "critic":
        name = "briefing-stage1-critic"
    elif seat["lens"]:
        name = f"briefing-stage1-lens-{seat['lens']}"
    else:
        name = "briefing-stage1"
    brief = briefings.seat_briefing(ctx.prep.briefing, date=ctx.date, stance=stance, structured=structured)
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


async def review_seat(ctx: RunContext, index: int, outcome: SeatOutcome, brief: str) -> None:
    seat, route = outcome.seat, outcome.route
    row = Row(model=seat["alias"], role=seat["role"], stage=STAGE, position=seat["position"], seat_id=seat["id"])
    answer = await ask(ctx, review_contract(ctx, seat, route), leg_id=f"{ctx.run_id}-s1-{index + 1}", role="seat", route=route,
                       row=row, prompt=brief, seat_id=seat["id"])
    if answer.first is None:
        ctx.stat_row(row, None)
        return
    if answer.dead:
        ctx.degrade("stage1", f"seat {seat['id']} produced no review", answer.first.why())
        if answer.first.text:
            ctx.write(f"review-{seat_file_stem(seat['id'])}.md", answer.first.text)
        return
    if not answer.text.strip():
        ctx.degrade("stage1", f"seat {seat['id']} produced no review", "the model returned no text, even after repair")
        return
    outcome.conformance = answer.conformance
    if not answer.ok:
        ctx.degrade("stage1", f"seat {seat['id']}'s findings were lost",
                    "its review never carried a valid findings block, even after repair; the prose is judged, "
                    "but it raises no findings")
    findings = answer.parsed["findings"] if answer.ok else []
    outcome.review = StageOneReview(seat["id"], seat["alias"], answer.text, findings, structured=answer.ok)
    ctx.write(f"review-{seat_file_stem(seat['id'])}.md", answer.text)


def _with_block(text: str, block: dict[str, Any]) -> str:
    return f"{strip_findings_block(text)}\n\n```json\n{json.dumps(block, indent=2, ensure_ascii=False)}\n```\n"
