"""Issue 13 items 2 and 9 in the engine: a model reply quoting a configured key is masked
before it is written or forwarded to the other models, and a killed write's `.tmp-*` files
are swept when the run or wave is finalized or found crashed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from council_helpers import member, review
from fakeprovider import chat

from amicus_mcp.documents.legs import LegRun
from amicus_mcp.documents.run import RunManifest
from amicus_mcp.documents.wave import Wave
from amicus_mcp.engine.run_dir import RunDir
from amicus_mcp.engine.run_state import RunState
from amicus_mcp.engine.status import wave_status
from amicus_mcp.engine.store import SessionStore
from amicus_mcp.fsio import atomic_write_json, sweep_temp_files

CANARY = "sk-or-v1-SECRETCANARY12345678"


def _everything_under(root: Path) -> str:
    return "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in root.rglob("*") if p.is_file())


@pytest.mark.anyio
async def test_a_reply_quoting_a_configured_key_is_masked_everywhere(fake, council, run_dir, project,
                                                                      monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("OPENROUTER_API_KEY", CANARY)  # configured, though this bench never uses it
    leaky = review("north").replace("The north reviewer", f"The north reviewer saw {CANARY} and")
    member(fake, "a", stage1=chat(leaky, model="vendor/a-1"))
    member(fake, "b", tag="south")
    member(fake, "chair", chair=chat(f"Synthesis: {CANARY} is exposed.\n\nVERDICT: Fix these first"))
    run, code = await council(["fake/a", "fake/b"])
    assert code == 0, run.get("error")
    assert "SECRETCANARY" not in _everything_under(run_dir)
    assert "SECRETCANARY" not in _everything_under(project)
    later = [p for p in fake.prompts() if "Review A" in p or "chair" in p.lower()]
    assert later and all("SECRETCANARY" not in p for p in fake.prompts())  # never forwarded
    assert "saw *** and" in (run_dir / "review-fake-a.md").read_text(encoding="utf-8")


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_finalize_sweeps_temp_files_of_dead_writers_only(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    abandoned = run_dir / f".tmp-report.html.{_dead_pid()}.abc123xy"
    legacy = run_dir / ".tmp-run.json.q1w2e3r4"  # a name from before writers recorded their pid
    live = run_dir / f".tmp-verdict.json.{os.getppid()}.zz99yy88"  # a living writer (our parent)
    mine = run_dir / f".tmp-tally.json.{os.getpid()}.aa11bb22"
    for path in (abandoned, legacy, live, mine):
        path.write_text("partial", encoding="utf-8")
    state = RunState(RunDir(run_dir), RunManifest(run_id="r", status="running", stages=[], bench=["a", "b"], chair="c"))
    state.finalize(1, error={"code": "INTERNAL", "message": "engine died"})
    left = {p.name for p in run_dir.iterdir()}
    assert left == {"run.json", live.name, mine.name}


def test_a_crashed_wave_is_swept(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    leg = {"schemaVersion": 2, "type": "run", "taskId": "w1-1", "waveId": "w1", "status": "running",
           "model": None, "modelInput": "fake/a", "summary": None, "error": None, "createdAt": "x",
           "completedAt": None, "durationMs": None, "usage": None}
    store.write_leg(LegRun.model_validate(leg))
    store.write_wave(Wave.model_validate({
        "schemaVersion": 2, "type": "wave", "waveId": "w1", "status": "running", "error": None,
        "counts": {"total": 1, "complete": 0, "error": 0, "timeout": 0, "aborted": 0}, "legs": [leg], "prompt": None,
        "createdAt": "x", "completedAt": None, "durationMs": None, "usage": None, "notices": [], "pid": _dead_pid()}))
    leftovers = [store.session_dir(t) / f".tmp-output.md.{_dead_pid()}.k3y9m2n1" for t in ("w1", "w1-1")]
    for path in leftovers:
        path.write_text("1.6 MB of briefing, cut short", encoding="utf-8")
    assert wave_status(store, "w1").status == "crashed"
    assert not any(p.exists() for p in leftovers)


def test_atomic_writes_name_their_writer_and_leave_nothing(tmp_path: Path) -> None:
    atomic_write_json(tmp_path / "doc.json", {"a": 1})
    assert [p.name for p in tmp_path.iterdir()] == ["doc.json"]
    assert sweep_temp_files(tmp_path) == []
