"""Issue 13 items 3–8 and issue 12 item 12, one deterministic case each: bad input gets a
BAD_ARGS (never INTERNAL, never a traceback), reads are bounded and never block, NaN and
Infinity never go in or out, the ledger is appended only for a record that rendered, what a
terminal is shown is safe, and `| head` never breaks a command."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_harness import RAW_CONTROL, check_contract, run_cli, strict_json

from amicus_mcp.fsio import DEFAULT_MAX_INPUT_BYTES, dumps_json, loads_json
from amicus_mcp.errors import BadArgs

ROOT = Path(__file__).resolve().parents[1]
WORKED = ROOT / "examples" / "worked-example"
TALLY = ROOT / "tests" / "fixtures" / "worked-example" / "tally.json"
VERDICT = ROOT / "tests" / "fixtures" / "worked-example" / "verdict.json"


def tally_input() -> dict:
    return json.loads((WORKED / "tally-input.json").read_text(encoding="utf-8"))


def write(path: Path, text: str) -> str:
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    return str(path)


def cli(*args: str, cwd: Path, timeout: float = 60, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "amicus_mcp.cli", *args], capture_output=True, text=True,
                          encoding="utf-8", errors="replace", cwd=cwd, timeout=timeout, env={**os.environ, **env})


def ledger_rows(config_dir: Path) -> int:
    path = config_dir / "council-ledger.jsonl"
    return len(path.read_text(encoding="utf-8").splitlines()) if path.exists() else 0


# --- item 3: a lone surrogate never crashes the printer ------------------------------------------

def test_verdict_json_with_a_lone_surrogate_decision_id(tmp_path: Path, config_dir: Path) -> None:
    decisions = write(tmp_path / "d.json", '[{"id": "\\udfff", "decision": "accepted"}]')
    done = cli("council", "verdict", str(TALLY), "--decisions", decisions, "-o", str(tmp_path / "v.json"), "--json",
               cwd=tmp_path)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert strict_json(done.stdout)["error"]["code"] == "BAD_ARGS"
    assert "surrogate" in strict_json(done.stdout)["error"]["message"]


def test_an_undecodable_file_name_is_printed_safely(tmp_path: Path, config_dir: Path) -> None:
    name = os.fsdecode(b"missing-\xff.json")  # a lone surrogate (surrogateescape) in argv
    for args in (("council", "tally", name), ("council", "tally", name, "--json")):
        done = subprocess.run([sys.executable, "-m", "amicus_mcp.cli", *args], capture_output=True, cwd=tmp_path,
                              timeout=60)
        assert done.returncode == 1 and b"Traceback" not in done.stderr
        (done.stdout or done.stderr).decode("utf-8")  # whatever was printed is valid UTF-8


# --- item 4: what Python refuses to handle is bad input, not a bug ---------------------------------

@pytest.mark.parametrize(("text", "words"), [
    ("[" * 100_000 + "]" * 100_000, "nested"),
    ("[" * 200 + "]" * 200, "nested"),
    ('{"meta": ' + "1" * 4400 + "}", "out of range"),
    ('{"meta": {"runId": "\\ud800x", "models": ["a"]}}', "surrogate"),
])
def test_python_limits_are_bad_args(tmp_path: Path, config_dir: Path, text: str, words: str) -> None:
    for flag in ("--json", "--no-ledger"):
        result = run_cli("council", "tally", write(tmp_path / "in.json", text), flag)
        check_contract(result, as_json=flag == "--json")
        assert result.code == 1
        if flag == "--json":
            assert result.envelope()["error"]["code"] == "BAD_ARGS" and words in result.envelope()["error"]["message"]
        else:
            assert result.err.startswith("Error: ") and words in result.err


@pytest.mark.parametrize("cost", ["1e308", "-1e308", "1e999", "12345678901234567890"])
def test_an_absurd_cost_is_bad_args_in_both_modes(tmp_path: Path, config_dir: Path, cost: str) -> None:
    doc = tally_input()
    for row in doc["runStats"]:
        row["usage"]["cost"]["amount"] = "@COST@"
    path = write(tmp_path / "in.json", json.dumps(doc).replace('"@COST@"', cost))
    for flag in ("--json", "--no-ledger"):
        result = run_cli("council", "tally", path, flag)
        check_contract(result, as_json=flag == "--json")
        assert result.code == 1 and "out of range" in (result.out + result.err)
    assert ledger_rows(config_dir) == 0


# --- item 5: NaN / Infinity never in, never out ----------------------------------------------------

@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_are_refused_on_input(tmp_path: Path, config_dir: Path, constant: str) -> None:
    doc = tally_input()
    doc["runStats"][0]["durationMs"] = "@X@"
    result = run_cli("council", "tally", write(tmp_path / "in.json", json.dumps(doc).replace('"@X@"', constant)), "--json")
    check_contract(result, as_json=True)
    assert result.code == 1 and constant in result.envelope()["error"]["message"]
    record = json.loads(TALLY.read_text(encoding="utf-8"))
    record["runStats"][0]["durationMs"] = "@X@"
    path = write(tmp_path / "t.json", json.dumps(record).replace('"@X@"', constant))
    result = run_cli("council", "verdict", path, "-o", str(tmp_path / "v.json"), "--json")
    assert result.code == 1 and not (tmp_path / "v.json").exists()


def test_nan_is_never_emitted() -> None:
    with pytest.raises(ValueError):
        dumps_json({"durationMs": float("nan")})
    with pytest.raises(BadArgs):
        loads_json('{"a": NaN}')


# --- item 6: bounded reads of regular files only ---------------------------------------------------

@pytest.mark.parametrize("command", [["council", "tally"], ["council", "validate"], ["council", "verdict"],
                                     ["council", "report"]])
def test_dev_zero_is_refused_at_once(tmp_path: Path, config_dir: Path, command: list[str]) -> None:
    done = cli(*command, "/dev/zero", "--json" if command[1] != "report" else "--md", cwd=tmp_path, timeout=20)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "a device" in done.stdout + done.stderr and "regular files" in done.stdout + done.stderr


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
@pytest.mark.parametrize("command", [["council", "validate"], ["council", "tally"], ["council", "verdict"],
                                     ["council", "report"], ["council", "run", "--models", "a,b", "--prompt-file"],
                                     ["fanout", "--models", "a,b", "--prompt-file"]])
def test_a_fifo_never_blocks(tmp_path: Path, config_dir: Path, command: list[str]) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    done = cli(*command, str(fifo), cwd=tmp_path, timeout=20)  # no writer ever opens it
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "is a FIFO; amicus reads only regular files" in done.stderr


def test_the_size_limit_is_stated_and_can_be_raised(tmp_path: Path, config_dir: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    path = write(tmp_path / "in.json", json.dumps(tally_input()))
    monkeypatch.setenv("AMICUS_MAX_INPUT_BYTES", "100")
    result = run_cli("council", "tally", path, "--json", "--no-ledger")
    check_contract(result, as_json=True)
    message = result.envelope()["error"]["message"]
    assert result.code == 1 and "larger than the 100 bytes amicus reads" in message
    assert "AMICUS_MAX_INPUT_BYTES" in result.envelope()["error"]["hint"]
    monkeypatch.setenv("AMICUS_MAX_INPUT_BYTES", str(10 * 1024 * 1024))
    assert run_cli("council", "tally", path, "--json", "--no-ledger").code == 0
    assert DEFAULT_MAX_INPUT_BYTES == 8 * 1024 * 1024


# --- item 7: the ledger is appended only for a record that rendered --------------------------------

def test_a_record_that_fails_to_render_appends_nothing(tmp_path: Path, config_dir: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    import amicus_mcp.council.tally as tally_module

    path = write(tmp_path / "in.json", json.dumps(tally_input()))

    def broken(record: dict) -> str:
        raise ValueError("cannot render")

    monkeypatch.setattr(tally_module, "render_tally_summary", broken)
    for _ in range(3):  # every retry fails the same way, and adds nothing
        assert run_cli("council", "tally", path).code == 1
    assert ledger_rows(config_dir) == 0
    monkeypatch.undo()
    monkeypatch.setenv("AMICUS_CONFIG_DIR", str(config_dir))
    assert run_cli("council", "tally", path).code == 0
    assert ledger_rows(config_dir) == 2


def test_an_infinite_cost_in_human_mode_appends_nothing(tmp_path: Path, config_dir: Path) -> None:
    doc = tally_input()
    doc["runStats"][0]["usage"]["cost"]["amount"] = "@X@"
    path = write(tmp_path / "in.json", json.dumps(doc).replace('"@X@"', "Infinity"))
    for _ in range(2):
        assert run_cli("council", "tally", path).code == 1
    assert ledger_rows(config_dir) == 0


# --- item 8: no raw ESC / BEL reaches a terminal ---------------------------------------------------

HOSTILE = "\x1b]0;owned\x07\x1b[2J\x9b31m"


def test_validate_details_are_terminal_safe(tmp_path: Path, config_dir: Path) -> None:
    block = {"overall": "x", "findings": [{"id": 1, "severity": f"major{HOSTILE}", "claim": "c", "location": "l"}]}
    path = write(tmp_path / "r.md", f"Prose {HOSTILE}\n\n```json\n{json.dumps(block)}\n```\n")
    result = run_cli("council", "validate", path)
    check_contract(result, as_json=False)
    assert result.code == 2 and "invalid" in result.out


def test_run_ids_in_tally_verdict_and_report_are_terminal_safe(tmp_path: Path, config_dir: Path) -> None:
    doc = tally_input()
    doc["meta"]["runId"] = f"run{HOSTILE}"
    result = run_cli("council", "tally", write(tmp_path / "in.json", json.dumps(doc)), "--no-ledger")
    check_contract(result, as_json=False)
    assert result.code == 0 and "run?]0;owned??[2J?31m" in result.out
    record = json.loads(TALLY.read_text(encoding="utf-8"))
    record["meta"]["runId"] = f"run{HOSTILE}"
    tally_path = write(tmp_path / "t.json", json.dumps(record))
    verdict = run_cli("council", "verdict", tally_path, "-o", str(tmp_path / "v.json"))
    check_contract(verdict, as_json=False)
    assert verdict.code == 0
    report = run_cli("council", "report", str(tmp_path / "v.json"), "--md")
    check_contract(report, as_json=False)
    assert report.code == 0 and "run?]0;owned" in report.out
    as_json = run_cli("council", "verdict", tally_path, "-o", str(tmp_path / "v2.json"), "--json")
    assert not RAW_CONTROL.search(as_json.out) and strict_json(as_json.out)["runId"] == f"run{HOSTILE}"


# --- issue 12 item 12: `| head` ---------------------------------------------------------------------

def _big_tally(tmp_path: Path) -> str:
    doc = tally_input()
    doc["findings"] = [{"id": f"A{i}", "raiser": "deepseek", "severity": "minor", "claim": f"claim {i} " * 8}
                       for i in range(1, 3000)]
    doc["adjudications"] = [{"findingId": f["id"], "judge": "gpt", "verdict": "agree"} for f in doc["findings"]]
    return write(tmp_path / "big.json", json.dumps(doc))


@pytest.mark.parametrize("args", [("council", "tally", "--json", "--no-ledger"), ("council", "tally", "--no-ledger")])
def test_piping_into_head_is_clean_and_keeps_the_exit_code(tmp_path: Path, config_dir: Path, args: tuple) -> None:
    path = _big_tally(tmp_path)
    command = " ".join([sys.executable, "-m", "amicus_mcp.cli", *args[:2], path, *args[2:]])
    done = subprocess.run(["bash", "-c", f"{command} | head -c 200 > /dev/null; echo \"exit=${{PIPESTATUS[0]}}\" >&2"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr and "Exception ignored" not in done.stderr
    assert done.stderr.strip().endswith("exit=0"), done.stderr


def test_a_reader_that_leaves_early_never_changes_the_exit_code(tmp_path: Path, config_dir: Path) -> None:
    path = _big_tally(tmp_path)
    with subprocess.Popen([sys.executable, "-m", "amicus_mcp.cli", "council", "tally", path, "--json", "--no-ledger"],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path) as child:
        assert child.stdout is not None and child.stderr is not None
        child.stdout.read(10)
        child.stdout.close()
        err = child.stderr.read().decode("utf-8", "replace")
        assert child.wait(timeout=120) == 0
    assert "Traceback" not in err and "BrokenPipe" not in err
