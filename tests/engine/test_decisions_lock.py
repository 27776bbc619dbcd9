"""The decisions memory (council-decisions.json) is one file every amicus process of the user
rewrites: verdicts taken at the same moment by separate processes (two Claude sessions, a CI job)
must all be remembered. Each process here remembers its own decisions, one verdict at a time,
all of them racing; none may be lost."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

WRITER = """
import sys
from pathlib import Path
from amicus_mcp.engine.decisions import remember
writer, rounds, project = sys.argv[1], int(sys.argv[2]), Path(sys.argv[3])
sys.stdout.write("ready\\n"); sys.stdout.flush(); sys.stdin.readline()  # every writer starts together
for n in range(rounds):
    run = f"run-{writer}-{n}"
    finding = {"id": "F1", "decision": "denied", "severity": "major"}
    remember({"runId": run, "findings": [finding]}, {"findings": [{"id": "F1", "claim": f"claim {run}"}]},
             [{"id": "F1", "reason": f"not a bug ({run})"}], project)
"""


def test_verdicts_taken_at_once_by_several_processes_are_all_remembered(config_dir: Path, tmp_path: Path) -> None:
    writers, rounds = 4, 25
    env = {**os.environ, "AMICUS_CONFIG_DIR": str(config_dir)}
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(w), str(rounds), str(tmp_path)], env=env, text=True,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for w in range(writers)]
    for proc in procs:
        assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    doc = json.loads((config_dir / "council-decisions.json").read_text(encoding="utf-8"))
    runs = sorted(e["runId"] for e in doc["decisions"])
    assert runs == sorted(f"run-{w}-{n}" for w in range(writers) for n in range(rounds))


def test_a_lock_held_too_long_is_a_clear_error_not_a_hang(tmp_path: Path) -> None:
    from filelock import FileLock

    from amicus_mcp.errors import BadSession
    from amicus_mcp.fsio import locked

    target = tmp_path / "council-decisions.json"
    with FileLock(str(target) + ".lock"):  # another process's hold, as far as this one can tell
        with pytest.raises(BadSession, match="stayed locked by another amicus process") as caught:
            with locked(target, timeout_s=0.2):
                pass
    assert caught.value.hint is not None and f"{target}.lock" in caught.value.hint
