"""The `amicus` CLI as a user runs it: a real subprocess, real files, real exit codes."""

from __future__ import annotations

import codecs
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from amicus_mcp.schemas import schema_errors

ROOT = Path(__file__).resolve().parents[1]
WORKED = ROOT / "examples" / "worked-example"
FIXTURES = ROOT / "tests" / "fixtures"
SEED = json.loads((FIXTURES / "worked_example_seed.json").read_text(encoding="utf-8"))


def collapse(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture
def config_dir(tmp_path: Path) -> Path:
    return tmp_path / "config"


@pytest.fixture
def amicus(config_dir: Path, tmp_path: Path):
    def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        env = {**os.environ, "AMICUS_CONFIG_DIR": str(config_dir)}
        return subprocess.run(
            [sys.executable, "-m", "amicus_mcp.cli", *args],
            capture_output=True, text=True, encoding="utf-8", env=env, cwd=cwd or tmp_path, timeout=60,
        )
    return run


def ledger_lines(config_dir: Path) -> list[dict]:
    path = config_dir / "council-ledger.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()] if path.exists() else []


# --- the worked example, end to end ---------------------------------------------------------

def test_worked_example_pipeline(amicus, tmp_path, config_dir):
    tally_human = amicus("council", "tally", str(WORKED / "tally-input.json"), "--no-ledger")
    assert tally_human.returncode == 0, tally_human.stderr
    assert collapse(tally_human.stdout) == SEED["tally_human"]
    assert ledger_lines(config_dir) == []

    tally_json = amicus("council", "tally", str(WORKED / "tally-input.json"), "--json")
    assert tally_json.returncode == 0
    assert tally_json.stdout == (FIXTURES / "worked-example" / "tally.json").read_text(encoding="utf-8")
    assert len(ledger_lines(config_dir)) == 2
    (tmp_path / "tally.json").write_text(tally_json.stdout, encoding="utf-8")

    verdict = amicus("council", "verdict", "tally.json", "--decisions", str(WORKED / "decisions.json"), "-o", "verdict.json")
    assert verdict.returncode == 0, verdict.stderr
    assert collapse(verdict.stdout) == SEED["verdict_human"]
    written = (tmp_path / "verdict.json").read_text(encoding="utf-8")
    assert written == (FIXTURES / "worked-example" / "verdict.json").read_text(encoding="utf-8")
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".tmp-")]

    report = amicus("council", "report", "verdict.json", "--md")
    assert report.returncode == 0, report.stderr
    assert collapse(report.stdout) == SEED["report_md"]

    html = amicus("council", "report", "verdict.json", "--html", "-o", "report.html")
    assert html.returncode == 0
    assert (tmp_path / "report.html").read_text(encoding="utf-8").lstrip().lower().startswith("<!doctype html>")

    stats = amicus("council", "stats")
    assert stats.returncode == 0
    assert collapse(stats.stdout) == SEED["stats_human"]
    stats_json = json.loads(amicus("council", "stats", "--json").stdout)
    assert schema_errors(stats_json, "council-stats") == []


def test_verdict_render_refreshes_report_html(amicus, tmp_path):
    (tmp_path / "run").mkdir()
    amicus("council", "tally", str(WORKED / "tally-input.json"), "--json", "--no-ledger")
    (tmp_path / "run" / "tally.json").write_text((FIXTURES / "worked-example" / "tally.json").read_text(encoding="utf-8"), encoding="utf-8")
    result = amicus("council", "verdict", "run/tally.json", "-o", "run/verdict.json", "--render",
                    "--overall-verdict", "Fix these first")
    assert result.returncode == 0, result.stderr
    page = (tmp_path / "run" / "report.html").read_text(encoding="utf-8")
    assert "Fix these first" in page
    assert json.loads((tmp_path / "run" / "verdict.json").read_text())["overallVerdict"] == "Fix these first"


# --- validate's tri-state exit ---------------------------------------------------------------

