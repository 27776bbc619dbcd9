"""The real server as a subprocess (`python -m amicus_mcp.mcp`) over stdio.

Initialized as Claude Code (`claude-code`) and as Claude Desktop (`claude-ai`): the tool
list, the worked example, a full council run driven by `amicus_council_run` and repeated
`amicus_wait` calls, a fanout wave, abort, and the bad inputs. The engine child the server
spawns inherits `AMICUS_CONFIG_DIR`, so it reaches the same loopback fake provider.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp_helpers import REPO, body, error_of, info, stdio_params, unfenced, wait_until_terminal
from council_script import VERDICT, council, wave
from fakeprovider import FakeProvider
from mcp import Client

pytestmark = pytest.mark.anyio

CLIENTS = pytest.mark.parametrize("client_name", ["claude-code", "claude-ai"])
WORKED = REPO / "examples" / "worked-example"
FIXTURES = REPO / "tests" / "fixtures" / "worked-example"
# Deterministic workspace decisions: a harmless "browser" and a display are always there.
UI_ENV = {"BROWSER": "true", "DISPLAY": ":0"}


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def connect(project: Path, client_name: str) -> Client:
    return Client(stdio_params(project, **UI_ENV), mode="legacy", client_info=info(client_name))


@CLIENTS
async def test_tools_tally_verdict_and_bad_inputs(client_name: str, fake: FakeProvider, project: Path,
                                                 briefing: Path, tmp_path: Path) -> None:
    council(fake)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "briefing.md").write_text("Review me.", encoding="utf-8")
    run = {"ui": False, "chair": "fake/chair"}
    async with connect(project, client_name) as client:
        assert client.server_info is not None and client.server_info.name == "amicus"
        names = {tool.name for tool in (await client.list_tools()).tools}
        tally = await client.call_tool("amicus_council_tally", {**load(WORKED / "tally-input.json"), "noLedger": True})
        verdict = await client.call_tool("amicus_verdict", {"record": load(FIXTURES / "tally.json"),
                                                            "decisions": load(WORKED / "decisions.json")})
        errors = [
            await client.call_tool("amicus_council_run", {**run, "briefingFile": "nope.md", "models": ["fake/a", "fake/b"]}),
            await client.call_tool("amicus_council_run", {**run, "briefingFile": "briefing.md",
                                                          "models": ["fake/a", "fake/b"], "council": "budget"}),
            await client.call_tool("amicus_council_run", {**run, "briefingFile": "briefing.md",
                                                          "models": ["fake/a", "fake/b"], "chair": "fake/b"}),
            await client.call_tool("amicus_council_run", {**run, "briefingFile": str(outside / "briefing.md"),
                                                          "models": ["fake/a", "fake/b"]}),
            await client.call_tool("amicus_wait", {"id": "0badc0de"}),
            await client.call_tool("amicus_fanout", {"models": ["fake/a"], "council": "free", "prompt": "hi"}),
        ]
    assert len(names) == 13 and {"amicus_council_run", "amicus_council_resume", "amicus_wait", "amicus_fanout",
                                 "amicus_eval"} <= names
    assert body(tally) == load(FIXTURES / "tally.json")
    assert body(verdict) == {"verdict": load(FIXTURES / "verdict.json")}
    texts = [error_of(result) for result in errors]
    assert texts[0].startswith("MISSING_PROMPT: prompt file")
    assert texts[1].startswith("BAD_ARGS: pass exactly one of models / council")
    assert texts[2].startswith("BAD_ARGS: the chair 'fake/b' is also a bench seat")
    assert texts[3].startswith("BAD_ARGS: briefingFile") and "outside the allowed project roots" in texts[3]
    assert texts[4].startswith("BAD_SESSION: no council run, wave or leg '0badc0de'")
    assert texts[5].startswith("BAD_ARGS: pass exactly one of models / council")
    assert not list(project.glob("council-*")) and not (project / ".claude").exists()


@CLIENTS
async def test_a_council_run_outlives_the_server_and_completes(client_name: str, fake: FakeProvider, project: Path,
                                                              briefing: Path, reaper) -> None:  # type: ignore[no-untyped-def]
    args = {"briefingFile": "briefing.md", **council(fake, delay_s=0.3)}
    async with connect(project, client_name) as client:
        started = body(await client.call_tool("amicus_council_run", args))
    reaper(Path(started["runDir"]) / "workspace.pid")
    # That server has exited; the run goes on. A new server picks it up from disk.
    messages: list[str] = []

    async def progress(progress: float, total: float | None, message: str | None) -> None:
        messages.append(message or "")

    async with connect(project, client_name) as client:
        first = body(await client.call_tool("amicus_wait", {"id": started["runId"], "timeoutSeconds": 1.0},
                                            progress_callback=progress))
        done, _ = await wait_until_terminal(client, started["runId"])
        report = body(await client.call_tool("amicus_read", {"id": started["runId"]}))
    if client_name == "claude-code":
        assert started["workspaceOpened"] is True
    else:
        assert (started["workspaceOpened"], started["workspaceOpenReason"]) == (False, "client-not-code-local")
    assert first["terminal"] or messages and all("legs done" in m for m in messages)
    assert (done["status"], done["overallVerdict"], done["exitCode"]) == ("complete", VERDICT, 0)
    assert unfenced(report["text"]).startswith("# Council Report")


async def test_every_leg_id_a_run_lists_is_read_waited_and_shown(fake: FakeProvider, project: Path,
                                                                 briefing: Path) -> None:
    """Issue 19 item 20: the ids amicus_status lists for a council run's legs (`RUN-s1-1`) work
    in amicus_status, amicus_wait and amicus_read, as docs/mcp.md says a leg id does."""
    args = {"briefingFile": "briefing.md", "ui": False, **council(fake)}
    async with connect(project, "claude-code") as client:
        run_id = body(await client.call_tool("amicus_council_run", args))["runId"]
        done, _ = await wait_until_terminal(client, run_id)
        legs = body(await client.call_tool("amicus_status", {"id": run_id}))["legs"]
        shown = [body(await client.call_tool("amicus_status", {"id": leg["id"]})) for leg in legs]
        waited = [body(await client.call_tool("amicus_wait", {"id": leg["id"]})) for leg in legs]
        read = [body(await client.call_tool("amicus_read", {"id": leg["id"]})) for leg in legs]
        abort = await client.call_tool("amicus_abort", {"id": legs[0]["id"]})
        unknown = await client.call_tool("amicus_read", {"id": f"{run_id}-s9-9"})
    assert done["status"] == "complete" and [leg["id"] for leg in legs][:2] == [f"{run_id}-s1-1", f"{run_id}-s1-2"]
    for leg, status, wait, page in zip(legs, shown, waited, read):
        assert (status["kind"], status["id"], status["terminal"], status["status"]) == ("leg", leg["id"], True, "complete")
        assert status["legs"][0]["stage"] == leg["stage"] and status["legs"][0]["role"] == leg["role"]
        assert wait["terminal"] is True and wait["timedOut"] is False and wait["id"] == leg["id"]
        assert (page["kind"], page["source"]) == ("leg", "output")
    texts = {leg["role"]: unfenced(page["text"]) for leg, page in zip(legs, read)}
    assert "reviewer finds the cache evicts too eagerly" in texts["seat"]
    assert "every review has merit" in texts["judge"] and f"VERDICT: {VERDICT}" in texts["chair"]
    assert error_of(abort).startswith(f"BAD_SESSION: '{legs[0]['id']}' is a leg of council run {run_id}")
    assert error_of(unknown).startswith(f"BAD_SESSION: no council run, wave or leg '{run_id}-s9-9'")


@CLIENTS
async def test_a_fanout_wave_and_an_abort(client_name: str, fake: FakeProvider, project: Path, briefing: Path) -> None:
    wave(fake, "x", "y")
    wave(fake, "slow", delay_s=30)
    args = {"briefingFile": "briefing.md", "ui": False, **council(fake, delay_s=30)}
    async with connect(project, client_name) as client:
        started = body(await client.call_tool("amicus_fanout", {"models": ["fake/x", "fake/y"], "prompt": "Hi."}))
        done, _ = await wait_until_terminal(client, started["waveId"])
        run_id = body(await client.call_tool("amicus_council_run", args))["runId"]
        aborted = body(await client.call_tool("amicus_abort", {"id": run_id}))
        stopped, _ = await wait_until_terminal(client, run_id)
        listed = body(await client.call_tool("amicus_list", {}))
    assert (done["status"], [leg["status"] for leg in done["legs"]]) == ("complete", ["complete", "complete"])
    assert aborted["aborted"] is True and stopped["status"] == "aborted"
    assert {item["id"] for item in listed["items"]} == {started["waveId"], run_id}


async def test_initialize_answers_without_the_engine_loaded(project: Path) -> None:
    """The handshake does not wait for the engine: its modules are imported by the tools. Only the
    options model is loaded (the run tools' arguments are its fields: engine/options.py), beside
    the two modules the engine's front door imports (store and run_dir: the standard library and
    the base layer, no pydantic model); nothing else of the engine's."""
    script = ("import sys; from amicus_mcp.mcp.server import build_server; build_server(); "
              "print(sorted(m for m in sys.modules if m.split('.')[0] == 'httpx' or m.startswith(("
              "'amicus_mcp.engine', 'amicus_mcp.providers', 'amicus_mcp.council', 'amicus_mcp.workspace'))))")
    with anyio.fail_after(60):
        done = await anyio.run_process([sys.executable, "-c", script], cwd=str(project))
    assert done.stdout.decode().strip() == ("['amicus_mcp.engine', 'amicus_mcp.engine.options', 'amicus_mcp.engine.run_dir', "
                                            "'amicus_mcp.engine.store']")
