"""Stage 2: one anonymized bundle to every judge; each ranks every review and votes on
every finding. At most two repairs per judge; a judgement that still fails keeps its valid
part (`parse.salvage_judge_output`: a whole ranking once labels that name no review are set
aside, each valid vote) with a notice of what was dropped, and the judge is dropped only when
nothing valid is left. Below two rankings the tally is `judged: false` (a degrade).

A question council's judges get the answers' bundle (each answer, its confidence and
assumptions, its reasoning and its key claims) and rank the answers and vote on the claims in
the very same block, read and repaired the same way."""

from __future__ import annotations

from dataclasses import dataclass, field

import anyio

from ..council import briefings, question_briefings
from ..council.anonymize import Anonymized, JudgeAnswer
from ..council.parse import parse_judge_output, salvage_judge_output
from ..council.seats import Seat, seat_file_stem
from ..errors import BadArgs
from .asking import Answer, Contract, ask
from .context import RunContext
from .legs import LegResult, Row
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
    try:
        doc = mark_dismissed(ctx.prep.run_dir, {"runId": ctx.run_id}, anon.findings, ctx.prep.store.project)
    except BadArgs as err:  # a damaged memory must not cost the run what Stage 1 already paid for
        ctx.notice(f"the decisions memory was not read ({err.message}); no finding is marked previously dismissed")
        return None
    if doc is None:
        return None
    ctx.notice(f"{len(doc.findings)} finding(s) match one dismissed before: "
               + ", ".join(f"{m.id} (run {m.dismissed_in})" for m in doc.findings))
    return {m.id: dismissed_note(m) for m in doc.findings}


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
    ranked = [a for a in judged if a.ranking]  # a salvaged judge may count for its votes alone
    if len(ranked) < 2:
        refused = len(ctx.state.refusals("stage2"))
        blame = f" (the --max-cost ceiling had no room for {refused} of them)" if refused else ""
        ctx.degrade("stage2", "cross-review is thin",
                    f"only {len(ranked)} judge(s) produced a usable ranking{blame}; the tally is judged:false")
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
    if not answer.ok:
        return salvaged(ctx, seat, answer, anon, prose)
    ctx.write(f"judge-{seat_file_stem(seat['id'])}.md", answer.text)
    prose[seat["id"]] = answer.text
    return JudgeAnswer(seat["id"], seat["alias"], answer.parsed["ranking"], answer.parsed["adjudications"])


def salvaged(ctx: RunContext, seat: Seat, answer: Answer, anon: Anonymized, prose: dict[str, str]) -> JudgeAnswer | None:
    """A judgement the repairs never made valid: its valid part, from the latest attempt whose
    block can be read (the last repair first), and a notice of what was dropped; the judge is
    dropped only when nothing valid is left. A lost ranking is a degrade (the cross-review
    thins); votes on ids that name nothing lose nothing real."""
    codes = answer.reason()
    legs = [r for r in reversed(answer.repairs) if r.usable] + ([answer.first] if answer.first is not None else [])
    found = next(((leg, kept) for leg in legs
                  if (kept := salvage_judge_output(_as_block(leg), anon.labels, anon.finding_ids)) is not None), None)
    text = answer.text
    if found is not None and found[0] is not answer.first:  # the repair it was read from is kept beside it
        text = f"{answer.text.rstrip()}\n\n{REPAIRED_MARK}\n{found[0].text or ''}"
    ctx.write(f"judge-{seat_file_stem(seat['id'])}.md", text)
    prose[seat["id"]] = text
    if found is None or not (found[1].ranking or found[1].adjudications):
        ctx.degrade("stage2", f"judge {seat['id']} dropped", f"its judgement never parsed ({codes})")
        return None
    kept = found[1]
    what = "; ".join(kept.dropped)
    counted = f"its {'ranking and ' if kept.ranking else ''}{len(kept.adjudications)} valid vote(s) count"
    if not kept.ranking:
        ctx.degrade("stage2", f"judge {seat['id']}'s ranking dropped",
                    f"its judgement never parsed ({codes}); {counted}, and dropped: {what}")
    elif kept.lost_real:  # a vote on a real finding went: the cross-review lost something
        ctx.degrade("stage2", f"judge {seat['id']}'s judgement partly dropped",
                    f"its judgement never parsed ({codes}); {counted}, and dropped: {what}")
    else:  # only what named nothing went
        ctx.notice(f"judge {seat['id']}'s judgement never fully parsed ({codes}); {counted}, and dropped: {what}")
    return JudgeAnswer(seat["id"], seat["alias"], kept.ranking, kept.adjudications)


def _as_block(leg: LegResult) -> str:
    """A leg's reply as a judge's document: a structured reply the schema refused is bare JSON,
    read as the fenced block it stands for."""
    text = leg.text or ""
    return f"```json\n{text.strip()}\n```\n" if leg.schema_mismatch else text
