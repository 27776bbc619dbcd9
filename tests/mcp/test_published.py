"""The schemas the server publishes before it builds its tools (mcp/published.json) are the ones
the built tools publish: the file is regenerated whenever a tool's arguments or output change."""

from __future__ import annotations

import json
from pathlib import Path

from amicus_mcp.mcp import published as generator
from amicus_mcp.mcp.app_view import bind
from amicus_mcp.mcp.sdk import DeferredTool
from amicus_mcp.mcp.server import PUBLISHED_FILE, build_tools, make_tool, published
from amicus_mcp.mcp.state import ServerState

FILE = Path(generator.__file__).with_name(PUBLISHED_FILE)


def test_the_shipped_schemas_are_the_built_tools_own() -> None:
    shipped = json.loads(FILE.read_text(encoding="utf-8"))
    built = generator.built_schemas()
    assert list(shipped) == list(built) and shipped == built, (
        "mcp/published.json is stale: run `python -m amicus_mcp.contracts --write`")
    # the same text, key order included (a client lists arguments in that order)
    assert FILE.read_text(encoding="utf-8") == generator.text()


def test_every_tool_starts_unbuilt_and_publishes_the_shipped_schemas() -> None:
    state = ServerState()
    tools = bind(build_tools(state), state, make_tool)
    shipped = published()
    assert {t.name for t in tools} == set(shipped)
    for tool in tools:
        assert isinstance(tool, DeferredTool) and tool._built is None  # noqa: SLF001 - nothing built at start-up
        assert (tool.parameters, tool.output_schema) == (shipped[tool.name]["inputSchema"],
                                                          shipped[tool.name]["outputSchema"])
