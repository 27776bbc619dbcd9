"""A re-review's matcher model (`council run --baseline RUN --matcher MODEL`, issue 32 §3): real
council runs against the loopback fake provider, the matcher a fake model that reads the prompt
the engine sends it. The location and claim pass decides first; what it leaves new goes to the
matcher; a matcher that cannot be read, or that the ceiling cannot hold, leaves the deterministic
decision with the loss named (a notice, rereview.json `matcher.losses`, the report)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from council_helpers import finding, member, member_responder, review
from council_prompts import kind, matcher_questions
from fakeprovider import FakeProvider, chat, prompt_of, usage
from test_pr_loop import bench, council_run

from amicus_mcp.cli import main as cli_main
from amicus_mcp.schemas import schema_errors

BEFORE = dict(north=[finding(1, "north", severity="blocker", location="src/cache.py:12-14",
                             claim="Every write evicts the whole cache.")],
              south=[finding(1, "south", severity="major", location="src/store.py:7",
                             claim="The store never closes its file.")])
# After new commits: the eviction moved to another file and is said in other words (no shared
# place, hardly a shared word: the location and claim pass cannot see it), the store is fixed,
# and the lock is new.
AFTER = dict(north=[finding(1, "north", severity="blocker", location="src/lru.py:40",
                            claim="Writes flush all cached entries at once.")],
             south=[finding(1, "south", severity="major", location="src/lock.py:3",
                            claim="The lock is never released on error.")])
# What the oracle matcher knows: which new claim is which baseline finding again.
SAME = {"Writes flush all cached entries at once.": "A1"}


def oracle(body: Any) -> Any:
    """A matcher that answers every question right, in the reply shape the prompt asks for."""
    prompt = prompt_of(body)
    assert kind(prompt) == "rereview-matcher", prompt[:80]
    matches = [{"finding": fid, "baseline": SAME.get(claim) if SAME.get(claim) in candidates else None,
                "reason": "the same eviction, moved" if claim in SAME else "a different problem"}
               for fid, claim, candidates in matcher_questions(prompt)]
    return chat(f"Matched.\n\n```json\n{json.dumps({'matches': matches})}\n```\n", usage=usage(cost=0.002))


def runs(fake: FakeProvider, brief: Path, project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
         *extra: str, expect: int = 0) -> tuple[dict[str, Any], dict[str, Any], Path]:
    bench(fake, **BEFORE)
    baseline = tmp_path / "baseline"
    council_run(brief, project, baseline, capsys)
    bench(fake, **AFTER)
    again = tmp_path / "again"
    code = cli_main(["council", "run", "--prompt-file", str(brief), "--models", "fake/a,fake/b", "--chair", "fake/chair",
                     "--out-dir", str(again), "--project", str(project), "--json", "--quiet",
                     "--baseline", str(baseline), *extra])
    run = json.loads(capsys.readouterr().out)
    assert code == expect, run
    doc = json.loads((again / "rereview.json").read_text(encoding="utf-8"))
    assert schema_errors(doc, "council-rereview") == []
    return run, doc, again


def test_the_matcher_finds_a_reworded_moved_finding_the_deterministic_pass_cannot(fake, brief, project, tmp_path,
                                                                                   capsys):
    # Without a matcher: both findings are new, and both baseline findings look resolved.
    _, plain, _ = runs(fake, brief, project, tmp_path / "plain", capsys)
    assert plain["counts"] == {"new": 2, "still-open": 0, "resolved": 2} and "matcher" not in plain

    fake.respond("m", oracle)
    run, doc, again = runs(fake, brief, project, tmp_path / "matched", capsys, "--matcher", "fake/m")
    assert doc["counts"] == {"new": 1, "still-open": 1, "resolved": 1}
    by_id = {d["id"]: d for d in doc["decisions"]}
    assert by_id["A1"] == {"id": "A1", "status": "still-open", "baselineId": "A1", "by": "matcher", "score": None,
                           "reason": "the same eviction, moved"}
    assert by_id["B1"] == {"id": "B1", "status": "new", "baselineId": None, "by": "matcher", "score": None,
                           "reason": "a different problem"}
    assert [r["claim"] for r in doc["resolved"]] == ["The store never closes its file."]
    assert doc["matcher"] == {"model": "fake/m", "asked": 2, "decided": 2, "legs": 1,
                              "cost": {"amount": 0, "unpricedLegs": 0, "source": "reported"}, "losses": []}  # the fake bills $0
    # One call; its prompt is anonymous (no seat, model or alias) and quotes the findings as data.
    (prompt,) = fake.prompts("m")
    for name in ("fake/a", "fake/b", "fake/chair", "seat", "raiser"):
        assert name not in prompt.lower()
    assert "- may be matched to: A1, B1" in prompt and "quoted as data" in prompt
    assert (again / "matcher-prompt.md").read_text(encoding="utf-8") == prompt
    assert (again / "options.json").is_file() and json.loads((again / "options.json").read_text())["matcher"] == "fake/m"
    assert "1 new, 1 still open, 1 resolved" in " ".join(run["notices"])

    # The report, SARIF and the gate read the matcher's decisions from rereview.json.
    assert cli_main(["council", "report", str(again / "verdict.json")]) == 0
    report = capsys.readouterr().out
    assert "- new: B1\n- still open: A1\n- resolved: 1\n" in report
    assert ("- Matcher fake/m: asked about 2 finding(s) the location and claim pass left new, decided 2; 1 call, "
            "$0.0000\n  - **A1** still open as **A1** — the matcher: the same eviction, moved") in report
    page = (again / "report.html").read_text(encoding="utf-8")
    assert "<strong>A1</strong> still open as <strong>A1</strong> — the matcher: the same eviction, moved" in page
    assert cli_main(["council", "report", str(again / "verdict.json"), "--sarif"]) == 0
    log = json.loads(capsys.readouterr().out)
    assert {r["properties"]["findingId"]: r["properties"]["reReview"] for r in log["runs"][0]["results"]} == {
        "A1": "still-open", "B1": "new"}
    assert cli_main(["council", "gate", str(again), "--fail-on", "confirmed-blocker", "--gate-on", "new"]) == 0
    capsys.readouterr()


def test_the_matchers_reason_is_model_output_escaped_in_the_report(fake, brief, project, tmp_path, capsys):
    def hostile(body: Any) -> Any:
        prompt = prompt_of(body)
        matches = [{"finding": fid, "baseline": "A1" if fid == "A1" else None,
                    "reason": "<script>alert(1)</script>\n## Verdict: ship it"}
                   for fid, _, _ in matcher_questions(prompt)]
        return chat(f"```json\n{json.dumps({'matches': matches})}\n```\n")

    fake.respond("m", hostile)
    _, doc, again = runs(fake, brief, project, tmp_path, capsys, "--matcher", "fake/m")
    assert {d["id"]: d["reason"] for d in doc["decisions"]}["A1"] == "<script>alert(1)</script> ## Verdict: ship it"
    page = (again / "report.html").read_text(encoding="utf-8")
    assert "<script>alert(1)" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def naive_wrong_format(prompt: str) -> str:
    return "A1 is the old eviction finding, B1 is new."


def naive_invented_ids(prompt: str) -> str:
    matches = [{"finding": fid, "baseline": "Z9", "reason": "x"} for fid, _, _ in matcher_questions(prompt)]
    return f"```json\n{json.dumps({'matches': matches})}\n```\n"


def naive_same_baseline_twice(prompt: str) -> str:
    matches = [{"finding": fid, "baseline": "A1", "reason": "the eviction"} for fid, _, _ in matcher_questions(prompt)]
    return f"```json\n{json.dumps({'matches': matches})}\n```\n"


def naive_truncated(prompt: str) -> str:
    matches = [{"finding": fid, "baseline": None, "reason": "new"} for fid, _, _ in matcher_questions(prompt)]
    return f"```json\n{json.dumps({'matches': matches})}"[:40]


@pytest.mark.parametrize("naive, decided, problem", [
    (naive_wrong_format, 0, "NO_FENCED_BLOCK"),
    (naive_invented_ids, 0, "must be one of"),
    (naive_same_baseline_twice, 1, "is already the match of A1"),
    (naive_truncated, 0, "TRUNCATED: the reply was cut at its 8,000-token cap"),
])
def test_a_naive_matcher_is_asked_once_more_then_the_deterministic_decision_stands(naive, decided, problem, fake,
                                                                                    brief, project, tmp_path, capsys):
    fake.respond("m", lambda body: chat(naive(prompt_of(body)), finish="length" if naive is naive_truncated else "stop",
                                        usage=usage(cost=0.001)))
    run, doc, again = runs(fake, brief, project, tmp_path, capsys, "--matcher", "fake/m", expect=2)
    prompts = fake.prompts("m")
    assert len(prompts) == 2 and "Your previous answer could not be used:" in prompts[1]
    assert problem in prompts[1]
    assert (again / "matcher-output-2.md").is_file()
    part = doc["matcher"]
    assert (part["asked"], part["decided"], part["legs"]) == (2, decided, 2)
    assert part["losses"] and "left unanswered after a repair" in part["losses"][0]
    assert "kept the location and claim decision" in part["losses"][-1]
    by = [d["by"] for d in doc["decisions"]]
    if decided:  # the first use of A1 stands; the second finding keeps the deterministic decision
        assert by == ["matcher", None] and doc["counts"] == {"new": 1, "still-open": 1, "resolved": 1}
        assert "- may be matched to: B1\n" in prompts[1]  # A1 is taken: the repair offers what is left
    else:
        assert by == [None, None] and doc["counts"] == {"new": 2, "still-open": 0, "resolved": 2}
    notices = " ".join(run["notices"])
    assert "re-review matcher: " in notices and "left unanswered after a repair" in notices
    # a lost matcher decision degrades the run: exit 2, run.json `degrades`, the verdict and the report
    (lost,) = run["degrades"]
    assert (lost["channel"], lost["what"]) == (
        "rereview", f"re-review matcher: {2 - decided} finding(s) left to the location and claim match only")
    assert "left unanswered after a repair" in lost["why"]
    assert json.loads((again / "verdict.json").read_text(encoding="utf-8"))["degrades"] == run["degrades"]
    assert f"<li>Notice: {lost['what']} — " in (again / "report.html").read_text(encoding="utf-8")
    assert cli_main(["council", "report", str(again / "verdict.json")]) == 0
    assert "  - lost: " in capsys.readouterr().out


def test_a_failing_matcher_leaves_the_deterministic_decision_and_says_so(fake, brief, project, tmp_path, capsys):
    from fakeprovider import error

    fake.respond("m", lambda body: error(500, "matcher is down"))
    run, doc, again = runs(fake, brief, project, tmp_path, capsys, "--matcher", "fake/m", expect=2)
    assert doc["counts"] == {"new": 2, "still-open": 0, "resolved": 2}
    assert [d["by"] for d in doc["decisions"]] == [None, None]
    assert any(re.match(r"the matcher call failed \(.*matcher is down", loss) for loss in doc["matcher"]["losses"])
    (lost,) = run["degrades"]
    assert lost["what"] == "re-review matcher: 2 finding(s) left to the location and claim match only"
    assert "the matcher call failed" in lost["why"] and "matcher is down" in lost["why"]
    assert f"{lost['what']}: {lost['why']}" in run["notices"]
    assert json.loads((again / "verdict.json").read_text(encoding="utf-8"))["degrades"] == run["degrades"]
    assert f"<li>Notice: {lost['what']} — " in (again / "report.html").read_text(encoding="utf-8")


def test_a_matcher_call_of_unknown_cost_under_a_ceiling_makes_the_cost_total_a_floor(fake, brief, project, tmp_path,
                                                                                     capsys):
    def unpriced(body: Any) -> Any:  # the right answers, with no usage block: its cost is unknown
        reply = oracle(body)
        reply.body.pop("usage", None)
        return reply

    fake.respond("m", unpriced)
    run, doc, again = runs(fake, brief, project, tmp_path, capsys, "--matcher", "fake/m", "--max-cost", "5",
                           expect=2)
    assert doc["counts"] == {"new": 1, "still-open": 1, "resolved": 1}
    assert doc["matcher"]["cost"] == {"amount": None, "unpricedLegs": 1, "source": "unknown"}
    assert (run["usage"]["costExact"], run["usage"]["unknownLegs"]) == (False, 1)
    assert [(d["what"], d["why"]) for d in run["degrades"]] == [
        ("cost total is a floor", "1 leg(s) had no known cost under a --max-cost ceiling")]
    assert json.loads((again / "verdict.json").read_text(encoding="utf-8"))["degrades"] == run["degrades"]


def test_a_matcher_without_a_baseline_is_bad_args_naming_the_flags(fake, brief, project, tmp_path, capsys):
    bench(fake)
    code = cli_main(["council", "run", "--prompt-file", str(brief), "--models", "fake/a,fake/b", "--chair", "fake/chair",
                     "--out-dir", str(tmp_path / "r"), "--project", str(project), "--json", "--matcher", "fake/m"])
    error = json.loads(capsys.readouterr().out)["error"]
    assert (code, error["code"]) == (1, "BAD_ARGS")
    assert error["message"] == "--matcher applies to a re-review only: it needs --baseline"
    assert fake.chat_requests() == []


def test_the_actions_matcher_input_without_a_baseline_is_not_used_and_said(fake, project, tmp_path):
    """A workflow names its matcher once; its first run has no previous run (no baseline): the
    council runs without the matcher, and the log and the step summary say so."""
    from test_ci_action import run_action

    (project / "design.md").write_text("# Widget cache\n\nThe cache evicts every entry on every write.\n", encoding="utf-8")
    bench(fake)
    code, summary, outputs, log = run_action(
        tmp_path, project, MODELS="fake/a,fake/b", CHAIR="fake/chair", TEMPLATE="design-doc", ARTIFACT="design.md",
        VARS="audience=the platform team\nconstraints=p99 under 5 ms\n", MATCHER="fake/m", FAIL_ON="never", OUT_DIR="first")
    assert code == 0, log
    notice = "the 'matcher' input is not used: there is no 'baseline' (no previous run) to re-review against"
    assert f"Notice: {notice}" in log and f"> Notice: {notice}" in summary.read_text(encoding="utf-8")
    assert "rereview-matcher" not in {kind(prompt_of(body)) for body in fake.chat_requests()}
    assert not (project / "first" / "rereview.json").exists() and outputs["gate"] == "pass"


GATEWAY_BENCH = ["openrouter/vendor/a", "openrouter/vendor/b"]


def gateway_runs(gateway: FakeProvider, brief: Path, project: Path, tmp_path: Path,
                 capsys: pytest.CaptureFixture[str], *extra: str,
                 at_chair: Callable[[], None] | None = None,
                 window: int = 100000, matcher: Callable[[Any], Any] = oracle) -> tuple[int, dict[str, Any], Path]:
    """The baseline run and its re-review on the gateway; `at_chair` is called as the re-review's
    chair is asked (the run is in flight then); `window` is the matcher's context window."""
    gateway.catalog = [*gateway.catalog, {"id": "vendor/m", "name": "m", "context_length": window,
                                          "pricing": {"prompt": "0.000001", "completion": "0.00001"}}]
    for side, name in (("north", "vendor/a"), ("south", "vendor/b")):
        member(gateway, name, tag=side, cost=0.001,
               stage1=chat(review(side, block={"overall": "o", "findings": BEFORE[side]}), usage=usage(cost=0.001)))
    member(gateway, "vendor/chair", cost=0.001)
    common = ["council", "run", "--prompt-file", str(brief), "--models", ",".join(GATEWAY_BENCH),
              "--chair", "openrouter/vendor/chair", "--project", str(project), "--json", "--quiet"]
    assert cli_main([*common, "--out-dir", str(tmp_path / "baseline")]) == 0
    capsys.readouterr()
    for side, name in (("north", "vendor/a"), ("south", "vendor/b")):
        member(gateway, name, tag=side, cost=0.001,
               stage1=chat(review(side, block={"overall": "o", "findings": AFTER[side]}), usage=usage(cost=0.001)))
    gateway.respond("vendor/m", matcher)
    if at_chair is not None:
        chair = member_responder("vendor/chair", cost=0.001)

        def watched(body: Any) -> Any:
            at_chair()
            return chair(body)

        gateway.respond("vendor/chair", watched)
    code = cli_main([*common, "--out-dir", str(tmp_path / "again"), "--baseline", str(tmp_path / "baseline"),
                     "--matcher", "openrouter/vendor/m", *extra])
    return code, json.loads(capsys.readouterr().out), tmp_path / "again"


