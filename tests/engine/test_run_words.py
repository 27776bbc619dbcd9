"""Issue 27, items 14–16, 18 and 20: what the readers of a run say of it, through the real CLI
against the loopback fake provider."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from council_helpers import QUESTION, member, question_judge, question_member, u
from fakeprovider import hang
from polling import read_run_json, wait_for

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from cli_harness import check_contract, run_cli  # noqa: E402

from amicus_mcp.schemas import schema_errors  # noqa: E402


def leg_states(run_dir: Path) -> dict[str, str]:
    return {leg["model"]: leg["status"] for leg in (read_run_json(run_dir) or {}).get("legs", [])}


def council_run(*argv: str) -> Any:
    done = run_cli("council", "run", "--chair", "fake/chair", *argv, "--json")
    check_contract(done, as_json=True)
    return done, json.loads(done.out)


# --------------------------------------------------------------------------- 14. a question's ANSWER


def test_list_and_status_say_answer_for_a_question_council(fake, tmp_path, run_dir, project, monkeypatch):
    question = tmp_path / "question.md"
    question.write_text(QUESTION, encoding="utf-8")
    for name in "ab":
        question_member(fake, name, question_judge=question_judge({}, order=["A", "B"], usage=u()))
    question_member(fake, "chair")
    done, run = council_run("--intent", "question", "--models", "fake/a,fake/b", "--prompt-file", str(question),
                            "--out-dir", str(run_dir), "--project", str(project))
    assert (done.code, run["overallVerdict"]) == (0, "Converged")
    listed = run_cli("list", "--project", str(project))
    check_contract(listed, as_json=False)
    assert "ANSWER: Converged" in listed.out and "VERDICT" not in listed.out
    as_json = json.loads(run_cli("list", "--project", str(project), "--json").out)
    assert schema_errors(as_json, "session-list") == []
    assert [(i["intent"], i["overallVerdict"]) for i in as_json["items"]] == [("question", "Converged")]
    status = run_cli("status", run["runId"], "--project", str(project))
    assert "ANSWER: Converged — " in status.out and "VERDICT" not in status.out
    # The MCP front's list says the same: the row carries the intent its standing belongs to.
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "mcp"))
    from mcp_helpers import body, in_process

    async def listed_over_mcp() -> dict[str, Any]:
        async with in_process("auto") as client:
            return body(await client.call_tool("amicus_list", {"project": str(project)}))

    monkeypatch.setenv("AMICUS_PROJECT_ROOTS", str(project))
    items = anyio.run(listed_over_mcp)["items"]
    assert [(i["intent"], i["overallVerdict"]) for i in items] == [("question", "Converged")]


def test_list_says_verdict_for_a_review_council(fake, brief, run_dir, project):
    for name in ("a", "b", "chair"):
        member(fake, name)
    done, run = council_run("--models", "fake/a,fake/b", "--prompt-file", str(brief), "--out-dir", str(run_dir),
                            "--project", str(project))
    listed = run_cli("list", "--project", str(project))
    assert f"VERDICT: {run['overallVerdict']}" in listed.out
    as_json = json.loads(run_cli("list", "--project", str(project), "--json").out)
    assert "intent" not in as_json["items"][0]


# --------------------------------------------------------------------------- 15, 16. an aborted run


def test_an_aborted_run_counts_its_plan_from_the_start_and_the_gate_points_at_resume(fake, brief, run_dir, project):
    member(fake, "a")
    member(fake, "b", stage1=hang(60))
    member(fake, "chair")
    rid = "words-abort-1"
    where = ["--project", str(project)]
    proc = subprocess.Popen([sys.executable, "-m", "amicus_mcp.cli", "council", "run", "--models", "fake/a,fake/b",
                             "--chair", "fake/chair", "--prompt-file", str(brief), "--out-dir", str(run_dir),
                             *where, "--run-id", rid, "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(os.environ))
    try:
        wait_for(lambda: fake.prompts("b"), what="the hanging seat's request")
        wait_for(lambda: leg_states(run_dir) == {"fake/a": "complete", "fake/b": "running"}, what="b in flight")
        # In Stage 1 the total is already the whole plan: 2 seats, 2 judges, the chair.
        snap = json.loads(run_cli("status", rid, *where, "--json").out)
        assert (snap["currentStage"], snap["legsComplete"], snap["legsTotal"]) == ("stage1", 1, 5)
        assert read_run_json(run_dir)["legsPlanned"] == 5
        assert run_cli("abort", rid, *where).code == 0
        proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert read_run_json(run_dir)["status"] == "aborted"
    # The aborted leg is not done, and the line says what the abort left undone.
    status = run_cli("status", rid, *where)
    assert status.out.splitlines()[0] == f"Council run {rid}: aborted (1/5 legs done; 4 left undone)"
    watched = run_cli("watch", rid, *where)
    check_contract(watched, as_json=False)
    assert watched.out.splitlines()[0] == f"Council run {rid}: aborted · 1/5 legs done (4 left undone)"
    # The gate takes the run id, as every other command does, and points at `council resume`.
    gated = run_cli("council", "gate", rid, *where, "--fail-on", "never", "--json")
    check_contract(gated, as_json=True)
    error = gated.envelope()["error"]
    assert gated.code == 1 and "does not exist" not in error["message"]
    assert "holds no verdict.json: the run's status is aborted" in error["message"]
    assert f"'amicus council resume {run_dir.resolve()}' finishes it" in error["hint"]
    assert "`error`" not in error["hint"]


def test_the_gate_takes_a_finished_runs_id(fake, brief, run_dir, project, tmp_path):
    for name in ("a", "b", "chair"):
        member(fake, name)
    done, run = council_run("--models", "fake/a,fake/b", "--prompt-file", str(brief), "--out-dir", str(run_dir),
                            "--project", str(project))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    by_id = run_cli("council", "gate", run["runId"], "--project", str(project), "--fail-on", "never", "--json")
    by_dir = run_cli("council", "gate", str(run_dir), "--fail-on", "never", "--json")
    assert by_id.code == by_dir.code == 0
    assert json.loads(by_id.out) == json.loads(by_dir.out)
    unknown = run_cli("council", "gate", "no-such-run", "--project", str(project), "--fail-on", "never", "--json")
    error = unknown.envelope()["error"]
    assert unknown.code == 1 and error["code"] == "BAD_ARGS" and "does not exist" not in error["message"]
    assert error["message"] == "'no-such-run' is neither a council run id in this project nor a run directory or verdict file"


# --------------------------------------------------------------------------- 20. polish


def test_an_unknown_flag_points_at_the_subcommands_help():
    for argv, command in ((["council", "run", "--bogus"], "council run"), (["list", "--nope", "x"], "list"),
                          (["council", "pack", "list", "--zz"], "council pack list")):
        done = run_cli(*argv, "--json")
        check_contract(done, as_json=True)
        error = done.envelope()["error"]
        assert error["code"] == "BAD_ARGS" and error["message"].startswith("unrecognized arguments: ")
        assert error["hint"] == f"see 'amicus {command} --help'"


def test_a_cost_with_unknown_legs_carries_one_qualifier():
    from amicus_mcp.cli.council import cost_phrase
    from amicus_mcp.documents.usage import RolledCost

    def cost(source: str, amount: float | None = 0.0077) -> RolledCost:
        return RolledCost(amount=amount, currency="USD", source=source, reported_legs=1, estimated_legs=1,
                          unpriced_legs=1)

    assert cost_phrase(cost("reported"), 0) == "$0.0077"
    assert cost_phrase(cost("mixed"), 0) == "~$0.0077"
    assert cost_phrase(cost("reported"), 2) == "at least $0.0077 (2 leg(s) of unknown cost)"
    assert cost_phrase(cost("mixed"), 1) == "at least $0.0077, partly estimated (1 leg(s) of unknown cost)"
    assert cost_phrase(cost("estimated"), 1) == "at least $0.0077, estimated (1 leg(s) of unknown cost)"
    assert cost_phrase(cost("unknown", None), 3) == "? (3 leg(s) of unknown cost)"
    for source in ("reported", "mixed", "estimated"):
        assert "at least ~" not in cost_phrase(cost(source), 1)


def test_a_finished_evals_status_does_not_say_partial_done():
    from amicus_mcp.cli.eval import render_eval_status

    doc = {"id": "e1", "status": "partial", "stage": "done", "casesDone": 3, "casesTotal": 4, "cases": []}
    assert render_eval_status(doc) == "Eval e1: partial (3/4 cases done)"
    assert render_eval_status({**doc, "status": "running", "stage": "scoring"}).startswith(
        "Eval e1: running — stage scoring (3/4 cases done)")
