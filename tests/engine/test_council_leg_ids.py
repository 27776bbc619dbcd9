"""Issue 19 item 20 through the CLI: a council run's leg ids (`RUN-s1-2`, as its status lists
them) are ids like any other — status shows the leg, wait returns once it is over — and a leg
that was in flight when its engine was killed reads as crashed, not as running forever."""

from __future__ import annotations

from pathlib import Path

from test_run_readers import amicus, as_json, killed_mid_stage1


def test_a_killed_runs_legs_read_by_their_ids(fake, brief: Path, run_dir: Path, project: Path) -> None:
    rid = killed_mid_stage1(fake, brief, run_dir, project)
    where = ("--project", str(project))

    done = as_json(amicus("status", f"{rid}-s1-1", "--json", *where))
    assert (done["taskId"], done["runId"], done["stage"], done["role"]) == (f"{rid}-s1-1", rid, "stage1", "seat")
    assert done["status"] == "complete" and isinstance(done["summary"], str) and done["summary"].strip()

    crashed = as_json(amicus("status", f"{rid}-s1-2", "--json", *where))
    assert (crashed["status"], crashed["runStatus"], crashed["error"]["code"]) == ("crashed", "error", "CRASHED")
    assert crashed["summary"] is None

    waited = amicus("wait", f"{rid}-s1-2", "--timeout", "30", "--json", *where, timeout=20)
    assert as_json(waited)["timedOut"] is False  # over at once: nothing runs it any more

    unknown = amicus("status", f"{rid}-s1-9", *where)
    assert unknown.returncode == 1 and f"no council run, wave or leg '{rid}-s1-9'" in unknown.stderr
