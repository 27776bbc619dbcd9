"""Issue 19 item 16: every count and list of tools in the docs is the server's own.

The server is asked (`tools/list`, in process) rather than a constant consulted, so a tool
added or renamed anywhere shows up here as a docs page to update: docs/mcp.md's tool table
(each row's arguments, with the run options' table `python -m amicus_mcp.contracts --write`
generates beside it), the server module's docstring, and every `amicus_…` tool name or
"N tools" count in the README, docs, skills and commands. The hosts table in docs/mcp.md is
checked against `client.HOSTS` the same way.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from docs_tables import run_option_arguments, table_rows
from mcp_helpers import in_process

from amicus_mcp.mcp import server
from amicus_mcp.mcp.client import HOSTS, UNKNOWN

pytestmark = pytest.mark.anyio

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs" / "mcp.md"
PROSE = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md")), *sorted((REPO / "skills").rglob("*.md")),
         *sorted((REPO / "commands").glob("*.md"))]
NOT_TOOLS = {"amicus_sessions", "amicus_mcp"}  # a directory and the package, not tools
NUMBERS = {word: n for n, word in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty".split())}


async def listed() -> dict[str, dict[str, Any]]:
    """The server's tools as a client sees them: name → input schema."""
    async with in_process("legacy") as client:
        return {tool.name: tool.input_schema for tool in (await client.list_tools()).tools}


async def test_the_tool_table_lists_every_tool_with_its_own_arguments() -> None:
    tools = await listed()
    text = DOCS.read_text(encoding="utf-8")
    rows = table_rows(text, "| tool | inputs | returns |")
    options = run_option_arguments(text)
    names = [re.fullmatch(r"`(amicus_\w+)`", row[0]).group(1) for row in rows]  # type: ignore[union-attr]
    assert names == list(tools), "docs/mcp.md's tool table is not the server's tools/list"
    assert set(options) == {"amicus_council_run", "amicus_eval", "amicus_fanout"}
    for name, row in zip(names, rows):
        arguments = set(tools[name].get("properties", {}))
        assert options.get(name, set()) <= arguments, f"{name}: the run options' table lists what it lacks"
        mentioned = {token.rstrip("?") for token in re.findall(r"`([A-Za-z]+\??)`", row[1])} | options.get(name, set())
        optional = set(re.findall(r"`([A-Za-z]+)\?`", row[1]))  # `name?` is always an argument
        assert arguments <= mentioned, f"{name}: docs/mcp.md does not list {sorted(arguments - mentioned)}"
        assert optional <= arguments, f"{name}: docs/mcp.md lists {sorted(optional - arguments)}, which it lacks"


async def test_the_server_docstring_lists_every_tool() -> None:
    doc = server.__doc__ or ""
    assert re.findall(r"^    (amicus_\w+)\s", doc, re.M) == list(await listed())


def app_only_tools() -> set[str]:
    """The tools only a client that negotiated MCP Apps sees (the inline view's own), which the
    docs may name but never count among the model's tools."""
    from amicus_mcp.mcp.app_view import bind
    from amicus_mcp.mcp.state import ServerState

    state = ServerState()
    tools = server.build_tools(state)
    return {tool.name for tool in bind(tools, state, server.make_tool)} - {tool.name for tool in tools}


async def test_every_tool_named_or_counted_in_the_docs_is_the_servers() -> None:
    tools = await listed()
    known = set(tools) | app_only_tools()
    assert app_only_tools(), "the inline view's app-only tool is gone: update this test"
    for path in PROSE:
        text = path.read_text(encoding="utf-8")
        named = set(re.findall(r"\bamicus_[a-z_]+[a-z]\b", text)) - NOT_TOOLS
        assert named <= known, f"{path.relative_to(REPO)} names tools the server lacks: {sorted(named - known)}"
        for count in re.findall(r"\b(\w+) (?:MCP )?tools\b", text, re.I):
            n = NUMBERS.get(count.lower(), int(count) if count.isdigit() else None)
            assert n is None or n == len(tools), f"{path.relative_to(REPO)} says {count} tools; the server has {len(tools)}"


def test_the_hosts_table_is_the_servers() -> None:
    rows = table_rows(DOCS.read_text(encoding="utf-8"), "| host (`clientInfo.name`) |")
    documented = {row[1].strip("`"): row[2] for row in rows}
    assert documented == {host.tag: f"{host.slice_s:g} s" for host in (*HOSTS, UNKNOWN)}
