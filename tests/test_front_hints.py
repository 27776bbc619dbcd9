"""Hints a Desktop or Cowork user can act on (issue 27 item 2). One place (`front.py`) decides,
from the front a hint is written for, how it names a setting — the bundle form's field under
Desktop, the variable elsewhere — and what a command suggestion becomes: the command on the CLI,
the MCP tool that does the same over MCP, or (when no tool does) what the command would have
shown. Each hint path changed here is checked on the CLI and under Desktop."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from amicus_mcp import front
from amicus_mcp.cli import main as cli_main
from amicus_mcp.engine.defaults import apply_env_defaults
from amicus_mcp.engine.options import RunOptions
from amicus_mcp.engine.preflight import check_council_size, members_of
from amicus_mcp.errors import AmicusError
from amicus_mcp.mcp import paths
from amicus_mcp.presets import show_council

DROPPED = [{"member": "gone", "reason": "unknown alias 'gone'"}]


@pytest.fixture(params=["cli", "mcp", "desktop"])
def where(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Any:
    if request.param == "desktop":
        monkeypatch.setenv("AMICUS_INSTALL", "claude-desktop-bundle")
    else:
        monkeypatch.delenv("AMICUS_INSTALL", raising=False)
    if request.param == "mcp":
        with front.serving():
            yield request.param
    else:
        yield request.param


def refused(call: Any) -> AmicusError:
    with pytest.raises(AmicusError) as err:
        call()
    return err.value


def test_the_front_is_decided_in_one_place(where: str) -> None:
    assert front.current() == where
    assert front.setting("AMICUS_PROJECT_DIR") == (
        "the \"Project folder\" field in the amicus extension's settings in Claude Desktop"
        if where == "desktop" else "AMICUS_PROJECT_DIR")
    assert front.setting("AMICUS_PROJECT_ROOTS") == "AMICUS_PROJECT_ROOTS"  # the form has no such field
    assert front.command("amicus list", "amicus_list") == (
        "'amicus list'" if where == "cli" else "the amicus_list tool")
    assert front.command("amicus council show budget") == ("'amicus council show budget'" if where == "cli" else None)


def test_no_bench_names_where_a_default_bench_is_set(where: str) -> None:
    hint = refused(lambda: members_of(None, None)).hint
    assert hint.endswith("set a default bench in " + (
        "the \"Default bench\" field in the amicus extension's settings in Claude Desktop"
        if where == "desktop" else "AMICUS_DEFAULT_BENCH"))


def test_a_council_left_too_small_says_what_dropped_without_a_command_to_run(where: str) -> None:
    err = refused(lambda: check_council_size("aging", ["a/x"], 2, DROPPED))
    assert err.message == "council 'aging' has fewer than 2 usable members (dropped: gone (unknown alias 'gone'))"
    assert ("'amicus council show aging' lists what dropped and why" in err.hint) == (where == "cli")
    assert "amicus council" not in err.hint or where == "cli"


def test_an_unknown_council_lists_the_councils(where: str, config_dir: Path) -> None:
    hint = refused(lambda: show_council("nope")).hint
    assert hint.startswith("the councils: free, budget, frontier, local")
    assert ("'amicus council list'" in hint) == (where == "cli")


def test_a_bad_default_ceiling_names_the_field_it_came_from(where: str) -> None:
    err = refused(lambda: apply_env_defaults(RunOptions(), {"AMICUS_DEFAULT_MAX_COST": "1_000"}))
    name = ("the \"Spend ceiling per run (USD)\" field in the amicus extension's settings in Claude Desktop"
            if where == "desktop" else "AMICUS_DEFAULT_MAX_COST")
    assert err.message.startswith(name + " must be a plain decimal")
    assert err.hint.startswith(f"set {name} to e.g. 2.00")


def test_a_path_outside_the_roots_says_what_this_user_can_change(where: str, tmp_path: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    err = refused(lambda: paths.contained("/etc/passwd", project=project, client_roots=[], env={}, what="briefingFile"))
    if where == "desktop":
        assert err.hint == ("move the file into the project folder, or change the \"Project folder\" field in the "
                            "amicus extension's settings in Claude Desktop")
    else:
        assert "AMICUS_PROJECT_ROOTS" in err.hint
    gone = refused(lambda: paths.resolve_project(None, client_roots=[], env={"AMICUS_PROJECT_DIR": str(tmp_path / "x")},
                                                 cwd=tmp_path))
    assert gone.hint == f"set {front.setting('AMICUS_PROJECT_DIR')} to an existing folder"
    assert "project's folder" not in gone.hint


def test_a_command_suggestion_becomes_the_tool_to_call(where: str) -> None:
    hint = front.command("amicus wait 3f9a1c07", "amicus_wait", id="3f9a1c07")
    assert hint == ("'amicus wait 3f9a1c07'" if where == "cli" else 'the amicus_wait tool with {"id": "3f9a1c07"}')


def test_over_mcp_a_tool_calls_hints_are_written_for_the_client(
        project: Path, config_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The server marks every tool call (mcp/results.py): no hint there tells the user to run
    an `amicus …` command, and the setting names follow Desktop when the bundle started it."""
    from mcp import Client
    from mcp.types import Implementation

    from amicus_mcp.mcp.server import build_server

    (project / "b.md").write_text("Review it.\n", encoding="utf-8")
    monkeypatch.setenv("AMICUS_PROJECT_DIR", str(project))

    async def call(arguments: dict[str, Any]) -> str:
        async with Client(build_server(), mode="auto", client_info=Implementation(name="claude-ai", version="1")) as c:
            result = await c.call_tool("amicus_council_run", arguments)
        assert result.is_error
        return result.content[0].text

    unknown = anyio.run(call, {"council": "nope", "briefingFile": "b.md"})
    assert unknown.startswith("BAD_ARGS: unknown council 'nope'") and "amicus council" not in unknown
    monkeypatch.setenv("AMICUS_INSTALL", "claude-desktop-bundle")
    nobench = anyio.run(call, {"briefingFile": "b.md"})
    assert nobench.startswith("BAD_ARGS: provide models or council")
    assert "the \"Default bench\" field in the amicus extension's settings in Claude Desktop" in nobench
    assert "--" not in nobench  # flags are the tool's arguments over MCP


