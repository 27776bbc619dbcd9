"""MCP tests: an isolated environment, a project, the loopback fake provider, and clients.

Every test gets its own config dir (`AMICUS_CONFIG_DIR`, which a spawned engine child
inherits), a project folder that is the only extra allowed root, and no real keys. The
workspace auto-open never reaches a real browser: tests that let the decision open it set
`BROWSER=true` (a command that does nothing) and kill the launched process afterwards.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from fakeprovider import FakeProvider  # noqa: E402
from mcp import Client, StdioServerParameters  # noqa: E402
from mcp.types import CallToolResult, Implementation  # noqa: E402

from amicus_mcp.mcp.server import build_server  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
# AMICUS_OPENROUTER_BASE_URL stays: the suite-wide guard points it at a closed port.
CLEARED = ("OPENROUTER_API_KEY", "OPENAI_API_KEY", "DEEPSEEK_API_KEY", "GOOGLE_GENERATIVE_AI_API_KEY",
           "GEMINI_API_KEY", "ANTHROPIC_API_KEY", "AMICUS_ENV_DIR",
           "AMICUS_PROJECT_DIR", "AMICUS_FANOUT_MAX_LEGS", "AMICUS_MCP_CLIENT", "AMICUS_WAIT_S",
           "DISPLAY", "WAYLAND_DISPLAY", "BROWSER")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in CLEARED:
        monkeypatch.delenv(name, raising=False)
    config = tmp_path / "config"
    config.mkdir()
    monkeypatch.setenv("AMICUS_CONFIG_DIR", str(config))
    return config


@pytest.fixture
def project(tmp_path: Path, config_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "project"
    path.mkdir()
    monkeypatch.setenv("AMICUS_PROJECT_ROOTS", str(path))
    return path


@pytest.fixture
def fake(config_dir: Path) -> Iterator[FakeProvider]:
    """The fake provider, reachable as `fake/<model>` through an ordinary config entry."""
    with FakeProvider() as server:
        (config_dir / "config.json").write_text(
            json.dumps({"providers": {"fake": {"baseUrl": server.base_url}}}), encoding="utf-8")
        yield server


@pytest.fixture
def briefing(project: Path) -> Path:
    path = project / "briefing.md"
    path.write_text("Review the design of the widget cache.\n\nThe cache evicts entries on every write.\n",
                    encoding="utf-8")
    return path


@pytest.fixture
def reaper() -> Iterator[Callable[[Path], None]]:
    """Register pid files; every process they name is terminated after the test."""
    pid_files: list[Path] = []
    yield pid_files.append
    for pid_file in pid_files:
        kill_pid_file(pid_file)


def kill_pid_file(path: Path) -> None:
    try:
        pid = int(path.read_text(encoding="utf-8").strip())
    except (OSError, ValueError):
        return
    try:
        os.kill(pid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        return


def info(name: str) -> Implementation:
    return Implementation(name=name, version="9.9")


@asynccontextmanager
async def in_process(mode: str, name: str = "claude-code", **kwargs: Any) -> AsyncIterator[Client]:
    async with Client(build_server(), mode=mode, client_info=info(name), **kwargs) as client:  # type: ignore[arg-type]
        yield client


def stdio_params(cwd: Path, **env: str) -> StdioServerParameters:
    """The real server as a subprocess, with this test's config dir, project roots and provider guard."""
    names = ("AMICUS_CONFIG_DIR", "AMICUS_PROJECT_ROOTS", "AMICUS_OPENROUTER_BASE_URL")
    keep = {k: os.environ[k] for k in names if k in os.environ}
    return StdioServerParameters(command=sys.executable, args=["-m", "amicus_mcp.mcp"],
                                 env={**keep, **env}, cwd=str(cwd))


def body(result: CallToolResult) -> dict[str, Any]:
    """A successful result's structured content (the test fails with the error text otherwise)."""
    assert not result.is_error, result.content[0].text  # type: ignore[union-attr]
    assert isinstance(result.structured_content, dict)
    return result.structured_content


def error_of(result: CallToolResult) -> str:
    assert result.is_error, "expected an isError result"
    text = result.content[0].text  # type: ignore[union-attr]
    assert "Error executing tool" not in text
    return text


async def wait_until_terminal(client: Client, task_id: str, *, budget_s: float = 60.0,
                              slice_s: float = 2.0, **args: Any) -> tuple[dict[str, Any], int]:
    """Call amicus_wait until the id is terminal; (last result, number of calls)."""
    deadline = time.monotonic() + budget_s
    calls = 0
    while True:
        calls += 1
        result = body(await client.call_tool("amicus_wait", {"id": task_id, "timeoutSeconds": slice_s, **args}))
        if result["terminal"]:
            return result, calls
        assert result["timedOut"] and result["hint"]
        assert time.monotonic() < deadline, f"{task_id} still {result['status']} after {budget_s}s"
