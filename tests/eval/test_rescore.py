"""`amicus eval score DIR`: re-scoring from the recorded decisions, with no model call.

It reproduces eval.json (and eval.md, eval.html) byte for byte; a decision file that is
missing, corrupted, about another case or another tally, or that leaves a finding out is
reported naming the file — never matched again.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from eval_helpers import ShippedEval, run_cli

from amicus_mcp.schemas import schema_errors

CASE = "rate-limiter-diff"


def rescore_json(directory: Path) -> tuple[int, dict]:
    code, out = run_cli(["eval", "score", str(directory), "--json"])
    return code, json.loads(out)


def test_rescoring_reproduces_every_report_byte_for_byte(shipped_eval: ShippedEval, eval_copy: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    # Nothing to call: any request would go to a closed port and fail the re-score.
    monkeypatch.setenv("AMICUS_CONFIG_DIR", str(shipped_eval.config))
    before = {name: (eval_copy / name).read_bytes() for name in ("eval.json", "eval.md", "eval.html")}
    for name in before:
        (eval_copy / name).unlink()
    code, printed = rescore_json(eval_copy)
    assert code == 2  # the shipped eval is partial (one case has no chair verdict): its re-score says so
    for name, original in before.items():
        assert (eval_copy / name).read_bytes() == original, name
    assert printed == json.loads(before["eval.json"])
    assert before["eval.json"] == (shipped_eval.directory / "eval.json").read_bytes()
    # The eval ledger is written by a run, never by a re-score.
    rows = (shipped_eval.config / "eval-ledger.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(rows) == 3


def damaged(eval_copy: Path, capsys: pytest.CaptureFixture[str]) -> dict:
    code, out = run_cli(["eval", "score", str(eval_copy), "--json"])
    envelope = json.loads(out)
    assert code == 1 and schema_errors(envelope, "error") == []
    assert not (eval_copy / "eval.json").exists()  # nothing was written from a damaged directory
    return envelope["error"]


@pytest.fixture
def without_reports(eval_copy: Path) -> Path:
    for name in ("eval.json", "eval.md", "eval.html"):
        (eval_copy / name).unlink()
    return eval_copy


def test_a_missing_decision_file_is_reported_never_rematched(without_reports: Path, capsys) -> None:
    path = without_reports / "cases" / CASE / "matches.json"
    path.unlink()
    error = damaged(without_reports, capsys)
    assert error["code"] == "BAD_SESSION"
    assert str(path) in error["message"] and "missing" in error["message"]
    assert "never matches again" in error["hint"]


@pytest.mark.parametrize("damage, words", [
    (lambda text: text[: len(text) // 2], "not valid JSON"),
    (lambda text: json.dumps({**json.loads(text), "decisions": "none"}), "not a valid matcher decision file"),
    (lambda text: json.dumps({**json.loads(text), "caseId": "another-case"}), "about case 'another-case'"),
    (lambda text: json.dumps({**json.loads(text), "tallySha256": "0" * 64}), "another tally.json"),
    (lambda text: json.dumps({**json.loads(text), "decisions": json.loads(text)["decisions"][1:]}), "no decision for A1"),
    (lambda text: json.dumps({**json.loads(text), "decisions": [
        {**json.loads(text)["decisions"][0], "flaw": "F9"}, *json.loads(text)["decisions"][1:]]}), "not one of its candidates"),
], ids=["truncated", "wrong-shape", "other-case", "other-tally", "finding-left-out", "flaw-not-a-candidate"])
def test_a_corrupted_decision_file_is_reported_naming_it(without_reports: Path, capsys, damage, words: str) -> None:
    path = without_reports / "cases" / CASE / "matches.json"
    path.write_text(damage(path.read_text(encoding="utf-8")), encoding="utf-8")
    error = damaged(without_reports, capsys)
    assert str(path) in error["message"] and words in error["message"], error["message"]


def test_a_changed_tally_invalidates_its_decisions(without_reports: Path, capsys) -> None:
    tally = without_reports / "cases" / CASE / "council" / "tally.json"
    tally.write_text(tally.read_text(encoding="utf-8").replace('"Confirmed"', '"Disputed"', 1), encoding="utf-8")
    error = damaged(without_reports, capsys)
    assert "another tally.json" in error["message"]


def test_score_refuses_what_is_not_an_eval_directory(tmp_path: Path, capsys) -> None:
    code, out = run_cli(["eval", "score", str(tmp_path), "--json"])
    assert code == 1 and json.loads(out)["error"]["code"] == "BAD_SESSION"
    assert "not an eval directory" in json.loads(out)["error"]["message"]


def test_a_case_lost_to_its_ceiling_speaks_of_the_suite_s() -> None:
    """A case council's own --max-cost is its share: the eval says so, in the suite's figure the user typed."""
    from types import SimpleNamespace

    from amicus_mcp.eval.scoring import _lost_reason, share_note

    run = SimpleNamespace(status="error", error=SimpleNamespace(
        code="COST_EXCEEDED", message="known spend $0.0070 reached the $0.00625 --max-cost ceiling after Stage 1"))
    reason = _lost_reason(run, share_note(0.10, 16))  # type: ignore[arg-type]
    assert reason.endswith("(its ceiling was its even share, $0.0063, of the suite's --max-cost $0.1)"), reason
    other = SimpleNamespace(status="error", error=SimpleNamespace(code="COUNCIL_QUORUM", message="only 1 review"))
    assert "share" not in _lost_reason(other, share_note(0.10, 16))  # type: ignore[arg-type]


def test_eval_json_read_back_is_the_file_as_written_and_checked(shipped_eval: ShippedEval, eval_copy: Path) -> None:
    """eval.json has one reader (`read_scores`: checked against EvalDocument, then emitted as the
    writer emits it, so a grounding figure the runs did not record stays absent): `eval run
    --json` prints it and `eval compare` reads it. A damaged file is refused, naming the key."""
    from amicus_mcp.errors import BadSession
    from amicus_mcp.eval.evaldir import read_scores

    written = json.loads((shipped_eval.directory / "eval.json").read_text(encoding="utf-8"))
    assert read_scores(shipped_eval.directory) == written == shipped_eval.printed
    assert "recallUnrefuted" not in written["council"]  # the shipped eval ran without --verify
    written["cases"][0]["findings"][0]["tier"] = "Confirmd"
    (eval_copy / "eval.json").write_text(json.dumps(written), encoding="utf-8")
    with pytest.raises(BadSession, match=r"not a valid eval document: cases\.0\.findings\.0\.tier"):
        read_scores(eval_copy)
