"""How tool results and tool errors look on the wire.

Success: `structuredContent` holds the document (validated against the tool's output
schema by the client), and the first text block holds the same JSON, as the CLI's --json
prints it. Model-written strings inside it are fenced in the value (`models.Fenced`), so a
client that reads only one of the two still sees every fence. Further text blocks carry
short notes for the calling model (what to call next, a notice); each note is also a
structured field.

Failure: an `isError` result with **no** `structuredContent` — an error envelope there would
not match the tool's outputSchema, and clients built on the TypeScript SDK validate it anyway
and show a schema mismatch instead of the error. Its first text block reads `CODE: message`
plus a `Hint:` line; its second is the error envelope (`schemaVersion 2`, `type: error`) as
JSON. Every path leads here: `AmicusError`s raised by the engine keep their code, with the
CLI flags their messages name mapped to the tool's own argument names; an argument the tool
does not have, argument validation and unknown tool names (answered by the SDK before any
handler runs) become `BAD_ARGS` in `ErrorShaping`; any other exception is `INTERNAL` with its
type and message — never the SDK's bare "Error executing tool".
"""

from __future__ import annotations

import difflib
import functools
import json
import logging
import re
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any, ParamSpec

import anyio
from mcp.server import ServerRequestContext
from mcp.server.context import CallNext, HandlerResult
from mcp.types import CallToolResult, ContentBlock, ResourceLink, TextContent
from pydantic import BaseModel

from ..errors import AmicusError, BadArgs, InternalError, rename_arguments
from ..front import serving
from ..schemas import JsonObject
from .params import argument_names

log = logging.getLogger("amicus_mcp.mcp")

P = ParamSpec("P")


def dump(model: BaseModel | Mapping[str, Any]) -> JsonObject:
    """A document as JSON-ready data: camelCase keys, optional keys only when set."""
    if isinstance(model, BaseModel):
        return model.model_dump(mode="json", by_alias=True)
    return dict(model)


def ok(doc: BaseModel | Mapping[str, Any], *, notes: tuple[str, ...] = (),
       links: tuple[ContentBlock, ...] = ()) -> CallToolResult:
    """A success: the document as structured content, and as the JSON the CLI's --json prints
    (then the notes, then `links`: resource links to the files the document comes from)."""
    from ..fsio import dumps_json
    from ..secrets import redact_tree

    data = redact_tree(dump(doc))  # no key value leaves over MCP, in either form:
    # the text is that masked data serialized, so it is not masked a second time.
    blocks: list[ContentBlock] = [TextContent(type="text", text=dumps_json(data, mask_keys=False))]
    blocks += [TextContent(type="text", text=note) for note in notes if note]
    blocks += links
    return CallToolResult(content=blocks, structured_content=data)


_MIME = {".md": "text/markdown", ".json": "application/json", ".html": "text/html", ".log": "text/plain"}


def file_link(path: Path) -> ResourceLink:
    """A resource link to a file on this machine (a host may open it; the text is in the result too)."""
    return ResourceLink(type="resource_link", uri=path.resolve().as_uri(), name=path.name,
                        mime_type=_MIME.get(path.suffix, "text/plain"), size=path.stat().st_size)


def error_text(code: str, message: str, hint: str | None) -> str:
    return f"{code}: {message}" + (f"\nHint: {hint}" if hint else "")


def failure(err: AmicusError, *, tool: str) -> CallToolResult:
    """The `isError` result for an error, in the tool's own argument names."""
    if err.command is None:
        err.command = tool
    rename_arguments(err, argument_names(tool))
    return CallToolResult(content=[TextContent(type="text", text=error_text(err.code, err.message, err.hint)),
                                   TextContent(type="text", text=json.dumps(err.to_envelope(), ensure_ascii=False))],
                          is_error=True)


def structured_errors(tool: str) -> Callable[[Callable[P, Awaitable[CallToolResult]]], Callable[P, Awaitable[CallToolResult]]]:
    """Turn whatever a handler raises (bar cancellation) into a structured `isError` result."""

    def wrap(handler: Callable[P, Awaitable[CallToolResult]]) -> Callable[P, Awaitable[CallToolResult]]:
        @functools.wraps(handler)
        async def run(*args: P.args, **kwargs: P.kwargs) -> CallToolResult:
            try:
                with serving():  # hints raised inside are written for an MCP client (front.py)
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


def unknown_arguments(tool: str, given: Mapping[str, Any], known: frozenset[str]) -> BadArgs | None:
    """BAD_ARGS naming the first argument the tool does not have, with the one it likely meant
    when there is a close one; the hint lists every argument the tool takes."""
    unknown = sorted(name for name in given if name not in known)
    if not unknown:
        return None
    name = unknown[0]
    others = f" (and {', '.join(repr(u) for u in unknown[1:])})" if unknown[1:] else ""
    message = f"{tool} has no argument '{name}'{others}"
    meant = close_match(name, known)
    if meant is not None:
        message += f"; did you mean '{meant}'?"
    return BadArgs(message, hint=f"{tool} takes: {', '.join(sorted(known))}", command=tool)


def close_match(name: str, candidates: frozenset[str]) -> str | None:
    """The candidate `name` is a slip for, or None: the same name but for case, `_` and `-`
    (`max_cost` → `maxCost`), one that starts the other (`timeout` → `timeoutMinutes`), or a
    spelling at least 75 % alike (`modles` → `models`). Anything less is no suggestion at all:
    `onComplete` resembles nothing this server takes."""

    def plain(text: str) -> str:
        return text.lower().replace("_", "").replace("-", "")

    wanted = plain(name)
    scored = []
    for candidate in sorted(candidates):
        other = plain(candidate)
        short = min(len(wanted), len(other))
        related = other == wanted or (short >= 4 and (other.startswith(wanted) or wanted.startswith(other)))
        ratio = difflib.SequenceMatcher(None, wanted, other).ratio()
        if related or ratio >= 0.75:
            scored.append((related, ratio, candidate))
    return max(scored)[2] if scored else None


class ErrorShaping:
    """Server middleware for `tools/call`: refuse arguments a tool does not have, and turn
    SDK-written errors into `CODE: message` results like every other error."""

    def __init__(self, arguments: Mapping[str, frozenset[str]]):
        self.arguments = arguments  # tool name → its argument names

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        if ctx.method != "tools/call":
            return await call_next(ctx)
        params = ctx.params or {}
        tool, given = params.get("name"), params.get("arguments")
        if isinstance(tool, str) and tool in self.arguments and isinstance(given, Mapping):
            refused = unknown_arguments(tool, given, self.arguments[tool])
            if refused is not None:
                return _wire(failure(refused, tool=tool))
        result = await call_next(ctx)
        if not isinstance(result, dict) or not result.get("isError"):
            return result
        content = result.get("content") or []
        text = content[0].get("text") if content and isinstance(content[0], dict) else None
        err = reshape(text) if isinstance(text, str) else None
        if err is None:
            return result
        return _wire(failure(err, tool=err.command or "tool"))


def _wire(result: CallToolResult) -> JsonObject:
    return result.model_dump(mode="json", by_alias=True, exclude_none=True)
