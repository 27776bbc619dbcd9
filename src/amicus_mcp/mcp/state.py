"""What one server instance remembers across calls: the detected client and the client's roots.

Both come from the client, not the call: the client's name from the initialize handshake
(or, on 2026-07-28 connections, each request's envelope), its roots from one `roots/list`
request. Each is looked up at most once per server; a client that does not declare the
roots capability is never asked.
"""

from __future__ import annotations

import logging
import os
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import anyio
from mcp.server.mcpserver import Context

from .client import BY_TAG, ClientDetector, ClientTag
from .paths import contained, file_roots, resolve_project

log = logging.getLogger("amicus_mcp.mcp")

ROOTS_TIMEOUT_S = 5.0
WAIT_ENV = "AMICUS_WAIT_S"
WAIT_MAX_S = 600.0


class WaitSlice(NamedTuple):
    """How long one `amicus_wait` call blocks, and whether the request was cut to fit the client."""

    seconds: float
    clamped_from: float | None = None
    reason: str | None = None


class Caller(NamedTuple):
    """Everything a tool needs to know about who is calling and where."""

    client: ClientTag
    roots: tuple[Path, ...]
    env: Mapping[str, str]  # the live environment: read per call, never copied
    cwd: Path

    def project(self, arg: str | None) -> Path:
        return resolve_project(arg, client_roots=self.roots, env=self.env, cwd=self.cwd)

    def inside(self, project: Path, path: str, *, what: str) -> Path:
        """A path the call names, resolved against `project` and refused outside the allowed roots."""
        return contained(path, project=project, client_roots=self.roots, env=self.env, what=what)

    def wait_slice(self, requested: float | None) -> WaitSlice:
        """One `amicus_wait` slice: the calling host's own (`client.HOSTS`; an unrecognized client
        gets the one safe for a 60 s client), or `$AMICUS_WAIT_S` when the operator set it (they
        know their host). That is the default and the ceiling: a longer request is cut to it."""
        configured = self._configured()
        host = BY_TAG[self.client]
        ceiling = configured or host.slice_s
        if requested is None or not requested > 0:
            return WaitSlice(ceiling)
        asked = float(requested)
        if asked <= ceiling:
            return WaitSlice(asked)
        why = f"{WAIT_ENV}={configured:g} caps each wait" if configured else host.limit
        return WaitSlice(ceiling, asked, f"asked to wait {asked:g} s, waited at most {ceiling:g} s: {why}; "
                                          "call amicus_wait again to keep waiting")

    def _configured(self) -> float | None:
        try:
            configured = float(self.env.get(WAIT_ENV, ""))
        except ValueError:
            return None
        return min(configured, WAIT_MAX_S) if configured > 0 else None


@dataclass
class ServerState:
    detector: ClientDetector = field(default_factory=ClientDetector)
    roots: tuple[Path, ...] | None = None
    views: bool = False  # whether this server offers the inline view to clients with MCP Apps (app_view)

    async def caller(self, ctx: Context[Any, Any]) -> Caller:
        params = ctx.session.client_params
        name = params.client_info.name if params is not None else None
        client = self.detector.resolve(name)
        if self.roots is None:
            self.roots = await _ask_roots(ctx)
        return Caller(client=client, roots=self.roots, env=os.environ, cwd=Path.cwd())


async def _ask_roots(ctx: Context[Any, Any]) -> tuple[Path, ...]:
    capabilities = ctx.client_capabilities
    if capabilities is None or capabilities.roots is None:
        return ()
    try:
        with anyio.fail_after(ROOTS_TIMEOUT_S), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # roots are deprecated as of 2026-07-28; clients still send them
            result = await ctx.session.list_roots()
    except anyio.get_cancelled_exc_class():
        raise
    except Exception as exc:  # a client that cannot answer simply has no roots for us
        log.info("roots/list failed: %s", exc)
        return ()
    return tuple(file_roots([str(root.uri) for root in result.roots]))
