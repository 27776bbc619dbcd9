"""`amicus_council_resume` in-process: an aborted run continues in a detached worker and
finishes without re-sending a finished leg; a finished run or an unknown id is a tool error."""

from __future__ import annotations

import threading
from collections import Counter
from pathlib import Path
from typing import Any

import anyio
import pytest
from council_prompts import kind
from council_script import VERDICT, council
from fakeprovider import FakeProvider, by_prompt, chat, prompt_of, usage
from mcp_helpers import body, error_of, in_process, wait_until_terminal

from amicus_mcp.mcp.models import NEXT_RESUME
from amicus_mcp.schemas import schema_errors

pytestmark = pytest.mark.anyio


def held_chair(fake: FakeProvider, gate: threading.Event) -> None:
    """The chair answers only once `gate` is set (or the fake stops)."""

    def answer(body: Any) -> Any:
        while not gate.is_set() and not fake.stopping.is_set():
            gate.wait(timeout=0.05)
        return chat(f"Synthesis: change the eviction policy.\n\nVERDICT: {VERDICT}\n", usage=usage(200, 80, cost=0.003))

    fake.respond("chair", by_prompt(kind, {"chair": answer}))


def asked(fake: FakeProvider) -> Counter[tuple[str, str]]:
    return Counter((r.body["model"], kind(prompt_of(r.body))) for r in fake.chat_requests())


async def test_abort_then_resume_over_mcp(fake: FakeProvider, project: Path, briefing: Path) -> None:
    gate = threading.Event()
    args = council(fake)
    held_chair(fake, gate)
    where = {"project": str(project)}
    async with in_process("auto") as client:
        started = body(await client.call_tool("amicus_council_run", {
            "briefingFile": "briefing.md", "ui": False, **where, **args}))
        run_id, run_dir = started["runId"], Path(started["runDir"])
        with anyio.fail_after(60):
            while body(await client.call_tool("amicus_status", {"id": run_id, **where})).get("stage") != "chair":
                await anyio.sleep(0.1)
        body(await client.call_tool("amicus_abort", {"id": run_id, **where}))
        stopped, _ = await wait_until_terminal(client, run_id, **where)
        gate.set()
        resumed = body(await client.call_tool("amicus_council_resume", {"id": run_id, **where}))
        done, _ = await wait_until_terminal(client, run_id, **where)
        again = await client.call_tool("amicus_council_resume", {"id": run_id, **where})
        unknown = await client.call_tool("amicus_council_resume", {"id": "nosuchrun", **where})

    assert (stopped["status"], stopped["resumable"], stopped["next"]) == ("aborted", True, NEXT_RESUME)
    assert (resumed["runId"], resumed["runDir"], resumed["status"]) == (run_id, str(run_dir), "running")
    assert (done["status"], done["overallVerdict"]) == ("complete", VERDICT) and "resumable" not in done
    run = __import__("json").loads((run_dir / "run.json").read_text(encoding="utf-8"))
    assert schema_errors(run, "council-run") == []
    assert [(r["fromStatus"], r["stage"], r["legsReused"]) for r in run["resumes"]] == [("aborted", "chair", 4)]
    # Reviews and judgements were asked once; only the chair leg in flight at the abort was asked again.
    assert asked(fake) == Counter({("a", "stage1"): 1, ("b", "stage1"): 1, ("a", "judge"): 1, ("b", "judge"): 1,
                                   ("chair", "chair"): 2})
    assert "BAD_ARGS" in error_of(again) and "finished (complete)" in error_of(again)
    assert "BAD_ARGS" in error_of(unknown) and "nosuchrun" in error_of(unknown)


async def test_a_resume_over_mcp_raises_the_ceiling_it_is_given(fake: FakeProvider, project: Path,
                                                               briefing: Path) -> None:
    """Issue 27 item 23: `maxCost` raises the run's ceiling (options.json, run.json), and a
    ceiling a resume would not raise is BAD_ARGS in the tool's own argument name."""
    gate = threading.Event()
    args = council(fake)
    held_chair(fake, gate)
    where = {"project": str(project)}
    async with in_process("auto") as client:
        started = body(await client.call_tool("amicus_council_run", {
            "briefingFile": "briefing.md", "ui": False, "maxCost": 5, **where, **args}))
        run_id, run_dir = started["runId"], Path(started["runDir"])
        with anyio.fail_after(60):
            while body(await client.call_tool("amicus_status", {"id": run_id, **where})).get("stage") != "chair":
                await anyio.sleep(0.1)
        body(await client.call_tool("amicus_abort", {"id": run_id, **where}))
        await wait_until_terminal(client, run_id, **where)
        gate.set()
        lower = await client.call_tool("amicus_council_resume", {"id": run_id, "maxCost": 2, **where})
        body(await client.call_tool("amicus_council_resume", {"id": run_id, "maxCost": 7.5, **where}))
        await wait_until_terminal(client, run_id, **where)

    assert "BAD_ARGS" in error_of(lower) and "maxCost 2.0 does not raise" in error_of(lower)
    assert "--max-cost" not in error_of(lower)
    run = __import__("json").loads((run_dir / "run.json").read_text(encoding="utf-8"))
    assert schema_errors(run, "council-run") == []
    assert run["options"]["maxCost"] == 7.5 and run["resumes"][-1]["maxCost"] == 7.5
    assert __import__("json").loads((run_dir / "options.json").read_text(encoding="utf-8"))["maxCost"] == 7.5
    assert run["status"] in ("complete", "partial") and run["overallVerdict"] == VERDICT
