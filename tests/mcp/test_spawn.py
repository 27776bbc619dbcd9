"""engine/spawn.py: detached workers, the options document they read, the seeded manifest."""

from __future__ import annotations

import os
import re
import sys
import time
from pathlib import Path

import pytest

from amicus_mcp.engine.options import RunOptions, WaveOptions, read_options, write_options
from amicus_mcp.engine.run_dir import OPTIONS as OPTIONS_FILE
from amicus_mcp.engine.spawn import cli_argv, spawn_detached, worker_argv
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


def test_the_worker_is_started_on_a_directory_never_with_flags(tmp_path: Path) -> None:
    assert worker_argv(tmp_path) == [sys.executable, "-m", "amicus_mcp.engine.worker", str(tmp_path)]


def test_options_json_carries_every_choice_and_reads_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from amicus_mcp.schemas import schema_errors

    monkeypatch.chdir(tmp_path)
    options = RunOptions(prompt_file="b.md", models=["a", "b"], chair="c", max_cost=1.5, timeout_min=3,
                         gateway="direct", cost_gate=False, validate_models=False, critic="a", lenses=["x-y", "z"],
                         debate=True, claude_review="mine.md", out_dir="out", run_id="abcd1234")
    doc = options.document()
    assert schema_errors(doc, "council-run-options") == []
    assert doc == {"type": "council-run-options", "schemaVersion": 2, "models": ["a", "b"], "council": None,
                   "timeoutMinutes": 3.0, "gateway": "direct", "costGate": False, "validateModels": False,
                   "project": None, "promptFile": str(tmp_path / "b.md"), "chair": "c", "maxCost": 1.5,
                   "critic": "a", "lenses": ["x-y", "z"], "debate": True, "claudeReview": str(tmp_path / "mine.md"),
                   "allowSecrets": False, "template": None, "artifact": None, "vars": None, "pack": None,
                   "packRecord": None}
    write_options(tmp_path, options)
    back = read_options(tmp_path)
    assert isinstance(back, RunOptions) and back.document() == doc
    assert (back.run_id, back.out_dir) == (None, None)  # the run's identity lives in run.json

    wave = WaveOptions(council="free", timeout_min=2, gateway="openrouter", project=str(tmp_path))
    write_options(tmp_path, wave)
    assert schema_errors(wave.document(), "wave-options") == []
    assert read_options(tmp_path) == wave


def test_an_edited_options_file_is_refused(tmp_path: Path) -> None:
    from amicus_mcp.errors import BadSession

    (tmp_path / OPTIONS_FILE).write_text('{"type": "council-run-options", "schemaVersion": 2, "bogus": 1}')
    with pytest.raises(BadSession, match="not valid"):
        read_options(tmp_path)
    (tmp_path / OPTIONS_FILE).write_text('{"type": "something-else"}')
    with pytest.raises(BadSession, match="not a run-options document"):
        read_options(tmp_path)


def test_the_engine_starts_only_the_worker_never_a_cli_command_line() -> None:
    engine = Path(__file__).resolve().parents[2] / "src" / "amicus_mcp" / "engine"
    spawns = []
    for module in engine.glob("*.py"):
        text = module.read_text(encoding="utf-8")
        assert "cli_argv(" not in text.replace("def cli_argv(", ""), module.name  # no `amicus …` argv is built
        spawns += re.findall(r"spawn_detached\((\w+)\(", text)
    assert spawns and set(spawns) == {"worker_argv"}


@pytest.mark.anyio
async def test_the_seeded_manifest_is_a_valid_running_council_run(fake, project: Path, briefing: Path) -> None:  # type: ignore[no-untyped-def]
    from amicus_mcp.engine import prepare
    from amicus_mcp.engine.spawn import seed_manifest
    from amicus_mcp.schemas import schema_errors

    prep = await prepare(RunOptions(prompt_file=str(briefing), models=["fake/a", "fake/b"], chair="fake/chair",
                                    critic="fake/b", project=str(project), out_dir=str(project / "run"), run_id="abcd1234"))
    doc = seed_manifest(prep).to_doc()
    assert schema_errors(doc, "council-run") == []
    assert (doc["runId"], doc["status"], doc["bench"], doc["critic"]) == ("abcd1234", "running", ["fake/a", "fake/b"], "fake/b")
    assert "pid" not in doc  # the engine writes its own pid; until then readers use spawn.pid


@pytest.mark.anyio
async def test_a_wave_needs_exactly_one_prompt(tmp_path: Path, config_dir: Path) -> None:
    from amicus_mcp.engine.spawn import start_wave

    with pytest.raises(BadArgs, match="exactly one"):
        await start_wave(WaveOptions(project=str(tmp_path), models=["fake/a"], prompt_file="y"), prompt="x")
    with pytest.raises(MissingPrompt):
        await start_wave(WaveOptions(project=str(tmp_path), models=["fake/a"]), prompt="   ")
    assert not (tmp_path / ".claude").exists()  # refused before anything was written


def _exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True
