"""The Tasks extension (issue 33 §1): with a 2026-07-28 client that declares it, a council runs
as a task to completion, and a cancel aborts it and leaves it resumable; every other client keeps
start → wait → read.

The client side is the SDK's own extension machinery: a `ClientExtension` that declares
`io.modelcontextprotocol/tasks` and claims the `task` result of tools/call, and whose resolver
follows the task with tasks/get, tasks/cancel and tasks/result, as a host's would.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, Literal

import pytest
from council_script import VERDICT, council
from fakeprovider import FakeProvider
from mcp import Client, MCPError
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp.types import (
    CallToolResult,
    CancelTaskRequest,
    CancelTaskRequestParams,
    GetTaskPayloadRequest,
    GetTaskPayloadRequestParams,
    GetTaskRequest,
    GetTaskRequestParams,
    GetTaskResult,
    Result,
    Task,
)
from mcp_helpers import body, info


from amicus_mcp.mcp.server import build_server
from amicus_mcp.mcp.tasks import EXTENSION_ID

pytestmark = pytest.mark.anyio


class TaskAnswer(Result):
    result_type: Literal["task"] = "task"  # type: ignore[assignment]
    task: Task


Follow = Callable[[Task, ClaimContext], Awaitable[CallToolResult]]


class TasksClient(ClientExtension):
    identifier = EXTENSION_ID

    def __init__(self, follow: Follow) -> None:
        self.follow = follow
        self.tasks: list[Task] = []  # what the tools/call answered

    def claims(self) -> Sequence[ResultClaim[Any]]:
        async def resolve(claimed: TaskAnswer, ctx: ClaimContext) -> CallToolResult:
            self.tasks.append(claimed.task)
            return await self.follow(claimed.task, ctx)

        return (ResultClaim(result_type="task", model=TaskAnswer, resolve=resolve),)


async def get(ctx: ClaimContext, task_id: str) -> GetTaskResult:
    return await ctx.session.send_request(GetTaskRequest(params=GetTaskRequestParams(task_id=task_id)), GetTaskResult)


async def payload(ctx: ClaimContext, task_id: str) -> CallToolResult:
    return await ctx.session.send_request(GetTaskPayloadRequest(params=GetTaskPayloadRequestParams(task_id=task_id)),
                                          CallToolResult)


async def test_a_council_runs_as_a_task_to_completion(fake: FakeProvider, project: Path, briefing: Path) -> None:
    seen: list[str] = []

    async def follow(task: Task, ctx: ClaimContext) -> CallToolResult:
        seen.append((await get(ctx, task.task_id)).status)
        return await payload(ctx, task.task_id)  # blocks until the run is terminal

    tasks = TasksClient(follow)
    async with Client(build_server(), mode="2026-07-28", client_info=info("claude-code"), extensions=[tasks]) as client:
        result = await client.call_tool("amicus_council_run", {
            "briefingFile": "briefing.md", "project": str(project), "ui": False, **council(fake, delay_s=0.5)})
        [task] = tasks.tasks
        after = await client.session.send_request(GetTaskRequest(params=GetTaskRequestParams(task_id=task.task_id)),
                                                  GetTaskResult)
        read = body(await client.call_tool("amicus_read", {"id": task.task_id, "project": str(project)}))
    done = body(result)  # the tool's own result, valid against its output schema (the client checked)
    snapshot = json.loads(result.content[1].text)  # type: ignore[union-attr]
    assert task.status == "working" and task.poll_interval and task.ttl is None
    assert seen == ["working"]
    assert (done["runId"], done["status"]) == (task.task_id, "complete") and "amicus_read" in done["next"]
    assert (snapshot["id"], snapshot["terminal"], snapshot["overallVerdict"]) == (task.task_id, True, VERDICT)
    assert after.status == "completed" and "complete" in (after.status_message or "")
    assert read["source"] == "report"  # the task id is the run id: every reader takes it


async def test_a_cancelled_task_aborts_the_run_and_leaves_it_resumable(fake: FakeProvider, project: Path,
                                                                       briefing: Path) -> None:
    cancelled: list[Task] = []

    async def follow(task: Task, ctx: ClaimContext) -> CallToolResult:
        cancelled.append(await ctx.session.send_request(
            CancelTaskRequest(params=CancelTaskRequestParams(task_id=task.task_id)), GetTaskResult))
        return await payload(ctx, task.task_id)

    tasks = TasksClient(follow)
    async with Client(build_server(), mode="2026-07-28", client_info=info("claude-code"), extensions=[tasks]) as client:
        result = await client.call_tool("amicus_council_run", {
            "briefingFile": "briefing.md", "project": str(project), "ui": False, **council(fake, delay_s=60)})
        status = body(await client.call_tool("amicus_status", {"id": tasks.tasks[0].task_id, "project": str(project)}))
    assert cancelled[0].status == "cancelled"
    assert body(result)["status"] == "aborted"
    assert json.loads(result.content[1].text)["terminal"] is True  # type: ignore[union-attr]
    assert (status["status"], status["resumable"]) == ("aborted", True)


async def test_a_call_that_fails_its_checks_is_answered_at_once_not_as_a_task(project: Path) -> None:
    async def follow(task: Task, ctx: ClaimContext) -> CallToolResult:
        raise AssertionError("no task for a refused call")

    tasks = TasksClient(follow)
    async with Client(build_server(), mode="2026-07-28", client_info=info("claude-code"), extensions=[tasks]) as client:
        refused = await client.call_tool("amicus_council_run", {"briefingFile": "missing.md", "project": str(project)})
        with pytest.raises(MCPError, match="no task 'nosuchtask'"):
            await client.session.send_request(GetTaskRequest(params=GetTaskRequestParams(task_id="nosuchtask")),
                                              GetTaskResult)
    assert refused.is_error and tasks.tasks == []


@pytest.mark.parametrize(("mode", "declares"), [("2026-07-28", False), ("legacy", True), ("legacy", False)])
async def test_every_other_client_keeps_start_wait_read(mode: str, declares: bool, fake: FakeProvider, project: Path,
                                                        briefing: Path) -> None:
    """No extension declared, or a handshake-era client (its wire cannot carry a task result):
    the start tool answers with its run id at once, as it always has."""
    from mcp.client.extension import advertise

    extensions = [advertise(EXTENSION_ID, {})] if declares else None
    async with Client(build_server(), mode=mode, client_info=info("claude-code"), extensions=extensions) as client:
        started = body(await client.call_tool("amicus_council_run", {
            "briefingFile": "briefing.md", "project": str(project), "ui": False, **council(fake)}))
    assert started["status"] == "running" and started["runId"] and started["next"]
