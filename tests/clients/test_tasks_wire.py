"""The Tasks extension's wire, checked against its reference implementation's own schemas.

The server runs over stdio as any host starts it; the test speaks raw JSON-RPC on the
2026-07-28 wire (each request carries its protocol version, client info and capabilities, the
capabilities declaring `io.modelcontextprotocol/tasks`), runs one council as a task to
completion and cancels another; then every answer — tools/call's task, each tasks/get, the
tasks/cancel — is parsed by the SEP-2663 schemas of npm `@modelcontextprotocol/ext-tasks`
0.2.2 (`core/v2`: CreateTaskResultV2Schema, GetTaskResultV2Schema, CancelTaskResultV2Schema),
the package MCP hosts build their Tasks support on.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import time
from pathlib import Path
from typing import IO, Any

from client_helpers import NODE, SERVER, missing
from council_script import VERDICT, council
from fakeprovider import FakeProvider
from mcp_types import CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY, PROTOCOL_VERSION_META_KEY

from amicus_mcp.mcp.tasks import EXTENSION_ID

META = {PROTOCOL_VERSION_META_KEY: "2026-07-28", CLIENT_INFO_META_KEY: {"name": "tasks-wire-test", "version": "1.0.0"},
        CLIENT_CAPABILITIES_META_KEY: {"extensions": {EXTENSION_ID: {}}}}
CHECK = """
import * as v2 from '@modelcontextprotocol/ext-tasks/core/v2';
const checks = JSON.parse(process.argv[1]);
const problems = checks.map(([schema, doc]) => {
  const parsed = v2[schema].safeParse(doc);
  return parsed.success ? null : `${schema}: ${JSON.stringify(parsed.error.issues)} in ${JSON.stringify(doc).slice(0, 400)}`;
}).filter(Boolean);
process.stdout.write(JSON.stringify(problems));
"""


class Wire:
    """Raw JSON-RPC lines to and from the server's stdio."""

    def __init__(self, cwd: Path) -> None:
        self.proc = subprocess.Popen(SERVER, cwd=cwd, env=dict(os.environ), stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.ids = itertools.count(1)

    def call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        request_id = next(self.ids)
        message = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": {**params, "_meta": META}}
        stdin: IO[bytes] = self.proc.stdin  # type: ignore[assignment]
        stdin.write(json.dumps(message).encode() + b"\n")
        stdin.flush()
        stdout: IO[bytes] = self.proc.stdout  # type: ignore[assignment]
        while True:
            line = stdout.readline()
            assert line, "the server closed its stdout"
            reply = json.loads(line)
            if reply.get("id") == request_id:
                assert "error" not in reply, reply
                return reply["result"]

    def close(self) -> None:
        self.proc.stdin.close()  # type: ignore[union-attr]
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
        self.proc.stdout.close()  # type: ignore[union-attr]


def schema_problems(checks: list[tuple[str, dict[str, Any]]]) -> list[str]:
    if not (NODE / "node_modules" / "@modelcontextprotocol" / "ext-tasks").is_dir():
        missing("@modelcontextprotocol/ext-tasks")
    done = subprocess.run(["node", "--input-type=module", "-e", CHECK, json.dumps(checks)], cwd=NODE,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_a_council_as_a_task_on_the_wire_is_what_the_tasks_extension_reads(
        fake: FakeProvider, project: Path, briefing: Path) -> None:
    wire = Wire(project)
    checks: list[tuple[str, dict[str, Any]]] = []
    try:
        args = {"briefingFile": "briefing.md", "project": str(project), "ui": False}
        created = wire.call("tools/call", {"name": "amicus_council_run", "arguments": {**args, **council(fake, delay_s=0.3)}})
        checks.append(("CreateTaskResultV2Schema", created))
        deadline = time.monotonic() + 60
        while True:
            task = wire.call("tasks/get", {"taskId": created["taskId"]})
            checks.append(("GetTaskResultV2Schema", task))
            if task["status"] not in ("working", "input_required"):
                break
            assert time.monotonic() < deadline, task
            time.sleep(0.3)

        held = wire.call("tools/call", {"name": "amicus_council_run", "arguments": {**args, **council(fake, delay_s=60)}})
        cancelled = wire.call("tasks/cancel", {"taskId": held["taskId"]})
        checks.append(("CancelTaskResultV2Schema", cancelled))
        after = wire.call("tasks/get", {"taskId": held["taskId"]})
        checks.append(("GetTaskResultV2Schema", after))
    finally:
        wire.close()

    assert created["resultType"] == "task" and created["status"] == "working"
    assert task["status"] == "completed" and task["result"]["resultType"] == "complete"
    assert task["result"]["structuredContent"]["status"] == "complete"
    assert json.loads(task["result"]["content"][1]["text"])["overallVerdict"] == VERDICT
    assert after["status"] == "cancelled"
    assert schema_problems(checks) == []


def test_the_schemas_refuse_a_task_of_the_wrong_shape() -> None:
    """The check can fail: the 2025-11-25 shape (the task nested, `ttl` not `ttlMs`) is refused."""
    old = {"resultType": "task", "task": {"taskId": "x", "status": "working", "createdAt": "2026-12-02T00:00:00Z",
                                          "lastUpdatedAt": "2026-12-02T00:00:00Z", "ttl": None}}
    assert len(schema_problems([("CreateTaskResultV2Schema", old)])) == 1
