"""Fanout waves end to end against a real loopback provider."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest
from fakeprovider import chat, error, hang, malformed, rate_limited, usage

from amicus_mcp.engine import fanout as engine
from amicus_mcp.engine.options import WaveOptions
from amicus_mcp.engine.status import status_of
from amicus_mcp.engine.store import SessionStore
from amicus_mcp.errors import BadArgs, MissingPrompt
from amicus_mcp.schemas import schema_errors

pytestmark = pytest.mark.anyio


async def fanout(**options):  # type: ignore[no-untyped-def]
    """The engine's wave, from its options as keywords: (wave.json as written, exit code)."""
    wave, code = await engine.fanout(WaveOptions(**options))
    return wave.to_doc(), code


@pytest.fixture
def prompt(tmp_path: Path) -> Path:
    path = tmp_path / "prompt.md"
    path.write_text("Review this design.\n", encoding="utf-8")
    return path


def assert_documents_valid(store: SessionStore, wave: dict) -> None:
    assert schema_errors(wave, "wave") == []
    for leg in wave["legs"]:
        on_disk = json.loads((store.root / leg["taskId"] / "run.json").read_text(encoding="utf-8"))
        assert schema_errors(on_disk, "run") == []
        assert on_disk == leg


async def test_happy_path_with_a_repeated_model(fake, project, prompt):
    fake.script("a", chat("review from a", model="vendor/a-1", usage=usage(100, 50, cost=0.01)))
    fake.script("b", chat("review from b", model="vendor/b-1", usage=usage(80, 40, cost=0.02)))
    wave, code = await fanout(prompt_file=str(prompt), models=["fake/a", "fake/b", "fake/a"], project=str(project))
    assert (wave["status"], code) == ("complete", 0)
    assert [leg["modelInput"] for leg in wave["legs"]] == ["fake/a", "fake/b", "fake/a"]
    assert [leg["summary"] for leg in wave["legs"]] == ["review from a", "review from b", "review from a"]
    assert wave["legs"][0]["model"] == "vendor/a-1"
    assert wave["counts"] == {"total": 3, "complete": 3, "error": 0, "timeout": 0, "aborted": 0}
    # Loopback servers are your own hardware: cost is a known 0, not unknown.
    assert wave["usage"]["tokens"]["input"] == 280
    assert wave["usage"]["cost"]["unpricedLegs"] == 0
    store = SessionStore(project)
    assert_documents_valid(store, wave)
    assert (store.root / wave["legs"][1]["taskId"] / "output.md").read_text(encoding="utf-8") == "review from b"
    assert (store.root / wave["waveId"] / "briefing.md").read_text(encoding="utf-8") == "Review this design.\n"
    assert all(r.body["messages"][-1]["content"] == "Review this design.\n" for r in fake.chat_requests())


async def test_partial_wave_records_each_failure_honestly(fake, project, prompt):
    fake.script("ok", chat("fine"))
    fake.script("down", error(500, "upstream exploded"))
    fake.script("junk", malformed())
    fake.script("broke", error(402, "insufficient credits"))
    wave, code = await fanout(prompt_file=str(prompt), models=["fake/ok", "fake/down", "fake/junk", "fake/broke"],
                              project=str(project))
    assert (wave["status"], code) == ("partial", 2)
    statuses = {leg["modelInput"]: (leg["status"], (leg["error"] or {}).get("code")) for leg in wave["legs"]}
    assert statuses == {
        "fake/ok": ("complete", None),
        "fake/down": ("error", "PROVIDER_DOWN"),
        "fake/junk": ("error", "MALFORMED_REPLY"),
        "fake/broke": ("error", "OUT_OF_CREDITS"),
    }
    assert len(fake.chat_requests("broke")) == 1  # 402 is never retried
    assert len(fake.chat_requests("down")) > 1  # 5xx is
    assert_documents_valid(SessionStore(project), wave)


