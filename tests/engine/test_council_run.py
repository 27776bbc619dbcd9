"""`amicus council run` end to end: the real engine against the loopback fake provider.

Every bench member is a model on the fake server (`fake/<name>`) that answers by the kind
of prompt it receives — a Stage-1 briefing, a Stage-1 repair, a judge bundle, a judge
repair, a chair packet or a VERDICT repair — so one model can review, judge and repair
with different replies. Judges answer from the bundle they actually receive: they rank
the labels it shows and vote on the finding ids it lists (see `council_helpers.py`).

Each test asserts the exit code, the run.json status and fields, the files in the run
directory, and that every JSON document the run wrote validates against its schema.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from council_helpers import (
    ALWAYS,
    BRIEF,
    OUTPUTS,
    assert_nothing_happened,
    auto_judge,
    broken_review,
    bundle_labels,
    check_documents,
    degrade_channels,
    files,
    kind,
    kinds_asked,
    ledger,
    load,
    member,
    preflight_refused,
    repaired_block,
    review,
    seed_ledger,
    u,
    verdict_text,
)
from fakeprovider import chat, configure_fake, error, hang
from polling import read_run_json, wait_for

from amicus_mcp.cli import main as cli_main
from amicus_mcp.engine.control import ENGINE_DIED
from amicus_mcp.engine import run_council
from amicus_mcp.engine.options import RunOptions
from amicus_mcp.engine.run_dir import find_run
from amicus_mcp.engine.store import SessionStore
from amicus_mcp.errors import BadArgs, BadModel, MissingPrompt
from amicus_mcp.schemas import schema_errors

pytestmark = pytest.mark.anyio

# --------------------------------------------------------------------------- 1. happy path


async def test_happy_path_three_seats(fake, council, run_dir, project, config_dir):
    for name, tag in (("a", "north"), ("b", "south"), ("c", "east")):
        member(fake, name, tag=tag)
    member(fake, "chair")
    run, code = await council(["fake/a", "fake/b", "fake/c"])
    assert (code, run["status"], run["exitCode"]) == (0, "complete", 0)
    assert check_documents(run_dir, run) == run

    assert files(run_dir) == {*ALWAYS, *OUTPUTS, "review-fake-a.md", "review-fake-b.md", "review-fake-c.md",
                              "judge-fake-a.md", "judge-fake-b.md", "judge-fake-c.md",
                              "chair-packet.md", "chair-output.md"}
    assert [s["name"] for s in run["stages"]] == ["stage1", "stage2", "tally", "chair", "verdict"]
    assert all(s["status"] == "complete" for s in run["stages"])
    assert "degrades" not in run and "notices" not in run and "budgetRefusals" not in run
    assert run["bench"] == ["fake/a", "fake/b", "fake/c"]
    assert [s["id"] for s in run["seats"]] == ["fake/a", "fake/b", "fake/c"]

    # Stage 1: every seat got the composed briefing, which embeds the user's briefing.
    briefing = (run_dir / "briefing-stage1.md").read_text(encoding="utf-8")
    assert BRIEF.strip() in briefing
    for name in "abc":
        assert kinds_asked(fake, name) == ["stage1", "judge"]
        assert fake.prompts(name)[0] == briefing
    assert "north claim 1" in (run_dir / "review-fake-a.md").read_text(encoding="utf-8")

    # Stage 2: one anonymized bundle, byte-identical for every judge, with no model names in it.
    bundle = (run_dir / "bundle-stage2.md").read_text(encoding="utf-8")
    judge_prompts = [p for p in fake.prompts() if kind(p) == "judge"]
    assert len(judge_prompts) == 3 and all(p == bundle for p in judge_prompts)
    assert run["labelMap"] == {"Review A": "fake/a", "Review B": "fake/b", "Review C": "fake/c"}
    for name in ("fake/a", "fake/b", "fake/c", "vendor/a-1", "vendor/b-1", "vendor/c-1", "fake/chair"):
        assert name not in bundle
    assert bundle_labels(bundle) == (["Review A", "Review B", "Review C"], ["A1", "B1", "C1"])
    assert "A1" in (run_dir / "judge-fake-b.md").read_text(encoding="utf-8")

    # The chair: the de-anonymized packet went out verbatim; its raw output is kept.
    packet = (run_dir / "chair-packet.md").read_text(encoding="utf-8")
    assert fake.prompts("chair") == [packet]
    assert "fake/a" in packet and "VERDICT: Ship it" in packet  # names + the verdict-scale addendum
    assert (run_dir / "chair-output.md").read_text(encoding="utf-8") == verdict_text()
    assert run["chairAttempts"] == [{"waveId": f"{run['runId']}-ch1", "model": "fake/chair",
                                     "outcome": "completed", "reason": None}]
    assert (run["chair"], run["chairConformance"]) == ("fake/chair", "clean")

    # Outputs: the verdict line is the chair's; all findings confirmed by two peers each.
    verdict = load(run_dir, "verdict.json")
    tally = load(run_dir, "tally.json")
    assert verdict["overallVerdict"] == run["overallVerdict"] == "Fix these first"
    assert verdict["chair"] == tally["meta"]["chair"] == "fake/chair"
    assert tally["judged"] is run["judged"] is True
    assert run["tierCounts"] == tally["tierCounts"] == {"Confirmed": 3, "Contested": 0, "Singleton": 0, "Disputed": 0}
    assert all(f["decision"] is None for f in verdict["findings"])  # Stage 4 stays human
    assert tally["meta"]["runType"] == "headless" and tally["meta"]["claudeInCouncil"] is False
    assert load(run_dir, "tally-input.json")["meta"]["runId"] == run["runId"]
    html = (run_dir / "report.html").read_text(encoding="utf-8")
    assert html.lstrip().lower().startswith("<!doctype html") and "Fix these first" in html

    # runStats: seats, then judges, then the chair — in bench order, however legs finished.
    stats = [(r["role"], r["model"], r["conformance"], r["status"]) for r in tally["runStats"]]
    assert stats == [("seat", f"fake/{n}", "clean", "complete") for n in "abc"] + \
        [("judge", f"fake/{n}", "clean", "complete") for n in "abc"] + [("chair", "fake/chair", "clean", "complete")]
    assert tally["runStats"][0]["resolvedModel"] == "vendor/a-1"
    assert [r["wasChair"] for r in tally["runStats"]] == [False] * 6 + [True]
    assert verdict["runStats"] == tally["runStats"]

    # Legs, usage, the pointer, the ledger.
    rid = run["runId"]
    assert [leg["id"] for leg in run["legs"]] == [f"{rid}-s1-1", f"{rid}-s1-2", f"{rid}-s1-3",
                                                  f"{rid}-s2-1", f"{rid}-s2-2", f"{rid}-s2-3", f"{rid}-ch1"]
    assert all(leg["status"] == "complete" for leg in run["legs"])
    assert run["usage"]["tokens"]["input"] == 700 and run["usage"]["costExact"] is True
    assert find_run(SessionStore(project), rid).path == run_dir.resolve()  # type: ignore[union-attr]
    rows = ledger(config_dir)
    assert [(r["runId"], r["model"], r["resolvedModel"], r["judged"]) for r in rows] == [
        (rid, f"fake/{n}", f"vendor/{n}-1", True) for n in "abc"]
    assert all(r["streetCredPeersOnly"] is not None for r in rows)


def test_cli_json_passes_run_json_through_with_the_exit_code(fake, brief, run_dir, project, capsys):
    member(fake, "a")
    member(fake, "b", stage1=chat(""))  # a dead seat degrades the run
    member(fake, "c")
    member(fake, "chair")
    code = cli_main(["council", "run", "--models", "fake/a,fake/b,fake/c", "--chair", "fake/chair",
                     "--prompt-file", str(brief), "--out-dir", str(run_dir), "--project", str(project), "--json"])
    printed = json.loads(capsys.readouterr().out)
    assert (code, printed["status"], printed["exitCode"]) == (2, "partial", 2)
    assert check_documents(run_dir) == printed
    assert "review-fake-b.md" not in files(run_dir)
    assert printed["labelMap"] == {"Review A": "fake/a", "Review B": "fake/c"}
    assert [d["what"] for d in printed["degrades"]] == ["seat fake/b did not review"]


# --------------------------------------------------------------------------- 2. the exit-code table


async def test_fewer_than_two_reviews_is_council_quorum(fake, council, run_dir, config_dir):
    member(fake, "a")
    member(fake, "b", stage1=error(400, "bad request"))
    member(fake, "c", stage1=chat(""))
    member(fake, "chair")
    run, code = await council(["fake/a", "fake/b", "fake/c"])
    assert (code, run["status"], run["exitCode"]) == (1, "error", 1)
    assert run["error"]["code"] == "COUNCIL_QUORUM" and "only 1 of 3" in run["error"]["message"]
    check_documents(run_dir, run)
    assert files(run_dir) == {*ALWAYS, "review-fake-a.md"}
    assert [(s["name"], s["status"]) for s in run["stages"]] == [("stage1", "complete")]
    assert run["labelMap"] is None and run["usage"] is not None
    primary = [leg for leg in run["legs"] if leg["role"] == "seat"]
    assert [leg["status"] for leg in primary] == ["complete", "error", "complete"]
    assert primary[1]["error"]["code"] == "PROVIDER_REJECTED"
    # The empty reply completed, so it was sent to repair (twice) before the seat was given up.
    assert [leg["model"] for leg in run["legs"] if leg["role"] == "repair"] == ["fake/c", "fake/c"]
    assert all(kind(p) in ("stage1", "stage1-repair") for p in fake.prompts())  # no judge, no chair
    assert ledger(config_dir) == []


def test_quorum_through_the_cli_is_the_error_envelope(fake, brief, run_dir, project, capsys):
    member(fake, "a")
    member(fake, "b", stage1=error(400, "bad request"))
    code = cli_main(["council", "run", "--models", "fake/a,fake/b", "--chair", "fake/chair",
                     "--prompt-file", str(brief), "--out-dir", str(run_dir), "--project", str(project), "--json"])
    envelope = json.loads(capsys.readouterr().out)
    assert code == 1
    assert schema_errors(envelope, "error") == []
    assert envelope["error"]["code"] == "COUNCIL_QUORUM" and envelope["error"]["command"] == "council run"
    assert check_documents(run_dir)["status"] == "error"


async def test_dead_seat_by_timeout_degrades(fake, council, run_dir):
    member(fake, "a")
    member(fake, "b")
    member(fake, "c", stage1=hang(30))
    member(fake, "chair")
    run, code = await council(["fake/a", "fake/b", "fake/c"], timeout_min=0.02)
    assert (code, run["status"]) == (2, "partial")
    check_documents(run_dir, run)
    assert next(leg for leg in run["legs"] if leg["model"] == "fake/c")["status"] == "timeout"
    assert run["degrades"][0]["what"] == "seat fake/c did not review"
    assert run["labelMap"] == {"Review A": "fake/a", "Review B": "fake/b"}
    assert run["overallVerdict"] == "Fix these first" and run["judged"] is True
    assert "review-fake-c.md" not in files(run_dir) and "judge-fake-c.md" not in files(run_dir)


async def test_fewer_than_two_judges_is_judged_false(fake, council, run_dir, config_dir):
    member(fake, "a")
    member(fake, "b", judge=error(400, "judge refused"))
    member(fake, "c", judge=chat("I rank them all equally."), judge_repair=chat("Still no block."))
    member(fake, "chair")
    run, code = await council(["fake/a", "fake/b", "fake/c"])
    assert (code, run["status"]) == (2, "partial")
    check_documents(run_dir, run)
    tally = load(run_dir, "tally.json")
    assert tally["judged"] is run["judged"] is False
    rows = ledger(config_dir)  # an unjudged run gives the ledger no street cred
    assert len(rows) == 3 and all(r["judged"] is False and r["streetCredPeersOnly"] is None for r in rows)
    whats = [d["what"] for d in run["degrades"]]
    assert sorted(whats[:2]) == ["judge fake/b produced no judgement", "judge fake/c dropped"]  # either may finish first
    assert whats[2:] == ["cross-review is thin"] and degrade_channels(run) == ["stage2"] * 3
    assert kinds_asked(fake, "c") == ["stage1", "judge", "judge-repair", "judge-repair"]  # two repairs, no more
    assert next(s for s in run["stages"] if s["name"] == "stage2")["judges"] == 1
    # The dropped judge's raw output is kept; the dead judge wrote nothing.
    assert "judge-fake-c.md" in files(run_dir) and "judge-fake-b.md" not in files(run_dir)
    roles = [(r["role"], r["model"], r["conformance"]) for r in tally["runStats"] if r["role"] != "seat"]
    assert ("judge", "fake/b", "clean") in roles and ("judge", "fake/c", "unstructured") in roles
    assert run["overallVerdict"] == "Fix these first"  # the chair still runs


async def test_chair_walk_exhausted_writes_a_null_verdict(fake, council, run_dir, config_dir):
    seed_ledger(config_dir, [("fake/p", 1.5)])
    for name in "abc":
        member(fake, name)
    member(fake, "chair", chair=error(400, "chair is down"))
    member(fake, "p", chair=error(400, "promoted chair is down too"))
    run, code = await council(["fake/a", "fake/b", "fake/c"])
    assert (code, run["status"]) == (2, "partial")
    check_documents(run_dir, run)
    rid = run["runId"]
    assert [(a["waveId"], a["model"], a["outcome"]) for a in run["chairAttempts"]] == [
        (f"{rid}-ch1", "fake/chair", "error"), (f"{rid}-ch2", "fake/chair", "error"), (f"{rid}-ch3", "fake/p", "error")]
    assert all(a["reason"] and "down" in a["reason"] for a in run["chairAttempts"])
    assert run["overallVerdict"] is None and load(run_dir, "verdict.json")["overallVerdict"] is None
    assert next(s for s in run["stages"] if s["name"] == "chair")["status"] == "error"
    assert next(s for s in run["stages"] if s["name"] == "verdict")["status"] == "complete"
    assert {"chair-packet.md", *OUTPUTS} <= files(run_dir) and "chair-output.md" not in files(run_dir)
    assert run["chair"] == "fake/chair" and "chairConformance" not in run
    assert degrade_channels(run) == ["chair"]
    chair_rows = [(r["role"], r["model"]) for r in load(run_dir, "tally.json")["runStats"] if r["role"].startswith("chair")]
    assert chair_rows == [("chair", "fake/chair"), ("chair-attempt", "fake/chair"), ("chair-attempt", "fake/chair"),
                          ("chair-attempt", "fake/p")]
    give_up = next(r for r in load(run_dir, "tally.json")["runStats"] if r["role"] == "chair")
    assert (give_up["wasChair"], give_up["status"], give_up["usage"]) == (True, "error", None)


async def test_chair_without_a_verdict_line_after_one_repair(fake, council, run_dir):
    for name in "abc":
        member(fake, name)
    member(fake, "chair", chair=chat(verdict_text(None)), chair_repair=chat("I would rather not say."))
    run, code = await council(["fake/a", "fake/b", "fake/c"])
    assert (code, run["status"]) == (2, "partial")
    check_documents(run_dir, run)
    assert run["overallVerdict"] is None and load(run_dir, "verdict.json")["overallVerdict"] is None
    assert run["chairConformance"] == "unstructured" and run["chair"] == "fake/chair"
    assert (run_dir / "chair-output.md").read_text(encoding="utf-8") == verdict_text(None)  # the prose is kept
    assert (run_dir / "chair-repair-output.md").read_text(encoding="utf-8") == "I would rather not say."
    assert kinds_asked(fake, "chair") == ["chair", "chair-repair"]  # exactly one repair
    repair_prompt = fake.prompts("chair")[1]
    assert "the eviction policy must change first" in repair_prompt  # the repair embeds the synthesis
    assert f"{run['runId']}-ch4" in [leg["id"] for leg in run["legs"]]
    assert degrade_channels(run) == ["chair"]
    rows = [(r["role"], r["conformance"]) for r in load(run_dir, "tally.json")["runStats"] if r["model"] == "fake/chair"]
    assert rows == [("chair", "unstructured"), ("repair", "unstructured")]  # a failed repair is not `repaired`


async def test_chair_verdict_line_repaired(fake, council, run_dir):
    for name in "abc":
        member(fake, name)
    member(fake, "chair", chair=chat(verdict_text(None)), chair_repair=chat("VERDICT: Ship it"))
    run, code = await council(["fake/a", "fake/b", "fake/c"])
    assert (code, run["status"]) == (0, "complete")
    check_documents(run_dir, run)
    assert run["overallVerdict"] == load(run_dir, "verdict.json")["overallVerdict"] == "Ship it"
    assert run["chairConformance"] == "repaired"


async def test_cost_ceiling_hit_after_the_tally_skips_the_chair(fake, council, run_dir, config_dir):
    configure_fake(config_dir, fake, cost="reported")
    for name in "abc":
        member(fake, name, cost=0.01, judge=auto_judge(usage=u(0.2)))
    member(fake, "chair")
    run, code = await council(["fake/a", "fake/b", "fake/c"], max_cost=0.5)
    assert (code, run["status"]) == (2, "partial")
    check_documents(run_dir, run)
    chair_stage = next(s for s in run["stages"] if s["name"] == "chair")
    assert (chair_stage["status"], chair_stage["reason"]) == ("skipped", "max-cost")
    assert fake.prompts("chair") == []
    assert run["overallVerdict"] is None and load(run_dir, "verdict.json")["overallVerdict"] is None
    assert {*OUTPUTS} <= files(run_dir) and not {"chair-packet.md", "chair-output.md"} & files(run_dir)
    assert run["usage"]["costExact"] is True and run["usage"]["cost"]["amount"] == pytest.approx(0.63)
    assert run["chairAttempts"] == [] and degrade_channels(run) == ["chair"]
    assert load(run_dir, "tally.json")["judged"] is True


async def test_cost_ceiling_hit_before_the_tally_is_cost_exceeded(fake, council, run_dir, config_dir):
    configure_fake(config_dir, fake, cost="reported")
    for name in "abc":
        member(fake, name, cost=0.3)
    member(fake, "chair")
    run, code = await council(["fake/a", "fake/b", "fake/c"], max_cost=0.5)
    assert (code, run["status"]) == (1, "error")
    assert run["error"]["code"] == "COST_EXCEEDED"
    check_documents(run_dir, run)
    assert files(run_dir) == {*ALWAYS, "review-fake-a.md", "review-fake-b.md", "review-fake-c.md"}
    assert all(kind(p) == "stage1" for p in fake.prompts())
    assert run["usage"]["cost"]["amount"] == pytest.approx(0.9)
    assert ledger(config_dir) == []


async def test_a_launch_refused_by_the_ceiling_mid_way_blames_the_ceiling(gateway, council, run_dir):
    """Reviews billed far above their reservation ($0.1222 each) leave ~$0.02 for the judges
    after the chair's floor is held back: their equal shares would be below their floor, so they
    are admitted at the floor while the room lasts — two of the three — and the third is refused,
    the message blaming the ceiling."""
    for name in ("vendor/a", "vendor/b", "vendor/c"):
        member(gateway, name, cost=0.1222, judge=auto_judge(usage=u(0.001)))
    member(gateway, "vendor/chair", cost=0.001)
    models = ["openrouter/vendor/a", "openrouter/vendor/b", "openrouter/vendor/c"]
    run, code = await council(models, chair="openrouter/vendor/chair", max_cost=0.4)
    assert (code, run["status"]) == (2, "partial")
    check_documents(run_dir, run)
    rid = run["runId"]
    assert [(r["waveId"], r["models"], r["reason"], r["stage"]) for r in run["budgetRefusals"]] == [
        (f"{rid}-s2-3", ["openrouter/vendor/c"], "max-cost", "stage2")]
    assert [kind(p) for p in gateway.prompts("vendor/c")] == ["stage1"]  # a refused launch is never made
    judges = [leg for leg in run["legs"] if leg["stage"] == "stage2"]
    assert [leg["maxTokens"] for leg in judges] == [750, 750]  # admitted at their floor
    assert run["judged"] is True and run["overallVerdict"] == "Fix these first"
    assert degrade_channels(run) == ["budget"]
    assert "stage2 launch for openrouter/vendor/c refused: the --max-cost ceiling has no room left for it" in run["notices"]
    assert sum(leg["reserved"] for leg in run["legs"]) <= 0.4  # what was claimed never exceeds the ceiling
    assert run["usage"]["costExact"] is True and run["usage"]["cost"]["amount"] <= 0.4


async def test_a_ceiling_too_low_for_the_run_is_refused_before_any_request(gateway, council, run_dir, config_dir):
    """At their smallest output caps this bench reserves $0.0821 (seed the catalog cache, so not
    even the catalog is fetched): a $0.05 ceiling is refused at pre-flight, naming the ceiling,
    the reservation per leg and the smallest ceiling that fits."""
    from amicus_mcp.errors import CostCeilingTooLow
    from amicus_mcp.providers.catalog import ModelInfo, write_catalog

    write_catalog([m for m in (ModelInfo.from_doc(row) for row in gateway.catalog) if m is not None])
    for name in ("vendor/a", "vendor/b", "vendor/c", "vendor/chair"):
        member(gateway, name, cost=0.001)
    models = ["openrouter/vendor/a", "openrouter/vendor/b", "openrouter/vendor/c"]
    with pytest.raises(CostCeilingTooLow) as info:
        await council(models, chair="openrouter/vendor/chair", max_cost=0.05)
    message = info.value.message
    assert message.startswith("the --max-cost $0.05 ceiling cannot hold this run")
    assert "Stage 1 3 leg(s) of up to $0.0105 each (1,000-token answers)" in message
    assert "Stage 2 3 leg(s) of up to $0.0127 each (750-token answers)" in message
    assert message.endswith("The smallest ceiling that fits is $0.0822")
    assert "0.0822" in (info.value.hint or "")
    assert gateway.requests == [] and not run_dir.exists()
    run, code = await council(models, chair="openrouter/vendor/chair", max_cost=0.0822)  # that ceiling runs
    assert (code, run["status"]) == (0, "complete")


@pytest.mark.parametrize("max_cost, expected", [(None, (0, "complete")), (5.0, (2, "partial"))])
async def test_an_unpriced_leg_under_a_ceiling_degrades(fake, council, run_dir, max_cost, expected):
    member(fake, "a")
    member(fake, "b", stage1=chat(review("seat-b")))  # no usage block: its cost is unknown
    member(fake, "c")
    member(fake, "chair")
    run, code = await council(["fake/a", "fake/b", "fake/c"], max_cost=max_cost)
    assert (code, run["status"]) == expected
    check_documents(run_dir, run)
    assert (run["usage"]["costExact"], run["usage"]["unknownLegs"]) == (False, 1)
    # The stages and the verdict are untouched either way.
    assert all(s["status"] == "complete" for s in run["stages"])
    assert run["overallVerdict"] == "Fix these first"
    assert degrade_channels(run) == ([] if max_cost is None else ["budget"])


# --------------------------------------------------------------------------- signals (CLI subprocess)


def cli(*args: str, **kwargs: Any) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "amicus_mcp.cli", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=dict(os.environ), **kwargs)


def cli_json(*args: str, timeout: float = 30, code: int = 0) -> Any:
    done = subprocess.run([sys.executable, "-m", "amicus_mcp.cli", *args, "--json"], capture_output=True, text=True,
                          env=dict(os.environ), timeout=timeout, check=False)
    assert done.returncode == code, done.stderr + done.stdout
    return json.loads(done.stdout)




def leg_states(run_dir: Path) -> dict[str, str]:
    return {leg["model"]: leg["status"] for leg in (read_run_json(run_dir) or {}).get("legs", [])}


def start_run(brief: Path, run_dir: Path, project: Path, models: str, *extra: str) -> subprocess.Popen[str]:
    return cli("council", "run", "--models", models, "--chair", "fake/chair", "--prompt-file", str(brief),
               "--out-dir", str(run_dir), "--project", str(project), "--json", *extra)


def finish(proc: subprocess.Popen[str], timeout: float = 30) -> tuple[int, str, str]:
    out, err = proc.communicate(timeout=timeout)
    return proc.returncode, out, err


@pytest.mark.parametrize("signum, exit_code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_signal_mid_stage_aborts(fake, brief, run_dir, project, signum, exit_code):
    member(fake, "a")
    member(fake, "b", stage1=hang(60))
    member(fake, "chair")
    proc = start_run(brief, run_dir, project, "fake/a,fake/b")
    try:
        wait_for(lambda: fake.prompts("b"), what="the hanging seat's request")
        wait_for(lambda: leg_states(run_dir) == {"fake/a": "complete", "fake/b": "running"}, what="a running leg")
        proc.send_signal(signum)
        code, out, err = finish(proc)
    finally:
        proc.kill()
    assert code == exit_code, err
    run = check_documents(run_dir)
    assert json.loads(out) == run
    assert (run["status"], run["exitCode"]) == ("aborted", exit_code)
    assert [(s["name"], s["status"]) for s in run["stages"]] == [("stage1", "aborted")]
    assert {leg["model"]: leg["status"] for leg in run["legs"]} == {"fake/a": "complete", "fake/b": "aborted"}
    assert "verdict.json" not in files(run_dir)
    assert fake.prompts("chair") == []


@pytest.mark.parametrize("signum, exit_code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_as_soon_as_run_json_exists_is_recorded(fake, brief, run_dir, project, signum, exit_code):
    """From the first run.json on, a signal always ends the run `aborted` (never a dead
    'running' manifest): the handlers are in place before the engine writes anything."""
    for name in "ab":
        member(fake, name, stage1=hang(60))
    proc = start_run(brief, run_dir, project, "fake/a,fake/b")
    try:
        wait_for(lambda: read_run_json(run_dir), timeout=30, what="run.json")
        proc.send_signal(signum)
        code, _, err = finish(proc)
    finally:
        proc.kill()
    assert code == exit_code, err
    run = check_documents(run_dir)
    assert (run["status"], run["exitCode"]) == ("aborted", exit_code)


# --------------------------------------------------------------------------- 3. repairs


async def test_review_repaired_on_the_first_repair(fake, council, run_dir):
    member(fake, "a", stage1=chat(broken_review("north", 2), usage=u()),
           stage1_repair=chat(repaired_block("north", 2), usage=u()))
    member(fake, "b")
    member(fake, "c")
    member(fake, "chair")
    run, code = await council(["fake/a", "fake/b", "fake/c"])
    assert (code, run["status"]) == (0, "complete")
    check_documents(run_dir, run)
    assert kinds_asked(fake, "a") == ["stage1", "stage1-repair", "judge"]
    repair_prompt = fake.prompts("a")[1]
    assert "MISSING_FIELD" in repair_prompt and "exactly 2 finding(s)" in repair_prompt
    assert "The north reviewer finds" in repair_prompt  # the failing review, verbatim
    text = (run_dir / "review-fake-a.md").read_text(encoding="utf-8")
    assert text.startswith("The north reviewer finds") and "north rationale 2" in text  # prose + the fixed block
    tally = load(run_dir, "tally.json")
    rows = [(r["role"], r["conformance"], r.get("waveId")) for r in tally["runStats"] if r["model"] == "fake/a"]
    assert rows == [("seat", "repaired", f"{run['runId']}-s1-1"), ("repair", "repaired", f"{run['runId']}-p1"),
                    ("judge", "clean", f"{run['runId']}-s2-1")]
    assert [f["id"] for f in tally["findings"] if f["raiser"] == "fake/a"] == ["A1", "A2"]


async def test_findings_only_a_repair_of_a_blockless_reply_gave_are_unverified(fake, council, run_dir):
    # Issue 28: the first reply had no findings block, so nothing checked the repair's count.
    member(fake, "a", stage1=chat("The north reviewer finds two problems and forgets the block.", usage=u()),
           stage1_repair=chat(repaired_block("north", 2), usage=u()))
    member(fake, "b")
    member(fake, "c")
    member(fake, "chair")
    run, code = await council(["fake/a", "fake/b", "fake/c"])
    check_documents(run_dir, run)
    tally = load(run_dir, "tally.json")
    seat = next(r for r in tally["runStats"] if r["model"] == "fake/a" and r["role"] == "seat")
    assert (seat["conformance"], seat.get("findingsUnverified")) == ("repaired", True)
    assert [f["id"] for f in tally["findings"] if f["raiser"] == "fake/a"] == ["A1", "A2"]
    assert not any(r.get("findingsUnverified") for r in tally["runStats"] if r["model"] != "fake/a")
    page = (run_dir / "report.html").read_text(encoding="utf-8")
    assert ("<li>Notice: seat fake/a&#x27;s findings came from a repair of a response with no findings block — "
            "nothing verified them") in page


async def test_review_broken_twice_is_kept_unstructured(fake, council, run_dir, config_dir):
    member(fake, "a", stage1=chat(broken_review("north", 1), usage=u()),
           stage1_repair=chat("```json\n{\"overall\": \"x\", \"findings\": [{\"id\": 7}]}\n```", usage=u()))
    member(fake, "b")
    member(fake, "c")
    member(fake, "chair")
    run, code = await council(["fake/a", "fake/b", "fake/c"])
    # Its findings were lost: a degrade, not a clean run.
    assert (code, run["status"]) == (2, "partial")
    assert run["degrades"] == [{"kind": "degrade", "channel": "stage1", "what": "seat fake/a's findings were lost",
                                "why": "its review never carried a valid findings block, even after repair "
                                       "(MISSING_FIELD: finding 1: rationale is missing); "
                                       "the prose is judged, but it raises no findings"}]
    check_documents(run_dir, run)
    assert kinds_asked(fake, "a") == ["stage1", "stage1-repair", "stage1-repair", "judge"]
    assert (run_dir / "review-fake-a.md").read_text(encoding="utf-8") == broken_review("north", 1)
    tally = load(run_dir, "tally.json")
    assert [f["raiser"] for f in tally["findings"]] == ["fake/b", "fake/c"]
    assert [f["id"] for f in tally["findings"]] == ["B1", "C1"]
    # Still labelled and ranked in Stage 2, with its prose and no findings.
    bundle = (run_dir / "bundle-stage2.md").read_text(encoding="utf-8")
    assert run["labelMap"]["Review A"] == "fake/a"
    section = bundle.split("### Review A", 1)[1].split("### Review B", 1)[0]
    assert "The north reviewer finds" in section and "_This review raised no findings._" in section
    assert all(r["order"] and "fake/a" in r["order"] for r in load(run_dir, "tally-input.json")["rankings"])
    rows = [(r["role"], r["conformance"]) for r in tally["runStats"] if r["model"] == "fake/a"]
    # Neither repair fixed the block, so neither is labelled `repaired`.
    assert rows == [("seat", "unstructured"), ("repair", "unstructured"), ("repair", "unstructured"), ("judge", "clean")]
    assert next(r for r in ledger(config_dir) if r["model"] == "fake/a")["conformance"] == "unstructured"


async def test_a_repair_that_changes_the_findings_count_is_refused(fake, council, run_dir):
    member(fake, "a", stage1=chat(broken_review("north", 2), usage=u()),
           stage1_repair=[chat(repaired_block("north", 1), usage=u()), chat(repaired_block("north", 2), usage=u())])
    member(fake, "b")
    member(fake, "c")
    member(fake, "chair")
    run, code = await council(["fake/a", "fake/b", "fake/c"])
    assert (code, run["status"]) == (0, "complete")
    check_documents(run_dir, run)
    assert kinds_asked(fake, "a") == ["stage1", "stage1-repair", "stage1-repair", "judge"]
    assert any("changed the findings count (2 → 1); refused" in n for n in run["notices"])
    tally = load(run_dir, "tally.json")
    assert [f["id"] for f in tally["findings"] if f["raiser"] == "fake/a"] == ["A1", "A2"]  # the second repair kept 2
    assert next(r for r in tally["runStats"] if r["model"] == "fake/a")["conformance"] == "repaired"


async def test_a_repair_that_only_ever_changes_the_count_leaves_the_review_unstructured(fake, council, run_dir):
    member(fake, "a", stage1=chat(broken_review("north", 2), usage=u()),
           stage1_repair=chat(repaired_block("north", 3), usage=u()))
    member(fake, "b")
    member(fake, "c")
    member(fake, "chair")
    run, code = await council(["fake/a", "fake/b", "fake/c"])
    check_documents(run_dir, run)
    assert code == 2 and degrade_channels(run) == ["stage1"]  # its findings were lost
    assert sum("refused" in n for n in run["notices"]) == 2
    tally = load(run_dir, "tally.json")
    assert not [f for f in tally["findings"] if f["raiser"] == "fake/a"]
    assert next(r for r in tally["runStats"] if r["model"] == "fake/a")["conformance"] == "unstructured"


async def test_judge_repair_success(fake, council, run_dir):
    bad = "Reasoning.\n\n```json\n{\"ranking\": [\"Review Q\"], \"adjudications\": []}\n```\n"
    member(fake, "a", judge=chat(bad, usage=u()))
    member(fake, "b")
    member(fake, "c")
    member(fake, "chair")
    run, code = await council(["fake/a", "fake/b", "fake/c"])
    assert (code, run["status"]) == (0, "complete")
    check_documents(run_dir, run)
    assert kinds_asked(fake, "a") == ["stage1", "judge", "judge-repair"]
    assert "UNKNOWN_LABEL" in fake.prompts("a")[2] and "Review Q" in fake.prompts("a")[2]
    judge_file = (run_dir / "judge-fake-a.md").read_text(encoding="utf-8")
    assert judge_file.startswith(bad.rstrip()) and "<!-- repaired judgement block -->" in judge_file
    tally = load(run_dir, "tally.json")
    rows = [(r["role"], r["conformance"], r["waveId"]) for r in tally["runStats"] if r["model"] == "fake/a"]
    assert rows == [("seat", "clean", f"{run['runId']}-s1-1"), ("judge", "repaired", f"{run['runId']}-s2-1"),
                    ("repair", "repaired", f"{run['runId']}-q1")]
    assert tally["judged"] is True and len(load(run_dir, "tally-input.json")["rankings"]) == 3


async def test_dead_judge_is_dropped_with_a_degrade(fake, council, run_dir):
    member(fake, "a")
    member(fake, "b")
    member(fake, "c", judge=error(400, "judge crashed"))
    member(fake, "chair")
    run, code = await council(["fake/a", "fake/b", "fake/c"])
    assert (code, run["status"]) == (2, "partial")
    check_documents(run_dir, run)
    assert kinds_asked(fake, "c") == ["stage1", "judge"]  # a dead leg is not repaired
    assert run["degrades"] == [{"kind": "degrade", "channel": "stage2", "what": "judge fake/c produced no judgement",
                                "why": run["degrades"][0]["why"]}]
    assert "judge crashed" in run["degrades"][0]["why"]
    tally_input = load(run_dir, "tally-input.json")
    assert [r["judge"] for r in tally_input["rankings"]] == ["fake/a", "fake/b"]
    assert load(run_dir, "tally.json")["judged"] is True and run["overallVerdict"] == "Fix these first"
    assert "judge-fake-c.md" not in files(run_dir)


# --------------------------------------------------------------------------- 4. the chair walk


@pytest.mark.parametrize("first, outcome", [(error(400, "first try failed"), "error"), (chat(""), "no-output"),
                                            (hang(30), "timeout")], ids=["error", "no-output", "timeout"])
async def test_chair_retry_succeeds(fake, council, run_dir, first, outcome):
    for name in "abc":
        member(fake, name)
    member(fake, "chair", chair=[first, chat(verdict_text("Ship it"), usage=u())])
    run, code = await council(["fake/a", "fake/b", "fake/c"], timeout_min=0.02)
    assert (code, run["status"]) == (0, "complete")
    check_documents(run_dir, run)
    rid = run["runId"]
    assert [(a["waveId"], a["outcome"]) for a in run["chairAttempts"]] == [(f"{rid}-ch1", outcome), (f"{rid}-ch2", "completed")]
    assert run["chairAttempts"][0]["reason"]
    assert run["overallVerdict"] == "Ship it" and run["chair"] == "fake/chair"
    rows = [(r["role"], r.get("waveId")) for r in load(run_dir, "tally.json")["runStats"] if r["model"] == "fake/chair"]
    assert rows == [("chair", f"{rid}-ch2"), ("chair-attempt", f"{rid}-ch1")]


async def test_promoted_chair_from_the_ledger(fake, council, run_dir, config_dir):
    # fake/a (a bench seat) has the best street cred, but a bench seat is never promoted;
    # fake/q is worse than fake/p; claude is never promoted.
    seed_ledger(config_dir, [("fake/a", 1.0), ("claude", 1.1), ("fake/q", 2.5), ("fake/p", 1.5)])
    for name in "abc":
        member(fake, name)
    member(fake, "chair", chair=error(400, "chair is down"))
    member(fake, "p", chair=chat(verdict_text("Fundamental rethink"), model="vendor/p-1", usage=u()))
    member(fake, "q")
    run, code = await council(["fake/a", "fake/b", "fake/c"])
    assert (code, run["status"]) == (0, "complete")
    check_documents(run_dir, run)
    rid = run["runId"]
    assert [(a["waveId"], a["model"], a["outcome"]) for a in run["chairAttempts"]] == [
        (f"{rid}-ch1", "fake/chair", "error"), (f"{rid}-ch2", "fake/chair", "error"), (f"{rid}-ch3", "fake/p", "completed")]
    assert run["chair"] == "fake/p" and run["overallVerdict"] == "Fundamental rethink"
    assert [kind(p) for p in fake.prompts("a")] == ["stage1", "judge"]  # the bench seat never chaired
    assert fake.prompts("q") == []
    assert fake.prompts("p") == [(run_dir / "chair-packet.md").read_text(encoding="utf-8")]
    verdict, tally = load(run_dir, "verdict.json"), load(run_dir, "tally.json")
    assert verdict["chair"] == tally["meta"]["chair"] == "fake/p"
    chair_row = next(r for r in tally["runStats"] if r["role"] == "chair")
    assert (chair_row["model"], chair_row["wasChair"], chair_row["resolvedModel"]) == ("fake/p", True, "vendor/p-1")


async def test_promotion_skips_bench_aliases_and_may_give_up(fake, council, run_dir, config_dir):
    seed_ledger(config_dir, [("fake/a", 1.0), ("fake/b", 1.2), ("fake/chair", 0.5), ("claude", 0.1)])
    for name in "abc":
        member(fake, name)
    member(fake, "chair", chair=error(400, "chair is down"))
    run, code = await council(["fake/a", "fake/b", "fake/c"])
    assert (code, run["status"]) == (2, "partial")
    check_documents(run_dir, run)
    assert [a["model"] for a in run["chairAttempts"]] == ["fake/chair", "fake/chair"]  # nobody to promote
    assert all(kind(p) != "chair" for name in "abc" for p in fake.prompts(name))
    assert run["overallVerdict"] is None


# --------------------------------------------------------------------------- 5. pre-flight refusals


@pytest.mark.parametrize("argv, code, words", [
    (["--models", "fake/a,fake/b", "--chair", "fake/a"], "BAD_ARGS", "also a bench seat"),
    (["--models", "fake/a,fake/b", "--chair", "alpha"], "BAD_ARGS", "also a bench seat"),
    (["--models", "fake/a", "--chair", "fake/chair"], "BAD_ARGS", "at least 2"),
    (["--models", "fake/a,fake/b", "--chair", "fake/chair", "--max-cost", "0"], "BAD_ARGS", "--max-cost"),
    (["--models", "fake/a,fake/b", "--chair", "fake/chair", "--max-cost", "-1"], "BAD_ARGS", "--max-cost"),
    (["--models", "fake/a,fake/b", "--chair", "fake/chair", "--max-cost", "nan"], "BAD_ARGS", "--max-cost"),
    (["--models", "fake/a,fake/b", "--chair", "fake/chair", "--timeout", "0"], "BAD_ARGS", "--timeout"),
    (["--models", "fake/a,fake/b", "--chair", "fake/chair", "--timeout", "-2"], "BAD_ARGS", "--timeout"),
    (["--models", "fake/a,nosuchalias", "--chair", "fake/chair"], "BAD_MODEL", "nosuchalias"),
    (["--models", "fake/a,fake/b", "--chair", "nosuchalias"], "BAD_MODEL", "nosuchalias"),
], ids=["chair-on-bench", "chair-alias-on-bench", "one-seat", "max-cost-0", "max-cost-negative", "max-cost-nan",
        "timeout-0", "timeout-negative", "unknown-seat", "unknown-chair"])
def test_preflight_refusals(fake, config_dir, brief, run_dir, project, capsys, argv, code, words):
    configure_fake(config_dir, fake)
    doc = json.loads((config_dir / "config.json").read_text(encoding="utf-8"))
    doc["aliases"] = {"alpha": "fake/a"}
    (config_dir / "config.json").write_text(json.dumps(doc), encoding="utf-8")
    err = preflight_refused(capsys, [*argv, "--prompt-file", str(brief), "--out-dir", str(run_dir),
                                     "--project", str(project)])
    assert err["code"] == code and words in err["message"]
    assert_nothing_happened(fake, run_dir, project, config_dir)


@pytest.mark.parametrize("content", [None, "", "  \n\t\n"], ids=["missing", "empty", "blank"])
def test_missing_or_empty_prompt_file(fake, config_dir, tmp_path, run_dir, project, capsys, content):
    prompt = tmp_path / "nothing.md"
    if content is not None:
        prompt.write_text(content, encoding="utf-8")
    err = preflight_refused(capsys, ["--models", "fake/a,fake/b", "--chair", "fake/chair", "--prompt-file", str(prompt),
                                     "--out-dir", str(run_dir), "--project", str(project)])
    assert err["code"] == "MISSING_PROMPT"
    assert_nothing_happened(fake, run_dir, project, config_dir)


def test_no_prompt_file_at_all(fake, config_dir, run_dir, project, capsys):
    err = preflight_refused(capsys, ["--models", "fake/a,fake/b", "--chair", "fake/chair", "--out-dir", str(run_dir),
                                     "--project", str(project)])
    assert err["code"] == "MISSING_PROMPT"
    assert_nothing_happened(fake, run_dir, project, config_dir)


def test_out_dir_holding_another_run(fake, config_dir, brief, run_dir, project, capsys):
    run_dir.mkdir(parents=True)
    other = {"schemaVersion": 2, "type": "council-run", "runId": "someone-else", "status": "complete",
             "stages": [], "bench": ["fake/x", "fake/y"], "chair": "fake/z"}
    (run_dir / "run.json").write_text(json.dumps(other), encoding="utf-8")
    before = (run_dir / "run.json").read_bytes()
    err = preflight_refused(capsys, ["--models", "fake/a,fake/b", "--chair", "fake/chair", "--prompt-file", str(brief),
                                     "--out-dir", str(run_dir), "--project", str(project)])
    assert err["code"] == "BAD_ARGS" and "someone-else" in err["message"]
    assert (run_dir / "run.json").read_bytes() == before and files(run_dir) == {"run.json"}
    assert fake.requests == [] and not (project / ".claude").exists()


async def test_preflight_errors_raise_before_anything_is_written(fake, council, run_dir, project, config_dir, brief):
    """The library entry point raises the error itself (the CLI turns it into the envelope)."""
    with pytest.raises(BadArgs):
        await council(["fake/a", "fake/b"], chair="fake/b")
    with pytest.raises(BadModel):
        await council(["fake/a", "nosuchalias"])
    with pytest.raises(MissingPrompt):
        await run_council(RunOptions(prompt_file=None, models=["fake/a", "fake/b"], chair="fake/chair",
                                     out_dir=str(run_dir), project=str(project)))
    assert_nothing_happened(fake, run_dir, project, config_dir)


# --------------------------------------------------------------------------- 6. twin bench


async def test_twin_bench(fake, council, run_dir, config_dir):
    member(fake, "a")
    member(fake, "b")
    member(fake, "chair")
    run, code = await council(["fake/a", "fake/a", "fake/b"])
    assert (code, run["status"]) == (0, "complete")
    check_documents(run_dir, run)
    assert files(run_dir) == {*ALWAYS, *OUTPUTS, "chair-packet.md", "chair-output.md",
                              "review-fake-a-1.md", "review-fake-a-2.md", "review-fake-b.md",
                              "judge-fake-a-1.md", "judge-fake-a-2.md", "judge-fake-b.md"}
    seats = [{"id": "fake/a#1", "alias": "fake/a", "role": "seat", "lens": None, "position": 1},
             {"id": "fake/a#2", "alias": "fake/a", "role": "seat", "lens": None, "position": 2},
             {"id": "fake/b", "alias": "fake/b", "role": "seat", "lens": None, "position": 3}]
    tally = load(run_dir, "tally.json")
    assert run["seats"] == tally["meta"]["seats"] == seats
    assert run["bench"] == tally["meta"]["models"] == ["fake/a", "fake/a", "fake/b"]
    assert run["labelMap"] == {"Review A": "fake/a", "Review B": "fake/a", "Review C": "fake/b"}
    assert [leg.get("seat") for leg in run["legs"] if leg["stage"] == "stage1"] == ["fake/a#1", "fake/a#2", "fake/b"]
    cred = {(row["model"], row.get("seat")): row for row in tally["streetCred"]}
    assert set(cred) == {("fake/a", "fake/a#1"), ("fake/a", "fake/a#2"), ("fake/b", None)}
    assert all(row["peersOnly"] is not None for row in tally["streetCred"])
    raisers = {f["id"]: (f["raiser"], f.get("raiserSeat")) for f in tally["findings"]}
    assert raisers == {"A1": ("fake/a", "fake/a#1"), "B1": ("fake/a", "fake/a#2"), "C1": ("fake/b", None)}
    seat_rows = [(r["model"], r.get("seat")) for r in tally["runStats"] if r["role"] == "seat"]
    assert seat_rows == [("fake/a", "fake/a#1"), ("fake/a", "fake/a#2"), ("fake/b", None)]
    # The packet names seats; the bundle names nobody.
    assert "fake/a#2" in (run_dir / "chair-packet.md").read_text(encoding="utf-8")
    assert "fake/a" not in (run_dir / "bundle-stage2.md").read_text(encoding="utf-8")
    # One ledger row per alias (the twin seats' street cred averaged).
    rows = ledger(config_dir)
    assert [r["model"] for r in rows] == ["fake/a", "fake/b"]
    twin = [cred[("fake/a", "fake/a#1")]["peersOnly"], cred[("fake/a", "fake/a#2")]["peersOnly"]]
    assert rows[0]["streetCredPeersOnly"] == pytest.approx(sum(twin) / 2)


# --------------------------------------------------------------------------- 7. status / wait / abort / list


def test_status_wait_list_abort_on_a_running_council(fake, brief, run_dir, project):
    for name in "ab":
        member(fake, name)
    member(fake, "chair", chair=hang(60))
    rid = "ctl-abort-1"
    proc = start_run(brief, run_dir, project, "fake/a,fake/b", "--run-id", rid)
    try:
        wait_for(lambda: fake.prompts("chair"), what="the chair's request")
        where = ["--project", str(project)]
        snap = cli_json("status", rid, *where)
        assert (snap["type"], snap["status"], snap["currentStage"]) == ("council-run", "running", "chair")
        assert (snap["legsTotal"], snap["legsComplete"]) == (5, 4)
        waited = cli_json("wait", rid, "--timeout", "0.3", *where, code=3)  # still running: its own exit code
        assert (waited["timedOut"], waited["status"]) == (True, "running")
        listed = cli_json("list", *where)
        assert [(i["id"], i["type"], i["status"]) for i in listed["items"]] == [(rid, "council-run", "running")]

        aborted = cli_json("abort", rid, *where)
        assert aborted == {"id": rid, "aborted": True, "signalled": True}
        code, out, err = finish(proc)
    finally:
        proc.kill()
    assert code == 143, err
    run = check_documents(run_dir)
    assert (run["status"], run["exitCode"]) == ("aborted", 143) and "abortRequestedAt" in run
    assert json.loads(out)["status"] == "aborted"
    assert next(s for s in run["stages"] if s["name"] == "chair")["status"] == "aborted"
    assert next(leg for leg in run["legs"] if leg["stage"] == "chair")["status"] == "aborted"

    done = cli_json("wait", rid, "--timeout", "5", "--project", str(project), code=1)  # an aborted run failed
    assert (done["timedOut"], done["status"]) == (False, "aborted")
    again = cli_json("abort", rid, "--project", str(project))
    assert again == {"id": rid, "alreadyTerminal": True, "status": "aborted"}
    listed = cli_json("list", "--project", str(project))
    assert schema_errors(listed, "session-list") == []
    assert [(i["id"], i["status"], i["models"], i["chair"]) for i in listed["items"]] == [
        (rid, "aborted", ["fake/a", "fake/b"], "fake/chair")]
    human = subprocess.run([sys.executable, "-m", "amicus_mcp.cli", "status", rid, "--project", str(project)],
                           capture_output=True, text=True, env=dict(os.environ), timeout=30, check=True).stdout
    assert human.startswith(f"Council run {rid}: aborted")


def test_status_of_a_killed_run_reports_an_error(fake, brief, run_dir, project):
    member(fake, "a")
    member(fake, "b", stage1=hang(60))
    proc = start_run(brief, run_dir, project, "fake/a,fake/b")
    try:
        wait_for(lambda: fake.prompts("b"), what="the hanging seat's request")
        rid = wait_for(lambda: (read_run_json(run_dir) or {}).get("runId"), what="the run id")
    finally:
        proc.kill()
        proc.communicate(timeout=30)  # reaped: its pid no longer exists
    assert proc.returncode == -signal.SIGKILL
    assert read_run_json(run_dir)["status"] == "running"  # nobody could record anything
    snap = cli_json("status", rid, "--project", str(project))
    assert (snap["status"], snap["exitCode"]) == ("error", 1)
    assert snap["error"] == {"code": "INTERNAL", "message": ENGINE_DIED}
    assert snap["currentStage"] is None
    run = check_documents(run_dir)  # the reader wrote its finding back
    assert (run["status"], run["error"]["message"]) == ("error", ENGINE_DIED)
    assert [(s["name"], s["status"]) for s in run["stages"]] == [("stage1", "error")]
    listed = cli_json("list", "--project", str(project))
    assert [(i["id"], i["status"]) for i in listed["items"]] == [(rid, "error")]


# --------------------------------------------------------------------------- odds and ends


def test_human_output_of_a_degraded_run(fake, brief, run_dir, project, capsys):
    member(fake, "a")
    member(fake, "b")
    member(fake, "c", judge=error(400, "judge crashed"))
    member(fake, "chair")
    code = cli_main(["council", "run", "--models", "fake/a,fake/b,fake/c", "--chair", "fake/chair",
                     "--prompt-file", str(brief), "--out-dir", str(run_dir), "--project", str(project)])
    out = capsys.readouterr().out
    run = check_documents(run_dir)
    assert code == 2
    assert out.startswith(f"Council run {run['runId']}: partial (exit 2)\n")
    assert "  chair: fake/chair — VERDICT: Fix these first" in out
    assert "  notice: judge fake/c produced no judgement" in out
    assert out.rstrip().endswith(f"report: {run_dir.resolve() / 'report.html'}")


@pytest.mark.parametrize("argv, code", [
    (["--run-id", "../escape"], "BAD_SESSION"),
    (["--gateway", "sideways"], "BAD_ARGS"),
    (["--models", "fake/a,fake/b", "--council", "budget"], "BAD_ARGS"),
], ids=["bad-run-id", "bad-gateway", "models-and-council"])
def test_more_preflight_refusals(fake, config_dir, brief, run_dir, project, capsys, argv, code):
    base = ["--chair", "fake/chair", "--prompt-file", str(brief), "--out-dir", str(run_dir), "--project", str(project)]
    if "--models" not in argv:
        base = ["--models", "fake/a,fake/b", *base]
    assert preflight_refused(capsys, [*base, *argv])["code"] == code
    assert_nothing_happened(fake, run_dir, project, config_dir)


def test_out_dir_that_is_a_file(fake, config_dir, brief, tmp_path, project, capsys):
    target = tmp_path / "a-file"
    target.write_text("not a directory", encoding="utf-8")
    err = preflight_refused(capsys, ["--models", "fake/a,fake/b", "--chair", "fake/chair", "--prompt-file", str(brief),
                                     "--out-dir", str(target), "--project", str(project)])
    assert err["code"] == "BAD_ARGS" and "not a directory" in err["message"]
    assert target.read_text(encoding="utf-8") == "not a directory" and fake.requests == []


async def test_an_unexpected_failure_is_recorded_as_internal(fake, council, run_dir, monkeypatch):
    """A bug mid-run must not leave a `running` manifest behind: run.json says INTERNAL, exit 1
    (and the CLI prints the error envelope with that message, as for the other hard errors)."""
    from amicus_mcp.engine import council_run

    def broken_report(*args: Any, **kwargs: Any) -> str:
        raise RuntimeError("renderer exploded")

    monkeypatch.setattr(council_run, "build_report", broken_report)
    for name in "ab":
        member(fake, name)
    member(fake, "chair")
    run, code = await council(["fake/a", "fake/b"])
    assert (code, run["status"], run["exitCode"]) == (1, "error", 1)
    assert run["error"] == {"code": "INTERNAL", "message": "RuntimeError: renderer exploded"}
    assert check_documents(run_dir, run) == run
    assert "report.html" not in files(run_dir) and "verdict.json" in files(run_dir)
    assert next(s for s in run["stages"] if s["name"] == "verdict")["status"] == "error"
