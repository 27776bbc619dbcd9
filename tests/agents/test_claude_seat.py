"""A `cli:claude` seat: the real Claude Code (npm `@anthropic-ai/claude-code`) on the bench,
against a loopback fake of the Anthropic API that answers as a seat would."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from agent_fakes import SeatAnthropic, need_cli
from council_helpers import member
from fake_anthropic import ToolUse

pytestmark = pytest.mark.anyio


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


async def test_a_mixed_bench_with_a_claude_code_seat_ends_complete(fake, claude, council, run_dir, project):
    member(fake, "a", tag="north")
    member(fake, "b", tag="south")
    member(fake, "chair")
    seat = claude("c")
    run, code = await council(["fake/a", "fake/b", "cli:claude"])
    assert (code, run["status"]) == (0, "complete"), json.dumps(run, indent=1)[:3000]
    assert run["bench"] == ["fake/a", "fake/b", "cli:claude"]
    assert "review-cli-claude.md" in {p.name for p in run_dir.iterdir()} or any(
        "claude" in p.name for p in run_dir.iterdir())
    # The seat reviewed and judged through Claude Code: the fake saw the amicus prompts.
    assert any(p.startswith("# Council review briefing") for p in seat.prompts)
    assert any(p.startswith("# Cross-review") for p in seat.prompts)
