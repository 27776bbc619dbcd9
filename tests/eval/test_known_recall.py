"""`amicus eval run` over the shipped suite, end to end, against fake models of known recall.

The fake bench (tests/eval/eval_truth.py) is configured with which planted flaws each model
finds on each case, which false claims it adds, how the judges vote, the chair's verdicts; its
matcher knows which flaw each claim was written about. Every figure in eval.json must equal
what that configuration implies, computed without the scorer.
"""

from __future__ import annotations

import json
from pathlib import Path

from eval_helpers import LEG_COST, ShippedEval
from eval_truth import BENCH, NO_VERDICT

from amicus_mcp.schemas import schema_errors


def load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def test_the_shipped_suite_runs_end_to_end_and_every_document_validates(shipped_eval: ShippedEval) -> None:
    d = shipped_eval.directory
    # One case never gives a chair verdict, so its council — and so the eval — is partial.
    assert shipped_eval.code == 2
    manifest = load(d / "eval-run.json")
    assert (manifest["status"], manifest["stage"], manifest["exitCode"]) == ("partial", "done", 2)
    assert manifest["casesDone"] == manifest["casesTotal"] == len(shipped_eval.suite.cases) == 16
    doc = load(d / "eval.json")
    assert shipped_eval.printed == doc  # --json prints eval.json
    for name, schema in (("eval.json", "eval"), ("eval-run.json", "eval-run"), ("eval-options.json", "eval-run-options"),
                         ("suite.json", "eval-suite")):
        assert schema_errors(load(d / name), schema) == [], name
    for case in shipped_eval.suite.cases:
        case_dir = d / "cases" / case.id
        assert schema_errors(load(case_dir / "matches.json"), "eval-matches") == []
        assert schema_errors(load(case_dir / "case.json"), "eval-case") == []
        run = load(case_dir / "council" / "run.json")
        assert schema_errors(run, "council-run") == []
        assert run["status"] == ("partial" if case.id == NO_VERDICT else "complete")
        # Each case's council was told to stay out of the reliability ledger, and said so.
        assert load(case_dir / "council" / "options.json")["ledger"] is False
        assert any("eval case: not recorded in the reliability ledger" in n for n in run["notices"])
    assert (d / "eval.md").read_text(encoding="utf-8").startswith(f"# Eval {doc['evalId']}: suite planted v1")
    assert (d / "eval.html").read_text(encoding="utf-8").startswith("<!doctype html>")


def test_recall_per_seat_and_for_the_council_equal_the_configured_truth(shipped_eval: ShippedEval) -> None:
    doc, want = load(shipped_eval.directory / "eval.json"), shipped_eval.expected
    assert (doc["suite"]["cases"], doc["suite"]["cleanCases"], doc["suite"]["plantedFlaws"]) == (16, 3, 70)
    assert want["planted"] == 70
    assert doc["casesScored"] == 16 and doc["casesLost"] == 0
    for seat in doc["seats"]:
        found = want["seatFound"][seat["seat"]]
        assert seat["recall"] == {"found": found, "planted": 70, "rate": round(found / 70, 4), "undecided": 0}
        assert seat["findings"]["total"] == want["findings"][seat["seat"]]
        assert seat["findings"]["undecided"] == 0
    assert [s["seat"] for s in doc["seats"]] == BENCH
    council = doc["council"]
    assert council["recall"] == {"found": want["councilFound"], "planted": 70,
                                 "rate": round(want["councilFound"] / 70, 4), "undecided": 0}
    for severity, (found, planted) in want["bySeverity"].items():
        assert council["bySeverity"][severity] == {"found": found, "planted": planted, "rate": round(found / planted, 4),
                                                   "undecided": 0}
    # The figures themselves, for the closing note (they follow from eval_truth.py).
    assert [want["seatFound"][s] for s in BENCH] == [38, 26, 12]
    assert want["councilFound"] == 57


