"""MCP cold start: time from spawning `amicus-mcp` to its answers to `initialize` and `tools/list`.

The same is measured, in the same run and the same way, for a minimal one-tool `MCPServer`
(the floor the SDK itself sets: interpreter start-up plus importing `mcp`). Each server is
spawned fresh N times, alternating, and spoken to over stdio with raw newline-delimited
JSON-RPC as Claude Code would (`clientInfo` claude-code, protocol 2025-11-25). The figures
are medians; the ratio is amicus-mcp / minimal.

    python bench/mcp_cold_start.py [--repeats 10] [--python PY] [--compare PY]

amicus-mcp is run as the `amicus-mcp` console script when it is installed next to the
interpreter, else as `python -m amicus_mcp.mcp` (the same code). `--python` runs it from
another interpreter (another checkout's venv); `--compare` adds a second one, measured
alternately with the others, so two versions are compared under the same load in one sitting.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO, Any

from processes import add_interpreters, environment

MINIMAL_SERVER = '''\
from mcp.server import MCPServer

server = MCPServer("minimal")


@server.tool()
def ping() -> str:
    """Answer pong."""
    return "pong"


server.run()
'''

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {},
    "clientInfo": {"name": "claude-code", "title": "Claude Code", "version": "2.1.268"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
TOOLS_LIST = {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}


def amicus_command(python: str) -> list[str]:
    script = Path(python).with_name("amicus-mcp")
    return [str(script)] if script.exists() else [python, "-m", "amicus_mcp.mcp"]


def send(pipe: IO[bytes], message: dict[str, Any]) -> None:
    pipe.write(json.dumps(message).encode() + b"\n")
    pipe.flush()


def answer(pipe: IO[bytes], request_id: int) -> dict[str, Any]:
    """The response to `request_id` (notifications the server sends first are skipped)."""
    while True:
        line = pipe.readline()
        if not line:
            raise RuntimeError("the server closed stdout before answering")
        message = json.loads(line)
        if message.get("id") == request_id:
            if "error" in message:
                raise RuntimeError(f"the server answered with an error: {message['error']}")
            return message["result"]


def one_start(command: list[str], env: dict[str, str], cwd: str) -> tuple[float, float, int]:
    """(seconds to the initialize answer, seconds to the tools/list answer, number of tools)."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            env=env, cwd=cwd)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        send(proc.stdin, INITIALIZE)
        answer(proc.stdout, 1)
        initialized = time.perf_counter() - start
        send(proc.stdin, INITIALIZED)
        send(proc.stdin, TOOLS_LIST)
        tools = answer(proc.stdout, 2)["tools"]
        listed = time.perf_counter() - start
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        proc.stdout.close()
    return initialized, listed, len(tools)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=10)
    add_interpreters(parser, "amicus-mcp")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        minimal = Path(tmp) / "minimal_server.py"
        minimal.write_text(MINIMAL_SERVER, encoding="utf-8")
        env = environment(AMICUS_CONFIG_DIR=str(Path(tmp) / "config"))
        servers = {"amicus-mcp": amicus_command(args.python), "minimal MCPServer": [sys.executable, str(minimal)]}
        if args.compare:
            servers["amicus-mcp (compare)"] = amicus_command(args.compare)
        for command in servers.values():  # warm the OS file cache and bytecode caches once, unmeasured
            one_start(command, env, tmp)
        runs: dict[str, list[tuple[float, float, int]]] = {name: [] for name in servers}
        for _ in range(args.repeats):
            for name, command in servers.items():
                runs[name].append(one_start(command, env, tmp))

    print(f"MCP cold start over stdio, median of {args.repeats} fresh spawns each (Python {sys.version.split()[0]})")
    for name, command in servers.items():
        print(f"  {name}: {command[0]}")
    print(f"{'server':<20} {'tools':>5} {'initialize':>11} {'tools/list':>11}")
    medians: dict[str, tuple[float, float]] = {}
    for name, rows in runs.items():
        init = statistics.median(r[0] for r in rows)
        listed = statistics.median(r[1] for r in rows)
        medians[name] = (init, listed)
        print(f"{name:<20} {rows[0][2]:>5} {init * 1000:>9.0f}ms {listed * 1000:>9.0f}ms")
    floor = medians["minimal MCPServer"]
    for name in (n for n in servers if n != "minimal MCPServer"):
        ours = medians[name]
        print(f"ratio {name} / minimal: initialize {ours[0] / floor[0]:.2f}x, tools/list {ours[1] / floor[1]:.2f}x")


if __name__ == "__main__":
    main()
