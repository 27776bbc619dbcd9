"""Writes `published.json`: the tools' schemas as the built tools publish them, computed ahead.

Building a tool — its argument model from the handler's signature, its input and output JSON
Schemas — costs more at start-up than everything else the server does before `tools/list`, so
the server publishes the schemas in that file and builds each tool at its first call
(`server.published`, `sdk.deferred`). `tests/mcp/test_published.py` fails when a tool's built
schemas no longer equal the file; regenerate it (with every other generated contract) with

    python -m amicus_mcp.contracts --write

A tool missing from the file is built at start-up instead: slower, never wrong.
"""

from __future__ import annotations

import json
from pathlib import Path
from .app_view import bind
from .sdk import DeferredTool
from .server import PUBLISHED_FILE, PublishedTool, build_tools, make_tool
from .state import ServerState


def built_schemas() -> dict[str, PublishedTool]:
    """What every tool publishes once built (the inline view's tool included), in tool order."""
    state = ServerState()
    schemas: dict[str, PublishedTool] = {}
    for tool in bind(build_tools(state), state, make_tool):
        real = tool.built() if isinstance(tool, DeferredTool) else tool
        schemas[tool.name] = {"inputSchema": real.parameters, "outputSchema": real.output_schema}
    return schemas


def text() -> str:
    return json.dumps(built_schemas(), indent=2, ensure_ascii=False) + "\n"


def target() -> Path:
    return Path(__file__).with_name(PUBLISHED_FILE)
