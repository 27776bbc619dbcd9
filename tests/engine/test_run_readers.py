"""Issue 19, items 11, 12 and 15: how the readers of a run see it, end to end through the CLI.

One liveness check serves every reader: a run killed with SIGKILL reads as ended (`error`), its
in-flight legs as `crashed`, whichever reader looks first — `amicus watch --json` (the workspace's
view), `amicus list`, `amicus status`, `amicus wait`. `amicus wait` exits with the outcome of what
it waited on. A run directory works wherever a run id does.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from council_helpers import check_documents, member
from fakeprovider import error, hang
from polling import read_run_json, wait_for

from amicus_mcp.engine.run_state import ENGINE_DIED, LEG_DIED
from amicus_mcp.schemas import schema_errors


def amicus(*args: str, cwd: Path | None = None, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "amicus_mcp.cli", *args], capture_output=True, text=True,
                          env=dict(os.environ), cwd=cwd, timeout=timeout, check=False)


def as_json(done: subprocess.CompletedProcess[str]) -> Any:
    return json.loads(done.stdout)


def start(brief: Path, run_dir: Path, project: Path, models: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "amicus_mcp.cli", "council", "run", "--models", models,
                             "--chair", "fake/chair", "--prompt-file", str(brief), "--out-dir", str(run_dir),
                             "--project", str(project), "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(os.environ))


def killed_mid_stage1(fake: Any, brief: Path, run_dir: Path, project: Path) -> str:
    """A run whose engine was SIGKILLed while seat b's review was in flight: its run id."""
    member(fake, "a")
    member(fake, "b", stage1=hang(60))
    proc = start(brief, run_dir, project, "fake/a,fake/b")
    try:
        wait_for(lambda: fake.prompts("b"), what="the hanging seat's request")
        legs = lambda: {leg["model"]: leg["status"] for leg in (read_run_json(run_dir) or {}).get("legs", [])}  # noqa: E731
        wait_for(lambda: legs() == {"fake/a": "complete", "fake/b": "running"}, what="b's leg in flight")
    finally:
        proc.kill()
        proc.communicate(timeout=30)  # reaped: its pid no longer exists
    assert proc.returncode == -signal.SIGKILL
    assert read_run_json(run_dir)["status"] == "running"  # nobody could record anything
    return str(read_run_json(run_dir)["runId"])


# --------------------------------------------------------------------------- 11. one liveness check


def test_a_killed_run_reads_as_ended_in_every_reader_first_look_included(fake, brief, run_dir, project):
    rid = killed_mid_stage1(fake, brief, run_dir, project)
    where = ("--project", str(project))

    # The workspace's view (read-only): ended, the in-flight seat crashed — nothing written yet.
    watched = as_json(amicus("watch", rid, "--json", *where))
    assert (watched["header"]["status"], watched["header"]["crashDetected"], watched["live"]) == ("error", True, False)
    seat_b = next(row for row in watched["seats"] if row["key"] == "fake/b")
    assert (seat_b["status"], seat_b["dead"], seat_b["error"]["code"]) == ("crashed", True, "CRASHED")
    assert read_run_json(run_dir)["status"] == "running"

    # `amicus list` no longer shows the dead run as running (it only reads: amicus_list is read-only).
    listed = amicus("list", "--json", *where)
    assert listed.returncode == 0, listed.stderr
    assert [(i["id"], i["status"]) for i in as_json(listed)["items"]] == [(rid, "error")]
    assert "running  " not in amicus("list", *where).stdout
    assert read_run_json(run_dir)["status"] == "running"

    # status records what the check found, in-flight legs included, and lists no leg as running.
    snap = as_json(amicus("status", rid, "--json", *where))
    run = check_documents(run_dir)
    assert (run["status"], run["exitCode"], run["error"]) == ("error", 1, {"code": "INTERNAL", "message": ENGINE_DIED})
    assert {leg["model"]: leg["status"] for leg in run["legs"]} == {"fake/a": "complete", "fake/b": "crashed"}
    crashed = next(leg for leg in run["legs"] if leg["model"] == "fake/b")
    assert crashed["error"] == {"code": "CRASHED", "message": LEG_DIED} and crashed["completedAt"] is None
    assert [(s["name"], s["status"]) for s in run["stages"]] == [("stage1", "error")]

    assert [leg["status"] for leg in snap["legs"]] == ["complete", "crashed"]
    # A crashed leg is not done; the total is the run's whole plan (2 seats, 2 judges, the chair).
    assert (snap["legsComplete"], snap["legsTotal"]) == (1, 5)
    human = amicus("status", rid, *where).stdout
    assert human.startswith(f"Council run {rid}: error (1/5 legs done; 4 left undone)")
    assert "running" not in human and human.count(" crashed") == 1
    # ... and wait says the same at once, with the exit code of a failed run (item 12).
    waited = amicus("wait", rid, "--json", "--timeout", "5", *where)
    assert (waited.returncode, as_json(waited)["status"], as_json(waited)["timedOut"]) == (1, "error", False)