def test_validate_exit_codes(amicus, tmp_path):
    ok = amicus("council", "validate", str(WORKED / "review-deepseek.md"), "--json")
    assert ok.returncode == 0
    doc = json.loads(ok.stdout)
    assert doc["ok"] is True and len(doc["findings"]) == 1
    assert schema_errors(doc, "council-validate") == []

    (tmp_path / "broken.md").write_text("just prose, no block\n", encoding="utf-8")
    bad = amicus("council", "validate", "broken.md", "--json")
    assert bad.returncode == 2
    assert json.loads(bad.stdout)["errors"][0]["code"] == "NO_FENCED_BLOCK"

    missing = amicus("council", "validate", "nope.md", "--json")
    assert missing.returncode == 1
    assert json.loads(missing.stdout)["error"]["code"] == "BAD_ARGS"


# --- bad input never shows a traceback ----------------------------------------------------------

BAD_TALLY_INPUTS = {
    "missing.json": None,
    "not-json.json": "{ this is not json",
    "array.json": "[1, 2]",
    "no-meta.json": json.dumps({"findings": [], "adjudications": [], "rankings": []}),
    "wrong-type.json": json.dumps({"meta": {"runId": 1, "models": ["a"]}, "findings": [], "adjudications": [], "rankings": []}),
    "empty.json": "",
}


@pytest.mark.parametrize("name", sorted(BAD_TALLY_INPUTS))
@pytest.mark.parametrize("as_json", [True, False])
def test_bad_tally_input_gets_a_structured_error(amicus, tmp_path, name, as_json):
    content = BAD_TALLY_INPUTS[name]
    if content is not None:
        (tmp_path / name).write_text(content, encoding="utf-8")
    result = amicus("council", "tally", name, *(["--json"] if as_json else []))
    assert result.returncode == 1
    assert "Traceback" not in result.stdout + result.stderr
    if as_json:
        envelope = json.loads(result.stdout)
        assert schema_errors(envelope, "error") == []
        assert envelope["error"]["code"] == "BAD_ARGS"
        assert envelope["error"]["command"] == "council tally"
        assert envelope["error"]["hint"]
    else:
        assert result.stderr.startswith("Error: ")
        assert "  → " in result.stderr


def test_directory_instead_of_file(amicus, tmp_path):
    (tmp_path / "adir").mkdir()
    result = amicus("council", "tally", "adir", "--json")
    assert result.returncode == 1
    assert "is a directory" in json.loads(result.stdout)["error"]["message"]


def test_usage_errors_are_bad_args_with_exit_1(amicus):
    result = amicus("council", "tally", "--json")
    assert result.returncode == 1
    assert json.loads(result.stdout)["error"]["code"] == "BAD_ARGS"
    result = amicus("council", "frobnicate")
    assert result.returncode == 1 and "Traceback" not in result.stderr


def test_verdict_refuses_a_directory_as_output(amicus, tmp_path):
    (tmp_path / "outdir").mkdir()
    result = amicus("council", "verdict", str(FIXTURES / "worked-example" / "tally.json"), "-o", "outdir", "--json")
    assert result.returncode == 1
    assert "is a directory" in json.loads(result.stdout)["error"]["message"]


@pytest.mark.parametrize(
    "encode",
    [
        lambda text: codecs.BOM_UTF16_LE + text.encode("utf-16-le"),  # Windows PowerShell 5.1 `>`
        lambda text: codecs.BOM_UTF8 + text.encode("utf-8"),
        lambda text: text.encode("utf-16-le"),
    ],
    ids=["utf16-bom", "utf8-bom", "utf16-no-bom"],
)
def test_powershell_encodings_are_read(amicus, tmp_path, encode):
    text = (WORKED / "tally-input.json").read_text(encoding="utf-8")
    (tmp_path / "input.json").write_bytes(encode(text))
    result = amicus("council", "tally", "input.json", "--json", "--no-ledger")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == (FIXTURES / "worked-example" / "tally.json").read_text(encoding="utf-8")


def test_ledger_failure_warns_but_the_tally_succeeds(amicus, config_dir):
    config_dir.mkdir(parents=True)
    (config_dir / "council-ledger.jsonl").mkdir()  # appending to a directory must fail
    result = amicus("council", "tally", str(WORKED / "tally-input.json"))
    assert result.returncode == 0
    assert "Notice:" in result.stderr
    assert collapse(result.stdout) == SEED["tally_human"]


