"""Issue 19 over MCP (in-process client, a real spawned engine, the loopback fake):

11  a killed council run reads as ended in amicus_list (the first reader), amicus_status lists no
    in-flight leg as running, amicus_wait returns at once — the engine's one liveness check
15  a run directory (inside the project) works wherever a run id does: status, wait, read, abort
5   amicus_read's default text (the Markdown report) shows each finding's claim and location
6   amicus_verdict into the run's own directory keeps the chair's verdict
"""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import anyio
import pytest
from council_script import VERDICT, council
from fakeprovider import FakeProvider
from mcp_helpers import body, in_process, unfenced, wait_until_terminal
from polling import read_run_json

from amicus_mcp.fsio import pid_alive

pytestmark = pytest.mark.anyio


async def test_a_killed_run_reads_as_ended_and_its_directory_names_it(fake: FakeProvider, project: Path,
                                                                      briefing: Path) -> None:
    async with in_process("auto") as client:
        started = body(await client.call_tool("amicus_council_run", {
            "briefingFile": "briefing.md", "project": str(project), "ui": False, **council(fake, delay_s=60)}))
        run_id, run_dir = started["runId"], Path(started["runDir"])
        with anyio.fail_after(60):  # both reviews in flight, and run.json says so
            while [leg.get("status") for leg in (read_run_json(run_dir) or {}).get("legs", [])] != ["running"] * 2:
                await anyio.sleep(0.05)
        pid = int((run_dir / "spawn.pid").read_text(encoding="utf-8"))
        os.kill(pid, signal.SIGKILL)
        with anyio.fail_after(30):
            while pid_alive(pid):
                await anyio.sleep(0.05)

        listed = body(await client.call_tool("amicus_list", {"project": str(project)}))
        status = body(await client.call_tool("amicus_status", {"id": str(run_dir), "project": str(project)}))
        by_name = body(await client.call_tool("amicus_wait", {"id": run_dir.name, "project": str(project)}))
        read = body(await client.call_tool("amicus_read", {"id": str(run_dir), "file": "run.json", "project": str(project)}))
        aborted = body(await client.call_tool("amicus_abort", {"id": str(run_dir), "project": str(project)}))

    assert [(item["id"], item["status"]) for item in listed["items"]] == [(run_id, "error")]
    assert (status["status"], status["terminal"], status["resumable"]) == ("error", True, True)
    assert [leg["status"] for leg in status["legs"]] == ["crashed", "crashed"]
    assert (by_name["status"], by_name["terminal"], by_name["timedOut"]) == ("error", True, False)
    assert '"status": "crashed"' in unfenced(read["text"]) and read["source"] == "run.json"
    assert (aborted["alreadyTerminal"], aborted["status"]) == (True, "error")


async def test_the_default_read_of_a_run_shows_what_each_finding_claims(fake: FakeProvider, project: Path,
                                                                        briefing: Path) -> None:
    async with in_process("auto") as client:
        run_id = body(await client.call_tool("amicus_council_run", {
            "briefingFile": "briefing.md", "project": str(project), "ui": False, **council(fake)}))["runId"]
        done, _ = await wait_until_terminal(client, run_id, project=str(project), slice_s=1.0)
        report = body(await client.call_tool("amicus_read", {"id": run_id, "project": str(project)}))
        # Re-deciding into the run's own directory keeps its chair's verdict (item 6, the MCP face).
        run_dir = Path(done["report"]).parent
        record = json.loads((run_dir / "tally.json").read_text(encoding="utf-8"))
        redo = body(await client.call_tool("amicus_verdict", {
            "record": record, "decisions": [{"id": "A1", "decision": "accepted"}], "render": True,
            "outDir": run_dir.name, "project": str(project)}))
    assert redo["verdict"]["overallVerdict"] == VERDICT and redo["verdict"]["findings"][0]["decision"] == "accepted"
    assert "  - a claim 1\n  - location: section 2" in redo["markdown"]
    assert f"Chair verdict: {VERDICT}" in (run_dir / "report.html").read_text(encoding="utf-8")
    text = unfenced(report["text"])
    assert report["source"] == "report" and text.startswith("# Council Report")
    for line in ("- **A1** (major, raiser fake/a) — a1/d0/n0\n  - a claim 1\n  - location: section 2",
                 "- **B1** (major, raiser fake/b) — a1/d0/n0\n  - b claim 1\n  - location: section 2",
                 "- **B2** (major, raiser fake/b) — a1/d0/n0\n  - b claim 2\n  - location: section 2"):
        assert line in text
