"""examples/question (the README's "Ask the council a question"): its tally input, run through
the deterministic half of the council by the CLI, reproduces its report.md byte for byte — and
the report README.md quotes is that file."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from amicus_mcp.cli import main as cli_main
from amicus_mcp.schemas import schema_errors

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "question"
ANSWER = "Not on Friday: the step-4 backfill alone outlasts the weekend, and nothing rolls back step 3."


def test_the_example_reproduces_its_report(tmp_path: Path, config_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tally, verdict = tmp_path / "tally.json", tmp_path / "verdict.json"
    assert cli_main(["council", "tally", str(EXAMPLE / "tally-input.json"), "--no-ledger", "--json"]) == 0
    tally.write_text(capsys.readouterr().out, encoding="utf-8")
    assert cli_main(["council", "verdict", str(tally), "-o", str(verdict), "--overall-verdict", "Split",
                     "--answer", ANSWER]) == 0
    capsys.readouterr()
    assert cli_main(["council", "report", str(verdict), "--md"]) == 0
    report = capsys.readouterr().out
    assert report == (EXAMPLE / "report.md").read_text(encoding="utf-8")
    doc = json.loads(verdict.read_text(encoding="utf-8"))
    assert schema_errors(doc, "council-verdict") == [] and doc["intent"] == "question"
    assert [(r["rank"], r["model"]) for r in doc["ranking"]] == [(1, "gemini"), (2, "deepseek"), (3, "gpt")]
    assert not (config_dir / "council-ledger.jsonl").exists()


def test_the_readme_shows_the_example_and_its_report() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Ask the council a question", 1)[1].split("\n## How good is my bench?", 1)[0]
    assert "--intent question" in section
    shown = re.search(r"````markdown\n(.*?)\n````", section, re.S)
    assert shown is not None, "the section shows the example's report in a ````markdown block"
    assert shown.group(1) + "\n" == (EXAMPLE / "report.md").read_text(encoding="utf-8")
