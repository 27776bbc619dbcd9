"""Which front a hint is written for, and how it names a setting there: the one place that
decides it, so a hint never tells a Claude Desktop user to edit a variable they cannot see or
run a command they have no terminal for.

    cli       the `amicus` command. A run option is its flag (`--chair`), a setting its
              environment variable (`AMICUS_PROJECT_DIR`), a command the command itself.
    mcp       a tool call on an MCP server a client started. A run option is the tool's
              argument (the result renames every flag: `errors.rename_arguments`), a setting
              the variable in the server's `env` config, a command the tool to call.
    desktop   a server Claude Desktop started from the bundle (`AMICUS_INSTALL`, desktop.py):
              as mcp, but a setting the bundle's form holds is named by its field in the
              amicus extension's settings.

A tool call marks its own context `serving()` (mcp/results.py wraps every handler); a process
the bundle started is desktop throughout (the variable reaches the workers it spawns too);
a worker a tool call spawned is mcp throughout too (`worker_env` marks it with `AMICUS_FRONT`),
so what it writes into run.json speaks to the client that started it; anything else is the CLI.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Literal

from .desktop import DESKTOP_BUNDLE, INSTALL_ENV, SETTINGS

Front = Literal["cli", "mcp", "desktop"]
_SERVING: ContextVar[bool] = ContextVar("amicus_serving_mcp", default=False)
_FIELDS: dict[str, str] = {s.env: s.title for s in SETTINGS}  # variable → the form field's title
FRONT_ENV = "AMICUS_FRONT"  # "mcp" on a worker a tool call spawned


def current() -> Front:
    if os.environ.get(INSTALL_ENV) == DESKTOP_BUNDLE:
        return "desktop"
    return "mcp" if _SERVING.get() or os.environ.get(FRONT_ENV) == "mcp" else "cli"


def worker_env() -> dict[str, str] | None:
    """The environment of a worker this process spawns (None: this process's own). A tool call's
    worker is told it works for an MCP client, so its hints name the tools, not the CLI."""
    return {**os.environ, FRONT_ENV: "mcp"} if current() == "mcp" else None


@contextmanager
def serving() -> Iterator[None]:
    """Mark the work inside as a tool call's (its hints are written for the MCP client)."""
    token = _SERVING.set(True)
    try:
        yield
    finally:
        _SERVING.reset(token)


def form_field(name: str) -> str | None:
    """The bundle form's field for environment setting `name` (None: the form has none)."""
    return _FIELDS.get(name)


def setting(name: str) -> str:
    """How to name environment setting `name` here: under Desktop, the form's field that sets
    it; elsewhere the variable."""
    title = form_field(name)
    if current() == "desktop" and title is not None:
        return f"the \"{title}\" field in the amicus extension's settings in Claude Desktop"
    return name


def command(cli: str, tool: str | None = None, **arguments: str) -> str | None:
    """A command worth suggesting: `'amicus list'` on the CLI, the MCP tool that does the same
    over MCP (`the amicus_wait tool with {"id": "3f9a1c07"}`), None when no tool does — the
    hint must then say itself what the command would have shown."""
    if current() == "cli":
        return f"'{cli}'"
    if tool is None:
        return None
    return f"the {tool} tool" + (f" with {json.dumps(arguments)}" if arguments else "")


def desktop() -> bool:
    return current() == "desktop"
