"""The eval tool: measure a bench on a planted-flaw suite, asynchronously like a council run.

`amicus_eval` pre-flights the whole eval (`eval.runner.prepare_eval`, the same function the
CLI calls) and starts it as a detached worker (`eval.runner.start_eval`); with estimateOnly it
only returns the whole suite's cost estimate, which the skill discloses before asking for a go.
The eval is followed with amicus_wait and read with amicus_read like a run.
"""

from __future__ import annotations

from typing import Annotated

import anyio
from mcp.server.mcpserver import Context
from mcp.types import CallToolResult

from .models import EvalStarted
from .option_args import BENCH, Given, takes
from .params import MODEL_PATTERN, arg
from .results import ok
from .state import ServerState

EVAL_NOTE = ("The eval runs in the background: one council per case, then the matching. Call amicus_wait with this "
             "evalId until it is terminal, then amicus_read it for the scores.")
ESTIMATE_NOTE = "Nothing was sent. Disclose the estimate; call amicus_eval again without estimateOnly to start it."


class EvalTools:
    def __init__(self, state: ServerState):
        self.state = state

    @takes(BENCH)
    async def eval(
        self,
        ctx: Context,
        given: Given,  # the bench's options as arguments (engine/options.py)
        matcher: Annotated[str, arg(
            "Matcher model", "The model that decides which planted flaw each finding identifies (it never sees who "
                             "raised a finding)", pattern=MODEL_PATTERN)],
        suite: Annotated[str | None, arg(
            "Suite folder", "A planted-flaw suite folder in the project (default: the shipped suite)")] = None,
        cases: Annotated[list[str] | None, arg("Cases", "Run only these case ids")] = None,
        outDir: Annotated[str | None, arg("Eval directory", "Eval directory inside the project (default eval-<evalId>)")] = None,
        estimateOnly: Annotated[bool, arg(
            "Estimate only", "Return the whole suite's cost estimate and start nothing")] = False,
    ) -> CallToolResult:
        from ..engine import new_id
        from ..eval.runner import prepare_eval, start_eval

        caller = await self.state.caller(ctx)
        root = caller.project(given.text("project"))
        eval_id = new_id()
        out_dir = caller.inside(root, outDir or f"eval-{eval_id}", what="outDir")
        bench = given.options(caller, root)
        plan = await prepare_eval(bench, suite=str(caller.inside(root, suite, what="suite")) if suite else None,
                                  matcher=matcher, cases=cases, eval_id=eval_id, out_dir=str(out_dir))
        if estimateOnly:
            result = EvalStarted(eval_id=None, status="estimated", estimate=plan.estimate.model_dump(mode="json"), cases=len(plan.cases),
                                 notices=plan.notices or None, next=ESTIMATE_NOTE)
            return ok(result, notes=(ESTIMATE_NOTE,))
        manifest = await anyio.to_thread.run_sync(start_eval, plan)
        result = EvalStarted(eval_id=manifest.id, eval_dir=manifest.evalDir, status="running",
                             estimate=plan.estimate.model_dump(mode="json"),
                             cases=len(plan.cases), notices=plan.notices or None, next=EVAL_NOTE)
        return ok(result, notes=(EVAL_NOTE,))