# --------------------------------------------------------------------------- 12. wait's exit codes


def test_wait_exits_with_the_runs_outcome_and_its_own_code_on_timeout(fake, brief, run_dir, project, tmp_path):
    where = ("--project", str(project))
    member(fake, "a")
    member(fake, "b")
    member(fake, "chair")
    done = amicus("council", "run", "--models", "fake/a,fake/b", "--chair", "fake/chair", "--prompt-file", str(brief),
                  "--out-dir", str(run_dir), "--project", str(project), "--json")
    assert done.returncode == 0, done.stderr
    complete = as_json(done)["runId"]
    assert amicus("wait", complete, *where).returncode == 0

    member(fake, "c", stage1=error(400, "seat crashed"))
    partial_dir = tmp_path / "partial"
    done = amicus("council", "run", "--models", "fake/a,fake/b,fake/c", "--chair", "fake/chair", "--prompt-file",
                  str(brief), "--out-dir", str(partial_dir), "--project", str(project), "--json")
    assert done.returncode == 2, done.stderr
    partial = amicus("wait", as_json(done)["runId"], "--json", *where)
    assert (partial.returncode, as_json(partial)["status"]) == (2, "partial")

    member(fake, "d", stage1=hang(60))
    proc = start(brief, tmp_path / "slow", project, "fake/a,fake/d")
    try:
        wait_for(lambda: fake.prompts("d"), what="the hanging seat's request")
        slow = str(read_run_json(tmp_path / "slow")["runId"])
        timed_out = amicus("wait", slow, "--timeout", "0.3", *where)
        assert timed_out.returncode == 3, timed_out.stderr
        assert "still running after" in timed_out.stdout and f"'amicus wait {slow}' again" in timed_out.stdout
        as_doc = amicus("wait", slow, "--timeout", "0.3", "--json", *where)
        assert (as_doc.returncode, as_json(as_doc)["timedOut"]) == (3, True)
        # An aborted run is a failed outcome, as a crashed one is (see the liveness test).
        assert amicus("abort", slow, *where).returncode == 0
        proc.communicate(timeout=30)
        assert amicus("wait", slow, "--timeout", "5", *where).returncode == 1
    finally:
        proc.kill()


# --------------------------------------------------------------------------- 15. a run directory for an id


def test_a_run_directory_works_wherever_a_run_id_does(fake, brief, run_dir, project, tmp_path):
    rid = killed_mid_stage1(fake, brief, run_dir, project)
    elsewhere = tmp_path / "elsewhere"  # not the project: the directory alone names the run
    elsewhere.mkdir()

    by_dir = amicus("status", str(run_dir), "--json", cwd=elsewhere)
    assert by_dir.returncode == 0, by_dir.stderr
    snap = as_json(by_dir)
    assert (snap["runId"], snap["status"], snap["resumable"]) == (rid, "error", True)
    # The resume command status prints is in directory form, and that very form is accepted back.
    assert snap["resumeCommand"] == f"amicus council resume {run_dir.resolve()}"
    human = amicus("status", str(run_dir), cwd=elsewhere).stdout
    assert f"resumable (nothing it finished is sent again): amicus council resume {run_dir.resolve()}" in human
    relative = amicus("status", run_dir.name, "--json", cwd=run_dir.parent)
    assert as_json(relative)["runId"] == rid
    waited = amicus("wait", str(run_dir), "--json", "--timeout", "1", cwd=elsewhere)
    assert (waited.returncode, as_json(waited)["runId"]) == (1, rid)
    aborted = amicus("abort", str(run_dir), "--json", cwd=elsewhere)
    assert as_json(aborted) == {"id": str(run_dir), "alreadyTerminal": True, "status": "error"}

    # A directory that is not a run's is refused in those words, not as a bad id.
    refused = amicus("status", str(elsewhere), "--json")
    envelope = as_json(refused)
    assert refused.returncode == 1 and schema_errors(envelope, "error") == []
    assert envelope["error"]["code"] == "BAD_ARGS"
    assert envelope["error"]["message"] == f"'{elsewhere}' is a directory but not a council run directory (it holds no run.json)"
    missing = as_json(amicus("status", str(tmp_path / "nope"), "--json"))
    assert missing["error"]["code"] == "BAD_SESSION" and "no council run directory" in missing["error"]["message"]
