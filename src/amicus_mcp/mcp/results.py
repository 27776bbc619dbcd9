"""How tool results and tool errors look on the wire.

Success: `structuredContent` holds the document (validated against the tool's output
schema by the client), and the first text block holds the same JSON — inside the
untrusted-data fence when any of it derives from model output. Further text blocks carry
short notes for the calling model (a next step, a notice).

Failure: an `isError` result whose text reads `CODE: message` plus a `Hint:` line, with the
error envelope (`schemaVersion 2`, `type: error`) as its structured content. Every path
leads here: `AmicusError`s raised by the engine keep their code; argument validation and
unknown tool names (answered by the SDK before any handler runs) are rewritten by
`ErrorShaping` from the SDK's text into `BAD_ARGS`; any other exception is `INTERNAL`
with its type and message — never the SDK's bare "Error executing tool".
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, ParamSpec

import anyio
from mcp.server import ServerRequestContext
from mcp.server.context import CallNext, HandlerResult
from mcp.types import CallToolResult, ContentBlock, TextContent
from pydantic import BaseModel

from ..errors import AmicusError, BadArgs, InternalError
from .fence import fence

log = logging.getLogger("amicus_mcp.mcp")

P = ParamSpec("P")


def dump(model: BaseModel | Mapping[str, Any]) -> dict[str, Any]:
    """A document as JSON-ready data: camelCase keys, optional keys only when set."""
    if isinstance(model, BaseModel):
        return model.model_dump(mode="json", by_alias=True)
    return dict(model)


def ok(doc: BaseModel | Mapping[str, Any], *, fenced: bool, notes: tuple[str, ...] = ()) -> CallToolResult:
    """A success: the document as structured content, and as the JSON the CLI's --json prints."""
    from ..fsio import dumps_json
    from ..secrets import redact_tree

    data = redact_tree(dump(doc))  # no key value leaves over MCP (the text is masked by dumps_json)
    text = dumps_json(data)
    blocks: list[ContentBlock] = [TextContent(type="text", text=fence(text) if fenced else text)]
    blocks += [TextContent(type="text", text=note) for note in notes if note]
    return CallToolResult(content=blocks, structured_content=data)


def error_text(code: str, message: str, hint: str | None) -> str:
    return f"{code}: {message}" + (f"\nHint: {hint}" if hint else "")


def failure(err: AmicusError, *, tool: str) -> CallToolResult:
    if err.command is None:
        err.command = tool
    return CallToolResult(content=[TextContent(type="text", text=error_text(err.code, err.message, err.hint))],
                          structured_content=err.to_envelope(), is_error=True)


def structured_errors(tool: str) -> Callable[[Callable[P, Awaitable[CallToolResult]]], Callable[P, Awaitable[CallToolResult]]]:
    """Turn whatever a handler raises (bar cancellation) into a structured `isError` result."""

    def wrap(handler: Callable[P, Awaitable[CallToolResult]]) -> Callable[P, Awaitable[CallToolResult]]:
        @functools.wraps(handler)
        async def run(*args: P.args, **kwargs: P.kwargs) -> CallToolResult:
            try:
                return await handler(*args, **kwargs)
            except anyio.get_cancelled_exc_class():
                raise
            except AmicusError as err:
                return failure(err, tool=tool)
            except Exception as exc:  # a bug: say what broke, keep the traceback in the server log
                log.exception("tool %s failed", tool)
                bug = InternalError(f"{type(exc).__name__}: {exc}", hint="this is a bug in amicus-mcp; please report it")
                return failure(bug, tool=tool)

        return run

    return wrap


# --- errors the SDK answers before a handler runs ------------------------------------------

_SDK_PREFIX = re.compile(r"^Error executing tool (?P<tool>[\w.-]+)(?:: (?P<detail>.*))?$", re.S)
_VALIDATION_HEAD = re.compile(r"^\d+ validation errors? for \S+$")


def _validation_summary(detail: str) -> str:
    """pydantic's multi-line report as `field: problem; field: problem`."""
    lines = [line for line in detail.splitlines() if line.strip() and not _VALIDATION_HEAD.match(line.strip())]
    problems: list[str] = []
    field = None
    for line in lines:
        text = line.strip()
        if text.startswith("For further information"):
            continue
        if not line.startswith(" "):
            field = text
            continue
        problem = re.sub(r"\s*\[type=.*$", "", text)
        problems.append(f"{field}: {problem}" if field else problem)
    return "; ".join(problems) or detail.strip()


def reshape(text: str) -> AmicusError | None:
    """The structured error an SDK-written error text stands for; None when it is ours already."""
    if text.startswith("Unknown tool: "):
        name = text.removeprefix("Unknown tool: ").strip()
        return BadArgs(f"unknown tool '{name}'", hint="list the tools to see what this server offers", command=name)
    match = _SDK_PREFIX.match(text)
    if not match:
        return None
    tool, detail = match.group("tool"), match.group("detail")
    if detail and "validation error" in detail.splitlines()[0]:
        return BadArgs(f"invalid arguments for {tool}: {_validation_summary(detail)}",
                       hint="check the argument names and types against the tool's input schema", command=tool)
    return InternalError(f"{tool} failed: {detail or 'unexpected error'}",
                         hint="this is a bug in amicus-mcp; please report it", command=tool)


class ErrorShaping:
    """Server middleware: SDK-written `tools/call` errors become `CODE: message` results."""

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        result = await call_next(ctx)
        if ctx.method != "tools/call" or not isinstance(result, dict) or not result.get("isError"):
            return result
        content = result.get("content") or []
        text = content[0].get("text") if content and isinstance(content[0], dict) else None
        err = reshape(text) if isinstance(text, str) else None
        if err is None:
            return result
        return {**result, "content": [{"type": "text", "text": error_text(err.code, err.message, err.hint)}],
                "structuredContent": err.to_envelope()}
