"""Issue 13 "must show": hypothesis properties over the CLI's readers and printers.

Every command that reads a user's file — `council tally`, `validate`, `verdict`, `report` —
is fed mutated documents (hostile leaves: NaN, Infinity, 1e308, integers of thousands of
digits, lone surrogates, ESC/BEL, deep nesting, a configured key value) and raw bytes, in
human and `--json` mode, in-process through `main(argv)`; every command that takes a run id,
a project or a file name is given names holding NUL and other control characters (in-process,
argv can carry a NUL) and answers BAD_ARGS. Whatever the input, the outcome
keeps the contract of `cli_harness.check_contract`: no traceback, exit code 0/1/2, strict
JSON under `--json`, no raw control character on the terminal, never INTERNAL, and no
configured key value in the output — nor in any file written (verdict.json, the ledger).

Budget: FUZZ_CASES below (2,400 cases; about half a minute of CPU).
"""

from __future__ import annotations

import copy
import json
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_harness import check_contract, run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[1]
WORKED = ROOT / "examples" / "worked-example"
FIXTURES = ROOT / "tests" / "fixtures" / "worked-example"
CANARY = "sk-or-v1-FUZZCANARY0123456789"

TALLY_INPUT = json.loads((WORKED / "tally-input.json").read_text(encoding="utf-8"))
TALLY_RECORD = json.loads((FIXTURES / "tally.json").read_text(encoding="utf-8"))
VERDICT = json.loads((FIXTURES / "verdict.json").read_text(encoding="utf-8"))
DECISIONS = json.loads((WORKED / "decisions.json").read_text(encoding="utf-8"))
REVIEW = (WORKED / "review-deepseek.md").read_text(encoding="utf-8")

FUZZ_CASES = {"tally": 500, "validate": 400, "verdict": 350, "report": 300, "bytes": 300, "review_blocks": 150,
              "error_printer": 200, "names": 200}
FUZZ = dict(deadline=None, derandomize=True, database=None,
            suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

# Raw JSON text spliced in where a placeholder string stands: things Python's json cannot
# round-trip or that overflow later arithmetic.
RAW_LEAVES = ["NaN", "Infinity", "-Infinity", "1e308", "-1e308", "1e999", "1" * 4400, "-" + "9" * 30,
              '"\\udfff"', '"\\ud800"', '"a\\u0000b"', "[" * 80 + "]" * 80, "[" * 3000 + "]" * 3000,
              '{"a":' * 70 + "1" + "}" * 70, "1.5e15", "0.1", "-0", "true", "null", '""', "[]", "{}"]
TEXT_LEAVES = [f"run {CANARY}", f"Bearer {CANARY}", "\x1b]0;title\x07", "\x1b[2J\x1b[H", "\x9b31m", "\r\x08\x7f",
               "\u202eevil", "A1", "deepseek", "gpt", "agree", "dispute", "major", "", " ", "Confirmed", "\t\n"]

hostile_text = st.one_of(st.sampled_from(TEXT_LEAVES), st.text(max_size=24),
                         st.text(alphabet=st.characters(max_codepoint=0x9f), max_size=12))
json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6), st.floats(allow_nan=False, allow_infinity=False,
              min_value=-1e6, max_value=1e6), hostile_text),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(hostile_text, inner, max_size=3)),
    max_leaves=8)


@pytest.fixture(scope="module")
def workdir() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="amicus-fuzz-") as tmp:
        yield Path(tmp)