def test_a_ceiling_that_holds_the_council_but_not_the_matcher_runs_without_it_and_says_so(gateway, brief, project,
                                                                                          tmp_path, capsys):
    in_flight: list[dict[str, Any]] = []
    code, run, again = gateway_runs(gateway, brief, project, tmp_path, capsys, "--max-cost", "0.12",
                                    at_chair=lambda: in_flight.append(json.loads(
                                        (tmp_path / "again" / "run.json").read_text(encoding="utf-8"))))
    assert code == 2, run  # a matcher dropped at pre-flight is a loss: the run is degraded
    assert run["status"] == "partial" and gateway.prompts("vendor/m") == []
    doc = json.loads((again / "rereview.json").read_text(encoding="utf-8"))
    assert schema_errors(doc, "council-rereview") == []
    assert doc["counts"] == {"new": 2, "still-open": 0, "resolved": 2}
    (loss,) = doc["matcher"]["losses"]
    assert loss.startswith("not called: the --max-cost $0.12 ceiling holds the council but not also the matcher's "
                           "worst case ($0.")
    assert (doc["matcher"]["legs"], doc["matcher"]["cost"]) == (0, {"amount": 0.0, "unpricedLegs": 0})
    # announced up front, as a dropped seat is (the first notice), and in run.json from the start:
    # already there while the chair is asked, long before the re-review runs
    dropped = {"kind": "degrade", "channel": "rereview", "what": "re-review matcher", "why": loss}
    assert run["notices"][0] == f"re-review matcher: {loss}"
    (seen,) = in_flight
    assert seen["status"] == "running" and seen["degrades"] == [dropped]
    assert run["degrades"] == [dropped]  # one loss, recorded once; how many findings it left is a notice
    assert ("re-review matcher: 2 finding(s) left to the location and claim match only (the matcher was not "
            "called: dropped at pre-flight)") in run["notices"]
    assert cli_main(["council", "report", str(again / "verdict.json")]) == 0
    assert f"  - lost: {loss}" in capsys.readouterr().out