# --- presets ---------------------------------------------------------------------------------

def test_presets_match_the_seed(amicus):
    saved = amicus("council", "save", "my-bench", "--models", "deepseek,gpt,gemini")
    assert saved.returncode == 0
    assert collapse(saved.stdout) == "Saved council 'my-bench': deepseek, gpt, gemini"
    listed = amicus("council", "list")
    # The seed's list plus our offline `local` bench, which the JavaScript tool did not have.
    assert collapse(listed.stdout) == (
        "Councils: my-bench deepseek, gpt, gemini free [built-in] budget [built-in] frontier [built-in] local [built-in]"
    )
    shown = amicus("council", "show", "my-bench")
    assert collapse(shown.stdout) == "Council 'my-bench' members: deepseek, gpt, gemini resolved: deepseek, gpt, gemini"


def test_preset_json_documents_and_shadowing(amicus):
    first = json.loads(amicus("council", "save", "budget", "--models", "gpt,openai/gpt-5", "--json").stdout)
    again = json.loads(amicus("council", "save", "budget", "--models", "gpt,deepseek", "--json").stdout)
    assert (first["overwritten"], again["overwritten"]) == (False, True)
    listed = json.loads(amicus("council", "list", "--json").stdout)
    budget = [c for c in listed["councils"] if c["name"] == "budget"]
    assert [(c["builtin"], c.get("shadowed")) for c in budget] == [(False, None), (True, True)]
    shown = json.loads(amicus("council", "show", "budget", "--json").stdout)
    assert shown["members"] == ["gpt", "deepseek"] and shown["builtin"] is False
    for doc in (first, again, listed, shown):
        assert schema_errors(doc, "council-presets") == []


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (("save", "x", "--models", "gpt"), "at least 2"),
        (("save", "x", "--models", "gpt,notamodel"), "notamodel"),
        (("save", "x", "--models", "gpt,,deepseek"), "empty member"),
        (("save", "bad name!", "--models", "gpt,deepseek"), "not allowed"),
        (("show", "nosuch"), "unknown council"),
    ],
)
def test_preset_errors(amicus, args, fragment):
    result = amicus("council", *args, "--json")
    assert result.returncode == 1
    assert fragment in json.loads(result.stdout)["error"]["message"]


def test_show_reports_dropped_members(amicus, config_dir):
    config_dir.mkdir(parents=True)
    (config_dir / "config.json").write_text(json.dumps({"councils": {"old": ["gpt", "retired-alias"]}}), encoding="utf-8")
    shown = amicus("council", "show", "old")
    assert "dropped:  retired-alias (unknown alias 'retired-alias')" in shown.stdout
    assert "fewer than 2 usable members" in shown.stdout


def test_broken_config_is_a_clear_error(amicus, config_dir):
    config_dir.mkdir(parents=True)
    (config_dir / "config.json").write_text("{ nope", encoding="utf-8")
    result = amicus("council", "list", "--json")
    assert result.returncode == 1
    assert "config file" in json.loads(result.stdout)["error"]["message"]


def test_council_report_reads_a_verdict_through_its_checking_reader(amicus, tmp_path):
    """`council report FILE` checks the verdict against its declaration (as RunDir.read_verdict and
    the gate do) instead of drawing whatever it holds: a tier that is not a tier is refused, naming
    the key, and nothing is rendered. The worked example (assembled by hand) still renders."""
    doc = json.loads((FIXTURES / "worked-example" / "verdict.json").read_text(encoding="utf-8"))
    doc["findings"][0]["tier"] = "Confirmd"
    (tmp_path / "verdict.json").write_text(json.dumps(doc), encoding="utf-8")
    report = amicus("council", "report", "verdict.json", "--md")
    assert report.returncode == 1 and report.stdout == ""
    assert "is not a valid verdict" in report.stderr and "findings[0].tier" in report.stderr, report.stderr
    shown = amicus("council", "report", str(FIXTURES / "worked-example" / "verdict.json"), "--md")
    assert shown.returncode == 0 and collapse(shown.stdout) == SEED["report_md"], shown.stderr
