"""Run the `amicus` CLI in-process (its `main(argv)`) and check the contract every outcome
keeps, whatever the input: no traceback, an exit code in {0, 1, 2}, strict JSON on stdout
under `--json`, no raw control character or lone surrogate in what a terminal is shown, and
no configured key value anywhere in the output."""

from __future__ import annotations

import contextlib
import io
import json
import re
from dataclasses import dataclass
from typing import Any

from amicus_mcp.cli import main

# What a terminal must never be sent raw: C0 controls bar tab/newline, DEL, C1, lone surrogates.
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


@dataclass
class Outcome:
    code: int
    out: str
    err: str

    def envelope(self) -> dict[str, Any]:
        doc = strict_json(self.out)
        assert isinstance(doc, dict) and doc.get("type") == "error", self.out[:500]
        return doc


def strict_json(text: str) -> Any:
    """Parse like a strict parser: NaN / Infinity are not JSON."""
    def refuse(name: str) -> Any:
        raise AssertionError(f"non-strict JSON constant {name} in output")
    return json.loads(text, parse_constant=refuse)


def run_cli(*argv: str) -> Outcome:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return Outcome(code, out.getvalue(), err.getvalue())


def check_contract(result: Outcome, *, as_json: bool, secrets: tuple[str, ...] = ()) -> None:
    """The properties issue 13 asks of every reader and printer."""
    assert result.code in (0, 1, 2), result
    for stream in (result.out, result.err):
        assert "Traceback" not in stream
        assert not RAW_CONTROL.search(stream), repr(stream[:300])
        for secret in secrets:
            assert secret not in stream and secret[:16] not in stream
    if as_json and result.out.strip():
        strict_json(result.out)
    if result.code == 1:
        shown = result.envelope()["error"] if as_json else None
        code = shown["code"] if shown else None
        assert code != "INTERNAL" and "this is a bug" not in result.err, result
