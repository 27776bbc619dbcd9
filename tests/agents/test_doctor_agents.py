"""`amicus doctor --json` lists every supported agent CLI: found or not, its version, ready or not,
and how to install or log in to one that is not."""

from __future__ import annotations

import json

from agent_fakes import need_cli

from amicus_mcp.cli import main as cli_main
from amicus_mcp.schemas import schema_errors


def doctor(capsys) -> dict:
    code = cli_main(["doctor", "--offline", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert schema_errors(doc, "doctor") == []
    assert code in (0, 1)
    return doc


def test_doctor_lists_the_agent_clis_found_and_ready(agent_path, config_dir, capsys, monkeypatch):
    for name in ("claude", "codex", "gemini"):
        need_cli(name)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-not-a-key")  # Claude Code is logged in with a key
    doc = doctor(capsys)
    agents = {a["name"]: a for a in doc["agents"]}
    assert list(agents) == ["cli:claude", "cli:codex", "cli:gemini"]
    claude, codex, gemini = agents["cli:claude"], agents["cli:codex"], agents["cli:gemini"]
    assert (claude["found"], claude["version"], claude["ready"]) == (True, "2.1.332", True)
    assert (codex["found"], codex["version"], codex["supported"], codex["loggedIn"]) == (True, "0.171.0", True, False)
    assert codex["problem"] == "OpenAI Codex CLI is not logged in" and codex["fix"].startswith("codex login")
    assert (gemini["found"], gemini["version"], gemini["ready"]) == (True, "0.61.0", False)
    checks = {c["name"]: c for c in doc["checks"]}
    assert checks["cli:claude"]["status"] == "ok" and "ready" in checks["cli:claude"]["detail"]
    assert checks["cli:codex"]["status"] == "warn" and checks["cli:codex"]["hint"].startswith("codex login")
    assert "sk-ant-test-not-a-key" not in json.dumps(doc)


def test_doctor_says_how_to_install_a_cli_it_does_not_find(agent_path, config_dir, capsys, monkeypatch):
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    doc = doctor(capsys)
    for agent in doc["agents"]:
        assert (agent["found"], agent["path"], agent["version"], agent["ready"]) == (False, None, None, False)
        assert agent["fix"] == f"npm install -g {agent['package']}"
    assert {a["package"] for a in doc["agents"]} == {"@anthropic-ai/claude-code", "@openai/codex", "@google/gemini-cli"}
    assert doc["ok"] is True  # a missing agent CLI is a warning: none is required
