"""`amicus council resume`: a killed, crashed or aborted run continues without re-paying.

Each scenario runs the same 3-seat council twice against the loopback fake, which answers
every prompt the same way each time: once never interrupted (the reference), once as a real
`amicus council run` subprocess that is SIGKILLed while one kind of leg hangs, then resumed
with `amicus council resume`. The resumed run must finish with the reference's tally.json,
verdict.json, ledger rows and cost, and the fake must have seen every finished leg exactly
once: the only requests beyond the reference's are the legs that were in flight at the kill.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from council_helpers import auto_judge, check_documents, kind, ledger, load, member_responder
from fakeprovider import FakeProvider, chat, hang, offered_tools, prompt_of, tool_call, tool_user, usage
from polling import read_run_json, wait_for

from amicus_mcp.engine.control import status
from amicus_mcp.documents.run import RunManifest
from amicus_mcp.engine.resume import find_resumable
from amicus_mcp.engine.run_dir import RunDir
from amicus_mcp.engine.store import SessionStore
from amicus_mcp.schemas import schema_errors

SEATS = ("vendor/a", "vendor/b", "vendor/c")  # on the fake as OpenRouter (the `gateway` fixture): priced legs
CHAIR = "vendor/chair"
COST = 0.001  # every leg's reported cost, USD
TIMEISH = {"runId", "date", "durationMs", "waveId", "createdAt", "completedAt", "startedAt", "at", "generatedAt",
           "runDir", "outDir", "reportPath"}


class Gate:
    """Holds chosen (member, prompt kind) requests hanging until opened."""

    def __init__(self) -> None:
        self.closed = threading.Event()
        self.held: set[tuple[str, str]] = set()

    def hold(self, *pairs: tuple[str, str]) -> None:
        self.held = set(pairs)
        self.closed.set()

    def open(self) -> None:
        self.closed.clear()


def verifier_reply(body: Any) -> Any:
    """The chair's model as a verifier (`--verify`): upholds A1, refutes the rest."""
    finding = re.search(r"^- \*\*([A-Z]\d+)\*\*", prompt_of(body), re.M)
    answer = "holds" if finding and finding.group(1) == "A1" else "refuted"
    block = {"answer": answer, "lines": ["section 2"], "reason": f"the source {'shows' if answer == 'holds' else 'denies'} it"}
    return chat(f"Checked.\n\n```json\n{json.dumps(block)}\n```\n", model=f"{CHAIR}-1", usage=usage(100, 50, cost=COST))


def bench(fake: FakeProvider, gate: Gate, *, debate: bool = False, cost: float = COST,
          spare: str | None = None) -> None:
    """a, b, c and the chair, each reply priced at COST; with `debate`, c disputes every
    finding so the round has something to debate. The chair's model also verifies (`--verify`).
    `spare`: a finding id whose prompts the gate never holds (the one leg of its kind let through)."""
    for name in (*SEATS, CHAIR):
        replies: dict[str, Any] = {}
        if debate and name == "vendor/c":
            replies["judge"] = auto_judge("dispute", model=f"{name}-1", usage=usage(100, 50, cost=cost))
        if name == CHAIR:  # where the catalog says its model takes tools, it searches once, then answers
            replies["verifier"] = tool_user(lambda body, turn: [tool_call("search", {"text": "cache"})]
                                            if turn == 0 and offered_tools(body) else None, verifier_reply,
                                            usage=usage(100, 50, cost=COST))
        inner = member_responder(name, cost=cost, **replies)

        def respond(body: Any, name: str = name, inner: Any = inner) -> Any:
            spared = spare is not None and f"- **{spare}** (" in prompt_of(body)
            if gate.closed.is_set() and (name, kind(prompt_of(body))) in gate.held and not spared:
                return hang(120)
            return inner(body)

        fake.respond(name, respond)


def cli(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "amicus_mcp.cli", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=dict(os.environ))


def run_args(brief: Path, run_dir: Path, project: Path, *extra: str) -> list[str]:
    return ["council", "run", "--models", ",".join(f"openrouter/{s}" for s in SEATS), "--chair", f"openrouter/{CHAIR}",
            "--prompt-file", str(brief), "--out-dir", str(run_dir), "--project", str(project), "--json", *extra]


