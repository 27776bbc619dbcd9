"""The tools' schemas as published, computed ahead: `published.json` beside this module.

Building a tool — its argument model from the handler's signature, its input and output JSON
Schemas — costs more at start-up than everything else the server does before `tools/list`, so
the server publishes these ahead-computed schemas and builds each tool at its first call
(`sdk.deferred`). `tests/mcp/test_published.py` fails when a tool's built schemas no longer
equal the file; regenerate it with

    python -m amicus_mcp.mcp.published

A tool missing from the file is built at start-up instead: slower, never wrong.
"""

from __future__ import annotations

import json
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Any

FILE = "published.json"


@cache
def published() -> dict[str, dict[str, Any]]:
    """Tool name → {"inputSchema", "outputSchema"}, as the built tools publish them."""
    try:
        return json.loads(files("amicus_mcp.mcp").joinpath(FILE).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}


def built_schemas() -> dict[str, dict[str, Any]]:
    """What every tool publishes once built (the inline view's tool included)."""
    from .app_view import bind
    from .server import build_tools, make_tool
    from .state import ServerState

    state = ServerState()
    schemas = {}
    for tool in bind(build_tools(state), state, make_tool):
        real = tool.built() if hasattr(tool, "built") else tool
        schemas[tool.name] = {"inputSchema": real.parameters, "outputSchema": real.output_schema}
    return schemas


def main() -> None:
    target = Path(__file__).with_name(FILE)
    target.write_text(json.dumps(built_schemas(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {target}")


if __name__ == "__main__":
    main()
