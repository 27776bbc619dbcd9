"""The MCP SDK seams (amicus_mcp/mcp/sdk.py): each fails here, by name, when an SDK release moves it.

`mcp` is pinned exactly because CI tests one release. A new release is taken by changing the
pin and running this file first: every seam is checked against a bare SDK server, so a
failure names what moved rather than surfacing as a wrong schema or an empty capability in
some client test far away.
"""

from __future__ import annotations

import re
import tomllib
from importlib.metadata import version
from pathlib import Path

import pytest
from mcp import Client
from mcp.server import MCPServer
from mcp.server.mcpserver.tools import Tool
from mcp.shared.exceptions import MCPError
from mcp.types import METHOD_NOT_FOUND, CallToolResult, TextContent

from amicus_mcp.mcp import sdk
from amicus_mcp.mcp.server import UNOFFERED

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"
SCHEMA = {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}


async def shaped(question: str) -> CallToolResult:
    """A handler shaped like this server's: it builds its own result (errors included)."""
    return CallToolResult(content=[TextContent(type="text", text=question)], structured_content={"answer": question})


def test_the_installed_sdk_is_the_pinned_one() -> None:
    pins = [d for d in tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]["dependencies"]
            if re.match(r"mcp\b", d)]
    assert pins == [f"mcp=={version('mcp')}"], (
        f"pyproject pins {pins}, the installed SDK is {version('mcp')}: run this file against it, then move the pin")


def test_seam_publish_the_sdk_still_leaves_both_schemas_to_us() -> None:
    """If the SDK starts to close input schemas or to publish an output schema for a handler that
    returns a CallToolResult, `publish` may be replaced by the SDK's own way."""
    tool = Tool.from_function(shaped, name="ask", description="d")
    assert tool.fn_metadata.output_schema is None, "seam 1: the SDK now derives an output schema itself"
    assert "additionalProperties" not in tool.parameters, "seam 1: the SDK now closes input schemas itself"


@pytest.mark.anyio
async def test_seam_publish_reaches_tools_list() -> None:
    server = MCPServer("seam", tools=[sdk.publish(Tool.from_function(shaped, name="ask", description="d"), SCHEMA)])
    async with Client(server) as client:  # type: ignore[arg-type]
        (listed,) = (await client.list_tools()).tools
        result = await client.call_tool("ask", {"question": "why"})
    assert listed.input_schema["additionalProperties"] is False, "seam 1: Tool.parameters is no longer what tools/list sends"
    assert listed.output_schema == SCHEMA, "seam 1: FuncMetadata.output_schema is no longer what tools/list sends"
    assert result.structured_content == {"answer": "why"}


def test_seam_withdraw_the_sdk_still_installs_what_we_withdraw() -> None:
    handlers = MCPServer("seam")._lowlevel_server._request_handlers  # noqa: SLF001 - the seam under test
    assert isinstance(handlers, dict), "seam 2: the low-level server's handler table is no longer a dict"
    missing = [m for m in UNOFFERED if m not in handlers]
    assert not missing, f"seam 2: the SDK no longer installs {missing}: drop them from UNOFFERED"


@pytest.mark.anyio
async def test_seam_withdraw_removes_the_capability_and_the_method() -> None:
    server = MCPServer("seam", tools=[Tool.from_function(shaped, name="ask", description="d")])
    sdk.withdraw(server, UNOFFERED)
    async with Client(server) as client:  # type: ignore[arg-type]
        capabilities = client.server_capabilities
        with pytest.raises(MCPError) as refused:
            await client.list_prompts()
    assert capabilities.prompts is None and capabilities.resources is None, "seam 2: capabilities no longer follow handlers"
    assert capabilities.tools is not None
    assert refused.value.error.code == METHOD_NOT_FOUND


def test_no_other_module_reaches_into_the_sdk() -> None:
    """sdk.py is the one home of the seams: no other module names the SDK's private parts or
    sets the tool fields `publish` sets."""
    private = re.compile(r"\b_lowlevel_server\b|\b_request_handlers\b|\b_tool_manager\b|\bfn_metadata\b|"
                         r"\.parameters\[")
    package = Path(sdk.__file__).resolve().parents[1]
    reaching = [f"{path.relative_to(package)}:{n}" for path in sorted(package.rglob("*.py")) if path.name != "sdk.py"
                for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if private.search(line)]
    assert not reaching, f"SDK internals reached outside mcp/sdk.py: {reaching}"


@pytest.mark.anyio
async def test_seam_deferred_a_tool_is_listed_unbuilt_and_built_once_at_its_first_call() -> None:
    made: list[Tool] = []

    def make() -> Tool:
        made.append(sdk.publish(Tool.from_function(shaped, name="ask", description="d"), SCHEMA))
        return made[-1]

    listed_schema = sdk.publish(Tool.from_function(shaped, name="ask", description="d"), SCHEMA).parameters
    tool = sdk.deferred(make, name="ask", title="Ask", description="d", annotations=None, input_schema=listed_schema,
                        output_schema=SCHEMA)
    async with Client(MCPServer("seam", tools=[tool])) as client:  # type: ignore[arg-type]
        (listed,) = (await client.list_tools()).tools
        assert made == [], "seam 3: listing a deferred tool built it"
        first = await client.call_tool("ask", {"question": "why"})
        second = await client.call_tool("ask", {"question": "how"})
        refused = await client.call_tool("ask", {"question": 3})
    assert (listed.title, listed.input_schema, listed.output_schema) == ("Ask", listed_schema, SCHEMA)
    assert len(made) == 1, "seam 3: the tool is built once, at its first call"
    assert first.structured_content == {"answer": "why"} and second.structured_content == {"answer": "how"}
    assert refused.is_error, "seam 3: the built tool's argument model no longer validates a deferred tool's calls"
