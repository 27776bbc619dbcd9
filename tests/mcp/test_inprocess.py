"""The server in-process through `mcp.Client`, in legacy (initialize handshake) and auto modes.

Council runs and waves are real: `amicus_council_run` / `amicus_fanout` spawn the engine as
a detached `python -m amicus_mcp.cli` child that talks to the loopback fake provider, and
`amicus_wait` is called until the work is terminal.
"""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp_helpers import REPO, body, error_of, in_process, unfenced, wait_until_terminal
from council_script import VERDICT, council, wave
from fakeprovider import FakeProvider
from mcp.types import ListRootsResult, Root
from pydantic import FileUrl

from amicus_mcp.council.report import build_report
from amicus_mcp.mcp import waiting
from amicus_mcp.mcp.fence import OPEN
from amicus_mcp.mcp.models import NEXT_WAIT
from amicus_mcp.schemas import schema_errors

pytestmark = pytest.mark.anyio

MODES = pytest.mark.parametrize("mode", ["legacy", "auto"])
WORKED = REPO / "examples" / "worked-example"
FIXTURES = REPO / "tests" / "fixtures" / "worked-example"
TOOLS = {"amicus_council_run", "amicus_council_resume", "amicus_fanout", "amicus_wait", "amicus_status", "amicus_read", "amicus_abort",
         "amicus_list", "amicus_council_tally", "amicus_verdict", "amicus_council_stats", "amicus_decisions", "amicus_eval"}


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


CLI_FLAG = re.compile(r"(?<![\w-])--[a-z]")


def nothing_started(project: Path) -> bool:
    sessions = project / ".claude" / "amicus_sessions"
    return not list(project.glob("council-*")) and not (sessions.exists() and any(sessions.iterdir()))


# --------------------------------------------------------------------------- the surface


@MODES
async def test_lists_every_tool_with_schemas_and_honest_annotations(mode: str, project: Path) -> None:
    async with in_process(mode) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert set(tools) == TOOLS
    hints = {}
    for tool in tools.values():
        assert tool.description and len(tool.description) < 300
        assert tool.output_schema is not None and tool.output_schema.get("type") == "object"
        assert tool.input_schema["type"] == "object"
        assert tool.annotations is not None
        hints[tool.name] = tool.annotations
    starts = {"amicus_council_run", "amicus_council_resume", "amicus_fanout", "amicus_eval"}  # they call other models
    assert {name for name, hint in hints.items() if hint.open_world_hint} == starts
    assert {name for name, hint in hints.items() if hint.read_only_hint} == {"amicus_read", "amicus_list",
                                                                             "amicus_council_stats", "amicus_decisions"}
    assert {name for name, hint in hints.items() if hint.destructive_hint} == {"amicus_abort"}
    # briefingFile, or template + artifact (issue 16): pre-flight requires exactly one briefing source
    run_schema = tools["amicus_council_run"].input_schema
    assert "required" not in run_schema
    assert {"briefingFile", "template", "artifact", "vars", "pack"} <= set(run_schema["properties"])
    assert all(run_schema["properties"][k].get("title") for k in ("template", "artifact", "vars", "pack"))
    assert (tools["amicus_council_tally"].output_schema or {})["properties"]["type"] == {"const": "council-tally"}


# --------------------------------------------------------------------------- tally and verdict


@MODES
async def test_tally_reproduces_the_worked_example(mode: str, config_dir: Path) -> None:
    tally_input = load(WORKED / "tally-input.json")
    async with in_process(mode) as client:
        result = await client.call_tool("amicus_council_tally", {**tally_input, "noLedger": True})
    assert body(result) == load(FIXTURES / "tally.json")
    text = result.content[0].text  # type: ignore[union-attr]
    # Byte for byte what the CLI prints; nothing is fenced: every string echoes the caller's own input.
    assert text == (FIXTURES / "tally.json").read_text(encoding="utf-8").rstrip("\n")
    assert OPEN not in text
    assert not (config_dir / "council-ledger.jsonl").exists()


