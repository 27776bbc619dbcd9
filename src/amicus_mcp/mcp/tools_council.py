"""The council tools: start a headless run, and the pure tally / verdict / stats functions.

Each handler resolves the call's project and paths, then calls the same engine or council
function the CLI calls. Engine modules are imported inside the handlers, never at import.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, cast

import anyio
from mcp.server.mcpserver import Context
from mcp.types import CallToolResult

from ..errors import BadArgs
from ..schemas import JsonObject  # a tool's arguments: checked by the council's validating readers
from .app_view import renders_inline
from .autoopen import open_workspace
from .fence import fence
from .models import DecisionsResult, RememberedDecision, RunStarted, VerdictResult
from .option_args import RUN, Given, takes
from .params import TASK_ID_PATTERN, Project, TagFilter, Verdict, arg
from .results import ok
from .state import ServerState

if TYPE_CHECKING:
    from ..documents.council import TallyRecord

RUN_NOTE = ("The council runs in the background (minutes). Call amicus_wait with this runId until it is "
            "terminal, then amicus_read it for the report.")


RESUME_NOTE = ("The run continues in the background from its last checkpoint: finished legs are reused, not "
               "re-sent. Call amicus_wait with this runId until it is terminal, then amicus_read it for the report.")


class CouncilTools:
    def __init__(self, state: ServerState):
        self.state = state

    @takes(RUN)
    async def council_run(
        self,
        ctx: Context,
        given: Given,  # every run option's argument (engine/options.py)
        ui: Annotated[bool | None, arg("Open the workspace", "Open the workspace (true) or not (false); default: Claude Code only")] = None,
    ) -> CallToolResult:
        from ..engine import prepare
        from ..engine import start_council_run
        from ..engine import new_id

        caller = await self.state.caller(ctx)
        root = caller.project(given.text("project"))
        run_id = new_id()
        run_dir = caller.inside(root, given.text("out_dir") or f"council-{run_id}", what="outDir")
        prep = await prepare(given.options(caller, root, out_dir=str(run_dir), run_id=run_id))
        started = await anyio.to_thread.run_sync(start_council_run, prep)
        inline = renders_inline(self.state, ctx)
        opened = await anyio.to_thread.run_sync(lambda: open_workspace(
            ui=ui, client=caller.client, inline=inline, run_id=run_id, project=root, run_dir=started.run_dir,
            env=caller.env))
        result = RunStarted(run_id=run_id, run_dir=str(started.run_dir), workspace_opened=opened.open,
                            workspace_open_reason=opened.reason, dropped_members=list(started.dropped) if started.dropped else None,
                            next=RUN_NOTE)
        return ok(result, notes=(RUN_NOTE,))

    async def council_resume(
        self,
        ctx: Context,
        id: Annotated[str, arg("Council run id", "The id of the council run to continue (amicus_list shows it)",
                               pattern=TASK_ID_PATTERN)],
        maxCost: Annotated[float | None, arg(
            "Raise the cost ceiling (USD)", "Raise the run's maxCost ceiling: a run its ceiling stopped "
            "(COST_EXCEEDED) resumes with a higher one; the spend already made counts against it", gt=0)] = None,
        project: Project = None,
    ) -> CallToolResult:
        from ..engine import SessionStore, find_run, start_resumed_run

        caller = await self.state.caller(ctx)
        root = caller.project(project)
        run_dir = find_run(SessionStore(root), id, by_path=False)  # an id: no path outside the project
        if run_dir is None:
            raise BadArgs(f"no council run '{id}' in the project {root}",
                          hint="pass the runId amicus_council_run returned (amicus_list shows them), and its project")
        started = await start_resumed_run(run_dir, max_cost=maxCost)
        result = RunStarted(run_id=started.run_id, run_dir=str(started.run_dir), workspace_opened=False,
                            workspace_open_reason="a resumed run opens no workspace; its run directory is the same",
                            next=RESUME_NOTE)
        return ok(result, notes=(RESUME_NOTE,))

    async def council_tally(
        self,
        meta: Annotated[JsonObject, arg("Run metadata", "{runId, models[], runType?, date?, chair?, claudeInCouncil?, "
                                                            "seats?, intent?: review|question}")],
        findings: Annotated[list[JsonObject], arg("Findings", "[{id, raiser, severity, claim?, location?}]; a question "
                                                                  "council's key claims: [{id, raiser, claim}]")],
        adjudications: Annotated[list[JsonObject], arg("Adjudications", "[{findingId, judge, verdict: agree|dispute|neutral}]")],
        rankings: Annotated[list[JsonObject], arg("Rankings", "[{judge, order: [model | [tied models]]}]")],
        runStats: Annotated[list[JsonObject] | None, arg("Per-leg stats", "Per-leg rows: model, role, status, durationMs, usage")] = None,
        noLedger: Annotated[bool, arg("Skip the ledger", "Do not append to the reliability ledger (re-tallies, debate, lenses)")] = False,
    ) -> CallToolResult:
        from ..council.ledger import append_ledger
        from ..council.tally import tally

        tally_input: JsonObject = {"meta": meta, "findings": findings, "adjudications": adjudications,
                                       "rankings": rankings}
        if runStats is not None:
            tally_input["runStats"] = runStats
        record = tally(tally_input)
        warning = None if noLedger else append_ledger(record)
        return ok(record, notes=(f"Notice: {warning}",) if warning else ())

    async def verdict(
        self,
        ctx: Context,
        record: Annotated[JsonObject, arg("Tally record", "The tally record amicus_council_tally returned")],
        decisions: Annotated[list[JsonObject] | None, arg(
            "Stage-4 decisions", "Stage-4 decisions: [{id, decision, applied?, duplicateOf?, tierOverride?, reason?}]; "
            "accept / deny decisions and their reasons are remembered for the project")] = None,
        overallVerdict: Annotated[Verdict | None, arg(
            "Overall verdict", "The chair's VERDICT line (a question council: its ANSWER standing), verbatim; never invented")] = None,
        answer: Annotated[str | None, arg(
            "Chair's answer", "A question council: the sentence after the standing on the chair's ANSWER line, verbatim")] = None,
        render: Annotated[bool, arg("Render the report", "Also return the Markdown report")] = False,
        outDir: Annotated[str | None, arg("Report directory", "With render: refresh <outDir>/report.html (inside the project)")] = None,
        project: Project = None,
    ) -> CallToolResult:
        from ..council.report import build_report
        from ..engine import RUN_FILES, decided_report_html, redecide_run
        from ..fsio import atomic_write_text

        if outDir is not None and not render:
            raise BadArgs("outDir is only used with render: true", hint="pass render: true to refresh report.html")
        folder = None
        if outDir is not None:
            caller = await self.state.caller(ctx)
            folder = caller.inside(caller.project(project), outDir, what="outDir")
        # Into a council run's directory, re-deciding keeps what the run decided (as the CLI does).
        verdict, run_dir = redecide_run(record, decisions or [], near=(folder,) if folder is not None else (),
                                        overall_verdict=overallVerdict, answer=answer)
        checked = cast("TallyRecord", record)  # redecide checked it against the council-tally schema
        from ..engine import remember

        caller = await self.state.caller(ctx)
        remember(verdict, record, decisions or [], caller.project(project))  # a later run marks a denied one
        result = VerdictResult(verdict=verdict)
        if render:
            result.markdown = build_report(verdict, fmt="md", record=checked)
        if folder is not None:
            target = folder / RUN_FILES.report
            atomic_write_text(target, decided_report_html(verdict, checked, target, run_dir))
            result.report_html = str(target)
        return ok(result)

    async def decisions(self, ctx: Context, project: Project = None) -> CallToolResult:
        """The project's remembered accept / deny decisions (the CLI's `amicus decisions list`)."""
        from ..engine import list_decisions

        caller = await self.state.caller(ctx)
        listing = list_decisions(caller.project(project))
        # Claims and locations were written by the council's models; a reason may quote them.
        rows = [RememberedDecision(id=e["id"], decision=e["decision"], run_id=_text(e.get("runId")),
                                   finding_id=e["findingId"], severity=_text(e.get("severity")),
                                   claim=_fenced(e.get("claim")), location=_fenced(e.get("location")),
                                   reason=_fenced(e.get("reason")), decided_at=e["decidedAt"])
                for e in listing["decisions"]]
        return ok(DecisionsResult(project=listing["project"], path=listing["path"], decisions=rows))

    async def council_stats(self, tag: TagFilter = None) -> CallToolResult:
        from ..config import eval_ledger_path
        from ..council.ledger import derive_stats, read_ledger

        return ok(derive_stats(read_ledger(), read_ledger(eval_ledger_path()), tag=tag))


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _fenced(value: object) -> str | None:
    return fence(value) if isinstance(value, str) and value else None
