"""Stage 2: one anonymized bundle to every judge; each ranks every review and votes on
every finding. At most two repairs per judge; a judge that still fails is dropped, and
below two judges the tally is `judged: false` (a degrade).

A question council's judges get the answers' bundle (each answer, its confidence and
assumptions, its reasoning and its key claims) and rank the answers and vote on the claims in
the very same block, read and repaired the same way."""

from __future__ import annotations

from dataclasses import dataclass, field

import anyio

from ..council import briefings, question_briefings
from ..council.anonymize import Anonymized, JudgeAnswer
from ..council.parse import parse_judge_output
from ..council.seats import seat_file_stem
from .asking import Contract, ask
from .context import Row, RunContext
from .run_dir import BUNDLE
from .stage1 import SeatOutcome

STAGE = 2
MAX_REPAIRS = 2
REPAIRED_MARK = "<!-- repaired judgement block -->"


@dataclass
class CrossReview:
    judges: list[JudgeAnswer]
    prose: dict[str, str] = field(default_factory=dict)  # seat id → the judge's final text


def dismissed_notes(ctx: RunContext, anon: Anonymized) -> dict[str, str] | None:
    """The findings that match one the user denied in this project before (dismissed.json), as
    the bundle's notes. An eval's case (no ledger) never reads the project's decisions."""
    from .decisions import dismissed_note, mark_dismissed

    if not ctx.prep.options.ledger:
        return None
    doc = mark_dismissed(ctx.prep.run_dir, {"runId": ctx.run_id}, anon.findings, ctx.prep.store.project)
    if doc is None:
        return None
    ctx.notice(f"{len(doc['findings'])} finding(s) match one dismissed before: "
               + ", ".join(f"{m['id']} (run {m['dismissedIn']})" for m in doc["findings"]))
    return {m["id"]: dismissed_note(m) for m in doc["findings"]}


async def run_stage2(ctx: RunContext, anon: Anonymized, usable: list[SeatOutcome]) -> CrossReview:
    if ctx.prep.options.question:
        bundle = question_briefings.answers_bundle(briefing=ctx.prep.briefing, date=ctx.date, answers=anon.prose,
                                                   details=anon.details, claims=anon.findings)
    else:
        bundle = briefings.judge_bundle(briefing=ctx.prep.briefing, date=ctx.date, reviews=anon.prose,
                                        findings=anon.findings, dismissed=dismissed_notes(ctx, anon))
    ctx.write(BUNDLE, bundle)
    ctx.plan(len(usable), wave="stage2")
    ctx.stage("stage2", "running", wave_id=f"{ctx.run_id}-s2")
    answers: list[JudgeAnswer | None] = [None] * len(usable)
    prose: dict[str, str] = {}

    async def judge(index: int, outcome: SeatOutcome) -> None:
        answers[index] = await judge_seat(ctx, index, outcome, anon, bundle, prose)

    async with anyio.create_task_group() as group:
        for index, outcome in enumerate(usable):
            group.start_soon(judge, index, outcome)
    judged = [a for a in answers if a is not None]
    if len(judged) < 2:
        refused = len(ctx.state.refusals("stage2"))
        blame = f" (the --max-cost ceiling had no room for {refused} of them)" if refused else ""
        ctx.degrade("stage2", "cross-review is thin",
                    f"only {len(judged)} judge(s) produced a usable judgement{blame}; the tally is judged:false")
    ctx.stage("stage2", "complete", judges=len(judged))
    return CrossReview(judged, {seat: prose[seat] for seat in (o.seat["id"] for o in usable) if seat in prose})


async def judge_seat(ctx: RunContext, index: int, outcome: SeatOutcome, anon: Anonymized, bundle: str,
                     prose: dict[str, str]) -> JudgeAnswer | None:
    seat, route = outcome.seat, outcome.route
    contract = Contract(
        stage="stage2", max_repairs=MAX_REPAIRS,
        parse=lambda text: parse_judge_output(text, anon.labels, anon.finding_ids),
        repair_prompt=lambda failing, parsed: briefings.judge_repair_prompt(
            failing, parsed["errors"], anon.labels, anon.finding_ids),
        repair_id=lambda: ctx.next_id("q"),
        merge=lambda original, repair, parsed: f"{original.rstrip()}\n\n{REPAIRED_MARK}\n{repair}",
        schema=briefings.judge_output_schema(anon.labels, anon.finding_ids, compact=ctx.profile(route).compact),
        to_text=briefings.judge_from_structured,
    )
    row = Row(model=seat["alias"], role="judge", stage=STAGE, position=seat["position"])
    answer = await ask(ctx, contract, leg_id=f"{ctx.run_id}-s2-{index + 1}", role="judge", route=route, row=row,
                       prompt=bundle, seat_id=seat["id"])
    if answer.first is None:
        return None
    if answer.dead:
        ctx.degrade("stage2", f"judge {seat['id']} produced no judgement", answer.first.why())
        return None
    ctx.write(f"judge-{seat_file_stem(seat['id'])}.md", answer.text)
    prose[seat["id"]] = answer.text
    if not answer.ok:
        codes = ", ".join(e["code"] for e in answer.parsed["errors"])
        ctx.degrade("stage2", f"judge {seat['id']} dropped", f"its judgement never parsed ({codes})")
        return None
    return JudgeAnswer(seat["id"], seat["alias"], answer.parsed["ranking"], answer.parsed["adjudications"])