@MODES
async def test_tally_appends_the_ledger_and_stats_read_it(mode: str, config_dir: Path) -> None:
    async with in_process(mode) as client:
        body(await client.call_tool("amicus_council_tally", load(WORKED / "tally-input.json")))
        stats = body(await client.call_tool("amicus_council_stats", {}))
    assert len((config_dir / "council-ledger.jsonl").read_text().splitlines()) == 2
    assert stats["type"] == "council-stats"
    assert sorted(row["model"] for row in stats["models"]) == ["deepseek", "gpt"]
    assert schema_errors(stats, "council-stats") == []


@MODES
async def test_verdict_reproduces_the_worked_example(mode: str, project: Path) -> None:
    args = {"record": load(FIXTURES / "tally.json"), "decisions": load(WORKED / "decisions.json")}
    async with in_process(mode) as client:
        plain = body(await client.call_tool("amicus_verdict", args))
        rendered = body(await client.call_tool("amicus_verdict", {**args, "render": True, "outDir": "out",
                                                                  "project": str(project)}))
    expected = load(FIXTURES / "verdict.json")
    assert plain == {"verdict": expected}
    assert rendered["verdict"] == expected
    # Rendered with the record in hand, every finding shows its claim (as `council verdict --render` does).
    assert rendered["markdown"] == build_report(expected, fmt="md", record=args["record"])
    assert "- **B2** (blocker, raiser gpt) — a0/d1/n0 — accepted (applied)\n  - Listed prices contradict the numbers in the FAQ section." \
        in rendered["markdown"]
    assert rendered["reportHtml"] == str(project / "out" / "report.html")
    assert (project / "out" / "report.html").read_text(encoding="utf-8") == build_report(expected, fmt="html",
                                                                                       record=args["record"])


@MODES
async def test_verdict_refuses_what_it_cannot_honour(mode: str, project: Path, tmp_path: Path) -> None:
    record = load(FIXTURES / "tally.json")
    async with in_process(mode) as client:
        outside = await client.call_tool("amicus_verdict", {"record": record, "render": True,
                                                            "outDir": str(tmp_path / "elsewhere"), "project": str(project)})
        no_render = await client.call_tool("amicus_verdict", {"record": record, "outDir": "out"})
        an_input = await client.call_tool("amicus_verdict", {"record": load(WORKED / "tally-input.json")})
        invented = await client.call_tool("amicus_verdict", {"record": record, "overallVerdict": "Looks great"})
    assert "outside the allowed project roots" in error_of(outside)
    assert error_of(no_render).startswith("BAD_ARGS: outDir is only used with render")
    assert "tally input, not a tally record" in error_of(an_input)
    assert error_of(invented).startswith("BAD_ARGS: invalid arguments for amicus_verdict: overallVerdict")
    assert not (tmp_path / "elsewhere").exists() and not (project / "out").exists()


# --------------------------------------------------------------------------- a council run