def finish(proc: subprocess.Popen[str], timeout: float = 60) -> tuple[int, str, str]:
    try:
        out, err = proc.communicate(timeout=timeout)
    finally:
        proc.kill()
    return proc.returncode, out, err


def resume(target: str, project: Path) -> tuple[int, dict[str, Any], str]:
    code, out, err = finish(cli("council", "resume", target, "--project", str(project), "--json"))
    return code, json.loads(out), err


def asked(fake: FakeProvider) -> Counter[tuple[str, str]]:
    """Requests by (model, prompt kind)."""
    return Counter((r.body["model"], kind(prompt_of(r.body))) for r in fake.chat_requests())


def normal(doc: Any, run_id: str) -> Any:
    """A document with its timestamps, durations and run id taken out."""
    if isinstance(doc, dict):
        return {k: normal(v, run_id) for k, v in doc.items() if k not in TIMEISH}
    if isinstance(doc, list):
        return [normal(v, run_id) for v in doc]
    if isinstance(doc, str):
        return doc.replace(run_id, "RUN")
    return doc


LOST_NOTICE = "in flight when an earlier attempt of this run stopped"


def without_lost(doc: dict[str, Any]) -> dict[str, Any]:
    """A tally or verdict without what a resume adds for legs lost in flight: their cost rows
    (role `interrupted`) and the notice that says the cost is a floor."""
    doc = dict(doc)
    doc["runStats"] = [row for row in doc.get("runStats", []) if row.get("role") != "interrupted"]
    if "notices" in doc:
        doc["notices"] = [n for n in doc["notices"] if LOST_NOTICE not in n] or None
        if doc["notices"] is None:
            del doc["notices"]
    return doc


def outputs(run_dir: Path, config_dir: Path) -> dict[str, Any]:
    """What a resumed run must share with an uninterrupted one. Its usage is compared apart
    (`check_lost`): legs lost in flight make the resumed total a floor."""
    run = load(run_dir, "run.json")
    rid = run["runId"]
    rows = [row for row in ledger(config_dir) if row["runId"] == rid]
    usage = run["usage"]
    return {"tally": normal(without_lost(load(run_dir, "tally.json")), rid),
            "verdict": normal(without_lost(load(run_dir, "verdict.json")), rid),
            "ledger": normal(rows, rid), "amount": usage["cost"]["amount"], "tokens": usage["tokens"],
            "status": run["status"], "tierCounts": run["tierCounts"], "overallVerdict": run["overallVerdict"]}


def check_lost(run_dir: Path, in_flight: Counter[tuple[str, str]]) -> None:
    """Every leg in flight at the kill is on record as lost: the cost is a floor (costExact
    false, a notice, a cost row of unknown cost, "at least" in the report)."""
    run = load(run_dir, "run.json")
    lost = Counter((leg["model"].removeprefix("openrouter/"), LEG_KIND[(leg["stage"], leg["role"])])
                   for leg in run.get("interruptedLegs", []))
    assert lost == in_flight
    if not in_flight:
        assert run["usage"]["costExact"] is True and "interruptedLegs" not in run
        return
    assert (run["usage"]["costExact"], run["usage"]["unknownLegs"]) == (False, sum(in_flight.values()))
    assert any(LOST_NOTICE in n for n in run["notices"])
    rows = [r for r in load(run_dir, "tally.json")["runStats"] if r.get("role") == "interrupted"]
    assert len(rows) == sum(in_flight.values()) and all(r["usage"] is None for r in rows)
    assert '<td class="num">at least $' in (run_dir / "report.html").read_text(encoding="utf-8")


LEG_KIND = {("stage1", "seat"): "stage1", ("stage2", "judge"): "judge", ("chair", "chair"): "chair",
            ("debate", "revote"): "revote", ("debate", "rebuttal"): "defense", ("verify", "verifier"): "verifier"}


