"""Helpers the MCP tests share: clients in-process and over stdio, and result readers."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters
from mcp.types import CallToolResult, Implementation

from amicus_mcp.mcp.fence import CLOSE, NOTICE, OPEN
from amicus_mcp.mcp.models import NEXT_WAIT

from amicus_mcp.mcp.server import build_server

REPO = Path(__file__).resolve().parents[2]


def info(name: str) -> Implementation:
    return Implementation(name=name, version="9.9")


@asynccontextmanager
async def in_process(mode: str, name: str = "claude-code", **kwargs: Any) -> AsyncIterator[Client]:
    async with Client(build_server(), mode=mode, client_info=info(name), **kwargs) as client:  # type: ignore[arg-type]
        yield client


def stdio_params(cwd: Path, **env: str) -> StdioServerParameters:
    """The real server as a subprocess, with this test's config dir, project roots and provider guard."""
    names = ("AMICUS_CONFIG_DIR", "AMICUS_PROJECT_ROOTS", "AMICUS_OPENROUTER_BASE_URL")
    keep = {k: os.environ[k] for k in names if k in os.environ}
    return StdioServerParameters(command=sys.executable, args=["-m", "amicus_mcp.mcp"],
                                 env={**keep, **env}, cwd=str(cwd))


def body(result: CallToolResult) -> dict[str, Any]:
    """A successful result's structured content (the test fails with the error text otherwise)."""
    assert not result.is_error, result.content[0].text  # type: ignore[union-attr]
    assert isinstance(result.structured_content, dict)
    return result.structured_content


def unfenced(value: str) -> str:
    """The body of a fenced value (the test fails unless the value is one whole fence)."""
    head = f"{OPEN}\n{NOTICE}\n\n"
    assert value.startswith(head) and value.endswith(f"\n{CLOSE}"), value[:120]
    return value[len(head):-len(CLOSE) - 1]


def error_of(result: CallToolResult) -> str:
    assert result.is_error, "expected an isError result"
    text = result.content[0].text  # type: ignore[union-attr]
    assert "Error executing tool" not in text
    return text


async def wait_until_terminal(client: Client, target: str, *, budget_s: float = 60.0,
                              slice_s: float = 2.0, **args: Any) -> tuple[dict[str, Any], int]:
    """Call amicus_wait until the id is terminal; (last result, number of calls)."""
    deadline = time.monotonic() + budget_s
    calls = 0
    while True:
        calls += 1
        result = body(await client.call_tool("amicus_wait", {"id": target, "timeoutSeconds": slice_s, **args}))
        if result["terminal"]:
            return result, calls
        assert result["timedOut"] and result["next"] == NEXT_WAIT
        assert time.monotonic() < deadline, f"{target} still {result['status']} after {budget_s}s"
