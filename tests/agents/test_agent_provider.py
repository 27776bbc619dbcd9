"""The agent provider's own behaviour where a real CLI cannot easily be made to show it: a CLI
that reports a failed turn, one that exits with an error, and the per-CLI concurrency limit.
Stand-in CLIs are small shell scripts on PATH named as the real binary."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import anyio
import pytest

from amicus_mcp.providers.agents import make_agent_provider
from amicus_mcp.providers.base import CompletionRequest, Message
from amicus_mcp.providers.errors import AuthError, ProviderRejected

pytestmark = pytest.mark.anyio
REQUEST = CompletionRequest(model="", timeout_s=30, messages=(Message("user", "# Council review briefing\n\nx"),))


def stand_in(bin_dir: Path, name: str, script: str) -> None:
    path = bin_dir / name
    path.write_text("#!/bin/sh\n" + script, encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


@pytest.fixture
def bin_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "bin"
    folder.mkdir()
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}/usr/bin:/bin")
    return folder


async def test_a_failed_turn_with_a_login_message_is_an_auth_error(bin_dir, project):
    stand_in(bin_dir, "claude", 'cat >/dev/null; echo \'{"type":"result","is_error":true,'
                                '"result":"Invalid API key · Please run /login","usage":{"input_tokens":3}}\'\n')
    with pytest.raises(AuthError, match="Invalid API key") as failed:
        await make_agent_provider("cli:claude", {}, project).complete(REQUEST)
    assert failed.value.usage is not None and failed.value.usage.tokens.input == 3


async def test_a_cli_that_exits_with_an_error_is_rejected_with_its_stderr_redacted(bin_dir, project, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789")
    stand_in(bin_dir, "codex", 'cat >/dev/null; echo "boom: quota exhausted for $OPENAI_API_KEY" >&2; exit 3\n')
    with pytest.raises(ProviderRejected, match="exited with status 3 without an answer: boom: quota") as failed:
        await make_agent_provider("cli:codex", {}, project).complete(REQUEST)
    assert "abcdefghijklmnopqrstuvwxyz" not in failed.value.message


async def test_legs_on_one_cli_wait_for_its_concurrency_limit(bin_dir, project, tmp_path):
    log = tmp_path / "log"
    stand_in(bin_dir, "codex", f'cat >/dev/null; echo start $$ >> {log}; sleep 1; echo end $$ >> {log}\n'
                               'echo \'{"type":"item.completed","item":{"type":"agent_message","text":"ok"}}\'\n')

    async def legs(concurrency: int) -> float:
        provider = make_agent_provider("cli:codex", {"agents": {"codex": {"concurrency": concurrency}}}, project)
        started = time.monotonic()
        async with anyio.create_task_group() as group:
            for _ in range(3):
                group.start_soon(provider.complete, REQUEST)
        return time.monotonic() - started

    assert await legs(1) >= 3.0  # one at a time
    events = [line.split()[0] for line in log.read_text().splitlines()]
    assert events == ["start", "end"] * 3
    log.unlink()
    assert await legs(3) < 2.5  # all three at once


async def test_a_queued_legs_timeout_runs_from_its_start_not_from_the_queue(bin_dir, project, monkeypatch):
    """Four legs on one CLI slot, each taking ~1 s under a 1.8 s timeout: the last waits ~3 s for its
    turn and still completes, through the engine's own bounded call (waves.call_route)."""
    from amicus_mcp.engine import waves
    from amicus_mcp.providers.routing import ProviderRegistry, resolve_model

    monkeypatch.setattr(waves, "LEG_GRACE_S", 0.0)
    stand_in(bin_dir, "codex", 'cat >/dev/null; sleep 1\n'
                               'echo \'{"type":"item.completed","item":{"type":"agent_message","text":"ok"}}\'\n')
    registry = ProviderRegistry({"agents": {"codex": {"concurrency": 1}}}, project=project)
    route = resolve_model("cli:codex")
    starts: list[float] = []
    outcomes: list[str] = []

    async def leg() -> None:
        try:
            done = await waves.call_route(registry, route, REQUEST.messages, timeout_s=1.8,
                                          on_start=lambda: starts.append(time.monotonic()))
            outcomes.append(done.text)
        except (TimeoutError, Exception) as exc:  # noqa: BLE001 - the outcome is what is checked
            outcomes.append(type(exc).__name__)

    began = time.monotonic()
    async with anyio.create_task_group() as group:
        for _ in range(4):
            group.start_soon(leg)
    assert outcomes == ["ok"] * 4
    assert max(starts) - began >= 2.5  # the last one really waited its turn, longer than its timeout