def reference(fake: FakeProvider, brief: Path, tmp_path: Path, project: Path, config_dir: Path,
              *extra: str) -> tuple[dict[str, Any], Counter[tuple[str, str]]]:
    run_dir = tmp_path / "reference"
    code, _, err = finish(cli(*run_args(brief, run_dir, project, *extra)))
    assert code == 0, err
    result = outputs(run_dir, config_dir), asked(fake)
    forget(fake)
    return result


def kill_while(fake: FakeProvider, brief: Path, run_dir: Path, project: Path, held: tuple[str, str], *extra: str,
               cost: float = COST) -> dict[str, Any]:
    """Start the council, SIGKILL it once `held` = (member, stage1|judge) is the one leg of its
    stage still running; the gate is open again after. Returns run.json as the kill left it."""
    stage = {"judge": "stage2", "stage1": "stage1"}[held[1]]
    expected = {f"openrouter/{s}": "running" if s == held[0] else "complete" for s in SEATS}
    gate = Gate()
    bench(fake, gate, cost=cost)
    gate.hold(held)
    proc = cli(*run_args(brief, run_dir, project, *extra))
    try:
        wait_for(lambda: legs_in(run_dir, stage) == expected, timeout=60, what=f"{held[0]} alone in {stage}")
        doc = wait_for(lambda: read_run_json(run_dir), what="run.json")
    finally:
        proc.kill()
        proc.communicate(timeout=30)
    gate.open()
    return doc


def only_running(run_dir: Path, role: str) -> bool:
    """Every leg launched so far has finished, except legs of `role`."""
    legs = (read_run_json(run_dir) or {}).get("legs", [])
    return bool(legs) and all(leg["status"] != "running" for leg in legs if leg["role"] != role)


def finished_run(fake: FakeProvider, gate: Gate, brief: Path, run_dir: Path, project: Path) -> None:
    """A council run to its end, then the fake's record of it forgotten."""
    bench(fake, gate)
    code, _, err = finish(cli(*run_args(brief, run_dir, project)))
    assert code == 0, err
    forget(fake)


def forget(fake: FakeProvider) -> None:
    with fake._lock:
        fake.requests.clear()


def legs_in_ids(run_dir: Path, stage: str) -> dict[str, str]:
    return {leg["id"]: leg["status"] for leg in (read_run_json(run_dir) or {}).get("legs", []) if leg["stage"] == stage}


def legs_in(run_dir: Path, stage: str) -> dict[str, str]:
    return {leg["model"]: leg["status"] for leg in (read_run_json(run_dir) or {}).get("legs", [])
            if leg["stage"] == stage}


