"""The workspace auto-open decision, row by row, its probes, and the fire-and-forget launch."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from amicus_mcp.mcp import autoopen
from amicus_mcp.mcp.autoopen import Decision, config_auto_open, decide, display_available

YES = lambda: True  # noqa: E731 - probe stand-ins
NO = lambda: False  # noqa: E731


def never() -> bool:
    raise AssertionError("this probe must not run: an earlier row decided")


# (ui, browser, display, config autoOpen, client) → decision; one row per step of the order.
ROWS = [
    # 1. ui:false beats everything, even with every guard failing; no probe runs.
    ((False, never, never, True, "code-local"), Decision(False, "param-suppressed")),
    ((False, never, never, None, "cowork"), Decision(False, "param-suppressed")),
    # 2. hard guards beat even ui:true.
    ((True, NO, YES, None, "code-local"), Decision(False, "no-browser")),
    ((True, YES, NO, None, "code-local"), Decision(False, "no-display")),
    ((None, NO, never, None, "code-local"), Decision(False, "no-browser")),
    ((None, YES, NO, None, "code-local"), Decision(False, "no-display")),
    # 3. ui:true beats the config key and the client check.
    ((True, YES, YES, False, "cowork"), Decision(True)),
    ((True, YES, YES, None, "code-web"), Decision(True)),
    # 4. config workspace.autoOpen:false.
    ((None, YES, YES, False, "code-local"), Decision(False, "config-disabled")),
    # 5. a client other than code-local.
    ((None, YES, YES, None, "cowork"), Decision(False, "client-not-code-local")),
    ((None, YES, YES, True, "code-web"), Decision(False, "client-not-code-local")),
    # 6. otherwise open.
    ((None, YES, YES, None, "code-local"), Decision(True)),
    ((None, YES, YES, True, "code-local"), Decision(True)),
]


@pytest.mark.parametrize(("inputs", "expected"), ROWS)
def test_decision_table(inputs: tuple, expected: Decision) -> None:  # type: ignore[type-arg]
    ui, browser, display, auto_open, client = inputs
    assert decide(ui=ui, browser=browser, display=display, auto_open=auto_open, client=client) == expected


# A client that renders the live view inline (it negotiated MCP Apps): no window unless asked for.
INLINE_ROWS = [
    ((None, never, never, None, "cowork"), Decision(False, "inline-view")),  # decided before any probe
    ((None, never, never, True, "code-local"), Decision(False, "inline-view")),
    ((False, never, never, None, "code-local"), Decision(False, "param-suppressed")),
    ((True, YES, YES, None, "cowork"), Decision(True)),  # asked for: the browser too
    ((True, NO, YES, None, "cowork"), Decision(False, "no-browser")),
]


@pytest.mark.parametrize(("inputs", "expected"), INLINE_ROWS)
def test_an_inline_view_client_gets_no_window_unless_it_asks(inputs: tuple, expected: Decision) -> None:  # type: ignore[type-arg]
    ui, browser, display, auto_open, client = inputs
    assert decide(ui=ui, browser=browser, display=display, auto_open=auto_open, client=client, inline=True) == expected


def test_a_closed_decision_always_has_a_reason_and_an_open_one_never() -> None:
    for inputs, _ in ROWS:
        ui, browser, display, auto_open, client = inputs
        got = decide(ui=ui, browser=browser, display=display, auto_open=auto_open, client=client)
        assert (got.reason is None) == got.open


@pytest.mark.parametrize(("platform", "env", "expected"), [
    ("linux", {}, False),
    ("linux", {"DISPLAY": ":0"}, True),
    ("linux", {"WAYLAND_DISPLAY": "wayland-0"}, True),
    ("linux", {"DISPLAY": ""}, False),
    ("darwin", {}, True),
    ("win32", {}, True),
])
def test_display_guard_is_linux_only(platform: str, env: dict[str, str], expected: bool) -> None:
    assert display_available(platform, env) is expected


def test_browser_env_counts_as_a_browser() -> None:
    assert autoopen.browser_available({"BROWSER": "firefox"}) is True


@pytest.mark.parametrize(("config", "expected"), [
    ({}, None),
    ({"workspace": {"autoOpen": False}}, False),
    ({"workspace": {"autoOpen": True}}, True),
    ({"workspace": {"autoOpen": "no"}}, None),
    ({"workspace": "off"}, None),
])
def test_config_auto_open_reads_only_a_boolean(config: dict, expected: bool | None) -> None:  # type: ignore[type-arg]
    assert config_auto_open(config) is expected


def test_open_workspace_launches_detached_and_records_the_pid(tmp_path: Path, config_dir: Path,
                                                            reaper) -> None:  # type: ignore[no-untyped-def]
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    reaper(run_dir / autoopen.WORKSPACE_PID)
    got = autoopen.open_workspace(ui=None, client="code-local", run_id="abcd1234", project=tmp_path, run_dir=run_dir,
                                  env={"BROWSER": "true", "DISPLAY": ":0"})
    assert got == Decision(True)
    pid = int((run_dir / autoopen.WORKSPACE_PID).read_text().strip())
    assert pid > 0
    deadline = time.monotonic() + 30
    while not (run_dir / autoopen.WORKSPACE_LOG).exists():
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert os.getsid(pid) != os.getsid(0)  # its own session: it outlives the server


def test_config_disabled_is_read_from_config_json(tmp_path: Path, config_dir: Path) -> None:
    (config_dir / "config.json").write_text(json.dumps({"workspace": {"autoOpen": False}}), encoding="utf-8")
    got = autoopen.open_workspace(ui=None, client="code-local", run_id="abcd1234", project=tmp_path, run_dir=tmp_path,
                                  env={"BROWSER": "true", "DISPLAY": ":0"})
    assert got == Decision(False, "config-disabled")
    assert not (tmp_path / autoopen.WORKSPACE_PID).exists()


def test_a_failed_launch_is_a_reason_not_an_error(tmp_path: Path, config_dir: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from amicus_mcp.engine import spawn

    def refuse(*args: object, **kwargs: object) -> int:
        raise FileNotFoundError(2, "No such file or directory")

    monkeypatch.setattr(spawn, "spawn_detached", refuse)
    got = autoopen.open_workspace(ui=True, client="cowork", run_id="abcd1234", project=tmp_path, run_dir=tmp_path,
                                  env={"BROWSER": "true", "DISPLAY": ":0"})
    assert got == Decision(False, "spawn-failed: No such file or directory")
