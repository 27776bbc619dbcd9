"""Opening the council workspace when `amicus_council_run` starts a run.

The decision is a pure function of its inputs, read top to bottom, first match wins:

    1. `ui: false`                         → closed, `param-suppressed`   (beats everything)
    2. no `ui`, and the client shows the council inline (it negotiated MCP Apps, so the
       run's tool results render the live view in the conversation: `app_view`)
                                           → closed, `inline-view`
    3. hard guards (beat even `ui: true`):
       no web browser available            → closed, `no-browser`
       Linux with no DISPLAY/WAYLAND_DISPLAY → closed, `no-display`
    4. `ui: true`                          → open
    5. config `workspace.autoOpen: false`  → closed, `config-disabled`
    6. the client is not `code-local`      → closed, `client-not-code-local`
    7. otherwise                           → open

Opening is fire-and-forget: `python -m amicus_mcp.cli watch --ui RUN_ID --project P` is
started detached (its pid in `<runDir>/workspace.pid`, its output in `workspace.log`). It
never blocks the tool's answer and a failure to start it never fails the run; it is
reported as `spawn-failed: …` instead.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

log = logging.getLogger("amicus_mcp.mcp")

WORKSPACE_LOG = "workspace.log"
WORKSPACE_PID = "workspace.pid"

Probe = Callable[[], bool]  # a hard-guard check, run only when the decision reaches it


class Decision(NamedTuple):
    open: bool
    reason: str | None = None  # set exactly when `open` is False


def decide(*, ui: bool | None, browser: Probe, display: Probe, auto_open: bool | None, client: str,
           inline: bool = False) -> Decision:
    """Whether to open the workspace; `auto_open` is config `workspace.autoOpen` (None: unset),
    `inline` whether the client renders the live view in the conversation."""
    if ui is False:
        return Decision(False, "param-suppressed")
    if ui is None and inline:
        return Decision(False, "inline-view")
    if not browser():
        return Decision(False, "no-browser")
    if not display():
        return Decision(False, "no-display")
    if ui is True:
        return Decision(True)
    if auto_open is False:
        return Decision(False, "config-disabled")
    if client != "code-local":
        return Decision(False, "client-not-code-local")
    return Decision(True)


def display_available(platform: str, env: Mapping[str, str]) -> bool:
    """Only Linux needs a display server to be named in the environment."""
    if not platform.startswith("linux"):
        return True
    return bool(env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"))


def browser_available(env: Mapping[str, str]) -> bool:
    """A browser named by $BROWSER, else whether Python's `webbrowser` finds one.

    $BROWSER is read here, not left to `webbrowser`, which reads it once per process.
    """
    if env.get("BROWSER", "").strip():
        return True
    import webbrowser

    try:
        webbrowser.get()
    except webbrowser.Error:
        return False
    return True


def config_auto_open(config: Mapping[str, Any]) -> bool | None:
    """`workspace.autoOpen` from config.json when it is a boolean; None otherwise."""
    workspace = config.get("workspace")
    value = workspace.get("autoOpen") if isinstance(workspace, Mapping) else None
    return value if isinstance(value, bool) else None


def launch(run_id: str, project: Path, run_dir: Path) -> str | None:
    """Start `amicus watch --ui RUN_ID` detached; None on success, else the failure reason."""
    from ..engine import cli_argv, spawn_detached
    from ..fsio import atomic_write_text

    argv = cli_argv("watch", "--ui", run_id, "--project", str(project))
    try:
        pid = spawn_detached(argv, cwd=project, log_path=run_dir / WORKSPACE_LOG)
    except OSError as exc:
        return f"spawn-failed: {exc.strerror or exc}"
    try:
        atomic_write_text(run_dir / WORKSPACE_PID, f"{pid}\n")
    except OSError as exc:  # the window is opening; only the record of its pid is lost
        log.warning("could not record the workspace pid in %s: %s", run_dir, exc)
    return None


def open_workspace(*, ui: bool | None, client: str, run_id: str, project: Path, run_dir: Path,
                   env: Mapping[str, str], inline: bool = False) -> Decision:
    """Decide, and launch when the decision says so. The result says what happened."""
    from ..config import load_config
    from ..errors import AmicusError

    try:
        auto_open = config_auto_open(load_config())
    except AmicusError:
        auto_open = None  # an unreadable config is reported by the commands that need it
    decision = decide(ui=ui, browser=lambda: browser_available(env), display=lambda: display_available(sys.platform, env),
                      auto_open=auto_open, client=client, inline=inline)
    if not decision.open:
        return decision
    failure = launch(run_id, project, run_dir)
    return Decision(False, failure) if failure else decision
