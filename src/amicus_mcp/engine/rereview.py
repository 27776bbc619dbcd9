"""`council run --baseline RUN [--matcher MODEL]`: the run's findings matched to the baseline
run's (council/rereview.py), recorded as `rereview.json` beside the verdict. SARIF, the review
comments, the gate (`--gate-on new`), the run's summary and the Action's read it from there.

With `--matcher`, the findings the location and claim pass leaves new are put to the matcher
model (engine/matcher.py, the eval's matcher leg), under the run's `--max-cost`: pre-flight holds
back its worst case (engine/baseline.py), or — when the ceiling holds the council but not also the
matcher — runs without it and says so. Whatever the matcher could not decide keeps the
deterministic decision, and the loss is named: a degrade (exit 2; run.json `degrades`, the
verdict's and the report's losses, with how many findings it left), `matcher.losses` in
rereview.json and the report's re-review section. Its calls are cost rows of the run (runStats
role `matcher`): the re-review runs before the verdict and the report are written."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..documents.pr_loop import PR_LOOP_VERSION
from .run_dir import REREVIEW, RunDir
from .run_findings import read_run_findings, run_findings

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..documents.council import TallyRecord, Verdict
    from ..documents.pr_loop import RereviewDocument
    from ..schemas import JsonObject
    from .context import RunContext
    from .run_findings import RunFinding


MATCHER_ROW_STAGE = 5  # the matcher's runStats rows come after the chair's (council_run.STAGE_ROWS)


async def write_rereview(ctx: RunContext, verdict: Verdict, record: TallyRecord) -> RereviewDocument:
    """Match the run's findings, as its verdict (not yet written) states them, to its baseline's
    (the matcher too, where one is given) and write rereview.json."""
    from ..council import rereview
    from ..fsio import atomic_write_json

    prep = ctx.prep
    baseline = str(prep.options.baseline)
    new = run_findings(verdict, record, RunDir(prep.run_dir).verdict_path)
    old = read_run_findings(baseline)
    matched = rereview.match_baseline(new.findings, old.findings)
    # Built open in the key order rereview.json has, then checked against its model before it is written.
    doc: JsonObject = {"schemaVersion": PR_LOOP_VERSION, "type": "council-rereview",
                       "runId": new.verdict.get("runId"), "baselineRunId": old.verdict.get("runId"),
                       "baseline": baseline}
    left = 0
    if prep.options.matcher:
        result, part, left = await _with_matcher(ctx, matched, new.findings, old.findings)
        doc.update(result, matcher=part)
    else:
        doc.update(matched)
    from ..documents.pr_loop import RereviewDocument

    checked = RereviewDocument.parse(doc, what="re-review")
    if left and checked.matcher is not None:  # a decision the matcher was asked for and did not give is lost
        lost = f"re-review matcher: {left} finding(s) left to the location and claim match only"
        if prep.matcher_loss is not None:  # dropped at pre-flight: that degrade, from the start, is this loss
            ctx.notice(f"{lost} (the matcher was not called: dropped at pre-flight)")
        else:
            ctx.degrade("rereview", lost, "; ".join(checked.matcher.losses))
    atomic_write_json(prep.run_dir / REREVIEW, checked.to_doc())
    return checked


async def _with_matcher(ctx: RunContext, matched: JsonObject, findings: Sequence[RunFinding],
                        baseline: Sequence[RunFinding]) -> tuple[JsonObject, JsonObject, int]:
    """The matcher's answers over the deterministic decisions (council/rereview.py's match, as
    JSON), rereview.json's `matcher` (RereviewMatcher, checked with the whole document), and how
    many findings the matcher should have decided and did not (they keep the deterministic match)."""
    from ..council import rereview
    from .limits import MATCHER_FLOOR
    from .matcher import MatcherLeg, MatcherOutcome, run_matcher

    prep = ctx.prep
    model = str(prep.options.matcher)
    # What one call holds (its window's share); a matcher left out at pre-flight is asked nothing,
    # and every finding it would have been asked about is counted as left.
    bounded = prep.matcher_questions if prep.matcher_loss is None else None
    most = bounded if bounded is not None else rereview.MATCHER_QUESTIONS
    asked, beyond = rereview.questions(findings, baseline, matched, most)
    losses: list[str] = []
    if prep.matcher_loss is not None:  # pre-flight found no room for it under the ceiling
        outcome, losses = MatcherOutcome(), [prep.matcher_loss] if asked else []
        asked_count = 0
    else:
        assert prep.matcher_route is not None
        leg = MatcherLeg(model=model, route=prep.matcher_route, catalog=prep.catalog, registry=ctx.registry,
                         budget=ctx.budget, timeout_s=prep.timeout_s, directory=prep.run_dir, wave=MATCHER_FLOOR,
                         calls_at=prep.dir.legs_path, attempt=ctx.state.attempt)
        outcome = await run_matcher(leg, rereview.FRAME, rereview.targets(baseline), asked)
        for index, call in enumerate(outcome.calls):  # the run's cost table shows (and totals) each call
            ctx.rows.add_doc({"model": model, "role": "matcher", "wasChair": False, "conformance": None,
                              "status": call.status, "durationMs": call.duration_ms, "usage": call.usage},
                             stage=MATCHER_ROW_STAGE, position=0, secondary=index > 0)
        losses = [loss.detail for loss in outcome.losses]
        asked_count = len(asked)
    if beyond:
        held = (f"the {most} the matcher's {prep.matcher_window:,}-token context window holds in one call"
                if most < rereview.MATCHER_QUESTIONS and prep.matcher_window is not None
                else f"the {most} a matcher call holds")
        losses.append(f"{len(beyond)} finding(s) beyond {held} were matched by location and claim only "
                      f"({', '.join(beyond)})")
    undecided = [q.finding for q in asked if q.finding not in outcome.answers]
    if undecided and asked_count:
        losses.append(f"{len(undecided)} finding(s) kept the location and claim decision ({', '.join(undecided)})")
    left = len(undecided) + len(beyond)
    cost = outcome.cost()
    part: JsonObject = {"model": model, "asked": asked_count, "decided": len(outcome.answers), "legs": outcome.legs,
            # no call made costs nothing; a call of unknown cost leaves the amount unknown (null)
            "cost": {"amount": 0.0 if not outcome.usages else cost["amount"], "unpricedLegs": cost["unpricedLegs"],
                     **({"source": cost["source"]} if outcome.usages else {})},
            "losses": losses}
    return rereview.with_matcher(matched, outcome.answers), part, left
