"""One options document, whichever front starts the run.

`amicus_council_run` and `amicus council run` each build the engine's RunOptions from their
own inputs; the run writes it as options.json and the detached worker reads it back. For the
same inputs the two documents are equal, and a worker-run council ends like a CLI one.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from mcp_helpers import body, error_of, in_process, wait_until_terminal
from council_script import council, wave

from amicus_mcp.schemas import schema_errors

pytestmark = pytest.mark.anyio


def load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


async def test_an_mcp_started_run_writes_the_options_a_cli_run_writes(fake, project, briefing):
    bench = council(fake)
    async with in_process("legacy") as client:
        started = body(await client.call_tool("amicus_council_run", {
            "briefingFile": "briefing.md", "project": str(project), "ui": False, "maxCost": 2.5, "debate": True,
            "timeoutMinutes": 3, "noValidateModel": True, **bench}))
        done, _ = await wait_until_terminal(client, started["runId"], project=str(project), slice_s=0.5)
    mcp_dir = Path(started["runDir"])
    assert done["status"] == "complete", done

    cli_dir = project / "cli-run"
    argv = ["council", "run", "--prompt-file", str(briefing), "--models", ",".join(bench["models"]),
            "--chair", bench["chair"], "--max-cost", "2.5", "--debate", "--timeout", "3",
            "--no-validate-model", "--project", str(project), "--out-dir", str(cli_dir), "--json"]
    done_cli = subprocess.run([sys.executable, "-m", "amicus_mcp.cli", *argv], capture_output=True, text=True,
                              timeout=120, check=False)  # a real process: the CLI owns its loop and signals
    assert done_cli.returncode == 0, done_cli.stdout + done_cli.stderr

    mcp_options, cli_options = load(mcp_dir / "options.json"), load(cli_dir / "options.json")
    assert schema_errors(mcp_options, "council-run-options") == []
    assert mcp_options == cli_options
    assert mcp_options["promptFile"] == str(briefing) and mcp_options["project"] == str(project)
    assert (mcp_options["maxCost"], mcp_options["debate"], mcp_options["timeoutMinutes"]) == (2.5, True, 3.0)
    # The worker briefed off the run directory's own copy, and wrote what a CLI run writes.
    assert (mcp_dir / "briefing.md").read_text() == briefing.read_text()
    assert {p.name for p in mcp_dir.glob("*.json")} == {p.name for p in cli_dir.glob("*.json")}
    assert load(mcp_dir / "tally.json")["tierCounts"] == load(cli_dir / "tally.json")["tierCounts"]


async def test_a_wave_started_over_mcp_records_its_options_for_the_worker(fake, project, briefing):
    wave(fake, "x", "y")
    async with in_process("legacy") as client:
        started = body(await client.call_tool("amicus_fanout", {
            "models": ["fake/x", "fake/y"], "prompt": "Say hello.", "timeoutMinutes": 2, "project": str(project)}))
        done, _ = await wait_until_terminal(client, started["waveId"], project=str(project), slice_s=0.5)
    wave_dir = project / ".claude" / "amicus_sessions" / started["waveId"]
    options = load(wave_dir / "options.json")
    assert schema_errors(options, "wave-options") == []
    assert (options["models"], options["timeoutMinutes"], options["promptFile"]) == (["fake/x", "fake/y"], 2.0, None)
    assert (wave_dir / "briefing.md").read_text() == "Say hello."
    assert done["status"] == "complete"


async def test_a_run_tagged_over_mcp_is_listed_and_counted_by_its_tag(fake, project, briefing):
    """Issue 20: the tag is one field of the options model — amicus_council_run takes it, run.json and
    the ledger record it, amicus_list and amicus_council_stats filter by it."""
    bench = council(fake)
    async with in_process("legacy") as client:
        refused = await client.call_tool("amicus_council_run", {"briefingFile": "briefing.md", "project": str(project),
                                                                "ui": False, "tag": "not a tag", **bench})
        started = body(await client.call_tool("amicus_council_run", {
            "briefingFile": "briefing.md", "project": str(project), "ui": False, "tag": "nightly",
            "noValidateModel": True, **bench}))
        done, _ = await wait_until_terminal(client, started["runId"], project=str(project), slice_s=0.5)
        listed = body(await client.call_tool("amicus_list", {"project": str(project), "tag": "nightly"}))
        other = body(await client.call_tool("amicus_list", {"project": str(project), "tag": "weekly"}))
        stats = body(await client.call_tool("amicus_council_stats", {"tag": "nightly"}))
    assert error_of(refused).startswith("BAD_ARGS: invalid arguments for amicus_council_run: tag: String should match")
    assert done["status"] == "complete"
    run = load(Path(started["runDir"]) / "run.json")
    assert run["tag"] == "nightly" and load(Path(started["runDir"]) / "options.json")["tag"] == "nightly"
    assert [(item["id"], item["tag"]) for item in listed["items"]] == [(started["runId"], "nightly")]
    assert other["items"] == []
    assert stats["tag"] == "nightly" and stats["models"] and all(m["runs"] == 1 for m in stats["models"])
