"""The council live inside the conversation: the Council Workspace as an MCP App.

MCP Apps (extension `io.modelcontextprotocol/ui`) let a tool point at a `ui://` HTML resource
that the host renders inline, in a sandboxed iframe, with the tool's input and result. For a
client that negotiated the extension, the tools in `VIEW_TOOLS` point at one such resource:
the workspace's own page (`workspace/static`: index.html, app.css, app.js) with
`mcp-app.js`, which swaps the page's HTTP polling for the host bridge. The view asks for
fresh snapshots with the app-only tool `amicus_view_snapshot` (`visibility: ["app"]`, so the
host never offers it to the model); it returns the workspace's own snapshot of a council run
(`workspace.snapshot.run_snapshot`, without prose) or, for a fanout wave or leg, the status
projection the tools return (`progress.progress`).

A client that did not negotiate the extension sees none of this (`AppsGate`): its
initialize result, its tools/list and every tool result are what they were before the view
existed — no resources capability, no `_meta.ui`, no app-only tool (calling it is an unknown
tool). Which clients render the view also decides that `amicus_council_run` opens no browser
window for them (`autoopen.decide`).

Security is the workspace's: the page sets every string as text; its own policy pins its
inline script and style by hash, connects nowhere and enforces Trusted Types; the resource
declares no external origin; and a snapshot passes through the same key redaction as every
result. The snapshot's model-written strings are not fenced: the model never receives them,
and the view renders them as text.
"""

from __future__ import annotations

import base64
import functools
import hashlib
from collections.abc import Callable, Mapping, Sequence
from importlib import resources
from typing import Any

from mcp.server import ServerRequestContext
from mcp.server.apps import APP_MIME_TYPE, EXTENSION_ID, Apps, ResourceCsp, client_supports_apps
from mcp.server.context import CallNext, HandlerResult
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.resources import FunctionResource
from mcp.server.mcpserver.tools import Tool
from mcp.shared.exceptions import MCPError
from mcp.types import METHOD_NOT_FOUND, CallToolResult, ClientCapabilities, TextContent, ToolAnnotations

from ..schemas import JsonObject
from .models import ShippedDocument
from .params import Project, RunRef
from .state import ServerState

VIEW_URI = "ui://amicus/council-view.html"
SNAPSHOT_TOOL = "amicus_view_snapshot"
VIEW_TOOLS = ("amicus_council_run", "amicus_council_resume", "amicus_fanout", "amicus_wait", "amicus_status")
# The resource methods the server serves only for the view (and only to a client with Apps).
RESOURCE_METHODS = ("resources/list", "resources/read", "resources/templates/list")
_PAGE_PARTS = ("index.html", "app.css", "mcp-app.js", "app.js")


# --------------------------------------------------------------------------- the page


@functools.cache
def page() -> str:
    """The workspace page as one self-contained document: its stylesheet and scripts inline,
    pinned by hash in its own Content-Security-Policy."""
    from ..workspace import content_security_policy

    static = resources.files("amicus_mcp.workspace") / "static"
    html, css, bridge, app = ((static / name).read_text(encoding="utf-8") for name in _PAGE_PARTS)
    for name, text in (("app.css", css), ("mcp-app.js", bridge), ("app.js", app)):
        if "</style" in text.lower() or "</script" in text.lower():
            raise RuntimeError(f"{name} would end its own inline element")
    policy = content_security_policy(scripts=f"{_digest(bridge)} {_digest(app)}", styles=_digest(css),
                                     connect="'none'", framing=False)
    html = _swap(html, '<meta charset="utf-8">',
                 f'<meta charset="utf-8">\n<meta http-equiv="Content-Security-Policy" content="{policy}">')
    html = _swap(html, '<link rel="stylesheet" href="app.css">', f"<style>{css}</style>")
    html = _swap(html, '<script src="app.js" defer></script>\n', "")
    return _swap(html, "</body>", f"<script>{bridge}</script>\n<script>{app}</script>\n</body>")


