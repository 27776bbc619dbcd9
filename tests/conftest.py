"""Fixtures every test folder shares, and the suite-wide guard that no test reaches a real provider.

Every OpenRouter call (the catalog included) goes to a closed port on this machine unless a
test points it at the loopback fake provider itself. Subprocesses inherit the variable.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fakeprovider import FakeProvider, configure_fake
from hypothesis import settings

# Unit tests never time things: a property test fails on what it checks, never on how long an
# example took on a shared, loaded machine (hypothesis's default 200 ms deadline).
settings.register_profile("amicus", deadline=None)
settings.load_profile("amicus")

CLOSED_LOOPBACK = "http://127.0.0.1:9/api/v1"  # the discard port: nothing listens here

# Cleared for tests that take `config_dir`: no developer key, project or display leaks in.
CLEARED = ("OPENROUTER_API_KEY", "OPENAI_API_KEY", "DEEPSEEK_API_KEY", "GOOGLE_GENERATIVE_AI_API_KEY",
           "GEMINI_API_KEY", "ANTHROPIC_API_KEY", "AMICUS_ENV_DIR", "AMICUS_PROJECT_DIR",
           "AMICUS_FANOUT_MAX_LEGS", "AMICUS_MCP_CLIENT", "AMICUS_WAIT_S", "DISPLAY", "WAYLAND_DISPLAY", "BROWSER")


@pytest.fixture(autouse=True)
def no_real_providers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AMICUS_OPENROUTER_BASE_URL", CLOSED_LOOPBACK)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty config dir of the test's own (`AMICUS_CONFIG_DIR`, inherited by child processes)."""
    for name in CLEARED:
        monkeypatch.delenv(name, raising=False)
    config = tmp_path / "config"
    config.mkdir()
    monkeypatch.setenv("AMICUS_CONFIG_DIR", str(config))
    return config


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "project"
    path.mkdir()
    return path


@pytest.fixture
def fake_settings() -> dict[str, Any]:
    """What config.json says about the fake provider beside its URL: nothing, unless a test folder
    overrides this (the workspace's fake bills what its replies' `usage.cost` says)."""
    return {}


@pytest.fixture
def fake(config_dir: Path, fake_settings: dict[str, Any]) -> Iterator[FakeProvider]:
    """The loopback fake provider, reachable as `fake/<model>` through an ordinary config entry."""
    with FakeProvider() as server:
        configure_fake(config_dir, server, **fake_settings)
        yield server