async def test_all_failed_is_exit_1(fake, project, prompt):
    fake.script("x", error(401, "bad key"))
    wave, code = await fanout(prompt_file=str(prompt), models=["fake/x", "fake/y"], project=str(project))
    assert (wave["status"], code) == ("error", 1)
    assert {leg["error"]["code"] for leg in wave["legs"]} == {"PROVIDER_AUTH", "MODEL_NOT_FOUND"}


async def test_a_hung_leg_times_out_within_its_bound(fake, project, prompt):
    fake.script("fast", chat("done"))
    fake.script("slow", hang(30))
    start = time.monotonic()
    wave, code = await fanout(prompt_file=str(prompt), models=["fake/fast", "fake/slow"], project=str(project),
                              timeout_min=1.5 / 60)
    elapsed = time.monotonic() - start
    assert elapsed < 1.5 + 5 + 5  # the leg timeout + the engine's grace + slack for a busy machine
    assert (wave["status"], code) == ("partial", 2)
    slow = wave["legs"][1]
    assert slow["status"] == "timeout"
    assert slow["durationMs"] >= 1000
    assert slow["usage"] is None  # nothing came back, so nothing is claimed


async def test_rate_limit_is_retried_after_retry_after(fake, project, prompt):
    fake.script("busy", rate_limited(0), chat("finally"))
    wave, _ = await fanout(prompt_file=str(prompt), models=["fake/busy"], project=str(project))
    assert wave["legs"][0]["status"] == "complete"
    assert len(fake.chat_requests("busy")) == 2


async def test_progress_is_on_disk_while_the_wave_runs(fake, project, prompt):
    fake.script("fast", chat("done"))
    fake.script("slow", chat("late", delay_s=1.5))
    store = SessionStore(project)
    seen: list[str] = []

    async def watch() -> None:
        while True:
            waves = [wave.to_doc() for wave in store.list_waves()]  # as wave.json holds them
            if waves and waves[0]["counts"]["complete"] == 1 and waves[0]["status"] == "running":
                seen.append(waves[0]["legs"][1]["status"])
                return
            await anyio.sleep(0.02)

    async with anyio.create_task_group() as group:
        group.start_soon(watch)
        wave, _ = await fanout(prompt_file=str(prompt), models=["fake/fast", "fake/slow"], project=str(project))
    assert seen == ["running"]
    assert wave["status"] == "complete"


@pytest.mark.parametrize(
    ("kwargs", "error_type", "fragment"),
    [
        ({"prompt_file": None, "models": ["fake/a"]}, MissingPrompt, "required"),
        ({"prompt_file": "nope.md", "models": ["fake/a"]}, MissingPrompt, "does not exist"),
        ({"models": ["fake/a"], "council": "budget"}, BadArgs, "exactly one"),
        ({}, BadArgs, "provide --models or --council"),
        ({"models": ["fake/a"] * 11}, BadArgs, "fan-out cap of 10"),
        ({"models": ["fake/a"], "timeout_min": 0}, BadArgs, "positive"),
        ({"models": ["fake/a"], "gateway": "sideways"}, BadArgs, "--gateway"),
    ],
)
async def test_preflight_refuses_before_anything_runs(fake, project, prompt, kwargs, error_type, fragment):
    kwargs = {"prompt_file": str(prompt), **kwargs, "project": str(project)}
    with pytest.raises(error_type) as exc:
        await fanout(**kwargs)
    assert fragment in exc.value.message
    assert fake.chat_requests() == []
    assert not (project / ".claude").exists()


async def test_empty_prompt_file_is_missing_prompt(fake, project, tmp_path):
    empty = tmp_path / "empty.md"
    empty.write_text("  \n", encoding="utf-8")
    with pytest.raises(MissingPrompt, match="empty"):
        await fanout(prompt_file=str(empty), models=["fake/a"], project=str(project))


# --- the CLI in a real process: signals and crashes ---------------------------------------

