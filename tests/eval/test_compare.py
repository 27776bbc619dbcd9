"""`amicus eval compare A B`: two evals side by side."""

from __future__ import annotations

import json
from pathlib import Path

from eval_helpers import ShippedEval, run_cli

from amicus_mcp.schemas import schema_errors

CASE = "rate-limiter-diff"


def weaker_copy(eval_copy: Path) -> None:
    """B: the same eval, but every match of one case undone (as if its findings named nothing)."""
    path = eval_copy / "cases" / CASE / "matches.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["decisions"] = [{**d, "flaw": None} for d in doc["decisions"]]
    path.write_text(json.dumps(doc), encoding="utf-8")
    code, _ = run_cli(["eval", "score", str(eval_copy), "--json"])
    assert code == 2  # the shipped eval is partial (one case has no chair verdict): its re-score says so


def test_compare_puts_two_evals_side_by_side(shipped_eval: ShippedEval, eval_copy: Path) -> None:
    weaker_copy(eval_copy)
    a, b = shipped_eval.directory, eval_copy
    code, out = run_cli(["eval", "compare", str(a), str(b), "--json"])
    doc = json.loads(out)
    assert code == 0 and schema_errors(doc, "eval-compare") == []
    assert doc["sameSuite"] is True and doc["notes"] == []
    rows = {r["metric"]: r for r in doc["rows"]}
    scores_a = json.loads((a / "eval.json").read_text(encoding="utf-8"))
    scores_b = json.loads((b / "eval.json").read_text(encoding="utf-8"))
    case_a = next(c for c in scores_a["cases"] if c["caseId"] == CASE)
    found_in_a = sorted(f["id"] for f in case_a["flaws"] if f["findings"])
    lost = len(found_in_a)
    assert found_in_a == ["F1", "F3", "F4", "F5"]  # F2 (index 1) is found by no seat of the known-recall bench
    assert scores_b["council"]["recall"]["found"] == scores_a["council"]["recall"]["found"] - lost
    assert rows["council recall"]["a"] == scores_a["council"]["recall"]["rate"]
    assert rows["council recall"]["delta"] == round(scores_b["council"]["recall"]["rate"]
                                                    - scores_a["council"]["recall"]["rate"], 6)
    assert rows["flaws missed"]["delta"] == lost
    assert rows["cost (USD)"]["delta"] == 0
    assert sorted(f["flaw"] for f in doc["flaws"]) == found_in_a
    assert {f["caseId"] for f in doc["flaws"]} == {CASE} and {f["foundBy"] for f in doc["flaws"]} == {"a"}
    assert [s["seat"] for s in doc["seats"]] == ["fake/a", "fake/b", "fake/c"]
    assert all(s["delta"] <= 0 for s in doc["seats"])

    code, text = run_cli(["eval", "compare", str(a), str(b)])
    assert code == 0
    assert text.startswith(f"# Eval {scores_a['evalId']} (A) vs {scores_b['evalId']} (B)")
    assert "| council recall |" in text and f"- {CASE} F1: found by A only" in text


def test_compare_needs_two_scored_evals(shipped_eval: ShippedEval, tmp_path: Path) -> None:
    code, out = run_cli(["eval", "compare", str(shipped_eval.directory), str(tmp_path), "--json"])
    assert code == 1 and "not an eval directory" in json.loads(out)["error"]["message"]


def test_evals_over_different_cases_compare_on_the_cases_both_scored(shipped_eval: ShippedEval,
                                                                      eval_copy: Path) -> None:
    """B ran one case of the sixteen, with another matcher and a debate: compared on that case, and said."""
    manifest = json.loads((eval_copy / "eval-run.json").read_text(encoding="utf-8"))
    manifest["cases"] = [c for c in manifest["cases"] if c["caseId"] == CASE]
    manifest.update(casesTotal=1, casesDone=1, matcher="fake/other-matcher")
    (eval_copy / "eval-run.json").write_text(json.dumps(manifest), encoding="utf-8")
    options = json.loads((eval_copy / "eval-options.json").read_text(encoding="utf-8"))
    options["bench"]["debate"] = True
    (eval_copy / "eval-options.json").write_text(json.dumps(options), encoding="utf-8")
    run_cli(["eval", "score", str(eval_copy), "--json"])
    code, out = run_cli(["eval", "compare", str(shipped_eval.directory), str(eval_copy), "--json"])
    doc = json.loads(out)
    assert code == 0 and schema_errors(doc, "eval-compare") == []
    assert doc["cases"] == {"a": 16, "b": 1, "common": 1}
    assert (doc["a"]["cases"], doc["b"]["cases"]) == (16, 1)
    rows = {r["metric"]: r for r in doc["rows"]}
    scores_a = json.loads((shipped_eval.directory / "eval.json").read_text(encoding="utf-8"))
    case_a = next(c for c in scores_a["cases"] if c["caseId"] == CASE)
    missed = sum(1 for f in case_a["flaws"] if not f["findings"])
    assert rows["flaws missed"] == {"metric": "flaws missed", "a": missed, "b": missed, "delta": 0,
                                    "aFloor": False, "bFloor": False}  # not 70-flaw A against 5-flaw B
    assert rows["council recall"]["a"] == rows["council recall"]["b"] == round(case_a["found"] / 5, 4)
    assert rows["cost (USD)"]["a"] == rows["cost (USD)"]["b"] == case_a["cost"]["amount"]
    assert {d["option"]: (d["a"], d["b"]) for d in doc["differences"]} == {
        "matcher": ("fake/matcher", "fake/other-matcher"), "debate": (False, True)}
    assert any("compared on the 1 case both scored: A ran 16 cases" in n for n in doc["notes"])
    code, text = run_cli(["eval", "compare", str(shipped_eval.directory), str(eval_copy)])
    assert "- Compared on the 1 case both scored." in text and "| matcher | fake/matcher | fake/other-matcher |" in text
    assert "| debate | off | on |" in text
    cost = rows["cost (USD)"]["a"]
    assert f"| cost (USD) | ${cost:.4f} | ${cost:.4f} | $0.0000 |" in text
    assert "| time (s, summed over the cases) |" in text and " s |" in text