def test_pre_flight_holds_the_matchers_worst_case_and_the_run_counts_what_it_cost(gateway, brief, project, tmp_path,
                                                                                 capsys):
    # The matcher's worst case: two calls, each its prompt bound (BEFORE's two findings, 40 findings at their
    # clipped length) and its 8,000-token answer, at the catalog's $1/Mtok in and $10/Mtok out.
    worst = 2 * ((matcher_window(40) - 8000) * 1e-6 + 8000 * 1e-5)
    code, run, _ = gateway_runs(gateway, brief, project, tmp_path / "short", capsys, "--max-cost", "0.12")
    found = re.search(r"worst case \(\$(\d+\.\d+); --max-cost (\d+\.\d+) holds both\)", run["degrades"][0]["why"])
    assert found and float(found[1]) == pytest.approx(worst, abs=1e-4), run["degrades"]
    both = float(found[2])
    # A hair under what holds both: pre-flight counts the matcher and leaves it out ...
    code, run, _ = gateway_runs(gateway, brief, project, tmp_path / "under", capsys, "--max-cost", f"{both - 0.0001:.4f}")
    assert code == 2 and run["degrades"][0]["what"] == "re-review matcher", run
    assert gateway.chat_requests("vendor/m") == []
    # ... and at it, the council and the matcher both run.
    code, run, again = gateway_runs(gateway, brief, project, tmp_path / "exact", capsys, "--max-cost", f"{both:.4f}")
    assert code == 0, run
    doc = json.loads((again / "rereview.json").read_text(encoding="utf-8"))
    assert doc["counts"] == {"new": 1, "still-open": 1, "resolved": 1}
    assert doc["matcher"]["legs"] == 1 and doc["matcher"]["cost"] == {"amount": 0.002, "unpricedLegs": 0, "source": "reported"}
    (request,) = gateway.chat_requests("vendor/m")
    assert request.body["max_tokens"] == 8000  # its cap is its floor: never shortened
    # the run's own cost counts the matcher's call beside the council's five legs
    assert run["usage"]["cost"]["amount"] == pytest.approx(5 * 0.001 + 0.002)


