"""A task council (issue 28, the original's third intent): the council is asked to do or decide
something. Its seats review the briefing and raise findings as a review's do; its chair closes
on an ANSWER line as a question's does; its run writes no reliability rows (and says so, as a
note); its report's title forks to `task`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from council_helpers import check_documents, kinds_asked, member
from fakeprovider import chat

from amicus_mcp.cli import main as cli_main
from amicus_mcp.council.report import build_report
from amicus_mcp.engine.options import RunOptions
from amicus_mcp.engine.council_run import run_council

DECISION = "Ship the migration on Monday, after the step-4 backfill is rehearsed."
CHAIR = (f"Synthesis: the plan holds once the backfill is rehearsed.\n\n## Hard questions\n\n1. Who rolls back step 3?\n"
         f"2. How long is the backfill?\n3. Who is on call?\n\nANSWER: Converged — {DECISION}\n")


def load(run_dir: Path, name: str) -> dict[str, Any]:
    return json.loads((run_dir / name).read_text(encoding="utf-8"))


def ledger(config_dir: Path) -> list[dict[str, Any]]:
    path = config_dir / "council-ledger.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


@pytest.mark.anyio
async def test_a_task_council_decides_with_an_answer_line_and_writes_no_ledger_rows(fake, brief, run_dir, project,
                                                                                   config_dir):
    for name in "ab":
        member(fake, name)
    member(fake, "chair", chair=chat(CHAIR))
    opts = RunOptions(prompt_file=str(brief), models=["fake/a", "fake/b"], chair="fake/chair", project=str(project),
                      out_dir=str(run_dir), intent="task")
    manifest, code = await run_council(opts)
    run = manifest.to_doc()
    assert (code, run["status"]) == (0, "complete")
    check_documents(run_dir, run)
    # Reviewed like a review: the seats' review briefing, findings, cross-review.
    assert kinds_asked(fake, "a") == ["stage1", "judge"]
    packet = (run_dir / "chair-packet.md").read_text(encoding="utf-8")
    assert "ANSWER: <Converged, Split or Insufficient> — <the council's decision in one sentence>" in packet
    assert "VERDICT: Ship it" not in packet
    # The intent is on every document that records the run; the ANSWER line is read.
    assert run["intent"] == load(run_dir, "options.json")["intent"] == "task"
    verdict = load(run_dir, "verdict.json")
    assert load(run_dir, "tally.json")["meta"]["intent"] == verdict["intent"] == "task"
    assert (run["overallVerdict"], run["answer"]) == ("Converged", DECISION)
    assert (verdict["overallVerdict"], verdict["answer"]) == ("Converged", DECISION)
    assert verdict["hardQuestions"] == ["Who rolls back step 3?", "How long is the backfill?", "Who is on call?"]
    assert [f["id"] for f in verdict["findings"]] == ["A1", "B1"] and "ranking" not in verdict
    # No reliability rows, said as a note (not a loss).
    assert ledger(config_dir) == []
    assert "task council: not recorded in the reliability ledger (a task council writes no reliability rows)" \
        in run["notices"]
    md = build_report(verdict, record=load(run_dir, "tally.json"))
    assert md.startswith(f"# Council Report — task ({run['runId']})")
    assert f"**Chair answer: Converged** {DECISION}" in md
    block = md.split("## What was lost\n\n", 1)[1].split("\n\n## ", 1)[0]
    assert block.startswith("_Nothing was lost._\n\n**Notes:**") and "writes no reliability rows" in block
    page = (run_dir / "report.html").read_text(encoding="utf-8")
    assert "<title>Council Report — task (" in page and "Chair answer: Converged" in page and DECISION in page


def test_the_cli_takes_intent_task_and_a_review_template_frames_it(fake, run_dir, project, config_dir, capsys):
    for name in "ab":
        member(fake, name)
    member(fake, "chair", chair=chat(CHAIR))
    (project / "design.md").write_text("# Migration plan\n\nStep 3 drops the old column.\n", encoding="utf-8")
    code = cli_main(["council", "run", "--intent", "task", "--template", "design-doc", "--artifact",
                     str(project / "design.md"), "--models", "fake/a,fake/b", "--chair", "fake/chair",
                     "--out-dir", str(run_dir), "--project", str(project)])
    human = capsys.readouterr().out
    assert code == 0 and "(task): complete (exit 0)" in human and f"ANSWER: Converged — {DECISION}" in human
    assert load(run_dir, "run.json")["template"]["name"] == "design-doc" and ledger(config_dir) == []
    # A question template does not frame a task: its words ask for answers, not reviews.
    assert cli_main(["council", "run", "--intent", "task", "--template", "question", "--var", "question=When?",
                     "--artifact", str(project / "design.md"), "--models", "fake/a,fake/b", "--chair", "fake/chair",
                     "--out-dir", str(run_dir.parent / "again"), "--project", str(project)]) == 1
    assert "--intent task does not fit template 'question', which frames a question" in capsys.readouterr().err


@pytest.mark.anyio
async def test_a_task_run_is_listed_with_its_intent_and_the_list_is_schema_valid(fake, brief, run_dir, project):
    # mypy found it: the session-list declaration allowed only "question", while the list
    # writes a task run's intent too — `amicus list --json` was then schema-invalid.
    from amicus_mcp.engine.control import list_all
    from amicus_mcp.engine.store import SessionStore
    from amicus_mcp.schemas import schema_errors

    for name in "ab":
        member(fake, name)
    member(fake, "chair", chair=chat(CHAIR))
    opts = RunOptions(prompt_file=str(brief), models=["fake/a", "fake/b"], chair="fake/chair", project=str(project),
                      out_dir=str(run_dir), intent="task")
    manifest, code = await run_council(opts)
    assert code == 0
    rows = list_all(SessionStore(project))
    assert [(r["id"], r.get("intent")) for r in rows] == [(manifest.run_id, "task")]
    assert schema_errors({"schemaVersion": 2, "type": "session-list", "items": rows}, "session-list") == []
