"""Issue 19, items 5, 6, 7 and 15: what a run's report, re-decided verdict and gate say, end to end
through the CLI (real subprocesses) against the loopback fake.

5   every rendering of a run's findings shows claim and location, from the run's own tally.json;
    a verdict away from it says the claims are unavailable; the seed's worked example is unchanged
6   re-deciding (the README's Stage-4 command) keeps the chair's verdict, the gate result and the
    report's verdict; `-o other.json --render` never rewrites the run's own report.html
7   the gate fails a run that was never cross-reviewed (judged: false) unless --allow-unjudged
15  sub-second legs show real durations; the gate's hint names only files the run has
"""

from __future__ import annotations

import json
import os
from html import escape as html_escape
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from council_helpers import check_documents, finding, load, member, review
from fakeprovider import chat, error

from amicus_mcp.council.report import build_report
from amicus_mcp.council.report_model import CLAIMS_UNAVAILABLE
from amicus_mcp.schemas import schema_errors

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
SEED = json.loads((FIXTURES / "worked_example_seed.json").read_text(encoding="utf-8"))


def amicus(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "amicus_mcp.cli", *args], capture_output=True, text=True,
                          env=dict(os.environ), cwd=cwd, timeout=120, check=False)


def council_run(brief: Path, run_dir: Path, project: Path, models: str) -> dict[str, Any]:
    done = amicus("council", "run", "--models", models, "--chair", "fake/chair", "--prompt-file", str(brief),
                  "--out-dir", str(run_dir), "--project", str(project), "--json")
    assert done.returncode in (0, 2), done.stderr + done.stdout
    return check_documents(run_dir)


def seat(fake: Any, name: str, *claims: tuple[str, str, str], **replies: Any) -> None:
    """`fake/<name>`, raising one finding per (severity, claim, location)."""
    items = [finding(i, name, severity=sev, claim=claim, location=where) for i, (sev, claim, where) in enumerate(claims, 1)]
    member(fake, name, stage1=chat(review(name, block={"overall": f"{name} take", "findings": items})), **replies)


def bench(fake: Any) -> None:
    """Two seats with four findings between them, a third whose review dies (so something was lost)."""
    seat(fake, "a", ("blocker", "Writes evict the whole cache", "cache.py:42"),
         ("minor", "The TTL is undocumented", "README, Caching"))
    seat(fake, "b", ("major", "No metrics on hit rate", "section 3"), ("nit", "A & B <are> misnamed", "glossary"))
    member(fake, "c", stage1=error(400, "seat crashed"))
    member(fake, "chair")  # VERDICT: Fix these first


CLAIMS = {"Writes evict the whole cache": "cache.py:42", "The TTL is undocumented": "README, Caching",
          "No metrics on hit rate": "section 3", "A & B <are> misnamed": "glossary"}


def md_escape(text: str) -> str:
    return re.sub(r"([\\`*_\[\]<>|~])", r"\\\1", text)


# --------------------------------------------------------------------------- 5. claims and locations


def test_every_rendering_of_a_runs_findings_shows_claim_and_location(fake, brief, run_dir, project, tmp_path):
    bench(fake)
    council_run(brief, run_dir, project, "fake/a,fake/b,fake/c")
    verdict_path = run_dir / "verdict.json"
    ids = [f["id"] for f in load(run_dir, "verdict.json")["findings"]]
    assert len(ids) == 4 and "claim" not in load(run_dir, "verdict.json")["findings"][0]  # the contract carries none

    own_page = (run_dir / "report.html").read_text(encoding="utf-8")
    assert own_page.count('<div class="claim">') == 4

    md = amicus("council", "report", str(verdict_path))
    assert md.returncode == 0, md.stderr
    for claim, where in CLAIMS.items():  # under its finding line: the claim, then where
        assert re.search(rf"^- \*\*[AB]\d\*\* .*\n  - {re.escape(md_escape(claim))}\n  - location: "
                         rf"{re.escape(md_escape(where))}$", md.stdout, re.M), claim
    assert CLAIMS_UNAVAILABLE not in md.stdout

    html = amicus("council", "report", str(verdict_path), "--html")
    assert html.stdout.count('<div class="claim">') == own_page.count('<div class="claim">') == 4
    assert '<div class="claim">A &amp; B &lt;are&gt; misnamed</div><div class="location">location: glossary</div>' in html.stdout

    # Moved away from its run, the verdict says what it cannot show, in both formats.
    moved = tmp_path / "elsewhere" / "verdict.json"
    moved.parent.mkdir()
    shutil.copy(verdict_path, moved)
    alone = amicus("council", "report", str(moved)).stdout
    assert f"## Findings by tier\n\n_{CLAIMS_UNAVAILABLE}_\n\n###" in alone
    assert not any(md_escape(claim) in alone for claim in CLAIMS)
    assert f'<p class="empty">{html_escape(CLAIMS_UNAVAILABLE)}</p>' in amicus("council", "report", str(moved), "--html").stdout

    # Sub-second legs (the fake answers at once) show real durations, never "0s" (item 15).
    durations = [row.split(" | ")[2] for row in md.stdout.split("## Cost", 1)[1].splitlines()
                 if row.startswith("| fake/")]
    assert durations and all(re.fullmatch(r"<0\.1s|0\.\ds|\d+s", d) for d in durations), durations
    assert "| 0s |" not in md.stdout