@MODES
async def test_a_full_council_run_through_repeated_waits(mode: str, fake: FakeProvider, project: Path,
                                                         briefing: Path) -> None:
    gate = threading.Event()
    async with in_process(mode) as client:
        started = body(await client.call_tool("amicus_council_run", {
            "briefingFile": "briefing.md", "project": str(project), "ui": False, **council(fake, gate=gate)}))
        assert started["status"] == "running" and started["workspaceOpened"] is False
        assert started["workspaceOpenReason"] == "param-suppressed"
        run_id, run_dir = started["runId"], Path(started["runDir"])
        assert run_dir == project / f"council-{run_id}"
        assert (run_dir / "briefing.md").read_text() == briefing.read_text()
        assert (run_dir / "spawn.pid").read_text().strip().isdigit()
        assert (project / ".claude" / "amicus_sessions" / f"council-{run_id}.json").exists()

        held = body(await client.call_tool("amicus_wait", {"id": run_id, "project": str(project), "timeoutSeconds": 0.5}))
        gate.set()  # the reviews may now arrive
        done, _ = await wait_until_terminal(client, run_id, project=str(project), slice_s=0.5)
        wait_result = await client.call_tool("amicus_wait", {"id": run_id, "project": str(project)})
        report = body(await client.call_tool("amicus_read", {"id": run_id, "project": str(project)}))
        review = body(await client.call_tool("amicus_read", {"id": run_id, "file": "review-fake-a.md",
                                                             "project": str(project), "limit": 20}))
        html = body(await client.call_tool("amicus_read", {"id": run_id, "file": "report.html",
                                                           "project": str(project)}))
        listed = body(await client.call_tool("amicus_list", {"project": str(project)}))
        status = body(await client.call_tool("amicus_status", {"id": run_id, "project": str(project)}))

    assert (held["status"], held["terminal"], held["timedOut"], held["next"]) == ("running", False, True, NEXT_WAIT)
    assert held["waitedMs"] >= 500
    assert (done["status"], done["exitCode"], done["overallVerdict"]) == ("complete", 0, VERDICT)
    assert done["tierCounts"] == {"Confirmed": 3, "Contested": 0, "Singleton": 0, "Disputed": 0}
    assert done["legsDone"] == done["legsTotal"] == 5 and done["report"] == str(run_dir / "report.html")
    assert body(wait_result)["timedOut"] is False and status["terminal"] is True
    assert schema_errors(load(run_dir / "run.json"), "council-run") == []
    assert report["source"] == "report" and unfenced(report["text"]).startswith("# Council Report")
    assert "review-fake-a.md" in report["files"] and "engine.log" in report["files"]
    assert unfenced(review["text"]) == (run_dir / "review-fake-a.md").read_text()[:20] and review["nextOffset"] == 20
    assert [item["id"] for item in listed["items"]] == [run_id]
    assert html["source"] == "report.html" and html["totalChars"] == len((run_dir / "report.html").read_text())
    assert unfenced(html["text"]).lower().startswith("<!doctype html>")


