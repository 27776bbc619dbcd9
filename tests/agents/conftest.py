"""Agent seats (`cli:` routes) driven for real: the agent CLIs from npm (tests/clients/node),
each pointed at a loopback fake of its model API that answers as a council seat would.

The CLIs are found on PATH with tests/clients/node/node_modules/.bin first. Outside CI a
missing CLI skips its tests; under CI it fails them (as tests/clients does).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "clients"))  # fake_anthropic
sys.path.insert(0, str(HERE.parent / "engine"))  # council_helpers (the fake seats' replies)

from agent_fakes import NODE_BIN, SeatAnthropic, SeatGemini, SeatResponses, codex_home, need_cli  # noqa: E402,F401

from council_fixtures import brief, council, run_dir  # noqa: E402,F401 - the engine tests' own



@pytest.fixture
def agent_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """PATH with the pinned CLIs first, and a HOME of the test's own (no real login is read)."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("PATH", f"{NODE_BIN}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}")
    monkeypatch.setenv("HOME", str(home))
    for name in [n for n in os.environ if n.startswith(("ANTHROPIC_", "CLAUDE_", "GEMINI_", "GOOGLE_", "CODEX_"))]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / ".claude"))
    for name, value in {"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1",
                        "DISABLE_TELEMETRY": "1", "DISABLE_ERROR_REPORTING": "1"}.items():
        monkeypatch.setenv(name, value)
    return home


def gemini_home(home: Path) -> None:
    """The API-key login the fake answers to, with no usage statistics sent anywhere."""
    (home / ".gemini").mkdir(exist_ok=True)
    settings = {"security": {"auth": {"selectedType": "gemini-api-key"}},
                "privacy": {"usageStatisticsEnabled": False}, "general": {"disableAutoUpdate": True}}
    (home / ".gemini" / "settings.json").write_text(json.dumps(settings), encoding="utf-8")



@pytest.fixture
def claude(agent_path: Path, monkeypatch: pytest.MonkeyPatch):
    need_cli("claude")

    def start(name: str, **kw):
        seat = SeatAnthropic(name, **kw)
        seat.__enter__()
        monkeypatch.setenv("ANTHROPIC_BASE_URL", seat.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-not-a-key")
        started.append(seat)
        return seat

    started: list[SeatAnthropic] = []
    yield start
    for seat in started:
        seat.__exit__(None, None, None)



@pytest.fixture
def gemini(agent_path: Path, monkeypatch: pytest.MonkeyPatch):
    need_cli("gemini")
    gemini_home(agent_path)
    started: list[SeatGemini] = []

    def start(name: str, **kw):
        seat = SeatGemini(name, **kw).__enter__()
        monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", seat.base_url)
        monkeypatch.setenv("GEMINI_API_KEY", "test-not-a-key")
        started.append(seat)
        return seat

    yield start
    for seat in started:
        seat.__exit__(None, None, None)



@pytest.fixture
def codex(agent_path: Path, monkeypatch: pytest.MonkeyPatch):
    binary = need_cli("codex")
    started: list[SeatResponses] = []

    def start(name: str, **kw):
        seat = SeatResponses(name, **kw).__enter__()
        monkeypatch.setenv("CODEX_HOME", str(codex_home(agent_path, seat.base_url)))
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-key")
        # Log in as a user with a key would (`codex login status` is the pre-flight's check).
        subprocess.run([str(binary), "login", "--with-api-key"], input="sk-test-not-a-key", text=True,
                       capture_output=True, check=True)
        started.append(seat)
        return seat

    yield start
    for seat in started:
        seat.__exit__(None, None, None)