def test_the_cli_keeps_its_commands(config_dir: Path, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AMICUS_INSTALL", raising=False)
    assert cli_main(["council", "show", "nope", "--json"]) == 1
    assert "'amicus council list'" in json.loads(capsys.readouterr().out)["error"]["hint"]


def test_template_and_pack_hints_say_what_the_list_commands_would(where: str, config_dir: Path) -> None:
    from amicus_mcp.engine.briefing_inputs import check_briefing_source, load_template
    from amicus_mcp.engine.packs import load_pack

    unknown = refused(lambda: load_template("nope")).hint
    assert "design-doc" in unknown and ("'amicus council template list'" in unknown) == (where == "cli")
    lone = refused(lambda: check_briefing_source(RunOptions(artifact="a.md"))).hint
    assert lone.startswith("templates: ") and "design-doc" in lone
    assert ("'amicus council template list'" in lone) == (where == "cli")
    pack = refused(lambda: load_pack("nope")).hint
    assert pack.startswith("the saved packs: none") and ("'amicus council pack list'" in pack) == (where == "cli")


def test_a_missing_key_says_how_this_user_sets_it(where: str) -> None:
    from amicus_mcp.providers.keys import set_key_hint

    form = set_key_hint("OPENROUTER_API_KEY")
    custom = set_key_hint("MY_SERVER_KEY")  # a key the bundle's form has no field for
    if where == "desktop":
        assert form == ("paste the key into the amicus extension's settings in Claude Desktop (it sets "
                        "OPENROUTER_API_KEY)")
        assert custom.startswith("amicus keys set MY_SERVER_KEY in a terminal") and "settings in Claude" not in custom
    elif where == "mcp":
        assert form.endswith("or add OPENROUTER_API_KEY to the server's env in your MCP client's configuration")
        assert "in your shell" not in form
    else:
        assert form.startswith("amicus keys set OPENROUTER_API_KEY  (it is kept in ") and form.endswith("in your shell")



def test_a_worker_a_tool_call_starts_writes_its_hints_for_the_mcp_client(tmp_path: Path) -> None:
    """Issue 27 item 2: the detached worker of a tool call is an MCP front too (front.worker_env),
    so a hint it writes into run.json names the tool, not a CLI command; the CLI's worker stays CLI."""
    import sys

    from polling import wait_for

    from amicus_mcp.engine.spawn import spawn_detached

    probe = [sys.executable, "-c", "from amicus_mcp import front; print(front.current(), "
             "front.command('amicus council resume X', 'amicus_council_resume', id='X'))"]

    def worker_says(log: Path) -> str:
        spawn_detached(probe, cwd=tmp_path, log_path=log)
        return wait_for(lambda: log.read_text(encoding="utf-8").strip(), timeout=30, what="the worker's line")

    with front.serving():
        assert worker_says(tmp_path / "mcp.log") == 'mcp the amicus_council_resume tool with {"id": "X"}'
    assert worker_says(tmp_path / "cli.log") == "cli 'amicus council resume X'"
