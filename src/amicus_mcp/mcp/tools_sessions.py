"""The asynchronous pattern's tools: start a fanout wave, then wait / status / read / abort / list.

They work alike on council runs, waves and legs, through `engine.control`, so the MCP
server, the CLI and the workspace all read and signal the same on-disk state.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from mcp.server.mcpserver import Context
from mcp.types import CallToolResult

from .fence import fence
from .models import AbortResult, ListItem, ListResult, ReadResult, WaveStarted
from .option_args import WAVE, Given, takes
from .params import Project, RunRef, TagFilter, arg
from .reading import READ_CAP, page, read_source
from .results import file_link, ok
from .progress import progress
from .state import Caller, ServerState
from .waiting import wait_with_progress

if TYPE_CHECKING:
    from ..engine import SessionStore

WAVE_NOTE = "The wave runs in the background. Call amicus_wait with the waveId (or a leg id) until it is terminal."


class SessionTools:
    def __init__(self, state: ServerState):
        self.state = state

    async def _store(self, ctx: Context, project: str | None) -> tuple[Caller, SessionStore]:
        from ..engine import SessionStore

        caller = await self.state.caller(ctx)
        return caller, SessionStore(caller.project(project))

    async def _target(self, ctx: Context, id: str, project: str | None) -> tuple[Caller, SessionStore, str]:
        """The store and what `id` names for the engine: an id as given, or a run directory
        (anything that is not an id) resolved inside the allowed project roots."""
        from ..engine import RunDir
        from ..engine import ID_SHAPE

        caller, store = await self._store(ctx, project)
        # A bare name is an id unless the project has a run directory of that name (the
        # default one is `council-<runId>`, which is also a valid id).
        if ID_SHAPE.match(id) and not RunDir(store.project / id).holds_run():
            return caller, store, id
        return caller, store, str(caller.inside(store.project, id, what="id"))

    @takes(WAVE)
    async def fanout(
        self,
        ctx: Context,
        given: Given,  # every wave option's argument (engine/options.py)
        prompt: Annotated[str | None, arg("Prompt text", "The prompt text. XOR promptFile")] = None,
    ) -> CallToolResult:
        from ..engine import start_wave

        caller = await self.state.caller(ctx)
        root = caller.project(given.text("project"))
        started = await start_wave(given.options(caller, root), prompt=prompt)
        result = WaveStarted(wave_id=started.wave_id, leg_ids=started.leg_ids, notices=list(started.notices) if started.notices else None,
                             next=WAVE_NOTE)
        return ok(result, notes=(WAVE_NOTE,))

    async def wait(
        self,
        ctx: Context,
        id: RunRef,
        timeoutSeconds: Annotated[float | None, arg(
            "Wait at most (seconds)", "Longest this call blocks, up to 600 s, but never past the calling client's own "
            "tool-call limit (default: a slice safely under it)", gt=0)] = None,
        project: Project = None,
    ) -> CallToolResult:
        caller, store, target = await self._target(ctx, id, project)
        chosen = caller.wait_slice(timeoutSeconds)
        result = await wait_with_progress(store, target, budget_s=chosen.seconds, report=ctx.report_progress)
        if chosen.clamped_from is not None:
            result.clamped_from, result.clamp_reason = chosen.clamped_from, chosen.reason
        return ok(result, notes=(f"Note: {chosen.reason}",) if chosen.reason else ())

    async def status(self, ctx: Context, id: RunRef, project: Project = None) -> CallToolResult:
        from ..engine import is_terminal
        from ..engine import read_status as status

        _, store, target = await self._target(ctx, id, project)
        doc = status(store, target)
        return ok(progress(id, doc, terminal=is_terminal(doc)))

    async def read(
        self,
        ctx: Context,
        id: RunRef,
        file: Annotated[str | None, arg("Run file", "Council run only: a file in its run dir (default: the report)")] = None,
        offset: Annotated[int | None, arg("Start at character", "First character to return", ge=0)] = None,
        limit: Annotated[int, arg("Most characters", "Most characters to return", ge=1, le=READ_CAP)] = READ_CAP,
        tail: Annotated[bool, arg("Read the end", "Return the last `limit` characters")] = False,
        project: Project = None,
    ) -> CallToolResult:
        _, store, target = await self._target(ctx, id, project)
        source = read_source(store, target, file)
        part = page(source.text, offset=offset, limit=limit, tail=tail)
        result = ReadResult(id=id, kind=source.kind, source=source.name, text=fence(part.text), offset=part.offset,
                            total_chars=part.total, next_offset=part.next_offset, files=source.files)
        return ok(result, links=(file_link(source.path),) if source.path is not None and source.path.is_file() else ())

    async def abort(self, ctx: Context, id: RunRef, project: Project = None) -> CallToolResult:
        from ..engine import abort

        _, store, target = await self._target(ctx, id, project)
        done = abort(store, target)
        result = AbortResult(id=id, aborted=bool(done.get("aborted")), already_terminal=bool(done.get("alreadyTerminal")),
                             status=done.get("status"), signalled=done.get("signalled"))
        return ok(result)

    async def list_sessions(
        self,
        ctx: Context,
        limit: Annotated[int, arg("Most rows", "Most rows to return, newest first", ge=1, le=500)] = 50,
        tag: TagFilter = None,
        project: Project = None,
    ) -> CallToolResult:
        from ..engine import list_all

        _, store = await self._store(ctx, project)
        rows = list_all(store, tag=tag)[:limit]
        items = [ListItem(id=row["id"], type=row["type"], status=row.get("status"), created_at=row.get("createdAt"),
                          models=[m for m in row.get("models", []) if isinstance(m, str)], chair=row.get("chair"),
                          overall_verdict=row.get("overallVerdict"), intent=row.get("intent"), cost=row.get("cost"),
                          tag=row.get("tag"), cases=row.get("cases"))
                 for row in rows]
        return ok(ListResult(items=items))
