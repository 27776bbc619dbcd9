"""`amicus watch` — follow a council run: a live stage/seat view in the terminal, or the
Council Workspace page in the browser (`--ui`).

    amicus watch RUN_ID            redraw the run's stages and seats until it finishes
    amicus watch RUN_ID --json     print the run's current snapshot (the page's data) once
    amicus watch --ui [RUN_ID]     serve the workspace on 127.0.0.1, open it, print its URL

`--ui` is interactive only: with `--json` it fails fast. With a run id it waits briefly for
the run to appear (the MCP server launches it right after spawning the run), then serves
until the run is finished and the page has been idle for a while.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import webbrowser
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..errors import EXIT_OK, BadArgs, BadSession
from ..places import PROJECT_DEFAULT
from ..workspace import DEFAULT_IDLE_EXIT_S, DEFAULT_STALL_S
from .output import say

if TYPE_CHECKING:
    from ..engine import SessionStore
    from ..workspace.views import RunSnapshot


def register(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser("watch", help="follow a council run live, in the terminal or in the browser (--ui)")
    p.add_argument("id", nargs="?", metavar="RUN_ID",
                   help="the council run (with --ui, omit it for this project's run list)")
    p.add_argument("--ui", action="store_true", help="open the Council Workspace page in your browser")
    p.add_argument("--project", help="the project the run belongs to (" + PROJECT_DEFAULT + ")")
    p.add_argument("--json", action="store_true", help="print the run's current snapshot once (not with --ui)")
    p.add_argument("--no-open", action="store_true", help="with --ui: print the URL without opening a browser")
    p.add_argument("--interval", type=float, default=1.0, help="terminal view: seconds between reads (default 1)")
    p.add_argument("--stall-after", type=float, default=DEFAULT_STALL_S,
                   help=f"seconds without leg activity before a live run is flagged stalled (default {DEFAULT_STALL_S:.0f})")
    p.add_argument("--idle-exit", type=float, default=DEFAULT_IDLE_EXIT_S, help=argparse.SUPPRESS)
    p.add_argument("--wait-for-run", type=float, default=30.0, help=argparse.SUPPRESS)
    p.set_defaults(handler=cmd_watch)


def cmd_watch(args: argparse.Namespace) -> int:
    if args.ui and args.json:
        raise BadArgs("--ui opens an interactive page; it has no --json",
                      hint="drop --json, or use 'amicus watch RUN_ID --json' for the run's snapshot")
    for name in ("interval", "stall_after", "idle_exit"):
        if not getattr(args, name) > 0:
            raise BadArgs(f"--{name.replace('_', '-')} must be a positive number of seconds", hint="e.g. --interval 1")
    from ..engine import SessionStore, resolve_project

    store = SessionStore(resolve_project(args.project))
    if args.ui:
        return serve_ui(args, store)
    if not args.id:
        raise BadArgs("watch needs a RUN_ID (or --ui for this project's run list)", hint="see 'amicus list'")
    return watch_terminal(args, store)


def watch_terminal(args: argparse.Namespace, store: SessionStore) -> int:
    from ..fsio import dumps_json
    from ..workspace.snapshot import run_snapshot
    from ..workspace.terminal import follow

    def read() -> RunSnapshot:
        return run_snapshot(store, args.id, stall_after_s=args.stall_after, texts=False)

    if args.json:
        say(dumps_json(run_snapshot(store, args.id, stall_after_s=args.stall_after)))
        return EXIT_OK
    follow(read, sys.stdout, interval_s=args.interval, tty=sys.stdout.isatty())
    return EXIT_OK


def serve_ui(args: argparse.Namespace, store: SessionStore) -> int:
    from ..workspace.server import Workspace, WorkspaceServer

    if args.id:
        wait_for_run(store, args.id, timeout_s=max(args.wait_for_run, 0.0))
    server = WorkspaceServer(Workspace(store, run_id=args.id, stall_after_s=args.stall_after, idle_exit_s=args.idle_exit))
    say(f"Council Workspace: {server.url}", flush=True)
    if not args.no_open and not open_browser(server.url):
        say("  no browser could be opened from here: open the URL above yourself", flush=True)
    say("  it stops by itself once the run has finished and the page has been idle; Ctrl-C stops it now", flush=True)
    server.serve()
    return EXIT_OK


def wait_for_run(store: SessionStore, run_id: str, *, timeout_s: float, sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.monotonic) -> None:
    """Fail fast on an unknown id — after giving a just-spawned run a moment to appear."""
    from ..engine import RunDir
    from ..workspace.rundir import check_run_id, locate_run

    check_run_id(run_id)
    deadline = clock() + timeout_s
    while True:
        try:
            run_dir = RunDir(locate_run(store, run_id))
            if run_dir.holds_run() or clock() >= deadline:
                return
        except BadSession:
            if clock() >= deadline:
                raise
        sleep(0.2)


def open_browser(url: str) -> bool:
    """Open the default browser; False when there is none to open (the URL is printed anyway).
    Without a display on Linux nothing is tried: a console browser would take over the terminal."""
    display = os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY") or os.environ.get("BROWSER")
    if sys.platform.startswith("linux") and not display:
        return False
    try:
        return webbrowser.open(url, new=2)
    except webbrowser.Error:
        return False