def test_tier_counts_precision_and_false_alarms_equal_the_configured_truth(shipped_eval: ShippedEval) -> None:
    doc, want = load(shipped_eval.directory / "eval.json"), shipped_eval.expected
    assert doc["council"]["byTier"] == want["tiers"]
    assert sum(want["tiers"].values()) == 70
    assert want["tiers"] == {"Confirmed": 25, "Contested": 6, "Singleton": 13, "Disputed": 13, "Missed": 13}
    assert (want["confirmedMatched"], want["confirmedUnmatched"]) == (43, 17)
    confirmed = doc["precision"]["confirmed"]
    assert (confirmed["matched"], confirmed["unmatched"], confirmed["undecided"]) == (
        want["confirmedMatched"], want["confirmedUnmatched"], 0)
    assert confirmed["rate"] == round(want["confirmedMatched"] / (want["confirmedMatched"] + want["confirmedUnmatched"]), 4)
    assert "may be a real flaw nobody planted" in doc["precision"]["note"]
    alarms = {k: v for k, v in doc["falseAlarms"].items() if k != "byEvidence"}  # its split: the evidence test below
    assert alarms == {"cleanCases": 3, "findings": want["falseAlarms"], "confirmed": want["confirmedAlarms"],
                      "casesWithAlarm": want["casesWithAlarm"]}
    assert (want["falseAlarms"], want["confirmedAlarms"]) == (6, 3)
    for seat in doc["seats"]:
        cases = want["seatAlarmCases"][seat["seat"]]
        assert (seat["falseAlarms"], seat["cleanCasesWithAlarm"], seat["cleanCases"]) == (
            want["seatAlarms"][seat["seat"]], cases, 3)
        assert seat["falseAlarmRate"] == round(cases / 3, 4)


def test_verdicts_street_cred_cost_and_time(shipped_eval: ShippedEval) -> None:
    doc, want = load(shipped_eval.directory / "eval.json"), shipped_eval.expected
    assert doc["verdicts"] == {"cases": 16, "correct": want["verdictsCorrect"], "wrong": want["verdictsWrong"],
                               "noVerdict": want["verdictsNone"], "accuracy": round(want["verdictsCorrect"] / 16, 4)}
    assert (want["verdictsCorrect"], want["verdictsWrong"], want["verdictsNone"]) == (14, 1, 1)
    # Every judge ranks the reviews in label order (A, B, C = a, b, c): peers-only ranks 1, 2, 3.
    assert [s["streetCredPeersOnly"] for s in doc["seats"]] == [1, 2, 3]
    assert [(m["model"], m["recall"]["rate"], m["streetCredPeersOnly"]) for m in doc["models"]] == [
        (s["seat"], s["recall"]["rate"], s["streetCredPeersOnly"]) for s in doc["seats"]]
    # The fake bills every call the same: the eval's total is every call made, councils and matcher.
    totals = doc["totals"]
    assert totals["cost"] == {"amount": round(LEG_COST * shipped_eval.chat_requests, 6), "unpricedLegs": 0}
    assert totals["matching"]["amount"] == round(LEG_COST * shipped_eval.matcher_requests, 6)
    assert shipped_eval.matcher_requests == 13  # one call per flawed case; a clean case has nothing to match
    assert totals["wallMs"] is not None and totals["wallMs"] > 0
    assert all(c["wallMs"] is not None and c["wallMs"] > 0 for c in doc["cases"])
    assert abs(sum(c["cost"]["amount"] for c in doc["cases"]) - totals["cost"]["amount"]) < 1e-9


def test_every_decision_is_written_down_with_how_it_was_made(shipped_eval: ShippedEval) -> None:
    d = shipped_eval.directory
    by: dict[str, int] = {}
    for case in shipped_eval.suite.cases:
        matches = load(d / "cases" / case.id / "matches.json")
        tally = load(d / "cases" / case.id / "council" / "tally.json")
        assert [m["finding"] for m in matches["decisions"]] == [f["id"] for f in tally["findings"]]
        for decision in matches["decisions"]:
            by[decision["by"]] = by.get(decision["by"], 0) + 1
            if decision["by"] == "prefilter":
                assert decision["candidates"] == [] and decision["placement"] == "elsewhere"
            if case.clean:
                assert decision["by"] == "clean-case"
        # The matcher prompt shows findings and planted flaws — never who raised what. A clean
        # case has nothing to match, so no matcher call.
        prompt_file = d / "cases" / case.id / "matcher-prompt.md"
        assert prompt_file.is_file() is not case.clean
        if prompt_file.is_file():
            prompt = prompt_file.read_text(encoding="utf-8")
            for identity in (*BENCH, "vendor/", "Review A", "raiser", "seat"):
                assert identity not in prompt, (case.id, identity)
    assert set(by) == {"matcher", "prefilter", "clean-case"}
    # fake/c's false claim (line 9999) and the misplaced true claim never reach the matcher.
    assert by["prefilter"] == 13 + 1