def _digest(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


def _swap(html: str, old: str, new: str) -> str:
    if html.count(old) != 1:
        raise RuntimeError(f"the workspace page no longer has exactly one {old!r}")
    return html.replace(old, new)


def extension() -> Apps:
    """The Apps extension with the view's resource (the page is built when first read)."""
    apps = Apps()
    apps.add_resource(FunctionResource(
        uri=VIEW_URI, name="amicus-council-view", title="Council live view", mime_type=APP_MIME_TYPE,
        description="A council run's seats, stages, adjudication matrix, cost and verdict, live.",
        meta={"ui": {"csp": ResourceCsp(connect_domains=[], resource_domains=[], frame_domains=[])
                     .model_dump(by_alias=True, exclude_none=True), "prefersBorder": True}},
        fn=page))
    return apps


# --------------------------------------------------------------------------- the tools


class ViewTools:
    def __init__(self, state: ServerState):
        self.state = state

    async def view_snapshot(self, ctx: Context, id: RunRef, project: Project = None) -> CallToolResult:
        """What the id names is read exactly as amicus_status reads it (`SessionTools._target`)."""
        from ..engine import RunDir, is_terminal, run_or_wave
        from .results import dump
        from .progress import progress
        from .tools_sessions import SessionTools

        _, store, target = await SessionTools(self.state)._target(ctx, id, project)  # noqa: SLF001 - one reading of an id
        doc = run_or_wave(store, target)
        if isinstance(doc, RunDir):
            from ..workspace.snapshot import snapshot_of

            return _view_result(id, snapshot_of(doc.path, id, texts=False))
        terminal = is_terminal(doc)
        wave = dump(progress(id, doc, terminal=terminal))
        return _view_result(id, {"type": "workspace-wave", "snapshotVersion": 1, "live": not terminal, **wave})


def _view_result(target: str, doc: Mapping[str, object]) -> CallToolResult:
    from ..secrets import redact_tree

    text = f"{SNAPSHOT_TOOL}: the inline view's snapshot of {target} (for the view, not for the model)"
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=in_tool_terms(redact_tree(doc)))


def in_tool_terms(doc: Mapping[str, object]) -> JsonObject:
    """The snapshot with the engine's own notes (degrades, notices, errors, why a seat is out or
    the chair gave no verdict) naming the tool's argument where they name a CLI flag: the view
    only ever runs inside an MCP host, where `--max-cost` means nothing and `maxCost` does.
    Model-written text (claims, prose) is left exactly as written."""
    from ..errors import rename_flags
    from .params import argument_names

    names = argument_names("amicus_council_run")

    # The snapshot is a workspace-run (workspace/views.py) or a wave's status projection, after
    # redact_tree: walked as JSON, each part narrowed before it is renamed.
    def tool(text: object) -> object:
        return rename_flags(text, names) if isinstance(text, str) else text

    def error(err: object) -> object:
        return {**err, "message": tool(err.get("message")), **({"hint": tool(err["hint"])} if "hint" in err else {})} \
            if isinstance(err, dict) else tool(err)

    def items(value: object) -> list[object]:
        return value if isinstance(value, list) else []

    out = dict(doc)
    banners = doc.get("banners")
    if isinstance(banners, dict):
        out["banners"] = {**banners,
                          "degrades": [{**d, "what": tool(d.get("what")), "why": tool(d.get("why"))}
                                       for d in items(banners.get("degrades")) if isinstance(d, dict)],
                          "notices": [tool(n) for n in items(banners.get("notices"))]}
    header = doc.get("header")
    if isinstance(header, dict):
        out["header"] = {**header, "error": error(header.get("error"))}
    seats = doc.get("seats")
    if isinstance(seats, list):
        out["seats"] = [{**s, "deadReason": tool(s.get("deadReason")), "error": error(s.get("error"))}
                        if isinstance(s, dict) else s for s in seats]
    chair = doc.get("chair")
    if isinstance(chair, dict):
        out["chair"] = {**chair, "reason": tool(chair.get("reason"))}
    for key in ("error", "notices", "degrades"):  # a wave's or leg's status projection
        value = doc.get(key)
        if value is not None:
            out[key] = [tool(v) for v in value] if isinstance(value, list) else error(value)
    return out


