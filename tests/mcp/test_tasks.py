"""The Tasks extension (issue 33 §1): with a 2026-07-28 client that declares it, a council runs
as a task to completion, and a cancel aborts it and leaves it resumable; every other client keeps
start → wait → read.

The client side is the SDK's own extension machinery: a `ClientExtension` that declares
`io.modelcontextprotocol/tasks` and claims the `task` result of tools/call, and whose resolver
follows the task with tasks/get (and tasks/cancel) until it is terminal, as SEP-2663's
requester does (the wire shapes of npm @modelcontextprotocol/ext-tasks 0.2.2).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, Literal

import anyio
import pytest
from council_script import VERDICT, council
from fakeprovider import FakeProvider
from mcp import Client, MCPError
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim, advertise
from mcp.types import (
    CallToolResult,
    CancelTaskRequest,
    CancelTaskRequestParams,
    GetTaskRequest,
    GetTaskRequestParams,
    Result,
)
from mcp_helpers import body, info

from amicus_mcp.mcp.server import build_server
from amicus_mcp.mcp.tasks import EXTENSION_ID

pytestmark = pytest.mark.anyio


class CreatedTask(Result):
    """tools/call answered with a task (SEP-2663 CreateTaskResult: the task's fields, flat)."""

    result_type: Literal["task"] = "task"  # type: ignore[assignment]
    task_id: str
    status: str
    status_message: str | None = None
    created_at: str
    last_updated_at: str
    ttl_ms: int | None
    poll_interval_ms: int | None = None


class DetailedTask(Result):
    """tasks/get's answer: the task, with `result` once completed and `error` once failed."""

    task_id: str
    status: str
    status_message: str | None = None
    created_at: str | None = None
    ttl_ms: int | None
    poll_interval_ms: int | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None


Follow = Callable[[CreatedTask, ClaimContext], Awaitable[CallToolResult]]


class TasksClient(ClientExtension):
    identifier = EXTENSION_ID

    def __init__(self, follow: Follow) -> None:
        self.follow = follow
        self.tasks: list[CreatedTask] = []  # what tools/call answered
        self.seen: list[DetailedTask] = []  # every tasks/get answer

    def claims(self) -> Sequence[ResultClaim[Any]]:
        async def resolve(claimed: CreatedTask, ctx: ClaimContext) -> CallToolResult:
            self.tasks.append(claimed)
            return await self.follow(claimed, ctx)

        return (ResultClaim(result_type="task", model=CreatedTask, resolve=resolve),)

    async def get(self, ctx: ClaimContext, task_id: str) -> DetailedTask:
        task = await ctx.session.send_request(GetTaskRequest(params=GetTaskRequestParams(task_id=task_id)), DetailedTask)
        self.seen.append(task)
        return task

    async def until_terminal(self, ctx: ClaimContext, task_id: str) -> DetailedTask:
        with anyio.fail_after(60):
            while (task := await self.get(ctx, task_id)).status in ("working", "input_required"):
                await anyio.sleep((task.poll_interval_ms or 1000) / 1000 / 4)  # quicker than asked, for the test
        return task


def tool_result(task: DetailedTask) -> CallToolResult:
    assert task.status == "completed" and task.result is not None, task
    return CallToolResult.model_validate(task.result)


async def test_a_council_runs_as_a_task_to_completion(fake: FakeProvider, project: Path, briefing: Path) -> None:
    async def follow(created: CreatedTask, ctx: ClaimContext) -> CallToolResult:
        return tool_result(await tasks.until_terminal(ctx, created.task_id))

    tasks = TasksClient(follow)
    async with Client(build_server(), mode="2026-07-28", client_info=info("claude-code"), extensions=[tasks]) as client:
        result = await client.call_tool("amicus_council_run", {
            "briefingFile": "briefing.md", "project": str(project), "ui": False, **council(fake, delay_s=0.5)})
        [created] = tasks.tasks
        read = body(await client.call_tool("amicus_read", {"id": created.task_id, "project": str(project)}))
    done = body(result)  # the tool's own result, valid against its output schema (the client checked)
    snapshot = json.loads(result.content[1].text)  # type: ignore[union-attr]
    assert created.status == "working" and created.poll_interval_ms and created.ttl_ms is None
    assert [t.status for t in tasks.seen][0] == "working" and tasks.seen[-1].status == "completed"
    assert "legs done" in (tasks.seen[0].status_message or "")
    assert (done["runId"], done["status"]) == (created.task_id, "complete") and "amicus_read" in done["next"]
    assert (snapshot["id"], snapshot["terminal"], snapshot["overallVerdict"]) == (created.task_id, True, VERDICT)
    assert read["source"] == "report"  # the task id is the run id: every reader takes it


async def test_a_cancelled_task_aborts_the_run_and_leaves_it_resumable(fake: FakeProvider, project: Path,
                                                                       briefing: Path) -> None:
    async def follow(created: CreatedTask, ctx: ClaimContext) -> CallToolResult:
        await ctx.session.send_request(CancelTaskRequest(params=CancelTaskRequestParams(task_id=created.task_id)),
                                       Result)
        ended = await tasks.until_terminal(ctx, created.task_id)
        return CallToolResult(content=[], structured_content={"status": ended.status}, is_error=True)

    tasks = TasksClient(follow)
    async with Client(build_server(), mode="2026-07-28", client_info=info("claude-code"), extensions=[tasks]) as client:
        await client.call_tool("amicus_council_run", {
            "briefingFile": "briefing.md", "project": str(project), "ui": False, **council(fake, delay_s=60)})
        status = body(await client.call_tool("amicus_status", {"id": tasks.tasks[0].task_id, "project": str(project)}))
    assert tasks.seen[-1].status == "cancelled" and tasks.seen[-1].result is None
    assert (status["status"], status["resumable"]) == ("aborted", True)


async def test_a_call_that_fails_its_checks_is_answered_at_once_not_as_a_task(project: Path) -> None:
    async def follow(created: CreatedTask, ctx: ClaimContext) -> CallToolResult:
        raise AssertionError("no task for a refused call")

    tasks = TasksClient(follow)
    async with Client(build_server(), mode="2026-07-28", client_info=info("claude-code"), extensions=[tasks]) as client:
        refused = await client.call_tool("amicus_council_run", {"briefingFile": "missing.md", "project": str(project)})
        with pytest.raises(MCPError, match="no task 'nosuchtask'"):
            await client.session.send_request(GetTaskRequest(params=GetTaskRequestParams(task_id="nosuchtask")),
                                              DetailedTask)
    assert refused.is_error and tasks.tasks == []


@pytest.mark.parametrize(("mode", "declares"), [("2026-07-28", False), ("legacy", True), ("legacy", False)])
async def test_every_other_client_keeps_start_wait_read(mode: str, declares: bool, fake: FakeProvider, project: Path,
                                                        briefing: Path) -> None:
    """No extension declared, or a handshake-era client (its wire cannot carry a task result):
    the start tool answers with its run id at once, as it always has."""
    extensions = [advertise(EXTENSION_ID, {})] if declares else None
    async with Client(build_server(), mode=mode, client_info=info("claude-code"), extensions=extensions) as client:
        started = body(await client.call_tool("amicus_council_run", {
            "briefingFile": "briefing.md", "project": str(project), "ui": False, **council(fake)}))
    assert started["status"] == "running" and started["runId"] and started["next"]


async def test_a_task_outlives_the_server_that_started_it(fake: FakeProvider, project: Path, briefing: Path,
                                                          config_dir: Path) -> None:
    """The 2026-07-28 era is stateless: a tasks/get may reach a server started after the one that
    created the task (a host restarts it). The task's record is on disk, so the new server answers;
    an id that was never a task, or that could be a path, or whose record is damaged, is unknown."""
    async def leave(created: CreatedTask, ctx: ClaimContext) -> CallToolResult:
        return CallToolResult(content=[], structured_content={"status": created.status}, is_error=True)

    async def unused(created: CreatedTask, ctx: ClaimContext) -> CallToolResult:
        raise AssertionError("the second server starts nothing")

    first = TasksClient(leave)
    async with Client(build_server(), mode="2026-07-28", client_info=info("claude-code"), extensions=[first]) as client:
        await client.call_tool("amicus_council_run", {
            "briefingFile": "briefing.md", "project": str(project), "ui": False, **council(fake, delay_s=0.5)})
    [created] = first.tasks
    assert json.loads((config_dir / "tasks" / f"{created.task_id}.json").read_text(encoding="utf-8"))["project"] == str(project)

    later = TasksClient(unused)
    async with Client(build_server(), mode="2026-07-28", client_info=info("claude-code"), extensions=[later]) as client:
        ctx: Any = type("Ctx", (), {"session": client.session})()
        done = await later.until_terminal(ctx, created.task_id)
        (config_dir / "tasks" / "damaged.json").write_text("[]", encoding="utf-8")
        for unknown in ("nosuchtask", "../tasks/" + created.task_id, created.task_id + "/x", "damaged"):
            with pytest.raises(MCPError, match="was started on this server"):
                await later.get(ctx, unknown)
    assert done.status == "completed" and done.created_at == created.created_at
    assert tool_result(done).structured_content["runId"] == created.task_id  # type: ignore[index]