# Each scenario: what hangs, when to kill, and the stage the resume starts from.
SCENARIOS = {
    "after-stage1": ([(s, "judge") for s in SEATS], lambda fake, run_dir: len(
        [p for p in fake.prompts() if kind(p) == "judge"]) == 3, "stage2", ()),
    "mid-stage2": ([("vendor/b", "judge")], lambda fake, run_dir: legs_in(run_dir, "stage2") == {
        "openrouter/vendor/a": "complete", "openrouter/vendor/b": "running", "openrouter/vendor/c": "complete"},
        "stage2", ()),
    "chair": ([(CHAIR, "chair")], lambda fake, run_dir: legs_in(run_dir, "chair") == {
        "openrouter/vendor/chair": "running"}, "chair", ()),
    "debate": ([(s, "revote") for s in SEATS], lambda fake, run_dir: any(kind(p) == "revote" for p in fake.prompts())
               and only_running(run_dir, "revote"), "debate-revote", ("--debate",)),
    # --verify: A1's verifier has answered, B1's and C1's are in flight when the engine is killed
    # (with tools: A1's verifier made its tool call, the others hang on their first turn).
    "mid-verify": ([(CHAIR, "verifier")], lambda fake, run_dir: sorted(legs_in_ids(run_dir, "verify").values()) == [
        "complete", "running", "running"], "verify", ("--verify",)),
    "mid-verify-tools": ([(CHAIR, "verifier")], lambda fake, run_dir: sorted(legs_in_ids(run_dir, "verify").values())
                         == ["complete", "running", "running"], "verify", ("--verify",)),
}


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_sigkill_then_resume_matches_an_uninterrupted_run(gateway, brief, tmp_path, project, config_dir, scenario):
    fake = gateway
    held, ready, stage, extra = SCENARIOS[scenario]
    gate = Gate()
    verifying = scenario.startswith("mid-verify")
    if scenario == "mid-verify-tools":
        next(row for row in fake.catalog if row["id"] == CHAIR)["supported_parameters"] = ["tools"]
    bench(gateway, gate, debate=scenario == "debate", spare="A1" if verifying else None)
    expected, fresh = reference(fake, brief, tmp_path, project, config_dir, *extra)
    if verifying:  # the reference verified all three: A1 holds, B1 and C1 are refuted
        calls = 1 if scenario == "mid-verify-tools" else None
        assert fresh[(CHAIR, "verifier")] == 3 * (2 if calls else 1)
        assert [(f.get("verification"), f.get("verificationToolCalls")) for f in expected["tally"]["findings"]] == [
            ("holds", calls), ("refuted", calls), ("refuted", calls)]

    run_dir = tmp_path / "interrupted"
    gate.hold(*held)
    proc = cli(*run_args(brief, run_dir, project, *extra))
    try:
        wait_for(lambda: ready(fake, run_dir), timeout=60, what=f"the kill point ({scenario})")
        # ... and every leg run.json shows in flight has reached the fake (else it is lost unsent).
        # A1's verifier answered (in two turns with its tool call): its kind is held, it is not in flight.
        spared = {"mid-verify": 1, "mid-verify-tools": 2}.get(scenario, 0)
        wait_for(lambda: sum(n for pair, n in asked(fake).items() if pair in gate.held) - spared == sum(
            leg["status"] == "running" for leg in read_run_json(run_dir)["legs"]), timeout=30, what="in flight")
        before_kill = asked(fake)
        in_flight = Counter({pair: n - spared for pair, n in before_kill.items() if pair in gate.held})
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == -signal.SIGKILL
    rid = read_run_json(run_dir)["runId"]
    if scenario == "chair":  # nobody looked: run.json still says running, with a dead pid
        found = "running"
    else:
        snap = status(SessionStore(project), rid).to_doc()  # the reader finds the dead engine
        assert (snap["status"], snap["resumable"], snap["resumeCommand"]) == (
            "error", True, f"amicus council resume {run_dir}")
        found = "error"
    gate.open()

    code, run, err = resume(rid, project)
    assert code == 0, err
    assert check_documents(run_dir, run)["status"] == "complete"
    assert outputs(run_dir, config_dir) == expected
    check_lost(run_dir, in_flight)
    # Every finished leg was asked once; only what was in flight at the kill was asked again.
    assert asked(fake) == fresh + in_flight
    reused = [leg for leg in run["legs"] if leg.get("reused")]
    assert run["resumes"] == [{"at": run["resumes"][0]["at"], "fromStatus": found, "stage": stage,
                               "legsReused": len(reused)}]
    # A verifier with tools asks twice (its tool call, then its answer) for one leg.
    turns = 2 if scenario == "mid-verify-tools" else 1
    reused_turns = sum(turns if leg["stage"] == "verify" else 1 for leg in reused)
    assert reused_turns == sum(before_kill.values()) - sum(in_flight.values())
    for path in (run_dir / "legs").glob("*.json"):
        assert schema_errors(json.loads(path.read_text(encoding="utf-8")), "council-leg") == []
    assert find_resumable(RunDir(run_dir), RunManifest.model_validate(run)).resumable is False
    # What the resume paid, against a fresh re-run of the same council.
    resumed_requests = sum((asked(fake) - before_kill).values())
    paid = sum(leg["usage"]["cost"]["amount"] for leg in run["legs"] if not leg.get("reused"))
    assert resumed_requests == sum(turns if leg["stage"] == "verify" else 1 for leg in run["legs"]
                                   if not leg.get("reused"))
    assert paid == pytest.approx(COST * resumed_requests)
    assert run["usage"]["cost"]["amount"] == pytest.approx(COST * sum(fresh.values()))  # the run's whole spend
    print(f"\n{scenario}: fresh re-run {sum(fresh.values())} requests ${COST * sum(fresh.values()):.4f}; "
          f"resume {resumed_requests} requests ${paid:.4f}")


