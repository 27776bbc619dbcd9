"""Eval results in the ledger, per model, and `council stats` showing measured recall beside
street-cred; the reliability ledger's own rows stay exactly as they were."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from eval_helpers import ShippedEval, run_cli

from amicus_mcp.council.ledger import derive_stats, render_stats
from amicus_mcp.eval.documents import EvalLedgerRow
from amicus_mcp.schemas import schema_errors


def rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_an_eval_lands_in_the_eval_ledger_one_content_free_row_per_model(shipped_eval: ShippedEval) -> None:
    doc = json.loads((shipped_eval.directory / "eval.json").read_text(encoding="utf-8"))
    got = rows(shipped_eval.config / "eval-ledger.jsonl")
    assert [r["model"] for r in got] == ["fake/a", "fake/b", "fake/c"]
    for row, model in zip(got, doc["models"]):
        assert schema_errors(row, "eval-ledger-row") == []
        # Counts and rates: nothing a model wrote (`tag` only when the eval had one: emit-when-set).
        assert set(row) == set(EvalLedgerRow.model_fields) - {"tag"}
        assert (row["evalId"], row["resolvedModel"], row["found"], row["plantedFlaws"], row["recall"]) == (
            doc["evalId"], model["resolvedModel"], model["recall"]["found"], 70, model["recall"]["rate"])
        assert (row["cleanCases"], row["cleanCasesWithAlarm"], row["falseAlarmRate"]) == (
            3, model["cleanCasesWithAlarm"], model["falseAlarmRate"])
        assert (row["suite"], row["suiteVersion"], row["suiteSha256"]) == ("planted", 1, doc["suite"]["sha256"])
    # The eval's councils stayed out of the reliability ledger.
    assert not (shipped_eval.config / "council-ledger.jsonl").exists()


def test_council_stats_shows_measured_recall_beside_street_cred(shipped_eval: ShippedEval,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AMICUS_CONFIG_DIR", str(shipped_eval.config))
    code, out = run_cli(["council", "stats", "--json"])
    stats = json.loads(out)
    assert code == 0 and schema_errors(stats, "council-stats") == []
    by_model = {m["model"]: m for m in stats["models"]}
    assert set(by_model) == {"vendor/a-1", "vendor/b-1", "vendor/c-1"}
    assert by_model["vendor/a-1"]["measured"] == {"evals": 1, "found": 38, "planted": 70, "recall": 38 / 70,
                                                  "undecided": 0, "floorEvals": 0, "cleanCases": 3, "cleanCasesWithAlarm": 3, "falseAlarmRate": 1,
                                                  "suites": ["planted"]}
    assert by_model["vendor/b-1"]["measured"]["falseAlarmRate"] == 0
    assert by_model["vendor/a-1"]["runs"] == 0 and by_model["vendor/a-1"]["aliases"] == ["fake/a"]
    code, table = run_cli(["council", "stats"])
    header = table.splitlines()[0].split()
    assert header == ["model", "runs", "avg-cred", "confirm", "fact-err", "evals", "recall", "false-alarm", "notes"]
    assert "0.54" in table.splitlines()[1] and "1.00" in table.splitlines()[1]


def test_stats_mix_agreement_and_measurement_and_say_which_is_which(shipped_eval: ShippedEval) -> None:
    council_rows = [
        {"schemaVersion": 2, "runId": "r1", "date": "2026-01-01", "runType": "headless", "model": "fake/a",
         "role": "seat", "wasChair": False, "judged": True, "streetCredWithSelf": 1.5, "streetCredPeersOnly": 1.5,
         "findingsRaised": 2, "bySeverity": {"blocker": 0, "major": 2, "minor": 0, "nit": 0}, "confirmRate": 0.5,
         "factErrorRate": 0.0, "conformance": "clean", "resolvedModel": "vendor/a-1"},
        {"schemaVersion": 2, "runId": "r1", "date": "2026-01-01", "runType": "headless", "model": "gpt",
         "role": "seat", "wasChair": False, "judged": True, "streetCredWithSelf": 2, "streetCredPeersOnly": 2,
         "findingsRaised": 1, "bySeverity": {"blocker": 0, "major": 1, "minor": 0, "nit": 0}, "confirmRate": 1.0,
         "factErrorRate": 0.0, "conformance": "clean", "resolvedModel": "openai/gpt-x"},
    ]
    evals = rows(shipped_eval.config / "eval-ledger.jsonl")
    stats = derive_stats(council_rows, evals)
    assert schema_errors(stats, "council-stats") == []
    models = {m["model"]: m for m in stats["models"]}
    assert models["vendor/a-1"]["runs"] == 1 and models["vendor/a-1"]["measured"]["found"] == 38
    assert "measured" not in models["openai/gpt-x"]
    table = render_stats(stats).splitlines()
    gpt = next(line for line in table if line.startswith("openai/gpt-x"))
    assert gpt.endswith("low-N agreement only")
    # Without eval rows the stats (and the table) are exactly what they always were.
    assert derive_stats(council_rows) == derive_stats(council_rows, [])
    assert "recall" not in render_stats(derive_stats(council_rows))
    assert all("measured" not in m for m in derive_stats(council_rows)["models"])

