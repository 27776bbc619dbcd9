"""Agent legs beyond their CLI's concurrency limit wait their turn, and the run shows them
`queued` (run.json's leg status, the workspace's seat rows) until their CLI starts; the real Codex
CLI against its loopback fake."""

from __future__ import annotations

import json

import anyio
import pytest
from council_helpers import member
from fakeprovider import configure_fake

from amicus_mcp.engine.control import council_leg_status, is_terminal, run_status
from amicus_mcp.engine.run_dir import RunDir
from amicus_mcp.mcp.progress import progress

pytestmark = pytest.mark.anyio


async def test_legs_beyond_the_limit_show_queued_while_the_first_runs(fake, codex, council, run_dir, config_dir):
    configure_fake(config_dir, fake, extra={"agents": {"codex": {"concurrency": 1}}})
    member(fake, "chair")
    codex("x", hang_s=2.0)  # each leg holds its slot long enough for the sampler to see the queue
    seen: list[list[str]] = []  # the cli:codex legs' statuses, each time run.json was read
    waited: list[dict] = []  # what status/wait said of a queued leg, asked while it was queued

    async def watch() -> None:
        while True:
            await anyio.sleep(0.1)
            try:
                legs = json.loads((run_dir / "run.json").read_text(encoding="utf-8"))["legs"]
            except (OSError, ValueError, KeyError):
                continue
            seen.append([leg["status"] for leg in legs if leg["model"] == "cli:codex"])
            queued = [leg["id"] for leg in legs if leg["status"] == "queued"]
            if queued and not waited:
                rd = RunDir(run_dir)
                observation = council_leg_status(rd, run_status(rd), queued[0])
                terminal = is_terminal(observation)
                waited.append({"terminal": terminal, "done": progress(queued[0], observation, terminal=terminal).legs_done})

    async with anyio.create_task_group() as group:
        group.start_soon(watch)
        run, code = await council(["cli:codex", "cli:codex", "cli:codex"])
        group.cancel_scope.cancel()
    assert (code, run["status"]) == (0, "complete"), run.get("degrades")
    # One running, the other two queued behind it: the run said so while it happened.
    assert ["running", "queued", "queued"] in [sorted(s, key=["running", "queued"].index) for s in seen
                                             if set(s) <= {"running", "queued"} and len(s) == 3]
    # A queued leg is not finished: `wait` keeps waiting on it, and progress does not count it done.
    assert waited == [{"terminal": False, "done": 0}]
    legs = [leg for leg in run["legs"] if leg["model"] == "cli:codex"]
    assert {leg["status"] for leg in legs} == {"complete"}
    # A queued leg's own clock starts at its turn: no leg's duration holds another's.
    stage1 = sorted((leg for leg in legs if leg["stage"] == "stage1"), key=lambda leg: leg["startedAt"])
    assert stage1[0]["startedAt"] < stage1[1]["startedAt"] < stage1[2]["startedAt"]