def test_the_reports_run_total_counts_the_matchers_call_as_run_json_does(gateway, brief, project, tmp_path, capsys):
    code, run, again = gateway_runs(gateway, brief, project, tmp_path, capsys)
    assert code == 0, run
    assert run["usage"]["cost"]["amount"] == pytest.approx(0.007)
    # the matcher's call is a cost row of its own, in the verdict the report is rendered from
    verdict = json.loads((again / "verdict.json").read_text(encoding="utf-8"))
    (row,) = [r for r in verdict["runStats"] if r["role"] == "matcher"]
    assert (row["model"], row["status"], row["usage"]["cost"]["amount"]) == ("openrouter/vendor/m", "complete", 0.002)
    page = (again / "report.html").read_text(encoding="utf-8")
    assert '<td>Run total</td><td></td><td></td><td class="num">$0.0070</td>' in page
    assert cli_main(["council", "report", str(again / "verdict.json")]) == 0
    assert "| **Run total** | | | $0.0070 |" in capsys.readouterr().out


def test_the_action_passes_its_matcher_input_and_the_summary_shows_its_decisions(fake, project, tmp_path):
    from test_ci_action import run_action

    (project / "design.md").write_text("# Widget cache\n\nThe cache evicts every entry on every write.\n", encoding="utf-8")
    inputs = {"MODELS": "fake/a,fake/b", "CHAIR": "fake/chair", "TEMPLATE": "design-doc", "ARTIFACT": "design.md",
              "VARS": "audience=the platform team\nconstraints=p99 under 5 ms\n", "FAIL_ON": "confirmed-blocker"}
    bench(fake, **BEFORE)
    code, _, _, log = run_action(tmp_path, project, **inputs, OUT_DIR="prev")
    assert code == 4, log  # the blocker
    bench(fake, **AFTER)
    fake.respond("m", oracle)
    code, summary, _, log = run_action(tmp_path, project, **inputs, OUT_DIR="next", BASELINE="prev", GATE_ON="new",
                                       MATCHER="fake/m")
    assert code == 0, log  # the blocker is still open (the matcher saw it), so --gate-on new does not count it
    text = summary.read_text(encoding="utf-8")
    assert "1 new, 1 still open, 1 resolved" in text and "still-open blocker(s) not counted" in text
    assert "  - **A1** still open as **A1** — the matcher: the same eviction, moved" in text
    assert len(fake.prompts("m")) == 1


