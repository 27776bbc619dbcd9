"""`amicus_eval` over MCP: the estimate first (nothing sent), then a detached eval followed with
amicus_wait, read with amicus_read, listed, and aborted with amicus_abort."""

from __future__ import annotations

import json
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "eval"))

from eval_truth import BENCH, CHAIR, MATCHER, truth, titles  # noqa: E402
from fakeprovider import FakeProvider, KnownRecall, Reply, prompt_of  # noqa: E402
from mcp_helpers import body, error_of, in_process, unfenced, wait_until_terminal  # noqa: E402
from polling import wait_for  # noqa: E402

from amicus_mcp.eval.suite import load_suite  # noqa: E402
from amicus_mcp.schemas import schema_errors  # noqa: E402

pytestmark = pytest.mark.anyio

SUITE = load_suite()
CASES = ["rate-limiter-diff", "worker-cronjob-config"]


def start_args(project: Path, **extra: Any) -> dict[str, Any]:
    return {"models": BENCH, "chair": CHAIR, "matcher": MATCHER, "cases": CASES, "project": str(project), **extra}


def bench(fake: FakeProvider) -> KnownRecall:
    known = KnownRecall(truth(SUITE).reviews, bench=BENCH, titles=titles(SUITE), verdicts=truth(SUITE).verdicts)
    known.install(fake, chair=CHAIR, matcher=MATCHER)
    return known


async def test_the_estimate_is_disclosed_before_anything_starts(fake: FakeProvider, project: Path) -> None:
    bench(fake)
    async with in_process("auto") as client:
        result = body(await client.call_tool("amicus_eval", start_args(project, estimateOnly=True, maxCost=2)))
    assert result["status"] == "estimated" and result["evalId"] is None and "evalDir" not in result
    assert schema_errors(result["estimate"], "eval-estimate") == []
    assert (result["cases"], result["estimate"]["legs"], result["estimate"]["maxCost"]) == (2, 16, 2)
    assert "Nothing was sent" in result["next"]
    assert fake.chat_requests() == [] and not list(project.iterdir())


async def test_an_eval_runs_detached_and_is_followed_like_a_run(fake: FakeProvider, project: Path) -> None:
    bench(fake)
    async with in_process("auto") as client:
        started = body(await client.call_tool("amicus_eval", start_args(project, outDir="calibration")))
        eval_id, eval_dir = started["evalId"], Path(started["evalDir"])
        assert started["status"] == "running" and eval_dir == project / "calibration"
        assert started["estimate"]["cases"] == 2 and "amicus_wait" in started["next"]
        done, _ = await wait_until_terminal(client, eval_id, project=str(project), slice_s=2, budget_s=120)
        status = body(await client.call_tool("amicus_status", {"id": eval_id, "project": str(project)}))
        scores = body(await client.call_tool("amicus_read", {"id": eval_id, "project": str(project)}))
        as_json = body(await client.call_tool("amicus_read", {"id": eval_id, "file": "eval.json",
                                                              "project": str(project)}))
        listed = body(await client.call_tool("amicus_list", {"project": str(project)}))
        bad_file = await client.call_tool("amicus_read", {"id": eval_id, "file": "../x", "project": str(project)})
    assert (done["kind"], done["status"], done["exitCode"], done["terminal"]) == ("eval-run", "complete", 0, True)
    assert done["legsDone"] == done["legsTotal"] == 2 and done["report"] == str(eval_dir / "eval.html")
    assert [leg["model"] for leg in done["legs"]] == CASES and {leg["status"] for leg in done["legs"]} == {"complete"}
    assert status["terminal"] is True and "amicus_read" in status["next"]
    assert unfenced(scores["text"]) == (eval_dir / "eval.md").read_text(encoding="utf-8")
    assert scores["source"] == "eval.md" and scores["files"] == ["eval.md", "eval.json", "eval-run.json"]
    doc = json.loads(unfenced(as_json["text"]))
    assert schema_errors(doc, "eval") == [] and doc["evalId"] == eval_id and doc["casesScored"] == 2
    assert eval_id in [item["id"] for item in listed["items"] if item["type"] == "eval-run"]
    assert "has no file" in error_of(bad_file)
    log = (eval_dir / "engine.log").read_text(encoding="utf-8")
    assert json.loads(log)["status"] == "complete"  # the worker's last word: the manifest it ended with


async def test_an_eval_is_aborted_like_a_run(fake: FakeProvider, project: Path) -> None:
    known = bench(fake)
    gate = threading.Event()

    def held(model: str) -> Any:
        def answer(body: Any) -> Reply:
            while not gate.is_set() and not fake.stopping.is_set():
                gate.wait(timeout=0.05)
            return known.answer(model, body)
        return answer

    for model in BENCH:
        fake.respond(model.removeprefix("fake/"), held(model))
    try:
        async with in_process("auto") as client:
            started = body(await client.call_tool("amicus_eval", start_args(project)))
            eval_id, eval_dir = started["evalId"], Path(started["evalDir"])
            wait_for(lambda: len(fake.chat_requests()) >= 3, timeout=60)  # the councils are under way
            aborted = body(await client.call_tool("amicus_abort", {"id": eval_id, "project": str(project)}))
            done, _ = await wait_until_terminal(client, eval_id, project=str(project), slice_s=2, budget_s=60)
    finally:
        gate.set()
    assert aborted["aborted"] is True and aborted["signalled"] is True
    assert (done["status"], done["exitCode"]) == ("aborted", 143)
    manifest = json.loads((eval_dir / "eval-run.json").read_text(encoding="utf-8"))
    assert schema_errors(manifest, "eval-run") == []
    # Every council that had started recorded itself aborted (the signal reached each one).
    for case in manifest["cases"]:
        run = eval_dir / "cases" / case["caseId"] / "council" / "run.json"
        if case["status"] != "skipped":
            assert json.loads(run.read_text(encoding="utf-8"))["status"] == "aborted"
    assert not (eval_dir / "eval.json").exists()


async def test_a_suite_linking_out_of_its_folder_is_refused(fake: FakeProvider, project: Path) -> None:
    import shutil

    from amicus_mcp.eval.suite import shipped_suite_path

    bench(fake)
    suite = project / "suite"
    shutil.copytree(shipped_suite_path(), suite)
    artifact = suite / "cases" / "rate-limiter-diff" / "change.diff"
    artifact.unlink()
    artifact.symlink_to("/etc/passwd")
    async with in_process("auto") as client:
        result = await client.call_tool("amicus_eval", start_args(project, suite="suite"))
    text = error_of(result)
    assert "is a link that leaves the suite's folder (to /etc/passwd)" in text and "root:" not in text
    assert fake.chat_requests() == [] and sorted(p.name for p in project.iterdir()) == ["suite"]
