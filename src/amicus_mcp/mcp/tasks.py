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
it but which project each task belongs to and its start document.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timezone
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


_TASK_FIELDS = ("taskId", "status", "statusMessage", "createdAt", "lastUpdatedAt", "ttlMs", "pollIntervalMs")


class UpdateTaskRequestParams(GetTaskRequestParams):
    input_responses: dict[str, Any] = Field(default_factory=dict)


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


def negotiated(ctx: ServerRequestContext[Any, Any]) -> bool:
    """The request is 2026-07-28 and its client declared the Tasks extension."""
    if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
        return False
    capabilities = ctx.session.client_params.capabilities if ctx.session.client_params is not None else None
    extensions = capabilities.extensions if capabilities is not None else None
    return bool(extensions) and EXTENSION_ID in extensions


class Tasks(Extension):
    identifier = EXTENSION_ID

    def __init__(self) -> None:
        self.server: MCPServer | None = None  # set by build_server: the tools the methods call
        self.projects: dict[str, str | None] = {}  # task id → the `project` its start call named
        self.created: dict[str, str] = {}
        self.started: dict[str, dict[str, Any]] = {}  # task id → the start document tools/call made

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
        self.projects[task_id] = (params.arguments or {}).get("project")
        self.created[task_id] = _now()
        self.started[task_id] = dict(body)
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

    async def _task(self, ctx: ServerRequestContext[Any, Any], task_id: str) -> dict[str, Any]:
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
        task: dict[str, Any] = {"taskId": task_id, "status": _STATUS.get(run_status, "working"), "statusMessage": message,
                                "createdAt": self.created.get(task_id) or _now(), "lastUpdatedAt": _now(),
                                "ttlMs": None, "pollIntervalMs": POLL_MS}
        if task["status"] == "completed":
            task["result"] = self._result(task_id, snap)
        elif task["status"] == "failed":
            error = snap.get("error") if isinstance(snap.get("error"), dict) else {}
            task["error"] = {"code": INTERNAL_ERROR, "message": f"{error.get('code', 'ERROR')}: "
                             f"{error.get('message', 'the run ended in error')}", "data": {"status": snap}}
        return task

    def _result(self, task_id: str, snap: dict[str, Any]) -> dict[str, Any]:
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

        if task_id not in self.projects:
            raise MCPError(code=INVALID_PARAMS, message=f"no task '{task_id}' was started on this server")
        assert self.server is not None
        arguments: dict[str, Any] = {"id": task_id}
        if self.projects[task_id] is not None:
            arguments["project"] = self.projects[task_id]
        result = await self.server.call_tool(name, arguments, Context(request_context=ctx, mcp_server=self.server))
        assert isinstance(result, CallToolResult)
        return result


def _text(result: CallToolResult) -> str:
    first = result.content[0] if result.content else None
    return getattr(first, "text", "") or "the run could not be read"