def test_a_matcher_that_fails_its_pre_flight_checks_stops_the_run_before_anything_is_spent(gateway, brief, project,
                                                                                          tmp_path, capsys):
    # Held to the chair's checks: a matcher the catalog does not list is the caller's to fix (exit 1, nothing sent),
    # never a run that quietly goes on without the matcher it was asked for.
    for side, name in (("north", "vendor/a"), ("south", "vendor/b")):
        member(gateway, name, tag=side, cost=0.001)
    member(gateway, "vendor/chair", cost=0.001)
    common = ["council", "run", "--prompt-file", str(brief), "--models", ",".join(GATEWAY_BENCH),
              "--chair", "openrouter/vendor/chair", "--project", str(project), "--json", "--quiet"]
    assert cli_main([*common, "--out-dir", str(tmp_path / "baseline")]) == 0
    capsys.readouterr()
    sent = len(gateway.chat_requests())
    code = cli_main([*common, "--out-dir", str(tmp_path / "again"), "--baseline", str(tmp_path / "baseline"),
                     "--matcher", "openrouter/vendor/no-such-model"])
    error = json.loads(capsys.readouterr().out)["error"]
    assert (code, error["code"]) == (1, "BAD_MODEL") and error["message"].startswith("--matcher: "), error
    assert len(gateway.chat_requests()) == sent and not (tmp_path / "again" / "run.json").exists()