def test_sigterm_then_resume(gateway, brief, tmp_path, project, config_dir):
    fake = gateway
    gate = Gate()
    bench(gateway, gate)
    expected, fresh = reference(fake, brief, tmp_path, project, config_dir)
    run_dir = tmp_path / "aborted"
    gate.hold(("vendor/c", "judge"))
    proc = cli(*run_args(brief, run_dir, project))
    try:
        wait_for(lambda: legs_in(run_dir, "stage2") == {"openrouter/vendor/a": "complete", "openrouter/vendor/b": "complete",
                                                        "openrouter/vendor/c": "running"}, timeout=60, what="c judging")
        proc.send_signal(signal.SIGTERM)
        code, _, err = finish(proc)
    finally:
        proc.kill()
    assert code == 143, err
    aborted = load(run_dir, "run.json")
    assert aborted["status"] == "aborted"
    human = subprocess.run([sys.executable, "-m", "amicus_mcp.cli", "status", aborted["runId"], "--project",
                            str(project)], capture_output=True, text=True, env=dict(os.environ), timeout=30,
                           check=True).stdout
    assert f"resumable (nothing it finished is sent again): amicus council resume {run_dir}" in human
    gate.open()
    code, run, err = resume(str(run_dir), project)  # by directory this time
    assert code == 0, err
    assert outputs(run_dir, config_dir) == expected
    check_lost(run_dir, Counter({("vendor/c", "judge"): 1}))  # aborted in flight: it may have been billed
    assert asked(fake) == fresh + Counter({("vendor/c", "judge"): 1})
    assert [(r["fromStatus"], r["stage"]) for r in run["resumes"]] == [("aborted", "stage2")]
    assert run["createdAt"] == aborted["createdAt"] and run["runId"] == aborted["runId"]


def test_refusals_are_bad_args_and_send_nothing(gateway, brief, tmp_path, project, config_dir):
    fake = gateway
    gate = Gate()
    run_dir = tmp_path / "done"
    finished_run(fake, gate, brief, run_dir, project)

    code, out, _ = finish(cli("council", "resume", str(run_dir), "--json"))
    envelope = json.loads(out)
    assert code == 1 and envelope["error"]["code"] == "BAD_ARGS"
    assert "finished (complete)" in envelope["error"]["message"]

    # A run killed mid-way whose briefing copy was then edited is refused before any request.
    killed = tmp_path / "killed"
    gate.hold((CHAIR, "chair"))
    proc = cli(*run_args(brief, killed, project))
    try:
        wait_for(lambda: legs_in(killed, "chair"), timeout=60, what="the chair leg")
    finally:
        proc.kill()
        proc.communicate(timeout=30)
    gate.open()
    forget(fake)
    (killed / "briefing.md").write_text("Review something else entirely.\n", encoding="utf-8")
    code, out, _ = finish(cli("council", "resume", str(killed), "--json"))
    envelope = json.loads(out)
    assert code == 1 and envelope["error"]["code"] == "BAD_ARGS"
    assert "briefing.md changed" in envelope["error"]["message"]
    assert schema_errors(envelope, "error") == []
    assert fake.chat_requests() == []

    code, out, _ = finish(cli("council", "resume", "nosuchrun", "--project", str(project), "--json"))
    assert code == 1 and json.loads(out)["error"]["code"] == "BAD_ARGS"


def test_ledger_rows_are_appended_once_however_often_it_is_resumed(gateway, brief, tmp_path, project, config_dir):
    """A run that died after its ledger append (here: a finished run marked crashed by hand,
    its inputs untouched) resumes from legs alone — no request — and appends no second set."""
    fake = gateway
    run_dir = tmp_path / "late"
    finished_run(fake, Gate(), brief, run_dir, project)
    first = outputs(run_dir, config_dir)
    rows = len(ledger(config_dir))
    for attempt in (1, 2):
        doc = load(run_dir, "run.json")
        doc.update(status="error", exitCode=1, error={"code": "INTERNAL", "message": "killed while writing"})
        (run_dir / "run.json").write_text(json.dumps(doc), encoding="utf-8")
        code, run, err = resume(str(run_dir), project)
        assert code == 0, err
        assert len(run["resumes"]) == attempt and run["resumes"][-1]["legsReused"] == 7
    assert fake.chat_requests() == []
    assert len(ledger(config_dir)) == rows
    assert outputs(run_dir, config_dir) == first


