"""engine/spawn.py: detached children, the flags that carry a run's options, the seeded manifest."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from amicus_mcp.engine.council_run import RunOptions
from amicus_mcp.engine.spawn import WaveRequest, cli_argv, council_flags, spawn_detached, wave_flags
from amicus_mcp.errors import BadArgs, MissingPrompt


def test_a_detached_child_has_its_own_session_and_is_reaped(tmp_path: Path) -> None:
    log = tmp_path / "logs" / "child.log"
    pid = spawn_detached([sys.executable, "-c", "import sys; print('out'); print('err', file=sys.stderr)"],
                         cwd=tmp_path, log_path=log)
    deadline = time.monotonic() + 30
    while _exists(pid):  # gone, not a zombie: the reaper thread collected it
        assert time.monotonic() < deadline, "the finished child was never reaped"
        time.sleep(0.02)
    assert log.read_text().split() == ["out", "err"]


def test_a_detached_child_does_not_share_our_session(tmp_path: Path) -> None:
    pid = spawn_detached([sys.executable, "-c", "import time; time.sleep(30)"], cwd=tmp_path,
                         log_path=tmp_path / "sleep.log")
    try:
        assert os.getsid(pid) == pid != os.getsid(0)
    finally:
        os.kill(pid, 15)


def test_cli_argv_runs_this_interpreter() -> None:
    assert cli_argv("fanout", "--json") == [sys.executable, "-m", "amicus_mcp.cli", "fanout", "--json"]


def test_council_flags_carry_every_choice() -> None:
    options = RunOptions(prompt_file="b.md", models=["a", "b"], chair="c", max_cost=1.5, timeout_min=3,
                         gateway="direct", cost_gate=False, validate=False)
    assert council_flags(options) == ["--models", "a,b", "--chair", "c", "--max-cost", "1.5", "--timeout", "3.0",
                                      "--gateway", "direct", "--no-cost-gate", "--no-validate-model"]
    assert council_flags(RunOptions(prompt_file="b.md", council="budget")) == ["--council", "budget", "--timeout", "15.0"]
    optional = RunOptions(prompt_file="b.md", models=["a", "b"], critic="a", lenses=["x-y", "z"], debate=True,
                          claude_review="mine.md")
    assert council_flags(optional)[4:] == ["--critic", "a", "--lenses", "x-y,z", "--debate",
                                           "--claude-review", str(Path("mine.md").resolve())]


def test_wave_flags() -> None:
    request = WaveRequest(project=Path("/p"), council="free", timeout_min=2, gateway="openrouter")
    assert wave_flags(request) == ["--council", "free", "--timeout", "2.0", "--gateway", "openrouter"]


@pytest.mark.anyio
async def test_the_seeded_manifest_is_a_valid_running_council_run(fake, project: Path, briefing: Path) -> None:  # type: ignore[no-untyped-def]
    from amicus_mcp.engine.council_run import prepare
    from amicus_mcp.engine.spawn import seed_manifest
    from amicus_mcp.schemas import schema_errors

    prep = await prepare(RunOptions(prompt_file=str(briefing), models=["fake/a", "fake/b"], chair="fake/chair",
                                    critic="fake/b", project=str(project), out_dir=str(project / "run"), run_id="abcd1234"))
    doc = seed_manifest(prep)
    assert schema_errors(doc, "council-run") == []
    assert (doc["runId"], doc["status"], doc["bench"], doc["critic"]) == ("abcd1234", "running", ["fake/a", "fake/b"], "fake/b")
    assert "pid" not in doc  # the engine writes its own pid; until then readers use spawn.pid


@pytest.mark.anyio
async def test_a_wave_needs_exactly_one_prompt(tmp_path: Path, config_dir: Path) -> None:
    from amicus_mcp.engine.spawn import start_wave

    with pytest.raises(BadArgs, match="exactly one"):
        await start_wave(WaveRequest(project=tmp_path, models=["fake/a"], prompt="x", prompt_file="y"))
    with pytest.raises(MissingPrompt):
        await start_wave(WaveRequest(project=tmp_path, models=["fake/a"], prompt="   "))
    assert not (tmp_path / ".claude").exists()  # refused before anything was written


def _exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True
