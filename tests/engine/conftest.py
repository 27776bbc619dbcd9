"""Engine tests run against the loopback fake provider, configured as a server of your own."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fakeprovider import FakeProvider  # noqa: E402

KEY_VARS = ("OPENROUTER_API_KEY", "OPENAI_API_KEY", "DEEPSEEK_API_KEY", "GOOGLE_GENERATIVE_AI_API_KEY",
            "GEMINI_API_KEY", "ANTHROPIC_API_KEY", "AMICUS_OPENROUTER_BASE_URL", "AMICUS_ENV_DIR",
            "AMICUS_PROJECT_DIR", "AMICUS_FANOUT_MAX_LEGS")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in KEY_VARS:
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
def fake(config_dir: Path) -> Iterator[FakeProvider]:
    """The fake provider, reachable as `fake/<model>` through an ordinary config entry."""
    with FakeProvider() as server:
        (config_dir / "config.json").write_text(
            json.dumps({"providers": {"fake": {"baseUrl": server.base_url}}}), encoding="utf-8"
        )
        yield server
