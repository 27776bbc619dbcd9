"""The places this server reaches past the MCP SDK's documented calls — here and nowhere else.

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
2. `deferred(make, …)` — a tool published before it is built. Building a tool (its argument
   model from the handler's signature, and both JSON Schemas) is most of a cold start beyond
   the SDK's own, so the server publishes the schemas computed ahead (mcp/published.json, kept
   equal to the built ones by a test) and builds a tool when it is first called. The seam: a
   `Tool` subclass made with pydantic's `model_construct` (the SDK's parts not yet there),
   whose `run` builds the real tool once and runs it, and whose `output_schema` is the
   published one.
3. `withdraw(server, methods)` — requests this server does not serve. `MCPServer` installs
   handlers for prompts and resources on every server, and the low-level server advertises a
   capability for every method it has a handler for. Nothing public removes one, so the
   private handler table is edited: the methods then answer "method not found" and no empty
   capability is advertised.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cached_property
from typing import Any

from mcp.server import MCPServer
from mcp.server.mcpserver.tools import Tool
from mcp.types import ToolAnnotations
from pydantic import Field, PrivateAttr

from ..schemas import JsonObject, JsonSchema


def publish(tool: Tool, output_schema: JsonSchema) -> Tool:
    """`tool` with a closed input schema (an unknown argument is refused) and `output_schema`."""
    tool.parameters["additionalProperties"] = False
    tool.fn_metadata.output_schema = output_schema
    return tool


class DeferredTool(Tool):
    """A tool whose published schemas are known ahead and whose SDK parts are built at its first call."""

    make: Callable[[], Tool] = Field(exclude=True)
    published_output: JsonSchema | None = Field(default=None, exclude=True)
    _built: Tool | None = PrivateAttr(default=None)

    @cached_property
    def output_schema(self) -> JsonSchema | None:
        return self.published_output

    def built(self) -> Tool:
        """The real tool (made once): what every call runs, and what the published schemas describe."""
        if self._built is None:
            self._built = self.make()
        return self._built

    async def run(self, arguments: JsonObject, context: Any, convert_result: bool = False) -> Any:  # the call's wire arguments
        return await self.built().run(arguments, context, convert_result=convert_result)


def deferred(make: Callable[[], Tool], *, name: str, title: str | None, description: str,
             annotations: ToolAnnotations | None, input_schema: JsonSchema,
             output_schema: JsonSchema | None, meta: JsonObject | None = None) -> DeferredTool:
    """A tool `make()` builds at its first call, published meanwhile with the given schemas."""
    return DeferredTool.model_construct(
        fn=make, name=name, title=title, description=description, parameters=input_schema,
        fn_metadata=None,  # type: ignore[arg-type]  # never read: a call runs, and the output schema comes from, the built tool
        is_async=True, context_kwarg=None, annotations=annotations, icons=None, meta=meta, make=make,
        published_output=output_schema)


def withdraw(server: MCPServer, methods: Iterable[str]) -> None:
    """Unregister the SDK's own handlers for `methods` (absent ones are skipped)."""
    handlers = server._lowlevel_server._request_handlers  # noqa: SLF001 - the seam: nothing public removes one
    for method in methods:
        handlers.pop(method, None)