def bind(tools: Sequence[Tool], state: ServerState, make_tool: Callable[..., Tool]) -> list[Tool]:
    """`tools` with the view tools pointing at the view, and the app-only snapshot tool (made by
    the server's own `make_tool`, so it is closed and its errors structured like every tool's)."""
    for tool in tools:
        if tool.name in VIEW_TOOLS:
            tool.meta = {**(tool.meta or {}), "ui": {"resourceUri": VIEW_URI}}
    helper = make_tool(ViewTools(state).view_snapshot, name=SNAPSHOT_TOOL, title="Live view snapshot",
                       description="For the inline council view only: the live snapshot of a council run, "
                                   "wave or leg (seats, stages, matrix, cost, verdict).",
                       annotations=ToolAnnotations(read_only_hint=True, destructive_hint=False,
                                                   idempotent_hint=True, open_world_hint=False),
                       output=ShippedDocument)
    helper.meta = {"ui": {"resourceUri": VIEW_URI, "visibility": ["app"]}}
    state.views = True
    return [*tools, helper]


def renders_inline(state: ServerState, ctx: Context) -> bool:
    """Whether this call's client shows the view inline (so no browser window is needed)."""
    return state.views and client_supports_apps(ctx)


# --------------------------------------------------------------------------- the gate


def negotiated(capabilities: ClientCapabilities | None) -> bool:
    """The SDK's rule (`client_supports_apps`) for a capabilities object: the extension is
    declared and lists the view's MIME type."""
    extensions = capabilities.extensions if capabilities else None
    settings = extensions.get(EXTENSION_ID) if extensions else None
    mime_types = settings.get("mimeTypes") if isinstance(settings, dict) else None
    return isinstance(mime_types, list | tuple) and APP_MIME_TYPE in mime_types


class AppsGate:
    """Server middleware: the view, its resource and its tool exist only for a client that
    negotiated MCP Apps; every other client gets the server as it is without them."""

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        if _has_apps(ctx):
            return await call_next(ctx)
        if ctx.method in RESOURCE_METHODS:
            raise MCPError(code=METHOD_NOT_FOUND, message="Method not found", data=ctx.method)
        params = ctx.params or {}
        if ctx.method == "tools/call" and params.get("name") == SNAPSHOT_TOOL:
            from .results import _wire, failure, reshape

            return _wire(failure(reshape(f"Unknown tool: {SNAPSHOT_TOOL}"), tool=SNAPSHOT_TOOL))  # type: ignore[arg-type]
        result = await call_next(ctx)
        if isinstance(result, dict) and ctx.method in ("initialize", "server/discover"):
            _without_view_capabilities(result)
        elif isinstance(result, dict) and ctx.method == "tools/list":
            _without_view_tools(result)
        return result


def _has_apps(ctx: ServerRequestContext[Any, Any]) -> bool:
    if ctx.method == "initialize":  # the connection learns the client's capabilities after this answer
        declared = (ctx.params or {}).get("capabilities")
        try:
            return negotiated(ClientCapabilities.model_validate(declared or {}))
        except ValueError:
            return False
    return client_supports_apps(ctx)


def _without_view_capabilities(result: JsonObject) -> None:  # the initialize result, as the wire carries it
    capabilities = result.get("capabilities")
    if not isinstance(capabilities, dict):
        return
    capabilities.pop("resources", None)
    extensions = capabilities.get("extensions")
    if isinstance(extensions, dict):
        extensions.pop(EXTENSION_ID, None)
        if not extensions:
            del capabilities["extensions"]


def _without_view_tools(result: JsonObject) -> None:  # the tools/list result, as the wire carries it
    tools = result.get("tools")
    if not isinstance(tools, list):
        return
    kept = []
    for tool in tools:
        if not isinstance(tool, dict) or tool.get("name") == SNAPSHOT_TOOL:
            continue
        meta = tool.get("_meta")
        if isinstance(meta, dict) and "ui" in meta:
            del meta["ui"]
            if not meta:
                del tool["_meta"]
        kept.append(tool)
    result["tools"] = kept