def start_cli(project: Path, config_dir: Path, prompt: Path, *models: str) -> subprocess.Popen[str]:
    env = {**os.environ, "AMICUS_CONFIG_DIR": str(config_dir)}
    return subprocess.Popen(
        [sys.executable, "-m", "amicus_mcp.cli", "fanout", "--models", ",".join(models), "--prompt-file", str(prompt),
         "--project", str(project), "--json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )


def wait_for_wave(project: Path, predicate, timeout: float = 20.0) -> dict:
    store = SessionStore(project)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        waves = [wave.to_doc() for wave in store.list_waves()]  # as wave.json holds them
        if waves and predicate(waves[0]):
            return waves[0]
        time.sleep(0.05)
    raise AssertionError("the wave never reached the expected state")


@pytest.mark.parametrize(("signum", "exit_code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_signal_aborts_the_wave(fake, project, config_dir, prompt, signum, exit_code):
    fake.script("fast", chat("done"))
    fake.script("slow", hang(60))
    proc = start_cli(project, config_dir, prompt, "fake/fast", "fake/slow")
    wait_for_wave(project, lambda w: w["counts"]["complete"] == 1)
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=20)
    assert proc.returncode == exit_code, err
    wave = json.loads(out)
    assert wave["status"] == "aborted"
    assert [leg["status"] for leg in wave["legs"]] == ["complete", "aborted"]
    assert wave["legs"][1]["durationMs"] > 0
    on_disk = SessionStore(project).read_wave(wave["waveId"]).to_doc()
    assert on_disk["status"] == "aborted"
    assert schema_errors(on_disk, "wave") == []


def test_a_killed_wave_reads_as_crashed(fake, project, config_dir, prompt):
    fake.script("slow", hang(60))
    proc = start_cli(project, config_dir, prompt, "fake/slow")
    wave = wait_for_wave(project, lambda w: w["status"] == "running")
    proc.kill()
    proc.communicate(timeout=20)
    store = SessionStore(project)
    status = status_of(store, wave["waveId"]).to_doc()
    assert status["status"] == "crashed"
    assert status["legs"][0]["status"] == "crashed"
    assert status_of(store, wave["legs"][0]["taskId"]).status == "crashed"
    assert schema_errors(store.read_wave(wave["waveId"]).to_doc(), "wave") == []


def test_cli_status_and_human_output(fake, project, config_dir, prompt):
    fake.script("a", chat("hello"))
    env = {**os.environ, "AMICUS_CONFIG_DIR": str(config_dir)}
    run = subprocess.run([sys.executable, "-m", "amicus_mcp.cli", "fanout", "--models", "fake/a", "--prompt-file",
                          str(prompt), "--project", str(project)], capture_output=True, text=True, env=env, timeout=60)
    assert run.returncode == 0, run.stderr
    assert "complete (1/1 complete)" in run.stdout
    wave_id = run.stdout.split()[1].rstrip(":")
    status = subprocess.run([sys.executable, "-m", "amicus_mcp.cli", "status", wave_id, "--project", str(project), "--json"],
                            capture_output=True, text=True, env=env, timeout=60)
    assert json.loads(status.stdout)["status"] == "complete"
    missing = subprocess.run([sys.executable, "-m", "amicus_mcp.cli", "status", "deadbeef", "--project", str(project), "--json"],
                             capture_output=True, text=True, env=env, timeout=60)
    assert missing.returncode == 1
    assert json.loads(missing.stdout)["error"]["code"] == "BAD_SESSION"


async def test_estimate_spends_nothing_and_never_claims_zero_for_unpriced(fake, project, prompt, config_dir):
    own = await engine.estimate(WaveOptions(prompt_file=str(prompt), models=["fake/a", "fake/b"]))
    assert own["estimate"]["amount"] == 0 and own["estimate"]["unpricedLegs"] == []
    cloud = await engine.estimate(WaveOptions(prompt_file=str(prompt), models=["fake/a", "openai/gpt-x"],
                                              validate_models=False))
    assert cloud["estimate"]["unpricedLegs"] == ["openai/gpt-x"]
    assert "cost unknown for openai/gpt-x" in cloud["summary"]
    assert fake.chat_requests() == []
    assert schema_errors(own, "cost-estimate") == []