def test_a_hand_assembled_verdict_still_renders_as_the_seed_shows(tmp_path):
    """The worked example's verdict sits beside its tally.json, but it is no council run's verdict
    (runType design-review, no run.json): `council report` renders it byte for byte as the seed."""
    verdict = FIXTURES / "worked-example" / "verdict.json"
    assert (verdict.parent / "tally.json").is_file()
    shown = amicus("council", "report", str(verdict), "--md")
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout == build_report(json.loads(verdict.read_text(encoding="utf-8")))
    assert " ".join(shown.stdout.split()) == SEED["report_md"]


def test_a_runs_report_takes_its_record_only_through_the_checking_reader(tmp_path):
    """The claims come from tally.json as RunDir.read_tally() reads it: a record that is not a
    valid tally record (hand-damaged) is not used raw; the report says the claims are unavailable."""
    from amicus_mcp.engine import render_verdict

    run = tmp_path / "run"
    run.mkdir()
    verdict = {**json.loads((FIXTURES / "worked-example" / "verdict.json").read_text(encoding="utf-8")),
               "runType": "headless"}  # a council run's verdict: its record is looked for beside it
    record = json.loads((FIXTURES / "worked-example" / "tally.json").read_text(encoding="utf-8"))
    claim = md_escape(record["findings"][0]["claim"])
    (run / "verdict.json").write_text(json.dumps(verdict), encoding="utf-8")
    (run / "tally.json").write_text(json.dumps(record), encoding="utf-8")
    shown = render_verdict(run / "verdict.json", verdict)
    assert claim in shown and CLAIMS_UNAVAILABLE not in shown

    (run / "tally.json").write_text(json.dumps({**record, "judged": "yes"}), encoding="utf-8")
    damaged = render_verdict(run / "verdict.json", verdict)
    assert claim not in damaged and CLAIMS_UNAVAILABLE in damaged


# --------------------------------------------------------------------------- 6. re-deciding


def test_redeciding_keeps_the_chairs_verdict_and_never_shrinks_the_runs_report(fake, brief, run_dir, project, tmp_path):
    bench(fake)
    run = council_run(brief, run_dir, project, "fake/a,fake/b,fake/c")
    assert (run["status"], run["overallVerdict"]) == ("partial", "Fix these first")
    gate_before = amicus("council", "gate", str(run_dir), "--fail-on", "fix-these-first")
    assert gate_before.returncode == 4
    decisions = tmp_path / "d.json"
    decisions.write_text(json.dumps([{"id": "A1", "decision": "accepted", "applied": True}]), encoding="utf-8")

    # The README's Stage-4 command, in the run directory.
    redo = amicus("council", "verdict", "tally.json", "--decisions", str(decisions), "-o", "verdict.json", "--render",
                  cwd=run_dir)
    assert redo.returncode == 0, redo.stderr
    assert "chair: VERDICT: Fix these first" in redo.stdout and f"report → {Path('report.html')}" in redo.stdout
    decided = load(run_dir, "verdict.json")
    assert decided["overallVerdict"] == "Fix these first" and decided["findings"][0]["decision"] == "accepted"
    assert decided["degrades"] == run["degrades"]
    gate_after = amicus("council", "gate", str(run_dir), "--fail-on", "fix-these-first")
    assert (gate_after.returncode, gate_after.stdout) == (4, gate_before.stdout)
    page = (run_dir / "report.html").read_text(encoding="utf-8")
    assert "Chair verdict: Fix these first" in page and "accepted (applied)" in page and "What was lost" in page

    # Another verdict of the same run gets its own page; the run's report.html is left as it was.
    before = (run_dir / "report.html").read_bytes()
    other = amicus("council", "verdict", "tally.json", "--decisions", str(decisions), "-o", "other.json", "--render",
                   cwd=run_dir)
    assert other.returncode == 0, other.stderr
    assert (run_dir / "report.html").read_bytes() == before
    assert "report → other.html" in other.stdout
    side = (run_dir / "other.html").read_text(encoding="utf-8")
    assert "What was lost" in side and "Chair verdict: Fix these first" in side and "Writes evict the whole cache" in side
    assert load(run_dir, "other.json")["overallVerdict"] == "Fix these first"
    assert schema_errors(load(run_dir, "other.json"), "council-verdict") == []
    (run_dir / "other.json").unlink()
    (run_dir / "other.html").unlink()  # check_documents admits the run's own documents only

    # Told otherwise, it does otherwise.
    amicus("council", "verdict", "tally.json", "-o", "verdict.json", "--overall-verdict", "Ship it", cwd=run_dir)
    assert load(run_dir, "verdict.json")["overallVerdict"] == "Ship it"
    amicus("council", "verdict", "tally.json", "-o", "verdict.json", "--no-overall-verdict", cwd=run_dir)
    assert load(run_dir, "verdict.json")["overallVerdict"] is None
    both = amicus("council", "verdict", "tally.json", "--overall-verdict", "Ship it", "--no-overall-verdict", cwd=run_dir)
    assert both.returncode == 1
    check_documents(run_dir)