@pytest.fixture(autouse=True)
def fuzz_env(workdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AMICUS_CONFIG_DIR", str(workdir / "config"))
    monkeypatch.setenv("OPENROUTER_API_KEY", CANARY)  # a configured key: it must never be shown
    monkeypatch.delenv("AMICUS_MAX_INPUT_BYTES", raising=False)


def _paths(doc: Any, prefix: tuple = ()) -> list[tuple]:
    """Every location in a document (the root excluded)."""
    found = []
    if isinstance(doc, dict):
        for key, value in doc.items():
            found.append((*prefix, key))
            found += _paths(value, (*prefix, key))
    elif isinstance(doc, list):
        for index, value in enumerate(doc):
            found.append((*prefix, index))
            found += _paths(value, (*prefix, index))
    return found


@st.composite
def mutated(draw: st.DrawFn, base: Any) -> str:
    """`base` as JSON text with a few locations replaced by hostile values (some spliced raw)."""
    doc = copy.deepcopy(base)
    raw: dict[str, str] = {}
    locations = _paths(doc)
    for n in range(draw(st.integers(1, 4))):
        path = draw(st.sampled_from(locations))
        parent = doc
        try:
            for step in path[:-1]:
                parent = parent[step]
            parent[path[-1]]
        except (KeyError, IndexError, TypeError):
            continue  # an earlier mutation replaced this location's container
        if not isinstance(parent, (dict, list)):
            continue  # ... with a string, which indexes but cannot be changed
        choice = draw(st.integers(0, 2))
        if choice == 0:
            marker = f"@@RAW{n}@@"
            raw[marker] = draw(st.sampled_from(RAW_LEAVES))
            parent[path[-1]] = marker
        elif choice == 1:
            parent[path[-1]] = draw(json_values)
        elif isinstance(parent, dict):
            del parent[path[-1]]
        else:
            parent.pop(path[-1])
    text = json.dumps(doc, ensure_ascii=draw(st.booleans()))
    for marker, value in raw.items():
        text = text.replace(json.dumps(marker), value)
    return text


def _write(workdir: Path, name: str, text: str | bytes) -> str:
    path = workdir / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
    return str(path)


def _no_key_on_disk(workdir: Path) -> None:
    for path in workdir.rglob("*"):
        if path.is_file() and path.suffix in (".json", ".jsonl", ".html", ".md") and not path.name.startswith("in-"):
            assert "FUZZCANARY" not in path.read_text(encoding="utf-8", errors="replace"), path


@settings(max_examples=FUZZ_CASES["tally"], **FUZZ)
@given(text=mutated(TALLY_INPUT), as_json=st.booleans(), ledger=st.booleans())
def test_tally_never_crashes(workdir: Path, text: str, as_json: bool, ledger: bool) -> None:
    path = _write(workdir, "in-tally.json", text)
    args = ["council", "tally", path] + (["--json"] if as_json else []) + ([] if ledger else ["--no-ledger"])
    ledger_file = workdir / "config" / "council-ledger.jsonl"
    before = ledger_file.read_bytes() if ledger_file.exists() else b""
    result = run_cli(*args)
    check_contract(result, as_json=as_json, secrets=(CANARY,))
    after = ledger_file.read_bytes() if ledger_file.exists() else b""
    if result.code != 0:
        assert after == before  # a failed tally never leaves ledger rows behind
    for line in after[len(before):].decode("utf-8").splitlines():
        json.loads(line, parse_constant=lambda c: pytest.fail(f"{c} in the ledger"))
    _no_key_on_disk(workdir)


@settings(max_examples=FUZZ_CASES["verdict"], **FUZZ)
@given(record=mutated(TALLY_RECORD), decisions=st.one_of(st.none(), mutated(DECISIONS)), as_json=st.booleans(),
       render=st.booleans())
def test_verdict_never_crashes(workdir: Path, record: str, decisions: str | None, as_json: bool, render: bool) -> None:
    out = workdir / "out" / "verdict.json"
    out.unlink(missing_ok=True)
    args = ["council", "verdict", _write(workdir, "in-record.json", record), "-o", str(out)]
    if decisions is not None:
        args += ["--decisions", _write(workdir, "in-decisions.json", decisions)]
    args += (["--json"] if as_json else []) + (["--render"] if render else [])
    result = run_cli(*args)
    check_contract(result, as_json=as_json, secrets=(CANARY,))
    if out.exists():  # what was written is strict JSON, like what was printed
        json.loads(out.read_text(encoding="utf-8"), parse_constant=lambda c: pytest.fail(f"{c} in verdict.json"))
    _no_key_on_disk(workdir)


@settings(max_examples=FUZZ_CASES["report"], **FUZZ)
@given(verdict=mutated(VERDICT), fmt=st.sampled_from(["--md", "--html"]), to_file=st.booleans())
def test_report_never_crashes(workdir: Path, verdict: str, fmt: str, to_file: bool) -> None:
    args = ["council", "report", _write(workdir, "in-verdict.json", verdict), fmt]
    if to_file:
        args += ["-o", str(workdir / "out" / f"report{fmt.replace('--', '.')}")]
    result = run_cli(*args)
    check_contract(result, as_json=False, secrets=(CANARY,))
    _no_key_on_disk(workdir)


@st.composite
def reviews(draw: st.DrawFn) -> str:
    prose = draw(st.one_of(st.sampled_from(TEXT_LEAVES), st.text(max_size=200)))
    block = draw(st.one_of(mutated({"overall": "ok", "findings": [
        {"id": 1, "severity": "major", "claim": "c", "location": "l", "rationale": "r"}]}),
        st.sampled_from(RAW_LEAVES), st.text(max_size=60)))
    fence = draw(st.sampled_from(["```json\n", "```\n", "```JSON\n", ""]))
    return f"{prose}\n\n{fence}{block}\n```\n"


@settings(max_examples=FUZZ_CASES["validate"], **FUZZ)
@given(text=st.one_of(reviews(), st.just(REVIEW)), as_json=st.booleans())
def test_validate_never_crashes(workdir: Path, text: str, as_json: bool) -> None:
    result = run_cli("council", "validate", _write(workdir, "in-review.md", text), *(["--json"] if as_json else []))
    check_contract(result, as_json=as_json, secrets=(CANARY,))


@settings(max_examples=FUZZ_CASES["review_blocks"], **FUZZ)
@given(block=json_values, as_json=st.booleans())
def test_validate_any_json_block(workdir: Path, block: Any, as_json: bool) -> None:
    text = f"Prose.\n\n```json\n{json.dumps(block)}\n```\n"
    result = run_cli("council", "validate", _write(workdir, "in-block.md", text), *(["--json"] if as_json else []))
    check_contract(result, as_json=as_json, secrets=(CANARY,))
    assert result.code in (0, 2)  # a readable file is a verdict on the review, never an error


@settings(max_examples=FUZZ_CASES["bytes"], **FUZZ)
@given(raw=st.one_of(st.binary(max_size=300), st.sampled_from([b"\xef\xbb\xbf{}", b"\xff\xfe{\x00", b"\x00" * 50,
                                                                 b'{"meta": \xff}', b"\xed\xa0\x80"])),
       command=st.sampled_from(["tally", "validate", "verdict", "report"]), as_json=st.booleans())
def test_raw_bytes_never_crash_a_reader(workdir: Path, raw: bytes, command: str, as_json: bool) -> None:
    args = ["council", command, _write(workdir, "in-bytes", raw)]
    if command == "verdict":
        args += ["-o", str(workdir / "out" / "verdict.json")]
    if command == "tally":
        args.append("--no-ledger")
    if as_json and command != "report":
        args.append("--json")
    result = run_cli(*args)
    check_contract(result, as_json=as_json and command != "report", secrets=(CANARY,))


@settings(max_examples=FUZZ_CASES["error_printer"], **FUZZ)
@given(message=st.one_of(hostile_text, st.text()), hint=st.one_of(st.none(), hostile_text), as_json=st.booleans())
def test_the_error_printer_prints_anything_safely(message: str, hint: str | None, as_json: bool) -> None:
    """Any message (lone surrogates, ESC, a key value) is printed as strict JSON or safe text."""
    import contextlib
    import io

    from amicus_mcp.cli import report_error
    from amicus_mcp.errors import BadArgs
    from cli_harness import Outcome

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = report_error(BadArgs(message or "x", hint=hint), as_json=as_json, command="council tally")
    result = Outcome(code, out.getvalue(), err.getvalue())
    check_contract(result, as_json=as_json, secrets=(CANARY,))
    (result.out + result.err).encode("utf-8")  # always encodable: a real terminal can take it
    if as_json:
        assert result.envelope()["error"]["code"] == "BAD_ARGS"


# Issue 27 item 22: a name with a control character in it. `{}` is where the name goes.
NAME_COMMANDS = [("status", "{}"), ("wait", "{}", "--timeout", "0.1"), ("abort", "{}"), ("council", "resume", "{}"),
                 ("watch", "{}"), ("list", "--project", "{}"), ("status", "abcd1234", "--project", "{}"),
                 ("council", "resume", "abcd1234", "--project", "{}")]
FILE_COMMANDS = [("council", "tally", "{}", "--no-ledger"), ("council", "validate", "{}"),
                 ("council", "run", "--prompt-file", "{}", "--models", "fake/a,fake/b"),
                 ("fanout", "--prompt-file", "{}", "--models", "fake/a"), ("council", "report", "{}", "--md")]
hostile_names = st.builds(lambda head, ctl, tail: head + ctl + tail, st.text(max_size=8),
                          st.one_of(st.sampled_from(["\x00", "\x01", "\x1b[2J", "\n", "\t", "\x7f", "\x9b", "\r"]),
                                    st.characters(max_codepoint=0x9f).filter(lambda c: c < " " or "\x7f" <= c)),
                          st.text(max_size=8))


@settings(max_examples=FUZZ_CASES["names"], **FUZZ)
@given(name=hostile_names, command=st.sampled_from(NAME_COMMANDS + FILE_COMMANDS), as_json=st.booleans())
def test_a_control_character_in_a_name_is_bad_args(workdir: Path, name: str, command: tuple[str, ...],
                                                   as_json: bool) -> None:
    args = [name if part == "{}" else part for part in command] + (["--json"] if as_json else [])
    result = run_cli(*args)
    check_contract(result, as_json=as_json, secrets=(CANARY,))
    assert result.code == 1  # nothing is named by it, and nothing ran
    if as_json:
        error = result.envelope()["error"]
        assert error["code"] in (("BAD_ARGS",) if command in NAME_COMMANDS else ("BAD_ARGS", "MISSING_PROMPT"))
    if command in NAME_COMMANDS and command[0] != "watch":  # watch says "is not a run id" before any path
        assert "control character" in result.out + result.err or "NUL byte" in result.out + result.err


def test_the_fuzz_budget_is_what_the_docs_say() -> None:
    assert sum(FUZZ_CASES.values()) == 2400