def test_a_lens_run_resumes_with_the_lenses_it_drew(gateway, brief, tmp_path, project, config_dir):
    """The lens↔seat assignment is random: a resume keeps the first attempt's, so every
    Stage-1 brief is the one already answered and no review is asked again."""
    fake = gateway
    run_dir = tmp_path / "lenses"
    killed = kill_while(fake, brief, run_dir, project, ("vendor/b", "judge"),
                        "--lenses", "security-architect,site-reliability,product-manager")
    seats = killed["seats"]
    before = asked(fake)
    code, run, err = resume(str(run_dir), project)
    assert code == 0, err
    assert run["seats"] == seats and run["status"] == "complete"
    again = asked(fake) - before
    assert again == Counter({("vendor/b", "judge"): 1, (CHAIR, "chair"): 1})
    assert ledger(config_dir) == []  # a lens run is never ledger-recorded, resumed or not


def test_edited_or_damaged_options_are_refused(gateway, brief, tmp_path, project, config_dir):
    fake = gateway
    gate = Gate()
    bench(fake, gate)
    run_dir = tmp_path / "edited"
    gate.hold((CHAIR, "chair"))
    proc = cli(*run_args(brief, run_dir, project))
    try:
        wait_for(lambda: legs_in(run_dir, "chair"), timeout=60, what="the chair leg")
        code, out, _ = finish(cli("council", "resume", str(run_dir), "--json"))  # its process is alive
        err, rid = json.loads(out)["error"], load(run_dir, "run.json")["runId"]
        assert code == 1 and err["message"] == f"council run {rid} cannot be resumed: it is still running"
        # Issue 19 item 15: a run still going is not one to start anew: wait for it, or abort it.
        # Issue 27 item 2: on the CLI the commands; over MCP the tools (tests/test_front_hints.py).
        assert err["hint"] == (f"wait for it to finish ('amicus wait {rid}'), or stop it "
                               f"('amicus abort {rid}') and resume it after")
    finally:
        proc.kill()
        proc.communicate(timeout=30)
    gate.open()
    forget(fake)
    options = load(run_dir, "options.json")
    (run_dir / "options.json").write_text(json.dumps({**options, "timeoutMinutes": 99}), encoding="utf-8")
    code, out, _ = finish(cli("council", "resume", str(run_dir), "--json"))
    assert code == 1 and "options.json changed" in json.loads(out)["error"]["message"]
    (run_dir / "options.json").write_text("{not json", encoding="utf-8")
    code, out, _ = finish(cli("council", "resume", str(run_dir), "--json"))
    envelope = json.loads(out)
    assert code == 1 and envelope["error"]["code"] == "BAD_ARGS" and "options" in envelope["error"]["message"]
    assert fake.chat_requests() == []
    (run_dir / "options.json").write_text(json.dumps(options), encoding="utf-8")  # put back: resumable again
    code, run, err = resume(str(run_dir), project)
    assert code == 0 and run["status"] == "complete", err


