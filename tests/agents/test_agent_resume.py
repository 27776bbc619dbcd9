"""A run with an agent seat, SIGKILLed mid-way and resumed, reuses the agent's finished legs from
the leg cache exactly as it reuses a model's: Claude Code is not asked again."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from council_helpers import BRIEF, kind, member, member_responder
from fakeprovider import hang, prompt_of
from polling import read_run_json, wait_for


def amicus(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "amicus_mcp.cli", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=dict(os.environ))


def test_a_killed_run_resumes_without_asking_the_agent_again(fake, claude, tmp_path, project):
    brief = tmp_path / "briefing.md"
    brief.write_text(BRIEF, encoding="utf-8")
    member(fake, "a")
    member(fake, "b")
    holding = threading.Event()
    holding.set()
    chair = member_responder("chair")

    def held_chair(body: Any) -> Any:
        return hang(120) if holding.is_set() and kind(prompt_of(body)) == "chair" else chair(body)

    fake.respond("chair", held_chair)
    seat = claude("c")
    run_dir = tmp_path / "run"
    proc = amicus("council", "run", "--prompt-file", str(brief), "--models", "fake/a,fake/b,cli:claude",
                  "--chair", "fake/chair", "--project", str(project), "--out-dir", str(run_dir), "--json")
    try:
        wait_for(lambda: any(leg["stage"] == "chair" and leg["status"] == "running"
                             for leg in (read_run_json(run_dir) or {}).get("legs", [])), timeout=120,
                 what="the chair leg")
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=30)
    finally:
        proc.kill()
    asked_before = list(seat.prompts)
    assert [kind(p) for p in asked_before] == ["stage1", "judge"]
    holding.clear()
    done = subprocess.run([sys.executable, "-m", "amicus_mcp.cli", "council", "resume", str(run_dir), "--project",
                           str(project), "--json"], capture_output=True, text=True, env=dict(os.environ), timeout=120)
    assert done.returncode == 0, done.stderr
    run = json.loads(done.stdout)
    assert run["status"] == "complete"
    assert seat.prompts == asked_before  # both agent legs came from the leg cache
    assert [r["stage"] for r in run["resumes"]] == ["chair"]