@MODES
async def test_wait_reports_progress_while_it_blocks(mode: str, fake: FakeProvider, project: Path, briefing: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(waiting, "PROGRESS_EVERY_S", 0.4)
    seen: list[tuple[float, float | None, str | None]] = []

    async def progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    async with in_process(mode) as client:
        run_id = body(await client.call_tool("amicus_council_run", {
            "briefingFile": "briefing.md", "project": str(project), "ui": False, **council(fake, delay_s=30)}))["runId"]
        with anyio.fail_after(60):  # until the engine child is inside Stage 1 (its replies take 30 s)
            while body(await client.call_tool("amicus_status", {"id": run_id, "project": str(project)})).get("stage") != "stage1":
                await anyio.sleep(0.1)
        result = body(await client.call_tool("amicus_wait", {"id": run_id, "project": str(project),
                                                             "timeoutSeconds": 2.0}, progress_callback=progress))
        body(await client.call_tool("amicus_abort", {"id": run_id, "project": str(project)}))
    assert result["timedOut"] is True and result["terminal"] is False and result["next"] == NEXT_WAIT
    assert result["stage"] == "stage1" and 2000 <= result["waitedMs"] < 30_000
    assert len(seen) >= 2  # one per step of at most 0.4 s in a 2 s slice
    assert all(b[0] > a[0] for a, b in zip(seen, seen[1:]))  # strictly increasing, as the protocol demands
    for _, total, message in seen:
        assert total == 2.0 and message is not None
        # Legs are recorded as they launch (after the stage), and none has finished: nothing is priced yet.
        # Before the engine lists a leg (or plans them: run.json's legsPlanned) it says the stage is starting.
        # The total is the whole plan from the start (2 seats, 2 judges, the chair).
        assert re.fullmatch(rf"council-run {run_id}: running · stage stage1( starting| · 0/5 legs done)"
                            r" · cost unknown so far", message), message


@MODES
async def test_cancelling_a_wait_never_cancels_the_run(mode: str, fake: FakeProvider, project: Path,
                                                      briefing: Path) -> None:
    gate = threading.Event()
    async with in_process(mode) as client:
        run_id = body(await client.call_tool("amicus_council_run", {
            "briefingFile": "briefing.md", "project": str(project), "ui": False, **council(fake, gate=gate)}))["runId"]
        with anyio.move_on_after(1.0) as scope:  # the run cannot finish before the gate opens
            await client.call_tool("amicus_wait", {"id": run_id, "project": str(project), "timeoutSeconds": 60})
        assert scope.cancelled_caught
        gate.set()
        done, _ = await wait_until_terminal(client, run_id, project=str(project))
    assert done["status"] == "complete" and done["overallVerdict"] == VERDICT


async def test_dropped_council_members_are_reported(fake: FakeProvider, project: Path, briefing: Path,
                                                     config_dir: Path) -> None:
    args = council(fake)
    config = json.loads((config_dir / "config.json").read_text())
    config["councils"] = {"mine": [*args["models"], "nosuchalias"]}
    (config_dir / "config.json").write_text(json.dumps(config), encoding="utf-8")
    async with in_process("legacy") as client:
        started = body(await client.call_tool("amicus_council_run", {
            "briefingFile": "briefing.md", "project": str(project), "ui": False, "council": "mine",
            "chair": args["chair"]}))
        done, _ = await wait_until_terminal(client, started["runId"], project=str(project))
    assert started["droppedMembers"] == [{"member": "nosuchalias", "reason": "unknown alias 'nosuchalias'"}]
    assert done["status"] == "complete"
    assert load(Path(started["runDir"]) / "run.json")["droppedMembers"] == started["droppedMembers"]


async def test_optional_council_elements_reach_the_engine(fake: FakeProvider, project: Path, briefing: Path) -> None:
    async with in_process("legacy") as client:
        started = body(await client.call_tool("amicus_council_run", {
            "briefingFile": "briefing.md", "project": str(project), "ui": False, "critic": "fake/b", "debate": True,
            **council(fake)}))
        done, _ = await wait_until_terminal(client, started["runId"], project=str(project))
    manifest = load(Path(started["runDir"]) / "run.json")
    assert done["status"] == "complete"
    assert manifest["critic"] == "fake/b" and manifest["debate"]["enabled"] is True
    assert [seat["role"] for seat in manifest["seats"]] == ["seat", "critic"]


@MODES
async def test_abort_stops_a_running_council(mode: str, fake: FakeProvider, project: Path, briefing: Path) -> None:
    async with in_process(mode) as client:
        run_id = body(await client.call_tool("amicus_council_run", {
            "briefingFile": "briefing.md", "project": str(project), "ui": False, **council(fake, delay_s=30)}))["runId"]
        first = body(await client.call_tool("amicus_abort", {"id": run_id, "project": str(project)}))
        done, _ = await wait_until_terminal(client, run_id, project=str(project))
        again = body(await client.call_tool("amicus_abort", {"id": run_id, "project": str(project)}))
    assert first == {"id": run_id, "aborted": True, "alreadyTerminal": False, "signalled": True}
    assert done["status"] == "aborted"
    assert again["alreadyTerminal"] is True and again["aborted"] is False and again["status"] == "aborted"


# --------------------------------------------------------------------------- a fanout wave


@MODES
async def test_a_fanout_wave_from_prompt_text(mode: str, fake: FakeProvider, project: Path) -> None:
    wave(fake, "x", "y")
    async with in_process(mode) as client:
        started = body(await client.call_tool("amicus_fanout", {
            "models": ["fake/x", "fake/y"], "prompt": "Say hello.", "project": str(project)}))
        wave_id = started["waveId"]
        assert started["taskIds"] == [f"{wave_id}-1", f"{wave_id}-2"] and started["status"] == "running"
        done, _ = await wait_until_terminal(client, wave_id, project=str(project))
        outputs = body(await client.call_tool("amicus_read", {"id": wave_id, "project": str(project)}))
        leg = body(await client.call_tool("amicus_wait", {"id": f"{wave_id}-2", "project": str(project)}))
        leg_text = body(await client.call_tool("amicus_read", {"id": f"{wave_id}-2", "project": str(project)}))
    assert (done["kind"], done["status"], done["legsDone"], done["legsTotal"]) == ("wave", "complete", 2, 2)
    assert [row["status"] for row in done["legs"]] == ["complete", "complete"]
    assert "x says hello" in unfenced(outputs["text"]) and "y says hello" in outputs["text"]
    assert (leg["kind"], leg["status"], unfenced(leg_text["text"])) == ("leg", "complete", "y says hello")
    assert schema_errors(load(project / ".claude" / "amicus_sessions" / wave_id / "wave.json"), "wave") == []


@MODES
async def test_a_fanout_wave_from_a_prompt_file_and_its_abort(mode: str, fake: FakeProvider, project: Path) -> None:
    wave(fake, "slow", delay_s=30)
    (project / "prompt.md").write_text("Say hello slowly.", encoding="utf-8")
    async with in_process(mode) as client:
        wave_id = body(await client.call_tool("amicus_fanout", {
            "models": ["fake/slow", "fake/slow"], "promptFile": "prompt.md", "project": str(project)}))["waveId"]
        running = body(await client.call_tool("amicus_status", {"id": wave_id, "project": str(project)}))
        with anyio.fail_after(60):  # both legs are in flight: the child has its signal handlers by now
            while len(fake.chat_requests("slow")) < 2:
                await anyio.sleep(0.05)
        aborted = body(await client.call_tool("amicus_abort", {"id": wave_id, "project": str(project)}))
        done, _ = await wait_until_terminal(client, wave_id, project=str(project))
    assert running["status"] == "running" and running["legsTotal"] == 2
    assert aborted["aborted"] is True
    assert done["status"] == "aborted" and {row["status"] for row in done["legs"]} == {"aborted"}


# --------------------------------------------------------------------------- bad input


def bad_calls(project: Path, outside: Path) -> list[tuple[str, dict[str, Any], str]]:
    run = {"project": str(project), "ui": False, "chair": "fake/chair"}
    return [
        ("amicus_council_run", {**run, "briefingFile": "missing.md", "models": ["fake/a", "fake/b"]},
         "MISSING_PROMPT: prompt file"),
        ("amicus_council_run", {**run, "models": ["fake/a", "fake/b"]}, "MISSING_PROMPT: a briefing is required"),
        ("amicus_council_run", {**run, "briefingFile": "briefing.md", "models": ["fake/a", "fake/b"], "council": "budget"},
         "BAD_ARGS: pass exactly one of models / council"),
        ("amicus_council_run", {**run, "briefingFile": "briefing.md"}, "BAD_ARGS: provide models or council"),
        ("amicus_council_run", {**run, "briefingFile": "briefing.md", "models": ["fake/a", "fake/b"], "chair": "fake/a"},
         "BAD_ARGS: the chair 'fake/a' is also a bench seat"),
        ("amicus_council_run", {**run, "briefingFile": str(outside / "briefing.md"), "models": ["fake/a", "fake/b"]},
         "BAD_ARGS: briefingFile"),
        ("amicus_council_run", {**run, "briefingFile": "briefing.md", "models": ["fake/a", "fake/b"],
                                "outDir": "../escape"}, "BAD_ARGS: outDir"),
        ("amicus_council_run", {**run, "briefingFile": "briefing.md", "models": ["fake/a", "fake/b"], "critic": "fake/c"},
         "BAD_ARGS: the critic 'fake/c' is not a bench seat"),
        ("amicus_council_run", {**run, "briefingFile": "briefing.md", "models": ["fake/a", "fake/b"],
                                "claudeReviewFile": str(outside / "briefing.md")}, "BAD_ARGS: claudeReviewFile"),
        ("amicus_council_run", {**run, "briefingFile": "briefing.md", "models": ["fake/a", "fake/b"], "maxCost": -1},
         "BAD_ARGS: maxCost must be a positive"),
        ("amicus_council_run", {**run, "briefingFile": "briefing.md", "models": "fake/a"},
         "BAD_ARGS: invalid arguments for amicus_council_run: models"),
        ("amicus_council_run", {**run, "project": str(outside), "briefingFile": "briefing.md", "models": ["fake/a", "fake/b"]},
         "BAD_ARGS: project"),
        ("amicus_fanout", {"project": str(project), "models": ["fake/a"], "prompt": "hi", "promptFile": "briefing.md"},
         "BAD_ARGS: pass exactly one of a prompt text and a prompt file"),
        ("amicus_fanout", {"project": str(project), "models": ["fake/a"], "council": "budget", "prompt": "hi"},
         "BAD_ARGS: pass exactly one of models / council"),
        ("amicus_fanout", {"project": str(project), "models": ["fake/a"], "promptFile": str(outside / "briefing.md")},
         "BAD_ARGS: promptFile"),
        ("amicus_fanout", {"project": str(project), "models": ["fake/a"]}, "MISSING_PROMPT"),
        ("amicus_wait", {"id": "feedf00d", "project": str(project)}, "BAD_SESSION: no council run, wave or leg 'feedf00d'"),
        ("amicus_read", {"id": "feedf00d-s1-1", "project": str(project)},
         "BAD_SESSION: no council run, wave or leg 'feedf00d-s1-1'"),
        ("amicus_status", {"id": "feedf00d", "project": str(project)}, "BAD_SESSION"),
        ("amicus_read", {"id": "feedf00d", "project": str(project)}, "BAD_SESSION"),
        ("amicus_abort", {"id": "feedf00d", "project": str(project)}, "BAD_SESSION"),
        # A run may be named by its directory, but only one inside the project roots.
        ("amicus_wait", {"id": "../../etc", "project": str(project)}, "BAD_ARGS: id '"),
        ("amicus_status", {"id": str(outside), "project": str(project)}, "BAD_ARGS: id '"),
        ("amicus_read", {"id": "./", "project": str(project)}, "BAD_ARGS: '"),
        ("amicus_wait", {"project": str(project)}, "BAD_ARGS: invalid arguments for amicus_wait: id: Field required"),
        ("amicus_read", {"id": "feedf00d", "limit": 0}, "BAD_ARGS: invalid arguments for amicus_read: limit"),
        ("amicus_council_tally", {"meta": {"runId": "r"}, "findings": [], "adjudications": [], "rankings": []},
         "BAD_ARGS: tally input"),
        ("amicus_no_such_tool", {}, "BAD_ARGS: unknown tool 'amicus_no_such_tool'"),
        # Strict arguments: one a tool does not have is refused, with the one meant only when it is close.
        ("amicus_wait", {"id": "feedf00d", "bogus": 1},
         "BAD_ARGS: amicus_wait has no argument 'bogus'\nHint: amicus_wait takes: id, project, timeoutSeconds"),
        ("amicus_council_run", {**run, "briefingFile": "briefing.md", "models": ["fake/a", "fake/b"], "onComplete": "x"},
         "BAD_ARGS: amicus_council_run has no argument 'onComplete'\nHint: amicus_council_run takes: allowSecrets, "),
        ("amicus_fanout", {"project": str(project), "model": ["fake/a"], "prompt": "hi"},
         "BAD_ARGS: amicus_fanout has no argument 'model'; did you mean 'models'?"),
        ("amicus_council_run", {**run, "briefing_file": "briefing.md", "models": ["fake/a", "fake/b"]},
         "BAD_ARGS: amicus_council_run has no argument 'briefing_file'; did you mean 'briefingFile'?"),
        ("amicus_wait", {"id": "feedf00d", "timeout": 5},
         "BAD_ARGS: amicus_wait has no argument 'timeout'; did you mean 'timeoutSeconds'?"),
        # The CLI's pre-flight, run before anything starts.
        ("amicus_council_run", {**run, "briefingFile": "briefing.md", "council": "no-such-bench"}, "BAD_ARGS: "),
        ("amicus_council_run", {**run, "briefingFile": "briefing.md", "models": ["fake/a"]},
         "BAD_ARGS: need at least 2 model(s), got 1"),
        ("amicus_council_run", {**run, "briefingFile": ".", "models": ["fake/a", "fake/b"]},
         "BAD_ARGS: prompt file"),
        ("amicus_council_run", {**run, "briefingFile": "briefing.md", "models": ["fake/a", "fake/b"], "gateway": "smoke"},
         "BAD_ARGS: invalid arguments for amicus_council_run: gateway"),
        ("amicus_council_run", {**run, "briefingFile": "briefing.md", "models": ["fake/a", "fake/b"],
                                "timeoutMinutes": 0}, "BAD_ARGS: timeoutMinutes must be a positive number"),
        ("amicus_fanout", {"project": str(project), "prompt": "hi"}, "BAD_ARGS: provide models or council"),
    ]


@MODES
async def test_every_bad_input_is_a_clear_error_and_starts_nothing(mode: str, fake: FakeProvider, project: Path,
                                                                   briefing: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "briefing.md").write_text("Review me.", encoding="utf-8")
    council(fake)
    async with in_process(mode) as client:
        for tool, args, expected in bad_calls(project, outside):
            result = await client.call_tool(tool, args)
            text = error_of(result)
            assert text.startswith(expected), f"{tool} {args}: {text}"
            assert "\nHint: " in text
            # No structured content (it would not match the outputSchema); the envelope is the JSON text block.
            assert result.structured_content is None
            envelope = json.loads(result.content[1].text)  # type: ignore[union-attr]
            assert envelope["type"] == "error" and envelope["ok"] is False
            assert text == f"{envelope['error']['code']}: {envelope['error']['message']}\nHint: {envelope['error']['hint']}"
            assert not CLI_FLAG.search(text), f"{tool} names a CLI flag: {text}"  # the tool's own argument names
    assert nothing_started(project)
    assert not list(outside.glob("council-*"))


async def test_reading_a_missing_run_file_lists_the_ones_there(fake: FakeProvider, project: Path,
                                                               briefing: Path) -> None:
    async with in_process("legacy") as client:
        run_id = body(await client.call_tool("amicus_council_run", {
            "briefingFile": "briefing.md", "project": str(project), "ui": False, **council(fake)}))["runId"]
        await wait_until_terminal(client, run_id, project=str(project))
        missing = error_of(await client.call_tool("amicus_read", {"id": run_id, "file": "../run.json",
                                                                  "project": str(project)}))
    assert missing.startswith(f"BAD_ARGS: run {run_id} has no file '../run.json'") and "review-fake-a.md" in missing


# --------------------------------------------------------------------------- client and roots


async def test_claude_code_opens_the_workspace(fake: FakeProvider, project: Path, briefing: Path,
                                               monkeypatch: pytest.MonkeyPatch, reaper) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("BROWSER", "true")
    monkeypatch.setenv("DISPLAY", ":0")
    async with in_process("legacy", "claude-code") as client:
        started = body(await client.call_tool("amicus_council_run", {
            "briefingFile": "briefing.md", "project": str(project), **council(fake)}))
        reaper(Path(started["runDir"]) / "workspace.pid")
        await wait_until_terminal(client, started["runId"], project=str(project))
    assert started["workspaceOpened"] is True and "workspaceOpenReason" not in started
    assert (Path(started["runDir"]) / "workspace.pid").exists()


@MODES
async def test_other_clients_do_not_open_it_unless_asked(mode: str, fake: FakeProvider, project: Path,
                                                         briefing: Path, monkeypatch: pytest.MonkeyPatch,
                                                         reaper) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("BROWSER", "true")
    monkeypatch.setenv("DISPLAY", ":0")
    args = {"briefingFile": "briefing.md", "project": str(project), **council(fake)}
    async with in_process(mode, "claude-ai") as client:
        default = body(await client.call_tool("amicus_council_run", args))
        asked = body(await client.call_tool("amicus_council_run", {**args, "ui": True}))
        reaper(Path(asked["runDir"]) / "workspace.pid")
        for run in (default, asked):
            await wait_until_terminal(client, run["runId"], project=str(project))
    assert (default["workspaceOpened"], default["workspaceOpenReason"]) == (False, "client-not-code-local")
    assert asked["workspaceOpened"] is True


async def test_the_project_comes_from_the_clients_roots(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AMICUS_PROJECT_ROOTS")

    async def roots(context: Any) -> ListRootsResult:
        return ListRootsResult(roots=[Root(uri=FileUrl(project.as_uri()), name="project")])

    async with in_process("legacy", list_roots_callback=roots) as client:
        missing = error_of(await client.call_tool("amicus_status", {"id": "feedf00d"}))
        listed = body(await client.call_tool("amicus_list", {}))
    assert str(project / ".claude" / "amicus_sessions") in missing
    assert listed == {"items": []}
