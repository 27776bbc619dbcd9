"""Tests for amicus_mcp.council.ledger: ledger rows, the JSONL file, stats and their table."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polling import wait_for

from amicus_mcp import fsio
from amicus_mcp.council import ledger
from amicus_mcp.council.ledger import append_ledger, derive_stats, ledger_rows, read_ledger, render_stats
from amicus_mcp.errors import BadArgs
from amicus_mcp.schemas import schema_errors

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
WORKED_TALLY = FIXTURES / "worked-example" / "tally.json"
SEED = json.loads((FIXTURES / "worked_example_seed.json").read_text(encoding="utf-8"))

GOLDEN_WORKED_TABLE = (
    "model     runs  avg-cred  confirm  fact-err  notes\n"
    "deepseek     1      2.00     1.00      0.00  low-N legacy\n"
    "gpt          1      1.00     0.00      0.00  low-N legacy"
)


def worked_record() -> dict[str, Any]:
    return json.loads(WORKED_TALLY.read_text(encoding="utf-8"))


def squash(text: str) -> str:
    return " ".join(text.split())


def valid_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    for row in rows:
        assert schema_errors(row, "council-ledger-row") == [], row
    return rows


def valid_stats(stats: dict[str, Any]) -> dict[str, Any]:
    assert schema_errors(stats, "council-stats") == [], stats
    return stats


def rows_of(record: dict[str, Any]) -> list[dict[str, Any]]:
    return valid_rows(ledger_rows(record))


def stat(**run: Any) -> dict[str, Any]:
    """A runStats row: `stat(model="a", role="seat", resolvedModel="x/y")`."""
    base = {"model": "a", "role": "seat", "wasChair": False, "conformance": "clean", "status": "complete"}
    base.update(run)
    return base


def record(
    models: list[str],
    run_stats: list[dict[str, Any]] | None = None,
    *,
    findings: list[dict[str, Any]] | None = None,
    street_cred: list[dict[str, Any]] | None = None,
    judged: bool = True,
    run_id: Any = "run-1",
    chair: str = "chair-model",
) -> dict[str, Any]:
    """A minimal tally record; street cred defaults to one row per meta.models entry."""
    if street_cred is None:
        street_cred = [{"model": m, "withSelf": 1.5, "peersOnly": 2.0, "perJudgeRank": {}} for m in models]
    return {
        "schemaVersion": 2,
        "type": "council-tally",
        "meta": {"runId": run_id, "runType": "code-review", "date": "2026-08-01", "models": models, "chair": chair, "claudeInCouncil": False},
        "judged": judged,
        "streetCred": street_cred,
        "findings": findings or [],
        "runStats": run_stats if run_stats is not None else [stat(model=m) for m in models],
        "tierCounts": {"Confirmed": 0, "Contested": 0, "Singleton": 0, "Disputed": 0},
    }


def finding(fid: str, raiser: str, severity: str, tier: str, raiser_seat: str | None = None) -> dict[str, Any]:
    doc = {"id": fid, "raiser": raiser, "severity": severity, "tier": tier, "basis": {"a": 0, "d": 0, "n": 0},
           "confidence": "thin", "tierOverride": None, "adjudications": []}
    if raiser_seat is not None:
        doc["raiserSeat"] = raiser_seat
    return doc


def ledger_row(model: str, run_id: Any = "r", **over: Any) -> dict[str, Any]:
    row = {
        "schemaVersion": 2, "runId": run_id, "date": None, "runType": None, "model": model, "role": "seat",
        "wasChair": False, "judged": True, "streetCredWithSelf": 1.0, "streetCredPeersOnly": 1.0,
        "findingsRaised": 1, "bySeverity": {"blocker": 0, "major": 1, "minor": 0, "nit": 0},
        "confirmRate": 1.0, "factErrorRate": 0.0, "conformance": "clean",
    }
    row.update(over)
    return row


# ---------------------------------------------------------------------------
# the worked example


def test_worked_example_rows_are_exact() -> None:
    common = {"schemaVersion": 2, "runId": "pricing-page-council", "date": "2026-07-02T18:00:00Z",
              "runType": "design-review", "judged": True, "conformance": "clean", "role": "council"}
    assert rows_of(worked_record()) == [
        {**common, "model": "deepseek", "wasChair": True, "streetCredWithSelf": 2, "streetCredPeersOnly": 2,
         "findingsRaised": 1, "bySeverity": {"blocker": 0, "major": 1, "minor": 0, "nit": 0},
         "confirmRate": 1.0, "factErrorRate": 0.0},
        {**common, "model": "gpt", "wasChair": False, "streetCredWithSelf": 1, "streetCredPeersOnly": 1,
         "findingsRaised": 2, "bySeverity": {"blocker": 1, "major": 0, "minor": 1, "nit": 0},
         "confirmRate": 0.0, "factErrorRate": 0.0},
    ]


def test_worked_example_key_order_is_the_documented_row_shape() -> None:
    assert list(ledger_rows(worked_record())[0]) == [
        "schemaVersion", "runId", "date", "runType", "model", "role", "wasChair", "judged",
        "streetCredWithSelf", "streetCredPeersOnly", "findingsRaised", "bySeverity",
        "confirmRate", "factErrorRate", "conformance",
    ]


def test_worked_example_end_to_end_through_the_config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AMICUS_CONFIG_DIR", str(tmp_path / "cfg"))
    assert append_ledger(worked_record()) is None
    ledger_file = tmp_path / "cfg" / "council-ledger.jsonl"
    assert len(ledger_file.read_text(encoding="utf-8").splitlines()) == 2
    rows = read_ledger()
    assert rows == valid_rows(ledger_rows(worked_record()))
    stats = valid_stats(derive_stats(rows))
    table = render_stats(stats)
    assert squash(table) == SEED["stats_human"]
    assert table == GOLDEN_WORKED_TABLE


def test_worked_example_stats_document() -> None:
    stats = valid_stats(derive_stats(ledger_rows(worked_record())))
    assert stats == {
        "schemaVersion": 2,
        "type": "council-stats",
        "models": [
            {"model": "deepseek", "runs": 1, "lowN": True, "avgStreetCredPeersOnly": 2.0, "lifetimeConfirmRate": 1.0,
             "lifetimeFactErrorRate": 0.0, "conformance": {"clean": 1, "repaired": 0, "unstructured": 0},
             "aliases": ["deepseek"], "legacy": True},
            {"model": "gpt", "runs": 1, "lowN": True, "avgStreetCredPeersOnly": 1.0, "lifetimeConfirmRate": 0.0,
             "lifetimeFactErrorRate": 0.0, "conformance": {"clean": 1, "repaired": 0, "unstructured": 0},
             "aliases": ["gpt"], "legacy": True},
        ],
    }


def test_ledger_rows_is_pure() -> None:
    rec = worked_record()
    before = copy.deepcopy(rec)
    first = ledger_rows(rec)
    assert ledger_rows(rec) == first
    assert rec == before


# ---------------------------------------------------------------------------
# role allowlist


@pytest.mark.parametrize("role", ["judge", "chair-attempt", "repair", "superseded", "rebuttal", "revote",
                                  "reviewer", "Seat", "lens", "redteam-lead", 7])
def test_non_allowlisted_roles_never_reach_the_ledger(role: Any) -> None:
    rec = record(["a", "b"], [
        stat(model="a", role="seat", resolvedModel="x/a"),
        stat(model="a", role=role, wasChair=True, conformance="unstructured", resolvedModel="x/other"),
        stat(model="b"),
    ])
    rows = rows_of(rec)
    assert [r["model"] for r in rows] == ["a", "b"]
    a = rows[0]
    assert (a["role"], a["wasChair"], a["conformance"], a["resolvedModel"]) == ("seat", False, "clean", "x/a")


@pytest.mark.parametrize("role", ["seat", "critic", "chair", "claude", "council", "redteam", "lens:security", None, ""])
def test_allowlisted_roles_feed_the_row(role: Any) -> None:
    extra = stat(model="a", wasChair=True, conformance="repaired", resolvedModel="x/a")
    if role is None:
        del extra["role"]
    else:
        extra["role"] = role
    rows = rows_of(record(["a"], [stat(model="a", role="seat", resolvedModel="x/a"), extra]))
    assert len(rows) == 1
    assert rows[0]["wasChair"] is True
    assert rows[0]["conformance"] == "repaired"
    assert rows[0]["role"] == (role or "seat")  # an unnamed role does not overwrite a named one


def test_role_defaults_to_council_and_last_named_role_wins() -> None:
    assert rows_of(record(["a"], [{"model": "a"}]))[0]["role"] == "council"
    rows = rows_of(record(["a"], [stat(model="a", role="seat"), stat(model="a", role="critic")]))
    assert rows[0]["role"] == "critic"


def test_alias_without_runstats_gets_one_default_row() -> None:
    rows = rows_of(record(["a", "b"], [stat(model="b", resolvedModel="x/b")]))
    a = rows[0]
    assert (a["model"], a["role"], a["wasChair"], a["conformance"]) == ("a", "council", False, "clean")
    assert "resolvedModel" not in a
    assert rows[1]["resolvedModel"] == "x/b"


@pytest.mark.parametrize(("labels", "expected"), [
    (["clean", "repaired"], "repaired"),
    (["repaired", "clean"], "repaired"),
    (["unstructured", "repaired", "clean"], "unstructured"),
    (["clean", "weird"], "clean"),
    ([None, "repaired"], "repaired"),
])
def test_conformance_is_worst_wins(labels: list[Any], expected: str) -> None:
    rows = rows_of(record(["a"], [stat(model="a", conformance=c) for c in labels]))
    assert rows[0]["conformance"] == expected


# ---------------------------------------------------------------------------
# twin benches, split aliases, the chair on the bench


def twin_record(resolutions: list[str | None], *, extra: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    seats = [stat(model="deepseek", seat=f"deepseek#{i + 1}", **({"resolvedModel": r} if r else {}))
             for i, r in enumerate(resolutions)]
    return record(
        ["deepseek", "deepseek", "gpt"],
        seats + [stat(model="gpt", resolvedModel="openai/gpt")] + (extra or []),
        street_cred=[
            {"model": "deepseek", "withSelf": 1.0, "peersOnly": 1.5, "seat": "deepseek#1"},
            {"model": "deepseek", "withSelf": 2.0, "peersOnly": None, "seat": "deepseek#2"},
            {"model": "gpt", "withSelf": 3.0, "peersOnly": 3.0},
        ],
        findings=[
            finding("A1", "deepseek", "major", "Confirmed", "deepseek#1"),
            finding("B1", "deepseek", "nit", "Disputed", "deepseek#2"),
            finding("B2", "deepseek", "minor", "Singleton", "deepseek#2"),
            finding("C1", "gpt", "blocker", "Contested"),
        ],
    )


def test_twin_bench_on_one_executable_writes_one_row() -> None:
    rows = rows_of(twin_record(["deepseek/v4", "deepseek/v4"]))
    assert [(r["model"], r.get("resolvedModel")) for r in rows] == [("deepseek", "deepseek/v4"), ("gpt", "openai/gpt")]
    twin = rows[0]
    assert twin["streetCredWithSelf"] == pytest.approx(1.5)  # mean of both seats
    assert twin["streetCredPeersOnly"] == pytest.approx(1.5)  # the null seat is skipped, not zeroed
    assert twin["findingsRaised"] == 3
    assert twin["bySeverity"] == {"blocker": 0, "major": 1, "minor": 1, "nit": 1}
    assert twin["confirmRate"] == pytest.approx(1 / 3)
    assert twin["factErrorRate"] == pytest.approx(1 / 3)


def test_split_alias_writes_one_row_per_executable() -> None:
    rows = rows_of(twin_record(["deepseek/v4", "openrouter/deepseek/v4"]))
    assert [(r["model"], r.get("resolvedModel")) for r in rows] == [
        ("deepseek", "deepseek/v4"), ("deepseek", "openrouter/deepseek/v4"), ("gpt", "openai/gpt")]
    first, second = rows[0], rows[1]
    assert first["findingsRaised"] == 3 and first["streetCredPeersOnly"] == pytest.approx(1.5)
    assert second["findingsRaised"] == 0
    assert second["bySeverity"] == {"blocker": 0, "major": 0, "minor": 0, "nit": 0}
    assert (second["confirmRate"], second["factErrorRate"]) == (None, None)
    # Street cred is kept per row (issue 28): each executable its own seat's, never concentrated.
    assert (first["streetCredWithSelf"], first["streetCredPeersOnly"]) == (1.0, 1.5)
    assert (second["streetCredWithSelf"], second["streetCredPeersOnly"]) == (2.0, None)
    assert second["judged"] is True and second["role"] == "seat"
    stats = valid_stats(derive_stats(rows))
    assert [m["model"] for m in stats["models"]] == ["deepseek/v4", "openrouter/deepseek/v4", "openai/gpt"]


def test_a_group_with_no_legs_still_anchors_its_models_findings() -> None:
    # Issue 28: a record from before legs were kept (no runStats) still gives each model one
    # row carrying its findings figures and its street cred.
    rec = twin_record(["deepseek/v4", "openrouter/deepseek/v4"])
    rec["runStats"] = []
    rows = rows_of(rec)
    assert [(r["model"], r.get("resolvedModel")) for r in rows] == [("deepseek", None), ("gpt", None)]
    deepseek, gpt = rows
    assert deepseek["findingsRaised"] == 3 and deepseek["bySeverity"]["nit"] == 1
    assert (deepseek["confirmRate"], deepseek["factErrorRate"]) == (pytest.approx(1 / 3), pytest.approx(1 / 3))
    assert deepseek["streetCredWithSelf"] == pytest.approx(1.5) and gpt["findingsRaised"] == 1
    stats = valid_stats(derive_stats(rows))
    assert stats["models"][0]["model"] == "deepseek" and stats["models"][0]["legacy"] is True
    assert stats["models"][0]["lifetimeConfirmRate"] == pytest.approx(1 / 3)


def test_a_split_model_concentrates_its_findings_on_the_anchor_and_keeps_cred_per_row() -> None:
    rec = twin_record(["deepseek/v4", "openrouter/deepseek/v4"])
    rec["runStats"][1]["conformance"] = "repaired"
    rows = rows_of(rec)
    anchor, other = rows[0], rows[1]
    assert (anchor["findingsRaised"], anchor["confirmRate"]) == (3, pytest.approx(1 / 3))
    assert (other["findingsRaised"], other["confirmRate"], other["factErrorRate"]) == (0, None, None)
    assert (anchor["conformance"], other["conformance"]) == ("clean", "repaired")  # each its own
    assert (anchor["streetCredPeersOnly"], other["streetCredWithSelf"]) == (1.5, 2.0)
    # A chair-only executable of a bench alias reviewed nothing: no street cred of its own.
    chaired = twin_record(["deepseek/v4", "deepseek/v4"],
                          extra=[stat(model="deepseek", role="chair", wasChair=True, resolvedModel="other/chair")])
    chair_row = next(r for r in rows_of(chaired) if r.get("resolvedModel") == "other/chair")
    assert (chair_row["streetCredWithSelf"], chair_row["findingsRaised"], chair_row["wasChair"]) == (None, 0, True)
    stats = valid_stats(derive_stats(rows))
    assert [m["avgStreetCredPeersOnly"] for m in stats["models"][:2]] == [1.5, None]


def test_unresolved_twin_folds_into_the_first_row() -> None:
    rec = twin_record(["deepseek/v4", None])
    rec["runStats"][1].update(status="error", conformance="unstructured")
    rows = rows_of(rec)
    assert [(r["model"], r.get("resolvedModel")) for r in rows] == [("deepseek", "deepseek/v4"), ("gpt", "openai/gpt")]
    assert rows[0]["conformance"] == "unstructured"


def test_two_aliases_on_one_executable_keep_one_row_each() -> None:
    rec = record(["gpt", "gpt5"], [stat(model="gpt", resolvedModel="openai/gpt-5"), stat(model="gpt5", resolvedModel="openai/gpt-5")])
    rows = rows_of(rec)
    assert [r["model"] for r in rows] == ["gpt", "gpt5"]
    stats = valid_stats(derive_stats(rows))
    assert len(stats["models"]) == 1
    assert stats["models"][0]["aliases"] == ["gpt5", "gpt"]
    assert stats["models"][0]["runs"] == 1  # one run, even though two rows


def chair_on_bench(chair_resolution: str, *, chair_first: bool = False) -> dict[str, Any]:
    seat = stat(model="deepseek", role="seat", resolvedModel="deepseek/v4", conformance="repaired")
    chair = stat(model="deepseek", role="chair", wasChair=True, resolvedModel=chair_resolution)
    ordered = [chair, seat] if chair_first else [seat, chair]
    return record(["deepseek", "gpt"], ordered + [stat(model="gpt", resolvedModel="openai/gpt")], chair="deepseek",
                  findings=[finding("A1", "deepseek", "major", "Confirmed")])


def test_chair_on_the_bench_with_the_same_executable_writes_one_row() -> None:
    rows = rows_of(chair_on_bench("deepseek/v4"))
    assert [r["model"] for r in rows] == ["deepseek", "gpt"]
    d = rows[0]
    assert (d["role"], d["wasChair"], d["conformance"], d["findingsRaised"]) == ("chair", True, "repaired", 1)


@pytest.mark.parametrize("chair_first", [False, True])
def test_chair_on_the_bench_with_another_executable_writes_two_rows(chair_first: bool) -> None:
    rows = rows_of(chair_on_bench("openrouter/deepseek/v4", chair_first=chair_first))
    assert [(r["model"], r.get("resolvedModel")) for r in rows] == [
        ("deepseek", "deepseek/v4"), ("deepseek", "openrouter/deepseek/v4"), ("gpt", "openai/gpt")]
    seat_row, chair_row = rows[0], rows[1]
    # the reviewing executable carries the review figures, whatever the runStats order
    assert (seat_row["role"], seat_row["wasChair"], seat_row["findingsRaised"], seat_row["confirmRate"]) == ("seat", False, 1, 1.0)
    assert seat_row["streetCredPeersOnly"] == 2.0
    assert (chair_row["role"], chair_row["wasChair"], chair_row["findingsRaised"], chair_row["confirmRate"]) == ("chair", True, 0, None)
    assert chair_row["streetCredPeersOnly"] is None and chair_row["conformance"] == "clean"


def test_off_bench_chair_writes_no_row() -> None:
    rec = record(["a", "b"], [stat(model="a"), stat(model="b"), stat(model="opus", role="chair", wasChair=True, resolvedModel="x/opus")])
    assert [r["model"] for r in rows_of(rec)] == ["a", "b"]


def test_blocks_follow_each_alias_last_index() -> None:
    rec = record(["a", "b", "a"], [stat(model="a"), stat(model="b")])
    assert [r["model"] for r in rows_of(rec)] == ["b", "a"]


def test_non_string_and_empty_aliases_are_skipped() -> None:
    rec = record(["a", "", 5, None], [stat(model="a")])  # type: ignore[list-item]
    assert [r["model"] for r in rows_of(rec)] == ["a"]


# ---------------------------------------------------------------------------
# figures and run fields


def test_unjudged_run_has_no_street_cred_and_no_rates() -> None:
    rec = record(["a"], findings=[finding("A1", "a", "major", "Confirmed")], judged=False)
    row = rows_of(rec)[0]
    assert row["judged"] is False
    assert (row["streetCredWithSelf"], row["streetCredPeersOnly"], row["confirmRate"], row["factErrorRate"]) == (None,) * 4
    assert row["findingsRaised"] == 1  # raised is a count, not a judgement


def test_nothing_raised_means_null_rates_but_street_cred_kept() -> None:
    row = rows_of(record(["a", "b"], findings=[finding("B1", "b", "minor", "Disputed")]))[0]
    assert (row["findingsRaised"], row["confirmRate"], row["factErrorRate"]) == (0, None, None)
    assert (row["streetCredWithSelf"], row["streetCredPeersOnly"]) == (1.5, 2.0)


def test_unknown_severity_counts_as_raised_only() -> None:
    row = rows_of(record(["a"], findings=[finding("A1", "a", "critical", "Disputed"), finding("A2", "a", "nit", "Singleton")]))[0]
    assert row["findingsRaised"] == 2
    assert row["bySeverity"] == {"blocker": 0, "major": 0, "minor": 0, "nit": 1}
    assert (row["confirmRate"], row["factErrorRate"]) == (0.0, 0.5)


def test_non_finite_street_cred_is_treated_as_missing() -> None:
    rec = record(["a"], street_cred=[{"model": "a", "withSelf": float("nan"), "peersOnly": True}])
    row = rows_of(rec)[0]
    assert (row["streetCredWithSelf"], row["streetCredPeersOnly"]) == (None, None)


@pytest.mark.parametrize(("run_id", "expected"), [("r-1", "r-1"), ("", ""), (42, 42), (None, None), (["x"], None), (True, None)])
def test_run_id_is_copied_when_string_or_number(run_id: Any, expected: Any) -> None:
    assert rows_of(record(["a"], run_id=run_id))[0]["runId"] == expected


def test_absent_date_and_run_type_are_null() -> None:
    rec = record(["a"])
    del rec["meta"]["date"]
    rec["meta"]["runType"] = 3
    row = rows_of(rec)[0]
    assert (row["date"], row["runType"]) == (None, None)


def test_malformed_record_yields_no_rows() -> None:
    assert ledger_rows({}) == []
    assert ledger_rows({"meta": {"models": "a"}}) == []
    assert ledger_rows(None) == []  # type: ignore[arg-type]


# ---------------------------------------------------------------------------
# stats derivation


def appended_runs(path: Path, rec: dict[str, Any], times: int) -> list[int]:
    runs = []
    for _ in range(times):
        assert append_ledger(rec, path) is None
        runs.append(valid_stats(derive_stats(read_ledger(path)))["models"][0]["runs"])
    return runs


def test_constant_string_run_id_stays_pinned_at_one(tmp_path: Path) -> None:
    assert appended_runs(tmp_path / "l.jsonl", record(["a"], run_id="same"), 3) == [1, 1, 1]


@pytest.mark.parametrize("run_id", ["", 7])
def test_empty_or_numeric_run_id_counts_every_tally(tmp_path: Path, run_id: Any) -> None:
    path = tmp_path / "l.jsonl"
    assert appended_runs(path, record(["a"], run_id=run_id), 3) == [1, 2, 3]
    assert derive_stats(read_ledger(path))["models"][0]["lowN"] is False


def test_runs_counts_distinct_ids_plus_anonymous_rows() -> None:
    rows = [ledger_row("a", "r1"), ledger_row("a", "r1"), ledger_row("a", "r2"), ledger_row("a", None),
            ledger_row("a", ""), ledger_row("a", 3)]
    rows.append({k: v for k, v in ledger_row("a").items() if k != "runId"})
    entry = valid_stats(derive_stats(rows))["models"][0]
    assert entry["runs"] == 2 + 4
    assert entry["lowN"] is False


def test_re_tally_doubles_conformance_but_not_averages(tmp_path: Path) -> None:
    path = tmp_path / "l.jsonl"
    rec = record(["a", "b"], [stat(model="a", conformance="repaired"), stat(model="b")],
                 street_cred=[{"model": "a", "withSelf": 1.0, "peersOnly": 1.0}, {"model": "b", "withSelf": 3.0, "peersOnly": 4.0}],
                 findings=[finding("A1", "a", "major", "Confirmed"), finding("B1", "b", "nit", "Disputed"),
                           finding("B2", "b", "minor", "Singleton")])
    append_ledger(rec, path)
    once = valid_stats(derive_stats(read_ledger(path)))["models"]
    append_ledger(rec, path)
    twice = valid_stats(derive_stats(read_ledger(path)))["models"]
    assert [m["conformance"] for m in once] == [{"clean": 0, "repaired": 1, "unstructured": 0},
                                                {"clean": 1, "repaired": 0, "unstructured": 0}]
    assert [m["conformance"] for m in twice] == [{"clean": 0, "repaired": 2, "unstructured": 0},
                                                 {"clean": 2, "repaired": 0, "unstructured": 0}]
    unmoved = ("runs", "lowN", "avgStreetCredPeersOnly", "lifetimeConfirmRate", "lifetimeFactErrorRate", "aliases")
    assert [[m[k] for k in unmoved] for m in twice] == [[m[k] for k in unmoved] for m in once]
    assert [[m[k] for k in unmoved] for m in once] == [[1, True, 1.0, 1.0, 0.0, ["a"]], [1, True, 4.0, 0.0, 0.5, ["b"]]]


def test_duplicating_a_multi_run_ledger_keeps_every_mean() -> None:
    rows = [ledger_row("a", "1", streetCredPeersOnly=1.0, confirmRate=0.25, factErrorRate=0.0),
            ledger_row("a", "2", streetCredPeersOnly=2.5, confirmRate=1.0, factErrorRate=0.5, conformance="unstructured")]
    once, twice = derive_stats(rows)["models"][0], derive_stats(rows + rows)["models"][0]
    assert twice["conformance"] == {k: 2 * v for k, v in once["conformance"].items()}
    assert {k: v for k, v in twice.items() if k != "conformance"} == {k: v for k, v in once.items() if k != "conformance"}
    assert (once["avgStreetCredPeersOnly"], once["lifetimeConfirmRate"], once["lifetimeFactErrorRate"]) == (1.75, 0.625, 0.25)


def test_means_ignore_nulls_and_unusable_values() -> None:
    rows = [ledger_row("a", "1", streetCredPeersOnly=2.0, confirmRate=0.5, factErrorRate=None),
            ledger_row("a", "2", streetCredPeersOnly=None, confirmRate=1.5, factErrorRate=None),
            ledger_row("a", "3", streetCredPeersOnly="3", confirmRate=1.0, factErrorRate=None)]
    entry = valid_stats(derive_stats(rows))["models"][0]
    assert entry["avgStreetCredPeersOnly"] == 2.0
    assert entry["lifetimeConfirmRate"] == pytest.approx(0.75)  # 1.5 is not a rate
    assert entry["lifetimeFactErrorRate"] is None


def test_legacy_only_when_no_row_is_resolved() -> None:
    rows = [ledger_row("a", "1"), ledger_row("b", "1", resolvedModel="x/b"), ledger_row("x/b", "2"),
            ledger_row("c", "1", resolvedModel="")]
    models = {m["model"]: m for m in valid_stats(derive_stats(rows))["models"]}
    assert models["a"]["legacy"] is True
    assert "legacy" not in models["x/b"]  # a legacy alias-keyed row joined a resolved group
    assert models["x/b"]["aliases"] == ["x/b", "b"]
    assert models["c"]["legacy"] is True  # an empty resolvedModel is not a resolution


def test_groups_in_first_appearance_order_and_aliases_most_recent_first() -> None:
    rows = [ledger_row("gpt", "1", resolvedModel="openai/gpt-5"), ledger_row("deepseek", "1"),
            ledger_row("gpt5", "2", resolvedModel="openai/gpt-5"), ledger_row("gpt", "3", resolvedModel="openai/gpt-5"),
            ledger_row("codex", "4", resolvedModel="openai/gpt-5")]
    stats = valid_stats(derive_stats(rows))
    assert [m["model"] for m in stats["models"]] == ["openai/gpt-5", "deepseek"]
    assert stats["models"][0]["aliases"] == ["codex", "gpt", "gpt5"]
    assert stats["models"][0]["runs"] == 4


def test_stats_ignore_rows_without_a_model() -> None:
    rows: list[Any] = [ledger_row("a"), {"runId": "x"}, {"model": ""}, {"model": 3}, "text", 5, None]
    stats = valid_stats(derive_stats(rows))
    assert [m["model"] for m in stats["models"]] == ["a"]


def test_empty_ledger_stats() -> None:
    assert valid_stats(derive_stats([])) == {"schemaVersion": 2, "type": "council-stats", "models": []}


# ---------------------------------------------------------------------------
# rendering


def test_render_nulls_no_notes_and_alignment() -> None:
    rows = [ledger_row("a-much-longer-model", run_id=str(i), resolvedModel="vendor/a-much-longer-model",
                       streetCredPeersOnly=12.345, confirmRate=None, factErrorRate=None) for i in range(12)]
    rows.append(ledger_row("b", "x", streetCredPeersOnly=None, confirmRate=0.125, factErrorRate=1))
    table = render_stats(valid_stats(derive_stats(rows)))
    assert table == (
        "model                       runs  avg-cred  confirm  fact-err  notes\n"
        "vendor/a-much-longer-model    12     12.35        —         —\n"
        "b                              1         —     0.12      1.00  low-N legacy"
    )


def test_render_keeps_one_model_per_line() -> None:
    table = render_stats(derive_stats([ledger_row("evil\nmodel\r", "1")]))
    assert len(table.splitlines()) == 2
    assert "evil?model?" in table


def test_render_empty_ledger_names_the_path(tmp_path: Path) -> None:
    path = tmp_path / "council-ledger.jsonl"
    assert render_stats(derive_stats(read_ledger(path)), path) == f"No council runs recorded yet (ledger: {path})."
    assert render_stats({"models": []}) == "No council runs recorded yet."


# ---------------------------------------------------------------------------
# the file


def test_read_missing_ledger_is_empty(tmp_path: Path) -> None:
    assert read_ledger(tmp_path / "nope.jsonl") == []


def test_read_skips_unreadable_lines(tmp_path: Path) -> None:
    path = tmp_path / "l.jsonl"
    good = [ledger_row("a", "1"), ledger_row("b", "2")]
    path.write_bytes(
        b"\xef\xbb\xbf" + json.dumps(good[0]).encode() + b"\n"
        + b"not json\n\n   \n[1, 2]\n42\n\"text\"\nnull\n\xff\xfe\x00garbage\n"
        + json.dumps(good[1]).encode() + b"\r\n"
        + b'{"model": "torn", "runId'  # a line cut short by a crash mid-write
    )
    assert read_ledger(path) == good


def test_read_ledger_that_is_a_directory_is_a_bad_args(tmp_path: Path) -> None:
    with pytest.raises(BadArgs, match="directory"):
        read_ledger(tmp_path)


def test_append_to_a_directory_warns_instead_of_raising(tmp_path: Path) -> None:
    target = tmp_path / "council-ledger.jsonl"
    target.mkdir()
    warning = append_ledger(worked_record(), target)
    assert isinstance(warning, str) and warning.startswith("council ledger append failed")
    assert "\n" not in warning and str(target) in warning


def test_append_under_a_file_warns(tmp_path: Path) -> None:
    (tmp_path / "blocker").write_text("x", encoding="utf-8")
    warning = append_ledger(worked_record(), tmp_path / "blocker" / "council-ledger.jsonl")
    assert warning is not None and "council ledger append failed" in warning


def test_append_warning_never_echoes_exception_text(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(path: Any, rows: Any) -> None:
        raise RuntimeError("OPENROUTER_API_KEY=sk-or-secret\nsecond line")

    monkeypatch.setattr(fsio, "append_jsonl", boom)
    warning = append_ledger(worked_record(), tmp_path / "l.jsonl")
    assert warning is not None
    assert "sk-or-secret" not in warning and "\n" not in warning and "RuntimeError" in warning


def test_append_with_nothing_to_record_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "l.jsonl"
    assert append_ledger({"meta": {"models": []}}, path) is None
    assert not path.exists()


def test_appended_lines_are_compact_whole_json(tmp_path: Path) -> None:
    path = tmp_path / "l.jsonl"
    append_ledger(worked_record(), path)
    append_ledger(worked_record(), path)
    lines = path.read_text(encoding="utf-8").split("\n")
    assert lines[-1] == "" and len(lines) == 5
    assert [json.loads(line) for line in lines[:-1]] == ledger_rows(worked_record()) * 2
    assert '"streetCredWithSelf":2,' in lines[0]  # integral floats written as integers, no spaces


CHILD = textwrap.dedent(
    """
    import json, sys, time
    from pathlib import Path
    from amicus_mcp.council.ledger import append_ledger
    path, go, worker, count = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    rec = json.loads(Path(sys.argv[5]).read_text(encoding="utf-8"))
    rec["meta"]["runId"] = f"proc-{worker}"
    rec["meta"]["runType"] = "x" * 65536  # lines far past any I/O buffer: a torn write would show
    (go.parent / f"ready-{worker}").touch()
    while not go.exists():
        time.sleep(0.005)
    for _ in range(count):
        warning = append_ledger(rec, path)
        if warning:
            sys.exit(warning)
    """
)


def test_concurrent_appends_from_several_processes_keep_lines_whole(tmp_path: Path) -> None:
    path, go = tmp_path / "council-ledger.jsonl", tmp_path / "go"
    workers, per_worker = 4, 50
    procs = [
        subprocess.Popen([sys.executable, "-c", CHILD, str(path), str(go), str(i), str(per_worker), str(WORKED_TALLY)])
        for i in range(workers)
    ]
    wait_for(lambda: all((tmp_path / f"ready-{i}").exists() for i in range(workers)),
             what="every child at the start line")  # so the appends overlap
    go.touch()
    assert [p.wait(timeout=120) for p in procs] == [0] * workers
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == workers * per_worker * 2
    rows = [json.loads(line) for line in lines]  # raises on any torn or interleaved line
    assert read_ledger(path) == rows
    for i in range(workers):
        mine = [r for r in rows if r["runId"] == f"proc-{i}"]
        assert len(mine) == per_worker * 2
        assert all(r["runType"] == "x" * 65536 for r in mine)
    # one tally's rows stay together: each deepseek row is followed by its own run's gpt row
    pairs = list(zip(rows[::2], rows[1::2]))
    assert all((a["model"], b["model"], a["runId"]) == ("deepseek", "gpt", b["runId"]) for a, b in pairs)
    stats = valid_stats(derive_stats(rows))
    assert [m["runs"] for m in stats["models"]] == [workers, workers]
    assert [m["conformance"]["clean"] for m in stats["models"]] == [workers * per_worker] * 2


# ---------------------------------------------------------------------------
# properties

aliases = st.sampled_from(["a", "b", "c", "deepseek", "gpt"])
numbers = st.one_of(st.none(), st.floats(min_value=0, max_value=10, allow_nan=False), st.integers(0, 10))
rates = st.one_of(st.none(), st.floats(min_value=0, max_value=1, allow_nan=False))
severity_counts = st.fixed_dictionaries({s: st.integers(0, 5) for s in ("blocker", "major", "minor", "nit")})

valid_row = st.builds(
    lambda model, run_id, resolved, cred, cred2, conf, fact, conformance, raised, sev, chair, judged: {
        **ledger_row(model, run_id, streetCredWithSelf=cred2, streetCredPeersOnly=cred, confirmRate=conf,
                     factErrorRate=fact, conformance=conformance, findingsRaised=raised, bySeverity=sev,
                     wasChair=chair, judged=judged),
        **({"resolvedModel": resolved} if resolved else {}),
    },
    aliases,
    st.one_of(st.none(), st.sampled_from(["", "r1", "r2", "r3"]), st.integers(0, 3)),
    st.one_of(st.none(), st.sampled_from(["x/a", "x/b", "y/c"])),
    numbers, numbers, rates, rates,
    st.sampled_from(["clean", "repaired", "unstructured"]),
    st.integers(0, 20), severity_counts, st.booleans(), st.booleans(),
)


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(valid_row, max_size=30))
def test_stats_over_any_valid_rows(rows: list[dict[str, Any]]) -> None:
    valid_rows(rows)
    stats = valid_stats(derive_stats(rows))
    keys = {r.get("resolvedModel") or r["model"] for r in rows}
    assert {m["model"] for m in stats["models"]} == keys
    for entry in stats["models"]:
        members = [r for r in rows if (r.get("resolvedModel") or r["model"]) == entry["model"]]
        assert 1 <= entry["runs"] <= len(members)
        assert entry["lowN"] is (entry["runs"] < 3)
        assert sum(entry["conformance"].values()) == len(members)
        assert set(entry["aliases"]) == {r["model"] for r in members}
    assert isinstance(render_stats(stats), str)


run_stat = st.fixed_dictionaries(
    {"model": aliases},
    optional={
        "role": st.one_of(st.none(), st.sampled_from(["seat", "chair", "judge", "repair", "lens:ux", "council", "", "odd"])),
        "resolvedModel": st.sampled_from(["x/a", "x/b", "y/c", ""]),
        "wasChair": st.booleans(),
        "conformance": st.sampled_from(["clean", "repaired", "unstructured", "other"]),
    },
)
tally_finding = st.builds(
    lambda raiser, severity, tier, i: finding(f"F{i}", raiser, severity, tier),
    aliases, st.sampled_from(["blocker", "major", "minor", "nit", "odd"]),
    st.sampled_from(["Confirmed", "Contested", "Singleton", "Disputed"]), st.integers(0, 99),
)


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(aliases, min_size=1, max_size=5), st.lists(run_stat, max_size=10), st.lists(tally_finding, max_size=8),
       st.booleans())
def test_ledger_rows_over_any_tally(models: list[str], run_stats: list[dict[str, Any]],
                                    findings: list[dict[str, Any]], judged: bool) -> None:
    rows = rows_of(record(models, run_stats, findings=findings, judged=judged))
    bench = set(models)
    assert {r["model"] for r in rows} == bench
    for alias in bench:
        block = [r for r in rows if r["model"] == alias]
        resolved = {s.get("resolvedModel") for s in run_stats
                    if s["model"] == alias and ledger.is_joinable_role(s.get("role")) and s.get("resolvedModel")}
        assert len(block) == max(1, len(resolved))
        assert block[0]["findingsRaised"] == sum(1 for f in findings if f["raiser"] == alias)
        assert all(r["findingsRaised"] == 0 and r["confirmRate"] is None for r in block[1:])
    valid_stats(derive_stats(rows))
