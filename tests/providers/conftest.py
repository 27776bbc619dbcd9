"""Shared fixtures: an isolated config dir and environment, and the fake provider server."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

# tests/ holds the shared fake provider; pytest runs with --import-mode=importlib, which
# does not put test directories on sys.path.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fakeprovider import FakeProvider  # noqa: E402

KEY_VARS = (
    "OPENROUTER_API_KEY",
    "OPENAI_API_KEY",
    "DEEPSEEK_API_KEY",
    "GOOGLE_GENERATIVE_AI_API_KEY",
    "GEMINI_API_KEY",
    "ANTHROPIC_API_KEY",
    "AMICUS_ENV_DIR",
)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No test sees the developer's real keys, config or catalog cache."""
    for name in KEY_VARS:
        monkeypatch.delenv(name, raising=False)
    config = tmp_path / "config"
    monkeypatch.setenv("AMICUS_CONFIG_DIR", str(config))
    return config


@pytest.fixture
def fake() -> Iterator[FakeProvider]:
    with FakeProvider() as server:
        yield server