def matcher_window(questions: int) -> int:
    """The smallest matcher window that holds a call about `questions` findings (and its repair)
    against BEFORE's two findings, each at its clipped length, and its 8,000-token answer."""
    from amicus_mcp.council import matching, rereview
    from amicus_mcp.providers.cost import prompt_tokens

    targets = rereview.targets([f | {"id": f"{side[0].upper()}1"} for side, fs in BEFORE.items() for f in fs])
    return prompt_tokens(matching.prompt_bound(rereview.FRAME, targets, questions)) + 8000


def test_a_matcher_window_that_holds_fewer_findings_asks_about_those_and_names_the_rest(gateway, brief, project,
                                                                                        tmp_path, capsys):
    code, run, again = gateway_runs(gateway, brief, project, tmp_path, capsys, window=matcher_window(1))
    assert code == 2, run
    (prompt,) = gateway.prompts("vendor/m")
    assert len(matcher_questions(prompt)) == 1  # one finding: what the window holds, never an over-long prompt
    doc = json.loads((again / "rereview.json").read_text(encoding="utf-8"))
    assert (doc["matcher"]["asked"], doc["matcher"]["decided"]) == (1, 1)
    assert doc["matcher"]["losses"] == [f"1 finding(s) beyond the 1 the matcher's {matcher_window(1):,}-token context "
                                        "window holds in one call were matched by location and claim only (B1)"]
    assert [d["what"] for d in run["degrades"]] == [
        "re-review matcher: 1 finding(s) left to the location and claim match only"]


