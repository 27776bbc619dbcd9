"""`amicus watch`: the terminal view, `--json`, and `--ui` as a real subprocess."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from workspace_helpers import BENCH, Run
from fakeprovider import hang
from workspace_helpers import member, review, start_live_run, wait_for

from amicus_mcp.cli import main as cli_main
from amicus_mcp.cli.watch import wait_for_run
from amicus_mcp.engine.control import abort
from amicus_mcp.engine.run_dir import RunDir, write_pointer
from amicus_mcp.engine.store import SessionStore
from amicus_mcp.errors import BadSession
from amicus_mcp.workspace.snapshot import run_snapshot
from amicus_mcp.workspace.terminal import CLEAR, follow, render_frame


def amicus(*args: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "amicus_mcp.cli", *args], capture_output=True, text=True,
                          env=dict(os.environ), timeout=timeout, check=False)


def test_ui_with_json_fails_fast(project: Path) -> None:
    started = time.monotonic()
    done = amicus("watch", "--ui", "--json", "--project", str(project))
    assert time.monotonic() - started < 15
    envelope = json.loads(done.stdout)
    assert done.returncode == 1 and envelope["error"]["code"] == "BAD_ARGS"
    assert "no --json" in envelope["error"]["message"]


@pytest.mark.parametrize("argv, words", [
    (["watch"], "needs a RUN_ID"),
    (["watch", "done1", "--interval", "0"], "--interval must be a positive"),
    (["watch", "../x"], "is not a run id"),
    (["watch", "nope"], "no council run 'nope'"),
])
def test_bad_watch_arguments(project: Path, capsys: pytest.CaptureFixture[str], argv: list[str], words: str) -> None:
    assert cli_main([*argv, "--project", str(project)]) == 1
    assert words in capsys.readouterr().err


def test_watch_json_prints_the_snapshot(finished: Run, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["watch", "done1", "--json", "--project", str(finished.project)]) == 0
    snap = json.loads(capsys.readouterr().out)
    assert (snap["type"], snap["state"], snap["runId"]) == ("workspace-run", "ok", "done1")
    direct = run_snapshot(SessionStore(finished.project), "done1")
    assert snap == json.loads(json.dumps(direct | {"generatedAt": snap["generatedAt"]}))


def test_watch_in_the_terminal_shows_stages_and_seats(finished: Run, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["watch", "done1", "--project", str(finished.project)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Council run done1: complete · 7/7 legs done\n")
    assert "✓ stage1 → ✓ stage2 → ✓ tally → ✓ chair → ✓ verdict" in out
    seat_lines = [line for line in out.splitlines() if line.startswith("  fake/")]
    assert [line.split()[0] for line in seat_lines] == [*BENCH, "fake/chair"]
    assert all(" complete " in line and "$0.0" in line for line in seat_lines)
    assert "  VERDICT: Fix these first (chair fake/chair)" in out
    assert "  tiers: Disputed 1 · Contested 1 · Confirmed 2 · Singleton 0" in out
    assert "\x1b" not in out  # not a terminal: no redraw codes


def frame_of(**changes: Any) -> dict[str, Any]:
    seat = {"name": "x", "role": "seat", "status": "running", "stage": "stage1", "calls": 1, "lastActivity": None,
            "tokens": {"text": "—"}, "cost": {"text": "—"}, "stalled": False, "retries": 0, "dead": False}
    snap: dict[str, Any] = {"runId": "r1", "state": "ok", "live": True, "stages": [{"name": "stage1", "status": "running"}],
                            "header": {"status": "running", "currentStage": "stage1", "legsDone": 0, "legsTotal": 1},
                            "seats": [seat], "chair": {}, "cost": {"total": {"text": "—"}}, "stall": {}}
    seat.update(changes.pop("seat", {}))
    snap.update(changes)
    return snap


def test_the_terminal_view_cannot_be_driven_by_model_text() -> None:
    hostile = "evil\x1b[2J\x1b]0;title\x07\rname"
    frame = render_frame(frame_of(seat={"name": hostile, "dead": True, "deadReason": hostile},
                                  banners={"degrades": [{"channel": "stage1", "what": hostile, "why": hostile}]}))
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", frame)
    assert "evil?[2J?]0;title??name" in frame


def test_follow_redraws_on_change_and_stops_at_a_terminal_status() -> None:
    frames = iter([frame_of(), frame_of(), frame_of(seat={"status": "complete"}),
                   frame_of(live=False, header={"status": "complete", "legsDone": 1, "legsTotal": 1})])
    sleeps: list[float] = []

    class Out:
        text = ""

        def write(self, s: str) -> None:
            Out.text += s

        def flush(self) -> None:
            return

    last = follow(lambda: next(frames), Out(), interval_s=0.5, tty=True, sleep=sleeps.append)  # type: ignore[arg-type]
    assert last["live"] is False and sleeps == [0.5, 0.5, 0.5]
    assert Out.text.count(CLEAR) == 3  # the unchanged second read is not redrawn
    assert Out.text.rstrip().endswith("cost: —")


def start_ui(*args: str) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen([sys.executable, "-m", "amicus_mcp.cli", "watch", "--ui", "--no-open", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(os.environ))
    line = proc.stdout.readline()  # type: ignore[union-attr]
    match = re.match(r"Council Workspace: (http://127\.0\.0\.1:\d+/[A-Za-z0-9_-]{32}/)(\?run=\S+)?$", line.strip())
    assert match, line + proc.stderr.read()  # type: ignore[union-attr]
    return proc, match.group(1)


def post(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(urllib.request.Request(url, data=b"{}", method="POST"), timeout=10) as response:
        return json.loads(response.read())


def test_ui_serves_folds_to_its_terminal_and_exits_when_idle(finished: Run) -> None:
    proc, base = start_ui("done1", "--project", str(finished.project), "--idle-exit", "1.5")
    try:
        with urllib.request.urlopen(base + "api/runs/done1", timeout=10) as response:
            assert json.loads(response.read())["header"]["overallVerdict"] == "Fix these first"
        assert post(base + "api/runs/done1/fold")["folded"] is True
        assert post(base + "api/runs/done1/fold")["alreadyFolded"] is True
        out, err = proc.communicate(timeout=20)  # exits by itself: finished, and idle
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    assert out.count("[AMICUS_FOLD:") == 1 and out.count("[/AMICUS_FOLD:") == 1
    assert (finished.run_dir / "fold.md").read_text(encoding="utf-8") in out


def test_ui_fails_fast_on_an_unknown_run(project: Path) -> None:
    done = amicus("watch", "--ui", "nope", "--no-open", "--project", str(project), "--wait-for-run", "0")
    assert done.returncode == 1 and "no council run 'nope'" in done.stderr


def appear(finished: Run, tmp_path: Path, run_id: str) -> None:
    """A run `run_id` (a copy of the finished one) shows up in the finished run's project."""
    late = tmp_path / run_id
    late.mkdir()
    (late / "run.json").write_text((finished.run_dir / "run.json").read_text(encoding="utf-8"), encoding="utf-8")
    write_pointer(SessionStore(finished.project), run_id, RunDir(late))


