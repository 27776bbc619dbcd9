"""The bundle form's own examples over MCP (issue 27 items 1 and 24): Default bench `budget`,
Default chair empty, a tool call that names neither. The server's pre-flight and the engine
worker it spawns pick the same independent chair, and the run's notice says which and why, in
the form's words. A key shaped like a placeholder never leaves the server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from council_script import chair, member
from fakeprovider import FakeProvider, configure_fake
from mcp_helpers import body, error_of, in_process, wait_until_terminal

pytestmark = pytest.mark.anyio

ALIASES = {"minimax": "fake/minimax", "qwen-coder": "fake/qwen-coder", "deepseek": "fake/deepseek",
           "gemini": "fake/gemini"}


async def test_the_forms_default_bench_with_no_chair_runs_and_says_which_chair(
        fake: FakeProvider, config_dir: Path, project: Path, briefing: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    configure_fake(config_dir, fake, extra={"aliases": ALIASES})
    for name in ("minimax", "qwen-coder", "deepseek"):
        member(fake, name)
    chair(fake, "gemini")
    monkeypatch.setenv("AMICUS_INSTALL", "claude-desktop-bundle")
    monkeypatch.setenv("AMICUS_DEFAULT_BENCH", "budget")
    monkeypatch.setenv("AMICUS_DEFAULT_CHAIR", "")
    async with in_process("auto", "claude-ai") as client:
        started = body(await client.call_tool("amicus_council_run", {
            "briefingFile": "briefing.md", "project": str(project), "ui": False}))
        done, _ = await wait_until_terminal(client, started["runId"], project=str(project), slice_s=0.5)
    assert done["status"] == "complete", done
    run = json.loads((Path(started["runDir"]) / "run.json").read_text(encoding="utf-8"))
    assert run["chair"] == "gemini"
    assert [n for n in run["notices"] if "default chair" in n] == [
        "the default chair 'deepseek' is a bench seat, and the chair must be independent of the bench: 'gemini' "
        "chairs instead (the first of deepseek, gemini, gpt, kimi, glm, mistral that is not a bench seat)"]
    assert fake.chat_requests("gemini")


async def test_a_placeholder_key_never_leaves_the_server(
        fake: FakeProvider, config_dir: Path, project: Path, briefing: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    configure_fake(config_dir, fake, apiKeyEnv="FAKE_KEY")
    monkeypatch.setenv("FAKE_KEY", "${USER_CONFIG.fake_key}")
    async with in_process("auto", "claude-ai") as client:
        result = await client.call_tool("amicus_council_run", {
            "briefingFile": "briefing.md", "project": str(project), "ui": False,
            "models": ["fake/a", "fake/b"], "chair": "fake/chair"})
    text = error_of(result)
    assert text.startswith("MISSING_KEY: ") and "FAKE_KEY holds a template placeholder" in text
    assert "USER_CONFIG" not in text and fake.requests == []