# --------------------------------------------------------------------------- 7. an unjudged run


def unjudged_run(fake: Any, brief: Path, run_dir: Path, project: Path) -> dict[str, Any]:
    """b's judgement fails, so one judge is left: judged false, a's blocker a Singleton (no peer voted on it)."""
    seat(fake, "a", ("blocker", "Writes evict the whole cache", "cache.py:42"))
    seat(fake, "b", ("major", "No metrics on hit rate", "section 3"), judge=error(400, "judge crashed"))
    member(fake, "chair")
    run = council_run(brief, run_dir, project, "fake/a,fake/b")
    blocker = next(f for f in load(run_dir, "verdict.json")["findings"] if f["severity"] == "blocker")
    assert (run["judged"], blocker["tier"]) == (False, "Singleton")
    return run


def test_the_gate_fails_a_run_never_cross_reviewed_unless_allowed(fake, brief, run_dir, project):
    unjudged_run(fake, brief, run_dir, project)
    failed = amicus("council", "gate", str(run_dir), "--fail-on", "confirmed-blocker", "--json")
    doc = json.loads(failed.stdout)
    assert failed.returncode == 4 and schema_errors(doc, "council-gate") == []
    assert (doc["passed"], doc["judged"], doc["allowUnjudged"]) == (False, False, False)
    assert doc["reason"].startswith("gate fails: the run was never cross-reviewed (judged: false")
    assert "--allow-unjudged" in doc["reason"]
    for level in ("disputed-blocker", "fix-these-first", "fundamental-rethink"):
        assert amicus("council", "gate", str(run_dir), "--fail-on", level).returncode == 4, level
    assert amicus("council", "gate", str(run_dir), "--fail-on", "never").returncode == 0

    allowed = amicus("council", "gate", str(run_dir), "--fail-on", "confirmed-blocker", "--allow-unjudged")
    assert allowed.returncode == 0
    assert allowed.stdout.startswith("gate passes: no blocker finding in the Confirmed tier")
    assert "allowed by --allow-unjudged" in allowed.stdout
    # Allowed, the run is still gated on what it found: the Singleton blocker fails the strict level.
    assert amicus("council", "gate", str(run_dir), "--fail-on", "disputed-blocker", "--allow-unjudged").returncode == 4


# --------------------------------------------------------------------------- 15. the gate's hint


@pytest.mark.parametrize("engine_log", [False, True], ids=["cli-run", "spawned-run"])
def test_the_gates_hint_names_only_what_the_run_has(fake, brief, run_dir, project, engine_log):
    member(fake, "a")
    member(fake, "b", stage1=error(400, "bad request"))
    done = amicus("council", "run", "--models", "fake/a,fake/b", "--chair", "fake/chair", "--prompt-file", str(brief),
                  "--out-dir", str(run_dir), "--project", str(project), "--json")
    assert done.returncode == 1  # COUNCIL_QUORUM: no verdict
    if engine_log:
        (run_dir / "engine.log").write_text("a spawned worker's log\n", encoding="utf-8")
    refused = amicus("council", "gate", str(run_dir), "--fail-on", "never", "--json")
    error_doc = json.loads(refused.stdout)["error"]
    assert refused.returncode == 1 and error_doc["code"] == "BAD_ARGS"
    assert "COUNCIL_QUORUM" in error_doc["message"]
    assert f"'amicus status {run_dir}' shows its run.json `error`" in error_doc["hint"]
    assert ("engine.log" in error_doc["hint"]) is engine_log
    assert amicus("status", str(run_dir)).returncode == 0  # the command the hint names works