def test_confirmed_precision_and_false_alarms_split_by_evidence_check_equal_the_configured_truth(
        shipped_eval: ShippedEval) -> None:
    """Issue 30: seat a fabricates the quote of every false claim it raises, c too, b gives none,
    and every true claim quotes the artifact's own line. The eval's split by evidence check must
    equal that configuration: fabricated quotes read not-found, missing ones absent, real ones
    verified or moved (moved: where the case's briefing numbers the line differently)."""
    doc, want = load(shipped_eval.directory / "eval.json"), shipped_eval.expected
    split = doc["precision"]["confirmedByEvidence"]
    assert list(split) == ["verified", "moved", "not-found", "absent"]

    def pair(*checks: str) -> tuple[int, int]:
        return (sum(split[c]["matched"] for c in checks), sum(split[c]["unmatched"] for c in checks))

    assert pair("verified", "moved") == want["confirmedByQuote"]["found"]
    assert pair("not-found") == want["confirmedByQuote"]["not-found"]
    assert pair("absent") == want["confirmedByQuote"]["absent"]
    assert split["not-found"]["rate"] == 0.0  # every Confirmed finding with a fabricated quote is false
    alarms = doc["falseAlarms"]["byEvidence"]
    assert alarms["not-found"] == sum(want["alarmsByQuote"]["not-found"])
    assert alarms["absent"] == sum(want["alarmsByQuote"]["absent"])
    assert alarms["verified"] + alarms["moved"] == sum(want["alarmsByQuote"]["found"])
    # The figures themselves, for the closing note.
    print(f"\nConfirmed by evidence check: {json.dumps(split)}\nfalse alarms by check: {json.dumps(alarms)}")


def test_with_verify_confirmed_precision_by_verifier_answer_and_recall_equal_the_configured_truth(
        shipped_eval: ShippedEval, verified_eval: ShippedEval, tmp_path: Path) -> None:
    """The same bench with --verify: every Confirmed blocker/major finding whose quote is fabricated
    is refuted, the rest hold; recall counting only unrefuted findings loses nothing on this bench,
    and `eval compare` shows both evals side by side."""
    plain, doc = load(shipped_eval.directory / "eval.json"), load(verified_eval.directory / "eval.json")
    want = verified_eval.expected
    split = doc["precision"]["confirmedByVerification"]
    assert list(split) == ["holds", "refuted", "unsure", "unverified"]
    for answer, (matched, unmatched) in want["confirmedByAnswer"].items():
        assert (split[answer]["matched"], split[answer]["unmatched"]) == (matched, unmatched), answer
    assert split["refuted"]["rate"] == 0.0 and split["refuted"]["findings"] > 0
    assert doc["council"]["recall"] == plain["council"]["recall"]  # the tiers (and recall) are the seed's
    assert doc["council"]["recallUnrefuted"] == doc["council"]["recall"]  # only false findings were refuted
    assert "recallUnrefuted" not in plain["council"] and "confirmedByVerification" not in plain["precision"]
    assert doc["precision"]["confirmed"] == plain["precision"]["confirmed"]

    from amicus_mcp.eval.compare import compare, render_compare

    side = compare(plain, doc, a_dir="plain", b_dir="verified")
    rows = {r["metric"]: r for r in side["rows"]}
    assert rows["Confirmed precision, evidence not-found"]["a"] == 0.0
    assert rows["Confirmed precision, verifier refuted"]["a"] is None
    assert rows["Confirmed precision, verifier refuted"]["b"] == 0.0
    assert rows["council recall, unrefuted findings only"]["b"] == doc["council"]["recall"]["rate"]
    print("\n" + render_compare(side))
    print(f"verified eval: Confirmed by verifier answer {json.dumps(split)}; recall {doc['council']['recall']}; "
          f"recall unrefuted {doc['council']['recallUnrefuted']}; false alarms {json.dumps(doc['falseAlarms'])}")
