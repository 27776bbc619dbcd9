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
from .params import MODEL_PATTERN, AllowSecrets, Council, Gateway, Models, NoCostGate, NoValidateModel, Project, arg
from .results import ok
from .state import ServerState

EVAL_NOTE = ("The eval runs in the background: one council per case, then the matching. Call amicus_wait with this "
             "evalId until it is terminal, then amicus_read it for the scores.")
ESTIMATE_NOTE = "Nothing was sent. Disclose the estimate; call amicus_eval again without estimateOnly to start it."


class EvalTools:
    def __init__(self, state: ServerState):
        self.state = state

    async def eval(
        self,
        ctx: Context,
        matcher: Annotated[str, arg(
            "Matcher model", "The model that decides which planted flaw each finding identifies (it never sees who "
                             "raised a finding)", pattern=MODEL_PATTERN)],
        models: Models = None,
        council: Council = None,
        pack: Annotated[str | None, arg(
            "Policy pack", "A saved pack name, or a pack file in the project: its bench settings are this eval's "
                           "defaults (its template is not used: every case brings its own briefing)")] = None,
        chair: Annotated[str | None, arg("Chair model", "Chair model; must not be a bench seat (default deepseek)")] = None,
        critic: Annotated[str | None, arg("Critic seat", "A bench model that gets the adversarial brief")] = None,
        lenses: Annotated[list[str] | None, arg("Expert lenses", "One distinct expert lens per seat")] = None,
        debate: Annotated[bool | None, arg("Debate round", "One rebuttal round in every case's council")] = None,
        maxCost: Annotated[float | None, arg(
            "Cost ceiling (USD)", "The whole suite's ceiling on known spend, USD (split evenly across the cases)")] = None,
        timeoutMinutes: Annotated[float | None, arg("Per-leg timeout (minutes)", "Per-leg timeout in minutes (default 15)")] = None,
        gateway: Gateway = None,
        noCostGate: NoCostGate = False,
        noValidateModel: NoValidateModel = False,
        suite: Annotated[str | None, arg(
            "Suite folder", "A planted-flaw suite folder in the project (default: the shipped suite)")] = None,
        cases: Annotated[list[str] | None, arg("Cases", "Run only these case ids")] = None,
        outDir: Annotated[str | None, arg("Eval directory", "Eval directory inside the project (default eval-<evalId>)")] = None,
        estimateOnly: Annotated[bool, arg(
            "Estimate only", "Return the whole suite's cost estimate and start nothing")] = False,
        allowSecrets: AllowSecrets = False,
        project: Project = None,
    ) -> CallToolResult:
        from ..engine.options import RunOptions
        from ..engine.store import new_task_id
        from ..eval.runner import prepare_eval, start_eval
        from ..packs import is_pack_file

        caller = await self.state.caller(ctx)
        root = caller.project(project)
        eval_id = new_task_id()
        out_dir = caller.inside(root, outDir or f"eval-{eval_id}", what="outDir")
        bench = RunOptions(models=models, council=council, chair=chair, critic=critic, lenses=lenses, debate=debate,
                           max_cost=maxCost, timeout_min=timeoutMinutes, gateway=gateway, cost_gate=not noCostGate,
                           validate_models=not noValidateModel, project=str(root), allow_secrets=allowSecrets,
                           pack=str(caller.inside(root, pack, what="pack")) if pack and is_pack_file(pack) else pack)
        plan = await prepare_eval(bench, suite=str(caller.inside(root, suite, what="suite")) if suite else None,
                                  matcher=matcher, cases=cases, eval_id=eval_id, out_dir=str(out_dir))
        if estimateOnly:
            result = EvalStarted(eval_id=None, status="estimated", estimate=plan.estimate, cases=len(plan.cases),
                                 notices=plan.notices or None, next=ESTIMATE_NOTE)
            return ok(result, notes=(ESTIMATE_NOTE,))
        manifest = await anyio.to_thread.run_sync(start_eval, plan)
        result = EvalStarted(eval_id=manifest.id, eval_dir=manifest.evalDir, status="running", estimate=plan.estimate,
                             cases=len(plan.cases), notices=plan.notices or None, next=EVAL_NOTE)
        return ok(result, notes=(EVAL_NOTE,))