def test_the_cost_ceiling_counts_the_spend_already_made(gateway, brief, tmp_path, project, config_dir):
    """$0.20 a leg under a $0.55 ceiling: the first attempt launched all three reviews at once
    (claims of ~$0.16 each fit), and two finished before the kill. Resumed, their $0.40 is
    known spend from the start, and the third review — in flight at the kill, so probably billed
    — keeps its ~$0.16 reservation: nothing is left, so its re-send is refused and the run stops
    after Stage 1 at the ceiling, saying so (COST_EXCEEDED), with its cost a floor."""
    fake = gateway
    run_dir = tmp_path / "ceiling"
    kill_while(fake, brief, run_dir, project, ("vendor/c", "stage1"), "--max-cost", "0.55", cost=0.2)
    forget(fake)
    code, run, err = resume(str(run_dir), project)
    assert code == 1 and run["error"]["code"] == "COST_EXCEEDED", err
    assert "known spend $0.4000 (and $0.1605 reserved by legs lost in flight" in run["error"]["message"]
    assert "--max-cost ceiling" in run["error"]["message"]
    run = load(run_dir, "run.json")
    rid = run["runId"]
    assert run["budgetRefusals"][0]["waveId"] == f"{rid}-s1-3" and run["budgetRefusals"][0]["stage"] == "stage1"
    assert ("vendor/c", "stage1") not in asked(fake)  # refused, so never sent again
    reused = [leg for leg in run["legs"] if leg.get("reused")]
    assert [leg["model"] for leg in reused] == ["openrouter/vendor/a", "openrouter/vendor/b"]
    assert [leg["model"] for leg in run["interruptedLegs"]] == ["openrouter/vendor/c"]
    assert run["interruptedLegs"][0]["reserved"] == pytest.approx(0.16049)  # the Stage-1 prompt asks for evidence too (issue 30)
    assert run["usage"]["cost"]["amount"] == pytest.approx(0.4)  # the reused $0.40, and a floor:
    assert (run["usage"]["costExact"], run["usage"]["unknownLegs"]) == (False, 1)


def test_a_damaged_saved_leg_is_sent_again_and_said(gateway, brief, tmp_path, project, config_dir):
    """Issue 19 item 14: a legs/<key>.json that cannot be read is not silently re-sent: the run
    says which leg's saved answer was damaged and that it is paid for again."""
    fake = gateway
    run_dir = tmp_path / "damaged"
    finished_run(fake, Gate(), brief, run_dir, project)
    doc = load(run_dir, "run.json")
    doc.update(status="error", exitCode=1, error={"code": "INTERNAL", "message": "killed while writing"})
    (run_dir / "run.json").write_text(json.dumps(doc), encoding="utf-8")
    rid = doc["runId"]
    saved = next(p for p in (run_dir / "legs").glob("*.json") if load(p.parent, p.name)["legId"] == f"{rid}-s1-2")
    saved.write_text('{"schemaVersion": 2, "type": "council-le', encoding="utf-8")  # torn by a crash
    code, run, err = resume(str(run_dir), project)
    assert code == 0, err
    assert asked(fake) == Counter({("vendor/b", "stage1"): 1})  # only the damaged one was sent again
    notice = next(n for n in run["notices"] if "is damaged" in n)
    assert notice.startswith(f"legs/{saved.stem}.json, the saved answer of stage1 seat leg {rid}-s1-2 "
                             "(openrouter/vendor/b), is damaged (")
    assert notice.endswith("the leg is sent again and paid for again")
    assert run["resumes"][-1]["legsReused"] == 6


def test_the_progress_of_a_resumed_run_counts_this_attempt(gateway, brief, tmp_path, project, config_dir):
    """Issue 19 item 15: while a resumed run replays its finished legs, its progress line never
    reads "0/3 legs" (an attempt written before its reused legs are in), and its clock is this
    attempt's, not the first one's."""
    from datetime import datetime, timezone

    from amicus_mcp.workspace.snapshot import run_snapshot
    from amicus_mcp.workspace.terminal import progress_line

    fake = gateway
    run_dir = tmp_path / "progress"
    killed = kill_while(fake, brief, run_dir, project, ("vendor/b", "judge"))
    rid = killed["runId"]
    store = SessionStore(project)
    lines: list[str] = []
    proc = cli("council", "resume", str(run_dir), "--project", str(project), "--json")
    try:
        while proc.poll() is None:
            now = datetime.now(timezone.utc)
            try:
                line = progress_line(run_snapshot(store, rid, stall_after_s=60, now=now, texts=False), now=now)
            except Exception:  # noqa: BLE001 - mid-replace: read again
                continue
            if line:
                lines.append(line)
    finally:
        code, _, err = finish(proc)
    assert code == 0, err
    first = next(i for i, line in enumerate(lines) if "since resume" in line)  # once reopened
    seen = lines[first:]
    done = [int(line.split(" legs done")[0].rsplit(" ", 1)[1].split("/")[0]) for line in seen]
    totals = {int(line.split(" legs done")[0].rsplit("/", 1)[1]) for line in seen}
    assert min(done) >= 5 and min(totals) >= 6, sorted(set(seen))  # 5 legs were answered, 6 planned then
    assert all("since resume" in line for line in seen), sorted(set(seen))


