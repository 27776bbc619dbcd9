"""The two places this server reaches past the MCP SDK's documented calls — here and nowhere else.

Everything else in `amicus_mcp.mcp` uses the SDK's public surface: `MCPServer(tools=…,
extensions=…, middleware=…)`, `Tool.from_function`, the Apps extension, `Context`. The SDK
2.3 has no public way to do these two things, so they are done here, and
`tests/mcp/test_sdk_seams.py` fails loudly — naming the seam — when an SDK release moves
what they touch. That is why `mcp` is pinned exactly in pyproject.toml: CI tests one release.

1. `publish(tool, output_schema)` — a tool's schemas as this server publishes them. The SDK
   derives the input schema from the handler's signature, open to unknown keys, and no output
   schema for a handler that returns a `CallToolResult` (ours do: errors are shaped by hand).
   `Tool.parameters` and `FuncMetadata.output_schema` are public fields that the SDK reads
   live at `tools/list` ("hand-built metadata" in `FuncMetadata.convert_result`); setting them
   is the seam.
2. `withdraw(server, methods)` — requests this server does not serve. `MCPServer` installs
   handlers for prompts and resources on every server, and the low-level server advertises a
   capability for every method it has a handler for. Nothing public removes one, so the
   private handler table is edited: the methods then answer "method not found" and no empty
   capability is advertised.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from mcp.server import MCPServer
from mcp.server.mcpserver.tools import Tool


def publish(tool: Tool, output_schema: dict[str, Any]) -> Tool:
    """`tool` with a closed input schema (an unknown argument is refused) and `output_schema`."""
    tool.parameters["additionalProperties"] = False
    tool.fn_metadata.output_schema = output_schema
    return tool


def withdraw(server: MCPServer, methods: Iterable[str]) -> None:
    """Unregister the SDK's own handlers for `methods` (absent ones are skipped)."""
    handlers = server._lowlevel_server._request_handlers  # noqa: SLF001 - the seam: nothing public removes one
    for method in methods:
        handlers.pop(method, None)
