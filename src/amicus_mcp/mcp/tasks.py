"""The Tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663): long tools as tasks, for a client that asks.

When a 2026-07-28 client declares the extension, a call to one of the long tools
(`TASK_TOOLS`: a council run, its resume, a fanout wave, an eval) is answered with a task
(`resultType: "task"`) instead of the start result, and the client follows it with

    tasks/get     {taskId}  the task, read from the run: its status mapped onto the task's, and
                            once the run is terminal the tool's result (`result`: the start
                            document with the terminal status and `next` naming amicus_read, then
                            amicus_wait's terminal snapshot — verdict, tiers, cost, report path — as
                            a second text block) or, for a run that ended in error, `error`
    tasks/cancel  {taskId}  aborts the run (amicus_abort): it records `aborted` and stays resumable
    tasks/update  {taskId}  refused: these tasks never ask the client for input

The task id is the run's (wave's, eval's) own id, so amicus_status / amicus_read /
amicus_council_resume work on it too. Every other client — one that does not declare the
extension, and every handshake-era client, whose wire cannot carry an extension's result
shape — gets the start result and keeps start → amicus_wait → amicus_read. A call that fails
its checks is answered with its error at once, never as a task.

The wire shapes are SEP-2663's as the extension's reference implementation pins them (npm
`@modelcontextprotocol/ext-tasks` 0.2.2, `core/v2/schemas.js`): the SDK 2.3 has the extension
machinery (extension methods, claimed result types) but no types of its own for this
extension, so the shapes are written out here. Every answer is read from the run's records on
disk by the server's own tools, so a task's status is the run's status; nothing is kept beside
it but which project each task belongs to, when it was created and its start document — a small
record per task in the config directory (`tasks/<taskId>.json`), because the 2026-07-28 era is
stateless: a tasks/get may reach a server started after the one that created the task (a host
that restarted it, another process). Records older than RECORD_DAYS are swept when one is written.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.extension import Extension, MethodBinding
from mcp.shared.exceptions import MCPError
from mcp.types import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    CallToolRequestParams,
    CallToolResult,
    CancelTaskRequestParams,
    GetTaskRequestParams,
    TextContent,
)
from pydantic import Field
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from ..schemas import JsonObject  # the MCP tasks protocol's own objects (wire)

if TYPE_CHECKING:
    from mcp.server import MCPServer

EXTENSION_ID = "io.modelcontextprotocol/tasks"
TASK_TOOLS = ("amicus_council_run", "amicus_council_resume", "amicus_fanout", "amicus_eval")
TASK_RESULT = "task"  # the resultType of a tools/call answered with a task
POLL_MS = 2000
_STARTED_IDS = ("runId", "waveId", "evalId")
# The run's status → the task's. "running" is working; a run that finished, whole or degraded,
# completed; one that stopped on an error failed; an aborted one was cancelled.
_STATUS = {"running": "working", "complete": "completed", "partial": "completed", "error": "failed",
           "aborted": "cancelled"}


RECORD_DAYS = 30
# A run's, wave's or eval's id: the only task ids this server hands out, so the only ones that
# may name a record file (a client's taskId is never a path).
_TASK_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
_TASK_FIELDS = ("taskId", "status", "statusMessage", "createdAt", "lastUpdatedAt", "ttlMs", "pollIntervalMs")


class UpdateTaskRequestParams(GetTaskRequestParams):
    input_responses: JsonObject = Field(default_factory=dict)


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


def negotiated(ctx: ServerRequestContext[Any, Any]) -> bool:
    """The request is 2026-07-28 and its client declared the Tasks extension."""
    if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
        return False
    capabilities = ctx.session.client_params.capabilities if ctx.session.client_params is not None else None
    extensions = capabilities.extensions if capabilities is not None else None
    return extensions is not None and EXTENSION_ID in extensions


class Tasks(Extension):
    identifier = EXTENSION_ID

    def __init__(self, records: Path | None = None) -> None:
        self.server: MCPServer | None = None  # set by build_server: the tools the methods call
        self._records = records  # where task records are kept (default: <config dir>/tasks)
        self.projects: dict[str, str | None] = {}  # task id → the `project` its start call named
        self.created: dict[str, str] = {}
        self.started: dict[str, JsonObject] = {}  # task id → the start document tools/call made

    # ------------------------------------------------------------------ the records

    @property
    def records(self) -> Path:
        from ..places import config_dir

        return self._records or config_dir() / "tasks"

    def _remember(self, task_id: str, project: str | None, started: JsonObject) -> None:
        from ..fsio import atomic_write_json

        self.projects[task_id], self.created[task_id], self.started[task_id] = project, _now(), started
        if not _TASK_ID.fullmatch(task_id):
            return  # not an id this server writes a file for; the task lives in memory only
        self._sweep()
        atomic_write_json(self.records / f"{task_id}.json", {
            "taskId": task_id, "project": project, "createdAt": self.created[task_id], "started": started})

    def _recall(self, task_id: str) -> bool:
        """The task is known: started here, or recorded by an earlier server on this machine."""
        if task_id in self.projects:
            return True
        if not _TASK_ID.fullmatch(task_id):
            return False
        from ..errors import AmicusError
        from ..fsio import read_json

        path = self.records / f"{task_id}.json"
        if not path.is_file():
            return False
        try:
            record = read_json(path, what="task record")
        except AmicusError:
            return False  # unreadable: as if never recorded (the run itself is still on disk)
        if not isinstance(record, dict):
            return False
        project, created, started = (record.get(k) for k in ("project", "createdAt", "started"))
        if (record.get("taskId") != task_id or not isinstance(started, dict) or not isinstance(created, str)
                or not (project is None or isinstance(project, str))):
            return False
        self.projects[task_id], self.created[task_id], self.started[task_id] = project, created, started
        return True

    def _sweep(self) -> None:
        if not self.records.is_dir():
            return
        old = time.time() - RECORD_DAYS * 86400
        for path in self.records.glob("*.json"):
            try:
                if path.stat().st_mtime < old:
                    path.unlink()
            except OSError:
                pass  # another server swept it first

    def methods(self) -> Sequence[MethodBinding]:
        versions = frozenset(MODERN_PROTOCOL_VERSIONS)
        return (MethodBinding("tasks/get", GetTaskRequestParams, self._get, versions),
                MethodBinding("tasks/cancel", CancelTaskRequestParams, self._cancel, versions),
                MethodBinding("tasks/update", UpdateTaskRequestParams, self._update, versions))

    async def intercept_tool_call(self, params: CallToolRequestParams, ctx: ServerRequestContext[Any, Any],
                                  call_next: CallNext) -> HandlerResult:
        if params.name not in TASK_TOOLS or not negotiated(ctx):
            return await call_next(ctx)
        started = await call_next(ctx)
        body = started.structured_content if isinstance(started, CallToolResult) and not started.is_error else None
        task_id = next((body[k] for k in _STARTED_IDS if isinstance(body, dict) and isinstance(body.get(k), str)), None)
        if body is None or task_id is None:  # an error, or an eval's estimate (nothing started): as it is
            return started
        project = (params.arguments or {}).get("project")
        self._remember(task_id, project if isinstance(project, str) else None, dict(body))
        task = await self._task(ctx, task_id)
        return {**{k: v for k, v in task.items() if k in _TASK_FIELDS}, "resultType": TASK_RESULT}

    # ------------------------------------------------------------------ the methods

    async def _get(self, ctx: ServerRequestContext[Any, Any], params: GetTaskRequestParams) -> HandlerResult:
        return await self._task(ctx, params.task_id)

    async def _cancel(self, ctx: ServerRequestContext[Any, Any], params: CancelTaskRequestParams) -> HandlerResult:
        aborted = await self._tool(ctx, "amicus_abort", params.task_id)
        if aborted.is_error:
            raise MCPError(code=INVALID_PARAMS, message=_text(aborted))
        return {}

    async def _update(self, ctx: ServerRequestContext[Any, Any], params: UpdateTaskRequestParams) -> HandlerResult:
        raise MCPError(code=INVALID_PARAMS, message=f"task '{params.task_id}' never asks for input: nothing to update")

    # ------------------------------------------------------------------ reading the run

    async def _task(self, ctx: ServerRequestContext[Any, Any], task_id: str) -> JsonObject:
        """The task as tasks/get answers it (SEP-2663's detailed task)."""
        status = await self._tool(ctx, "amicus_status", task_id)
        if status.is_error:
            raise MCPError(code=INVALID_PARAMS, message=_text(status))
        snap = status.structured_content or {}
        run_status = str(snap.get("status"))
        done, total, stage = snap.get("legsDone"), snap.get("legsTotal"), snap.get("stage")
        message = ", ".join(part for part in (
            run_status, f"stage {stage}" if stage else None,
            f"{done}/{total} legs done" if done is not None and total else None) if part)
        task: JsonObject = {"taskId": task_id, "status": _STATUS.get(run_status, "working"), "statusMessage": message,
                                "createdAt": self.created.get(task_id) or _now(), "lastUpdatedAt": _now(),
                                "ttlMs": None, "pollIntervalMs": POLL_MS}
        if task["status"] == "completed":
            task["result"] = self._result(task_id, snap)
        elif task["status"] == "failed":
            error = got if isinstance(got := snap.get("error"), dict) else {}
            task["error"] = {"code": INTERNAL_ERROR, "message": f"{error.get('code', 'ERROR')}: "
                             f"{error.get('message', 'the run ended in error')}", "data": {"status": snap}}
        return task

    def _result(self, task_id: str, snap: JsonObject) -> JsonObject:
        """The result tools/call would have given, as the tool's output schema says: the start
        document, now with the terminal status; then the terminal snapshot, as amicus_wait gives it."""
        from ..fsio import dumps_json

        doc = {**self.started[task_id], "status": snap.get("status"), "next": snap.get("next")}
        result = CallToolResult(content=[TextContent(type="text", text=dumps_json(doc, mask_keys=False)),
                                         TextContent(type="text", text=dumps_json(snap, mask_keys=False))],
                                structured_content=doc)
        return {**result.model_dump(by_alias=True, mode="json", exclude_none=True), "resultType": "complete"}

    async def _tool(self, ctx: ServerRequestContext[Any, Any], name: str, task_id: str) -> CallToolResult:
        """One of the server's own tools on the task's run, as the client would call it."""
        from mcp.server.mcpserver import Context

        if not self._recall(task_id):
            raise MCPError(code=INVALID_PARAMS, message=f"no task '{task_id}' was started on this server")
        assert self.server is not None
        arguments: JsonObject = {"id": task_id}
        if self.projects[task_id] is not None:
            arguments["project"] = self.projects[task_id]
        result = await self.server.call_tool(name, arguments, Context(request_context=ctx, mcp_server=self.server))
        assert isinstance(result, CallToolResult)
        return result


def _text(result: CallToolResult) -> str:
    first = result.content[0] if result.content else None
    return getattr(first, "text", "") or "the run could not be read"
