"""Issue 13 over MCP: the start tools refuse material holding a secret unless `allowSecrets`,
and no configured key value leaves in a tool result (structured content or text)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcp_helpers import body, error_of, in_process, wait_until_terminal

pytestmark = pytest.mark.anyio

CANARY = "sk-or-v1-SECRETCANARY12345678"
SECRET_BRIEF = "Review the deploy script.\n\nexport DEPLOY_TOKEN=Zx9vQ2mLp8Rt4Wy1\n"


async def test_both_start_tools_declare_allow_secrets(project: Path) -> None:
    async with in_process("legacy") as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    for name in ("amicus_council_run", "amicus_fanout"):
        prop = tools[name].input_schema["properties"]["allowSecrets"]
        assert prop["type"] == "boolean" and prop["default"] is False
        assert prop["title"] and "SECRET_IN_MATERIAL" in prop["description"]


@pytest.mark.parametrize(("tool", "args"), [
    ("amicus_council_run", {"briefingFile": "brief.md", "models": ["fake/a", "fake/b"], "chair": "fake/chair", "ui": False}),
    ("amicus_fanout", {"promptFile": "brief.md", "models": ["fake/a", "fake/b"]}),
    ("amicus_fanout", {"prompt": SECRET_BRIEF, "models": ["fake/a", "fake/b"]}),
])
async def test_start_tools_refuse_secret_material(fake, project: Path, tool: str, args: dict) -> None:
    (project / "brief.md").write_text(SECRET_BRIEF, encoding="utf-8")
    async with in_process("legacy") as client:
        result = await client.call_tool(tool, {**args, "project": str(project)})
    text = error_of(result)
    assert text.startswith("SECRET_IN_MATERIAL:") and "line 3" in text and "DEPLOY_TOKEN" in text
    assert "Zx9vQ2mLp8Rt4Wy1" not in text and "Zx9vQ2mLp8Rt4Wy1" not in json.dumps(result.structured_content)
    assert not list(project.glob("council-*")) and not (project / ".claude").exists()
    assert fake.chat_requests() == []


async def test_allow_secrets_starts_the_wave(fake, project: Path) -> None:
    from fakeprovider import chat

    fake.script("a", chat("ok a"))
    fake.script("b", chat("ok b"))
    async with in_process("legacy") as client:
        started = body(await client.call_tool("amicus_fanout", {
            "prompt": SECRET_BRIEF, "models": ["fake/a", "fake/b"], "allowSecrets": True, "project": str(project)}))
        done, _ = await wait_until_terminal(client, started["waveId"], project=str(project))
    assert done["status"] == "complete"
    wave_dir = project / ".claude" / "amicus_sessions" / started["waveId"]
    assert (wave_dir / "briefing.md").read_text(encoding="utf-8") == SECRET_BRIEF
    assert "DEPLOY_TOKEN=Zx9vQ2mLp8Rt4Wy1" in fake.prompts("a")[0]  # the child was told --allow-secrets


async def test_no_configured_key_leaves_in_a_tool_result(config_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENROUTER_API_KEY", CANARY)
    args = {"meta": {"runId": f"run {CANARY}", "models": ["a", "b"]},
            "findings": [{"id": "A1", "raiser": "a", "severity": "major", "claim": f"the key {CANARY} leaks"}],
            "adjudications": [{"findingId": "A1", "judge": "b", "verdict": "agree"}],
            "rankings": [{"judge": "b", "order": ["a"]}], "noLedger": True}
    async with in_process("legacy") as client:
        result = await client.call_tool("amicus_council_tally", args)
    record = body(result)
    shown = json.dumps(record) + "".join(getattr(c, "text", "") for c in result.content)
    assert "SECRETCANARY" not in shown and record["findings"][0]["claim"] == "the key *** leaks"


PASSWORD = "Hq7vR2pLm9x"


@pytest.mark.parametrize(("tool", "args", "named"), [
    ("amicus_council_run", {"template": "design-doc", "artifact": "design.md", "ui": False,
                            "vars": {"constraints": f"the DB is postgres://admin:{PASSWORD}@db.internal/app"}},
     "template variable 'constraints'"),
    ("amicus_council_run", {"template": "design-doc", "artifact": "leaky.md", "ui": False}, "artifact '"),
    ("amicus_fanout", {"prompt": f"Check the service.\n\nPASSWORD={PASSWORD}\n"}, "the prompt"),
])
async def test_issue19_vars_artifacts_and_prompts_holding_a_password_are_refused_and_written_nowhere(
        fake, project: Path, tool: str, args: dict, named: str) -> None:
    (project / "design.md").write_text("# Widget cache\n\nEvicts on every write.\n", encoding="utf-8")
    (project / "leaky.md").write_text(f"# Widget cache\n\npassword: {PASSWORD}\n", encoding="utf-8")
    async with in_process("legacy") as client:
        result = await client.call_tool(tool, {**args, "models": ["fake/a", "fake/b"], "project": str(project),
                                               **({"chair": "fake/chair"} if tool == "amicus_council_run" else {})})
    text = error_of(result)
    assert text.startswith("SECRET_IN_MATERIAL:") and named in text and "line " in text
    assert PASSWORD not in text and PASSWORD not in json.dumps(result.structured_content)
    assert not list(project.glob("council-*")) and not (project / ".claude").exists()
    assert fake.chat_requests() == []