def test_a_kill_in_stage1_under_a_tight_ceiling_resumes_with_a_higher_one(gateway, brief, tmp_path, project,
                                                                           config_dir):
    """Issue 27 item 23: all three reviews in flight under a $0.30 ceiling when the process is
    SIGKILLed. Their reservations (~$0.088 each, the most their provider could have billed) stay
    counted, so the resumed re-sends cannot fit: the resume says what counted and the least
    ceiling that finishes the run, status prints the cost, and a resume with that --max-cost
    finishes it — never sending a finished leg twice."""
    fake = gateway
    run_dir = tmp_path / "tight"
    gate = Gate()
    bench(fake, gate)
    gate.hold(*[(s, "stage1") for s in SEATS])
    proc = cli(*run_args(brief, run_dir, project, "--max-cost", "0.30"))
    try:
        wait_for(lambda: legs_in(run_dir, "stage1") == {f"openrouter/{s}": "running" for s in SEATS}, timeout=60,
                 what="three reviews in flight")
    finally:
        proc.kill()
        proc.communicate(timeout=30)
    gate.open()
    reserved = sum(leg["reserved"] for leg in load(run_dir, "run.json")["legs"])
    forget(fake)
    killed = finish(cli("status", str(run_dir), "--project", str(project)))[1]
    assert (f"  cost: ? (3 leg(s) of unknown cost) of the $0.3 --max-cost ceiling, with ${reserved:.4f} reserved by "
            "legs lost in flight counting against it") in killed

    code, run, err = resume(str(run_dir), project)
    assert code == 1 and run["error"]["code"] == "COST_EXCEEDED", err
    message = run["error"]["message"]
    assert "no room for 3 of 3 Stage-1 reviews" in message
    assert f"known spend $0.0000 (and ${reserved:.4f} reserved by legs lost in flight" in message
    needed = float(message.split("--max-cost ")[-1].rstrip("."))
    assert needed > 0.30 and f"needs a ceiling of at least ${needed:.4f} (${needed - 0.30:.4f} more)" in message
    assert f"amicus council resume {run_dir} --max-cost {needed:.4f}" in message
    assert asked(fake) == Counter()  # nothing was sent

    shown = finish(cli("status", str(run_dir), "--project", str(project)))[1]
    assert (f"  cost: ? (3 leg(s) of unknown cost) of the $0.3 --max-cost ceiling, with ${reserved:.4f} reserved by "
            "legs lost in flight counting against it") in shown
    refused = finish(cli("council", "resume", str(run_dir), "--project", str(project), "--json"))
    assert refused[0] == 1 and "unless resumed with a higher --max-cost" in refused[1]
    lower = finish(cli("council", "resume", str(run_dir), "--max-cost", "0.2", "--project", str(project), "--json"))
    assert lower[0] == 1 and "does not raise" in lower[1]

    code, out, err = finish(cli("council", "resume", str(run_dir), "--max-cost", f"{needed:.4f}",
                                "--project", str(project), "--json"))
    assert code == 2, err  # it finishes; its cost is a floor under a ceiling (a degrade), as any lost leg makes it
    run = json.loads(out)
    assert run["status"] == "partial" and run["overallVerdict"] == "Fix these first"
    assert run["options"]["maxCost"] == pytest.approx(needed) and run["resumes"][-1]["maxCost"] == pytest.approx(needed)
    assert json.loads((run_dir / "options.json").read_text(encoding="utf-8"))["maxCost"] == pytest.approx(needed)
    assert asked(fake)[("vendor/a", "stage1")] == 1  # each review sent once more, and only once
    check_lost(run_dir, Counter({("vendor/a", "stage1"): 1, ("vendor/b", "stage1"): 1, ("vendor/c", "stage1"): 1}))
    assert schema_errors(load(run_dir, "run.json"), "council-run") == []
