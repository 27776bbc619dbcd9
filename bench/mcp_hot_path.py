"""MCP hot path: what one tool call costs amicus-mcp beyond what the SDK itself costs.

A finished council run (from the loopback fake provider) sits in a scratch project. Each
tool below is called over stdio with raw newline-delimited JSON-RPC, first one call at a
time, then with `--concurrency` calls in flight (the MCP Inspector's `--load` pattern):

    amicus_status         the run's snapshot (reads run.json, projects it, fences, redacts)
    amicus_read           the run's Markdown report (renders verdict.json, pages, fences)
    amicus_list           the project's runs and waves
    amicus_council_tally  the worked example's tally (noLedger)

The baseline, measured in the same run and alternately with it, is a bare one-tool SDK
`MCPServer` whose tool answers with the very payload amicus-mcp answered that tool with
(its structured content and text blocks, built into a `CallToolResult` per call): the
floor the SDK, the stdio transport and the JSON of that payload set. The figures are p50
latencies, throughput and the server process's CPU time per call; each ratio is
amicus-mcp / bare, so 1.0 would be free. All servers stay up and take turns batch by batch;
each figure is the median over `--repeats` rounds.

    python bench/mcp_hot_path.py [--calls 200] [--concurrency 50] [--repeats 5] [--compare SRC] [--tools a,b]

`--compare SRC` (repeatable) adds another checkout's `src` directory (e.g. an older build
exported with `git archive`), run with the same interpreter and measured alternately with this
one, so builds are compared under the same load in one sitting.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "tests"), str(REPO / "tests" / "mcp")]

from council_script import council  # noqa: E402
from fakeprovider import FakeProvider  # noqa: E402

BARE_SERVER = '''\
import json, sys
from mcp.server import MCPServer
from mcp.types import CallToolResult, TextContent

payloads = json.load(open(sys.argv[1], encoding="utf-8"))
server = MCPServer("bare")


@server.tool()
def answer(tool: str) -> CallToolResult:
    """Answer with the payload amicus-mcp gave for `tool`."""
    payload = payloads[tool]
    return CallToolResult(content=[TextContent(type="text", text=t) for t in payload["texts"]],
                          structured_content=payload["structured"])


server.run()
'''

INITIALIZE = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {},
    "clientInfo": {"name": "inspector-cli", "version": "2.12.0"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


class Server:
    """One stdio server, spoken to with pipelined JSON-RPC; a reader thread times each answer."""

    def __init__(self, command: list[str], env: dict[str, str], cwd: Path):
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, env=env, cwd=cwd)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.stdin: IO[bytes] = self.proc.stdin
        self.stdout: IO[bytes] = self.proc.stdout
        self.next_id = 1
        self.sent: dict[int, float] = {}
        self.answers: dict[int, tuple[float, dict[str, Any]]] = {}
        self.arrived = threading.Condition()
        self.send(INITIALIZE)
        self.wait_for(0)
        self.send(INITIALIZED)
        threading.Thread(target=self._read, daemon=True).start()

    def send(self, message: dict[str, Any]) -> None:
        if "id" in message:
            self.sent[message["id"]] = time.perf_counter()
        self.stdin.write(json.dumps(message).encode() + b"\n")
        self.stdin.flush()

    def wait_for(self, request_id: int) -> dict[str, Any]:
        """Read synchronously (before the reader thread starts) until `request_id` is answered."""
        while True:
            message = json.loads(self.stdout.readline())
            if message.get("id") == request_id:
                return message

    def _read(self) -> None:
        for line in self.stdout:
            message = json.loads(line)
            if "id" not in message:
                continue  # a notification
            with self.arrived:
                self.answers[message["id"]] = (time.perf_counter(), message)
                self.arrived.notify_all()

    def call(self, tool: str, arguments: dict[str, Any]) -> int:
        request_id, self.next_id = self.next_id, self.next_id + 1
        self.send({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                   "params": {"name": tool, "arguments": arguments}})
        return request_id

    def result(self, request_id: int) -> tuple[float, dict[str, Any]]:
        """(latency in seconds, the result) of one call, once answered."""
        with self.arrived:
            while request_id not in self.answers:
                if not self.arrived.wait(timeout=60):
                    raise RuntimeError(f"no answer to request {request_id} within 60 s")
            done, message = self.answers.pop(request_id)
        if "error" in message or message["result"].get("isError"):
            raise RuntimeError(f"the call failed: {json.dumps(message)[:400]}")
        return done - self.sent.pop(request_id), message["result"]

    def close(self) -> None:
        self.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def sequential(server: Server, tool: str, arguments: dict[str, Any], calls: int) -> list[float]:
    return [server.result(server.call(tool, arguments))[0] for _ in range(calls)]


def concurrent(server: Server, tool: str, arguments: dict[str, Any], calls: int, width: int) -> tuple[list[float], float]:
    """`calls` calls with at most `width` in flight; (latencies, calls per second)."""
    started = time.perf_counter()
    in_flight = [server.call(tool, arguments) for _ in range(min(width, calls))]
    sent, latencies = len(in_flight), []
    while in_flight:
        latencies.append(server.result(in_flight.pop(0))[0])
        if sent < calls:
            in_flight.append(server.call(tool, arguments))
            sent += 1
    return latencies, calls / (time.perf_counter() - started)


def p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


@contextmanager
def finished_run(tmp: Path) -> Iterator[tuple[Path, dict[str, str], str]]:
    """A project holding one complete council run; (project, environment, run id)."""
    config, project = tmp / "config", tmp / "project"
    config.mkdir()
    project.mkdir()
    (project / "briefing.md").write_text("Review the design of the widget cache.\n\nIt evicts on every write.\n",
                                         encoding="utf-8")
    env = {**os.environ, "AMICUS_CONFIG_DIR": str(config), "AMICUS_PROJECT_DIR": str(project),
           "AMICUS_OPENROUTER_BASE_URL": "http://127.0.0.1:9/api/v1"}
    with FakeProvider() as fake:
        (config / "config.json").write_text(json.dumps({"providers": {"fake": {"baseUrl": fake.base_url}}}),
                                            encoding="utf-8")
        members = council(fake)
        done = subprocess.run([sys.executable, "-m", "amicus_mcp.cli", "council", "run", "--prompt-file",
                               "briefing.md", "--models", ",".join(members["models"]), "--chair", members["chair"],
                               "--json"], cwd=project, env=env, capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise RuntimeError(f"the council run failed: {done.stderr[-2000:]}")
    yield project, env, json.loads(done.stdout)["runId"]


def tool_calls(run_id: str) -> dict[str, dict[str, Any]]:
    tally_input = json.loads((REPO / "examples" / "worked-example" / "tally-input.json").read_text(encoding="utf-8"))
    return {"amicus_status": {"id": run_id}, "amicus_read": {"id": run_id}, "amicus_list": {},
            "amicus_council_tally": {**tally_input, "noLedger": True}}


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU the process has used (Linux /proc; None elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure(server: Server, tool: str, arguments: dict[str, Any], calls: int, width: int) -> dict[str, float]:
    sequential(server, tool, arguments, 10)  # warm: imports, caches
    before = cpu_seconds(server.proc.pid)
    one = sequential(server, tool, arguments, calls)
    many, rate = concurrent(server, tool, arguments, calls, width)
    after = cpu_seconds(server.proc.pid)
    cpu = (after - before) / (2 * calls) if before is not None and after is not None else float("nan")
    return {"p50": p(one, 0.5), "p50c": p(many, 0.5), "p95c": p(many, 0.95), "rate": rate, "cpu": cpu}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200, help="calls per tool per phase and round (default 200)")
    parser.add_argument("--concurrency", type=int, default=50)
    parser.add_argument("--repeats", type=int, default=5, help="interleaved rounds; each figure is their median")
    parser.add_argument("--compare", type=Path, action="append", default=[],
                        help="another checkout's src directory, measured alternately (repeatable)")
    parser.add_argument("--tools", help="comma-separated: only these tools (default: all four)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as scratch, finished_run(Path(scratch)) as (project, env, run_id):
        calls = tool_calls(run_id)
        if args.tools:
            calls = {tool: calls[tool] for tool in args.tools.split(",")}
        servers: dict[str, tuple[list[str], dict[str, str]]] = {
            "amicus-mcp": ([sys.executable, "-m", "amicus_mcp.mcp"], env)}
        for index, src in enumerate(args.compare, start=1):
            other = {**env, "PYTHONPATH": str(src.resolve())}
            servers[f"compared{index if len(args.compare) > 1 else ''}"] = ([sys.executable, "-m", "amicus_mcp.mcp"], other)
        payloads = record_payloads(servers["amicus-mcp"], project, calls)
        bare_script = Path(scratch) / "bare_server.py"
        bare_script.write_text(BARE_SERVER, encoding="utf-8")
        (Path(scratch) / "payloads.json").write_text(json.dumps(payloads), encoding="utf-8")
        servers["bare SDK"] = ([sys.executable, str(bare_script), str(Path(scratch) / "payloads.json")], env)

        # Every server stays up for the whole sitting and they take turns, batch by batch, so a
        # burst of load from elsewhere on the machine falls on all of them alike.
        running = {name: Server(command, server_env, project) for name, (command, server_env) in servers.items()}
        rounds: dict[tuple[str, str], list[dict[str, float]]] = {}
        try:
            for round_index in range(args.repeats):
                names = list(running)
                names = names[round_index % len(names):] + names[:round_index % len(names)]
                for tool, arguments in calls.items():
                    for name in names:
                        bare = name == "bare SDK"
                        got = measure(running[name], "answer" if bare else tool, {"tool": tool} if bare else arguments,
                                      args.calls, args.concurrency)
                        rounds.setdefault((name, tool), []).append(got)
        finally:
            for server in running.values():
                server.close()
        best = {key: {k: statistics.median(r[k] for r in got) for k in got[0]} for key, got in rounds.items()}

    print(f"MCP hot path over stdio: {args.calls} calls per tool one at a time, then {args.calls} with "
          f"{args.concurrency} in flight; medians of {args.repeats} interleaved rounds (Python {sys.version.split()[0]})")
    print(f"{'tool':<22} {'server':<11} {'CPU/call':>9} {'p50 1-by-1':>10} {'p50 @N':>8} {'p95 @N':>8} "
          f"{'calls/s':>7} {'x CPU':>6} {'x p50':>6} {'x calls/s':>9}")
    for tool in calls:
        floor = best[("bare SDK", tool)]
        for name in servers:
            row = best[(name, tool)]
            print(f"{tool:<22} {name:<11} {row['cpu'] * 1000:>7.2f}ms {row['p50'] * 1000:>8.2f}ms "
                  f"{row['p50c'] * 1000:>6.0f}ms {row['p95c'] * 1000:>6.0f}ms {row['rate']:>7.0f} "
                  f"{row['cpu'] / floor['cpu']:>5.2f}x {row['p50'] / floor['p50']:>5.2f}x {floor['rate'] / row['rate']:>8.2f}x")
    print("x: amicus-mcp / the bare SDK server answering the same payload (CPU is the server process's own user+system "
          "time per call, the figure least moved by other load; calls/s inverted, so higher is more work per call)")


def record_payloads(server_spec: tuple[list[str], dict[str, str]], project: Path,
                    calls: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """What amicus-mcp answers each call with: the bare server answers with exactly that."""
    command, env = server_spec
    server = Server(command, env, project)
    try:
        payloads = {}
        for tool, arguments in calls.items():
            _, result = server.result(server.call(tool, arguments))
            payloads[tool] = {"texts": [block["text"] for block in result["content"]],
                              "structured": result["structuredContent"]}
        return payloads
    finally:
        server.close()


if __name__ == "__main__":
    main()
