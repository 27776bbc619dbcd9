"""Agent seats as the Claude Desktop bundle's defaults (issue 31 §1): the bundle form's Default
bench names `cli:` seats and its Default chair a model, and a tool call that names neither runs
that council. The server is the one Desktop starts (AMICUS_INSTALL=claude-desktop-bundle, the
form's fields as the environment the manifest maps them to); the run itself is the engine worker
the tool call spawns, which inherits that environment — PATH included, so a CLI Desktop cannot
find is AGENT_NOT_READY at pre-flight, in the form's words, before any leg is sent."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "mcp"))
from council_helpers import member  # noqa: E402
from mcp_helpers import body, error_of, in_process, wait_until_terminal  # noqa: E402

from amicus_mcp.desktop import SETTINGS  # noqa: E402

pytestmark = pytest.mark.anyio

BENCH = "cli:claude, cli:codex"


def desktop_form(monkeypatch: pytest.MonkeyPatch, project: Path, *, bench: str, chair: str) -> None:
    """The environment the bundle's manifest gives the server for these two form fields."""
    env = {s.key: s.env for s in SETTINGS}
    monkeypatch.setenv("AMICUS_INSTALL", "claude-desktop-bundle")
    monkeypatch.setenv("AMICUS_PROJECT_ROOTS", str(project))  # the folder Desktop's roots name
    monkeypatch.setenv(env["default_bench"], bench)
    monkeypatch.setenv(env["default_chair"], chair)


async def test_the_forms_agent_bench_runs_when_the_call_names_no_models(fake, claude, codex, project, monkeypatch):
    member(fake, "chair")
    seats = {"cli:claude": claude("c"), "cli:codex": codex("x")}
    desktop_form(monkeypatch, project, bench=BENCH, chair="fake/chair")
    (project / "briefing.md").write_text("# Review\n\nThe cache evicts everything on every write.\n", encoding="utf-8")
    async with in_process("auto", "claude-ai") as client:
        started = body(await client.call_tool("amicus_council_run", {
            "briefingFile": "briefing.md", "project": str(project), "ui": False}))
        done, _ = await wait_until_terminal(client, started["runId"], project=str(project), slice_s=1.0,
                                            budget_s=240)
    assert done["status"] == "complete", done
    run = json.loads((Path(started["runDir"]) / "run.json").read_text(encoding="utf-8"))
    assert run["bench"] == ["cli:claude", "cli:codex"] and run["chair"] == "fake/chair"
    for name, seat in seats.items():
        assert any(p.startswith("# Council review briefing") for p in seat.prompts), name
    agent_legs = [leg for leg in run["legs"] if leg["model"].startswith("cli:")]
    assert len(agent_legs) == 4 and all(leg["usage"]["cost"]["amount"] is None for leg in agent_legs)  # subscriptions


async def test_an_agent_cli_desktop_cannot_find_is_refused_in_the_forms_words(fake, project, monkeypatch, agent_path):
    member(fake, "chair")
    desktop_form(monkeypatch, project, bench=BENCH, chair="fake/chair")
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # what a GUI app may start its servers with: no npm bin
    (project / "briefing.md").write_text("# Review\n\nA change.\n", encoding="utf-8")
    async with in_process("auto", "claude-ai") as client:
        result = await client.call_tool("amicus_council_run", {
            "briefingFile": "briefing.md", "project": str(project), "ui": False})
    text = error_of(result)
    assert text.startswith("AGENT_NOT_READY: "), text
    assert text == ("AGENT_NOT_READY: 'cli:claude' runs on Claude Code: Claude Code (`claude`) is not on PATH\n"
                    "Hint: npm install -g @anthropic-ai/claude-code; if `claude` is installed, Claude Desktop does not "
                    "see it: put it in a folder on the PATH Desktop starts servers with (e.g. /usr/local/bin), then "
                    "restart Claude Desktop")
    assert fake.requests == [] and not list(project.glob("council-*"))
