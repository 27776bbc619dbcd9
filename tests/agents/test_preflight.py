"""Pre-flight for agent seats: a CLI that is missing, too old or logged out is refused with
AGENT_NOT_READY and the command that fixes it, before any leg is sent."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from agent_fakes import NODE_BIN, need_cli
from council_helpers import BRIEF, assert_nothing_happened, member, preflight_refused

from amicus_mcp.errors import BadModel
from amicus_mcp.providers.routing import resolve_model


@pytest.fixture
def brief(tmp_path: Path) -> Path:
    path = tmp_path / "briefing.md"
    path.write_text(BRIEF, encoding="utf-8")
    return path


def argv(brief: Path, project: Path, run_dir: Path, *models: str) -> list[str]:
    return ["--prompt-file", str(brief), "--models", ",".join(models), "--chair", "fake/chair",
            "--project", str(project), "--out-dir", str(run_dir)]


def test_cli_routes_resolve():
    route = resolve_model("cli:gemini/gemini-2.5-pro", cfg={})
    assert (route.provider, route.model, route.canonical, route.kind) == (
        "cli:gemini", "gemini-2.5-pro", "cli:gemini/gemini-2.5-pro", "agent")
    assert resolve_model("cli:claude", cfg={}).model == ""
    assert resolve_model("codex-seat", cfg={"aliases": {"codex-seat": "cli:codex"}}).provider == "cli:codex"
    with pytest.raises(BadModel, match="Unknown agent CLI 'cli:cursor'") as refused:
        resolve_model("cli:cursor", cfg={})
    assert refused.value.hint == "use one of: cli:claude, cli:codex, cli:gemini"


def test_a_cli_not_on_path_is_agent_not_ready_with_its_install_command(
        fake, brief, project, tmp_path, config_dir, capsys, monkeypatch, agent_path):
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # no agent CLI here
    member(fake, "a")
    run_dir = tmp_path / "out" / "council-run"
    error = preflight_refused(capsys, argv(brief, project, run_dir, "fake/a", "fake/b", "cli:codex"))
    assert error["code"] == "AGENT_NOT_READY"
    assert "'cli:codex' runs on OpenAI Codex CLI" in error["message"] and "not on PATH" in error["message"]
    assert error["hint"] == "npm install -g @openai/codex"
    assert_nothing_happened(fake, run_dir, project, config_dir)


def test_a_logged_out_claude_code_is_refused_with_its_login_command(
        fake, brief, project, tmp_path, config_dir, capsys, agent_path):
    need_cli("claude")
    assert "ANTHROPIC_API_KEY" not in os.environ  # agent_path cleared it: nobody is logged in
    member(fake, "a")
    run_dir = tmp_path / "out" / "council-run"
    error = preflight_refused(capsys, argv(brief, project, run_dir, "fake/a", "fake/b", "cli:claude"))
    assert error["code"] == "AGENT_NOT_READY"
    assert "Claude Code is not logged in" in error["message"]
    assert error["hint"].startswith("claude auth login")
    assert_nothing_happened(fake, run_dir, project, config_dir)


def test_a_cli_older_than_supported_is_refused(fake, brief, project, tmp_path, config_dir, capsys, monkeypatch,
                                               agent_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    old = bin_dir / "gemini"
    old.write_text("#!/bin/sh\necho 0.1.0\n", encoding="utf-8")
    old.chmod(old.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}/usr/bin:/bin")
    monkeypatch.setenv("GEMINI_API_KEY", "test-not-a-key")
    run_dir = tmp_path / "out" / "council-run"
    error = preflight_refused(capsys, argv(brief, project, run_dir, "fake/a", "fake/b", "cli:gemini"))
    assert error["code"] == "AGENT_NOT_READY"
    assert "Gemini CLI 0.1.0 is older than the supported" in error["message"]
    assert error["hint"] == "npm install -g @google/gemini-cli@latest"
    assert_nothing_happened(fake, run_dir, project, config_dir)
    assert NODE_BIN  # the pinned CLIs are not on this PATH