def test_a_matcher_window_that_holds_no_finding_is_not_called_and_says_so_up_front(gateway, brief, project, tmp_path,
                                                                                   capsys):
    window = matcher_window(1) - 1
    code, run, again = gateway_runs(gateway, brief, project, tmp_path, capsys, window=window)
    assert code == 2, run
    assert gateway.prompts("vendor/m") == []
    loss = (f"not called: the matcher's {window:,}-token context window cannot hold the baseline's 2 finding(s) "
            "and one finding to match, plus its 8,000-token answer")
    assert run["notices"][0] == f"re-review matcher: {loss}"
    assert run["degrades"][0] == {"kind": "degrade", "channel": "rereview", "what": "re-review matcher", "why": loss}
    doc = json.loads((again / "rereview.json").read_text(encoding="utf-8"))
    assert doc["matcher"]["losses"] == [loss] and doc["counts"] == {"new": 2, "still-open": 0, "resolved": 2}


def test_the_matcher_never_sends_a_prompt_its_context_window_cannot_hold(gateway, tmp_path):
    # The leg's own check, whoever calls it (the eval too): a prompt too long for the window is not sent.
    import anyio

    from amicus_mcp.config import load_config
    from amicus_mcp.council import rereview
    from amicus_mcp.council.matching import Question
    from amicus_mcp.engine.budget import Budget
    from amicus_mcp.engine.matcher import MatcherLeg, run_matcher
    from amicus_mcp.engine.preflight import read_catalog
    from amicus_mcp.providers.routing import ProviderRegistry, resolve_model

    gateway.catalog = [*gateway.catalog, {"id": "vendor/m", "name": "m", "context_length": 8_100,
                                          "pricing": {"prompt": "0.000001", "completion": "0.00001"}}]
    targets = rereview.targets([{"id": "A1", "severity": "major", "location": "src/a.py:1", "claim": "x " * 400}])
    asked = [Question("B1", "major", "src/b.py:2", "y " * 400, "z " * 400, ("A1",))]

    async def go() -> Any:
        route = resolve_model("openrouter/vendor/m", gateway=None, cfg=load_config())
        registry = ProviderRegistry(project=tmp_path)
        try:
            leg = MatcherLeg(model="openrouter/vendor/m", route=route, catalog=await read_catalog([route]),
                             registry=registry, budget=Budget(None), timeout_s=30, directory=tmp_path / "m")
            return await run_matcher(leg, rereview.FRAME, targets, asked)
        finally:
            await registry.aclose()

    outcome = anyio.run(go)
    assert gateway.chat_requests("vendor/m") == [] and (outcome.legs, outcome.answers) == (0, {})
    (loss,) = outcome.losses
    assert loss.kind == "failed" and re.fullmatch(
        r"the matcher's call was not sent: its prompt \(about [\d,]+ tokens\) and its 8,000-token answer do not fit "
        r"its 8,100-token context window", loss.detail), loss.detail


def aborted_in_the_matchers_call(fake: FakeProvider, brief: Path, project: Path, tmp_path: Path,
                                 capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str, str, Path]:
    """A re-review run in its own process, stopped (SIGTERM) while its matcher call hangs:
    (exit code, stdout, stderr, the run directory)."""
    import signal

    from fakeprovider import hang
    from polling import wait_for
    from test_council_run import finish, start_run

    bench(fake, **BEFORE)
    council_run(brief, project, tmp_path / "baseline", capsys)
    bench(fake, **AFTER)
    fake.respond("m", hang(60))
    again = tmp_path / "again"
    proc = start_run(brief, again, project, "fake/a,fake/b", "--baseline", str(tmp_path / "baseline"),
                     "--matcher", "fake/m", *extra)
    try:
        wait_for(lambda: fake.prompts("m"), what="the matcher's request")
        proc.send_signal(signal.SIGTERM)
        code, out, err = finish(proc)
    finally:
        proc.kill()
    return code, out, err, again


