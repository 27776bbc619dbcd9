"""One project rule for every command and the server (issue 27 item 17): `--project`, else
$AMICUS_PROJECT_DIR, else the current directory — and a run directory no one named goes inside
that project. Before, the index followed AMICUS_PROJECT_DIR while the run directory went into the
cwd, so an MCP server on the project could not find the run (BAD_SESSION)."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest
from council_helpers import member

from amicus_mcp.cli import main as cli_main
from amicus_mcp.errors import BadArgs
from amicus_mcp.engine.store import resolve_project



def test_a_cli_run_under_amicus_project_dir_is_found_by_status_and_the_server(
        fake, project: Path, tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    from mcp import Client
    from mcp.types import Implementation

    from amicus_mcp.mcp.server import build_server

    for name in ("a", "b", "chair"):
        member(fake, name, cost=0.001)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    brief = elsewhere / "brief.md"
    brief.write_text("Review the cache.\n", encoding="utf-8")
    monkeypatch.chdir(elsewhere)
    monkeypatch.setenv("AMICUS_PROJECT_DIR", str(project))
    code = cli_main(["council", "run", "--models", "fake/a,fake/b", "--chair", "fake/chair", "--prompt-file",
                     "brief.md", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0, doc
    run_id = doc["runId"]
    assert (project / f"council-{run_id}" / "run.json").is_file()
    assert not list(elsewhere.glob("council-*"))

    monkeypatch.delenv("AMICUS_PROJECT_DIR")
    monkeypatch.chdir(project)  # `amicus status` in the project finds it, with no variable set
    assert cli_main(["status", run_id, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["runId"] == run_id

    monkeypatch.chdir(elsewhere)
    monkeypatch.setenv("AMICUS_PROJECT_DIR", str(project))  # and so does a server on the project

    async def server_status() -> dict:
        async with Client(build_server(), mode="auto", client_info=Implementation(name="claude-code", version="1")) as client:
            result = await client.call_tool("amicus_status", {"id": run_id})
        assert not result.is_error, result.content[0].text
        return result.structured_content

    status = anyio.run(server_status)
    assert (status["id"], status["kind"], status["terminal"]) == (run_id, "council-run", True), status
    assert Path(status["runDir"]) == project / f"council-{run_id}"


def test_the_rule_and_its_hint_name_where_the_project_was_set(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("AMICUS_PROJECT_DIR", str(tmp_path / "gone"))
    assert resolve_project(str(tmp_path)) == tmp_path.resolve()  # the argument first
    with pytest.raises(BadArgs) as refused:
        resolve_project()
    assert refused.value.hint == "set AMICUS_PROJECT_DIR to an existing folder"
    monkeypatch.setenv("AMICUS_INSTALL", "claude-desktop-bundle")
    with pytest.raises(BadArgs) as refused:
        resolve_project()
    assert refused.value.hint == ("set the \"Project folder\" field in the amicus extension's settings in Claude "
                                  "Desktop to an existing folder")
    monkeypatch.setenv("AMICUS_PROJECT_DIR", "${user_config.project_dir}")  # never filled: not set
    assert resolve_project() == tmp_path.resolve()


def test_every_project_flag_says_the_rule(capsys) -> None:
    for argv in (["council", "run"], ["council", "resume"], ["status"], ["watch"], ["fanout"]):
        with pytest.raises(SystemExit):
            cli_main([*argv, "--help"])
        text = " ".join(capsys.readouterr().out.split())
        assert "--project PROJECT" in text and "(default: $AMICUS_PROJECT_DIR, else the current directory)" in text, argv
