"""A re-review's pre-flight (`council run --baseline RUN [--matcher MODEL]`): the baseline resolved
to its verdict.json before anything is spent, and the matcher's calls bounded against it, so the
ceiling check counts their worst case. The re-review itself runs as the run ends (engine/rereview.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .run_findings import read_run_findings, run_findings_of

if TYPE_CHECKING:
    from ..providers.catalog import Catalog
    from ..providers.routing import Route
    from .limits import MatcherBound


def resolve_baseline(target: str, project: str | None) -> str:
    """The baseline's verdict.json, absolute (a run directory, its verdict.json, or a run id in `project`)."""
    run = run_findings_of(target, project)
    return str(run.source.resolve())


def matcher_bound(baseline: str, route: Route, catalog: Catalog) -> MatcherBound:
    """The matcher's calls at their most, against this baseline (its findings are the targets):
    as many findings a call as the matcher's context window holds with its answer (a known
    window; 0 when it holds not even one), at most MATCHER_QUESTIONS."""
    from ..council import matching, rereview
    from ..providers.cost import prompt_tokens, route_pricing
    from .limits import MatcherBound, context_window
    from .matcher import ATTEMPTS, MATCHER_OUTPUT_CAP

    targets = rereview.targets(read_run_findings(baseline).findings)
    window = context_window(route, catalog)

    def tokens(questions: int) -> int:
        return prompt_tokens(matching.prompt_bound(rereview.FRAME, targets, questions))

    most = rereview.MATCHER_QUESTIONS
    while window is not None and most > 0 and tokens(most) + MATCHER_OUTPUT_CAP > window:
        most -= 1
    return MatcherBound(ATTEMPTS, tokens(max(most, 1)), route_pricing(route, catalog), MATCHER_OUTPUT_CAP,
                        questions=most, window=window, targets=len(targets))