def test_an_abort_during_the_matchers_call_keeps_its_spend_in_run_json(fake, brief, project, tmp_path, capsys):
    code, out, err, again = aborted_in_the_matchers_call(fake, brief, project, tmp_path, capsys, "--max-cost", "5")
    assert code == 143, err
    run = json.loads(out)
    assert run["status"] == "aborted"
    # the council's five legs are known; the matcher's call was in flight, so it may have been billed:
    # counted as a leg of unknown cost, never left out of the run's total
    assert (run["usage"]["cost"]["reportedLegs"], run["usage"]["cost"]["unpricedLegs"]) == (5, 1)
    assert (run["usage"]["unknownLegs"], run["usage"]["costExact"]) == (1, False)
    assert json.loads((again / "run.json").read_text(encoding="utf-8"))["usage"] == run["usage"]
    # the verdict is written once, after the re-review: a gate finds the run unfinished, never a
    # verdict that reads as final without the matcher's row, its cost or its loss
    assert not (again / "verdict.json").exists() and not (again / "report.html").exists()
    capsys.readouterr()
    assert cli_main(["council", "gate", str(again), "--fail-on", "never", "--json"]) == 1
    assert "council resume" in capsys.readouterr().out


def test_the_re_review_line_is_said_once_in_the_report(fake, brief, project, tmp_path, capsys):
    """run.json's notices carry the re-review's counts; the report says them in its own section,
    so the verdict's notices (the report's notes) do not carry them a second time."""
    run, doc, again = runs(fake, brief, project, tmp_path, capsys)
    line = f"Re-review against run {doc['baselineRunId']}: "
    assert any(n.startswith(line) for n in run["notices"])
    verdict = json.loads((again / "verdict.json").read_text(encoding="utf-8"))
    assert not any(n.startswith(line) for n in verdict.get("notices", []))
    assert (again / "report.html").read_text(encoding="utf-8").count(line) == 1  # its section's line only


def test_an_estimated_matcher_cost_keeps_its_source_and_shows_as_an_estimate(gateway, brief, project, tmp_path,
                                                                            capsys):
    def tokens_only(body: Any) -> Any:  # no cost reported: priced from the catalog, an estimate
        reply = oracle(body)
        reply.body["usage"] = usage(1000, 500)
        return reply

    code, run, again = gateway_runs(gateway, brief, project, tmp_path, capsys, matcher=tokens_only)
    assert code == 0, run
    doc = json.loads((again / "rereview.json").read_text(encoding="utf-8"))
    assert doc["matcher"]["cost"] == {"amount": pytest.approx(1000 * 1e-6 + 500 * 1e-5), "unpricedLegs": 0,
                                      "source": "estimated"}
    assert cli_main(["council", "report", str(again / "verdict.json")]) == 0
    assert "decided 2; 1 call, \\~$0.0060\n" in capsys.readouterr().out  # Markdown's ~, escaped
    assert "decided 2; 1 call, ~$0.0060" in (again / "report.html").read_text(encoding="utf-8")


def test_a_resume_after_an_abort_in_the_matchers_call_counts_that_call_once(fake, brief, project, tmp_path, capsys):
    from test_council_run import cli, finish

    code, _, err, again = aborted_in_the_matchers_call(fake, brief, project, tmp_path, capsys)
    assert code == 143, err
    fake.respond("m", oracle)
    code, out, err = finish(cli("council", "resume", str(again), "--project", str(project), "--json"))
    assert code == 0, err + out
    run = json.loads(out)
    assert len(fake.prompts("m")) == 2  # asked again: the earlier call's answer never arrived
    # the earlier attempt's call may have been billed: a leg of unknown cost, with a row the report shows
    assert (run["usage"]["unknownLegs"], run["usage"]["costExact"]) == (1, False)
    assert any("re-review matcher call(s) of an earlier attempt" in n for n in run["notices"]), run["notices"]
    verdict = json.loads((again / "verdict.json").read_text(encoding="utf-8"))
    rows = [(r["model"], r["role"], r["status"]) for r in verdict["runStats"] if r["model"] == "fake/m"]
    assert rows == [("fake/m", "matcher", "interrupted"), ("fake/m", "matcher", "complete")]
    report = (again / "report.html").read_text(encoding="utf-8")
    assert report.count("<td>fake/m (matcher)</td>") == 2  # each row says it is the matcher's
    assert "<td>Run total</td><td></td><td></td><td class=\"num\">at least $0.0000</td>" in (
        again / "report.html").read_text(encoding="utf-8")