def test_ui_waits_for_a_run_that_is_about_to_start(finished: Run, tmp_path: Path) -> None:
    """The wait itself, on a clock the test moves: not there at the first look, there at the next."""
    looks: list[float] = []
    clock = [0.0]

    def sleep(seconds: float) -> None:
        looks.append(seconds)
        clock[0] += seconds
        if len(looks) == 2:
            appear(finished, tmp_path, "soon")

    wait_for_run(SessionStore(finished.project), "soon", timeout_s=30, sleep=sleep, clock=lambda: clock[0])
    assert looks == [0.2, 0.2]
    with pytest.raises(BadSession, match="no council run 'never'"):
        wait_for_run(SessionStore(finished.project), "never", timeout_s=1, sleep=sleep, clock=lambda: clock[0])


def test_ui_serves_a_run_that_appears_after_it_started(finished: Run, tmp_path: Path) -> None:
    proc = subprocess.Popen([sys.executable, "-m", "amicus_mcp.cli", "watch", "--ui", "late", "--no-open",
                             "--project", str(finished.project), "--idle-exit", "0.5"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(os.environ))
    try:
        appear(finished, tmp_path, "late")
        line = wait_for(proc.stdout.readline, what="the URL")  # type: ignore[union-attr]
        assert line.startswith("Council Workspace: http://127.0.0.1:") and line.strip().endswith("?run=late")
        proc.communicate(timeout=20)
    finally:
        proc.kill()
    assert proc.returncode == 0


def test_watch_follows_a_live_run_until_it_ends(fake, brief: Path, project: Path, tmp_path: Path) -> None:
    member(fake, "alpha", review_text=review("alpha prose", [("major", "alpha claim", "x")]))
    member(fake, "bravo", review_text="unused", stage1=hang(60))
    run_dir = tmp_path / "live"
    run = start_live_run(brief, run_dir, project, "fake/alpha,fake/bravo", "live2")
    try:
        wait_for(lambda: fake.prompts("bravo"), what="the hanging seat's request")
        with subprocess.Popen([sys.executable, "-m", "amicus_mcp.cli", "watch", "live2", "--project", str(project),
                               "--interval", "0.2", "--stall-after", "0.5"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(os.environ)) as watcher:
            try:
                first = wait_for(watcher.stdout.readline, what="the first frame")  # type: ignore[union-attr]
                assert first.startswith("Council run live2: running · stage stage1")
                lines: list[str] = []  # the hung seat goes idle past --stall-after: a STALLED frame is printed
                if "STALLED" not in first:  # a watcher slow to start (a loaded machine) draws it first
                    wait_for(lambda: lines.append(watcher.stdout.readline()) or "STALLED" in lines[-1],  # type: ignore[union-attr]
                             what="a STALLED frame")
                abort(SessionStore(project), "live2")
                assert watcher.wait(timeout=30) == 0, watcher.stderr.read()  # type: ignore[union-attr]
                out = "".join(lines) + watcher.stdout.read()  # type: ignore[union-attr]  # (communicate() would skip what readline buffered)
            finally:
                watcher.kill()
    finally:
        run.kill()
        run.communicate()
    frames = re.split(r"^(?=Council run )", first + out, flags=re.M)[1:]
    assert "STALLED: no leg activity for 0.5s or more" in first + out
    assert len(frames) >= 2 and all(frame.endswith("\n\n") for frame in frames)  # a blank line after each frame
    last = frames[-1]
    assert last.startswith("Council run live2: aborted")
    assert "✗ stage1" in last and "no chair verdict: the run ended (aborted) before the chair gave a verdict" in last
