"""The pull-request loop (issue 32): a real council run against the loopback fake provider,
rendered as SARIF (validated against the official SARIF 2.1.0 schema, vendored under
tests/third_party/sarif) and as a pull-request review posted to a loopback fake of GitHub's REST API."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from council_helpers import finding, member, review
from fakeprovider import chat, usage

from amicus_mcp.cli import main as cli_main

SARIF_SCHEMA = Path(__file__).resolve().parents[1] / "third_party" / "sarif" / "sarif-schema-2.1.0.json"


def sarif_errors(doc: Any) -> list[str]:
    """Every way `doc` breaks the official SARIF 2.1.0 schema (a draft-04 schema)."""
    from jsonschema import Draft4Validator

    schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
    Draft4Validator.check_schema(schema)
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in Draft4Validator(schema).iter_errors(doc)]


NORTH = [finding(1, "north", severity="blocker", location="src/cache.py:12-14",
                 claim="Every write evicts the whole cache."),
         finding(2, "north", severity="minor", location="section 2", claim="The eviction policy is not named."),
         finding(3, "north", severity="nit", location="src/cache.py line 40", claim="A typo in the docstring.")]
SOUTH = [finding(1, "south", severity="major", location="src/store.py:7", claim="The store never closes its file.")]


def bench(fake: Any, north: list[dict[str, Any]] = NORTH, south: list[dict[str, Any]] = SOUTH) -> None:
    member(fake, "a", tag="north", cost=0.001,
           stage1=chat(review("north", block={"overall": "o", "findings": north}), usage=usage(10, 5, cost=0.001)))
    member(fake, "b", tag="south", cost=0.001,
           stage1=chat(review("south", block={"overall": "o", "findings": south}), usage=usage(10, 5, cost=0.001)))
    member(fake, "chair", cost=0.001)


def council_run(brief: Path, project: Path, out: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, Any]:
    code = cli_main(["council", "run", "--prompt-file", str(brief), "--models", "fake/a,fake/b", "--chair", "fake/chair",
                     "--out-dir", str(out), "--project", str(project), "--json", "--quiet", *extra])
    run = json.loads(capsys.readouterr().out)
    assert code == 0, run
    return run


def sarif_of(capsys: pytest.CaptureFixture[str], run_dir: Path, *extra: str) -> dict[str, Any]:
    assert cli_main(["council", "report", str(run_dir / "verdict.json"), "--sarif", *extra]) == 0
    return json.loads(capsys.readouterr().out)


# --------------------------------------------------------------------------- SARIF


def test_sarif_from_a_real_run_validates_and_its_fingerprints_are_stable(fake, brief, project, tmp_path, capsys):
    bench(fake)
    first, second = tmp_path / "run-1", tmp_path / "run-2"
    run = council_run(brief, project, first, capsys)
    council_run(brief, project, second, capsys)
    log = sarif_of(capsys, first)
    assert sarif_errors(log) == []
    (sarif_run,) = log["runs"]
    assert sarif_run["tool"]["driver"]["name"] == "amicus"
    assert sarif_run["properties"]["runId"] == run["runId"]
    assert sarif_run["properties"]["bench"] == ["fake/a", "fake/b"]
    assert sarif_run["automationDetails"]["id"] == f"amicus-council/{run['runId']}"
    by_claim = {r["message"]["text"].split("\n")[0]: r for r in sarif_run["results"]}
    assert set(by_claim) == {"Every write evicts the whole cache.", "The eviction policy is not named.",
                             "A typo in the docstring.", "The store never closes its file."}
    blocker = by_claim["Every write evicts the whole cache."]
    assert blocker["ruleId"] == "amicus/blocker" and blocker["level"] == "error"
    assert blocker["message"]["text"] == "Every write evicts the whole cache.\n\nnorth rationale 1"
    assert blocker["locations"] == [{"physicalLocation": {"artifactLocation": {"uri": "src/cache.py", "uriBaseId": "%SRCROOT%"},
                                                          "region": {"startLine": 12, "endLine": 14}}}]
    assert blocker["properties"]["tier"] in ("Confirmed", "Contested", "Singleton", "Disputed")
    assert set(blocker["properties"]["agreement"]) == {"agree", "dispute", "neutral"}
    # a finding that names no file has no physical location, and is still reported
    assert "locations" not in by_claim["The eviction policy is not named."]
    assert by_claim["The eviction policy is not named."]["level"] == "warning"
    assert by_claim["A typo in the docstring."]["level"] == "note"
    # the same material twice: the same fingerprints, though the run ids differ
    again = sarif_of(capsys, second)
    assert again["runs"][0]["properties"]["runId"] != run["runId"]
    prints = sorted(r["partialFingerprints"]["amicusFinding/v1"] for r in sarif_run["results"])
    assert prints == sorted(r["partialFingerprints"]["amicusFinding/v1"] for r in again["runs"][0]["results"])
    assert len(set(prints)) == len(prints)


def test_sarif_thresholds_and_output_file(fake, brief, project, tmp_path, capsys):
    bench(fake)
    run_dir = tmp_path / "run"
    council_run(brief, project, run_dir, capsys)
    log = sarif_of(capsys, run_dir, "--min-severity", "major")
    assert sorted(r["ruleId"] for r in log["runs"][0]["results"]) == ["amicus/blocker", "amicus/major"]
    assert [rule["id"] for rule in log["runs"][0]["tool"]["driver"]["rules"]] == ["amicus/blocker", "amicus/major"]
    assert sarif_errors(log) == []
    out = tmp_path / "council.sarif"
    assert cli_main(["council", "report", str(run_dir), "--sarif", "--min-tier", "Confirmed", "-o", str(out)]) == 0
    written = json.loads(out.read_text(encoding="utf-8"))
    assert sarif_errors(written) == []
    assert all(r["properties"]["tier"] == "Confirmed" for r in written["runs"][0]["results"])


def test_sarif_of_the_held_worked_example_validates(capsys):
    example = Path(__file__).resolve().parents[1] / "fixtures" / "worked-example" / "verdict.json"
    log = sarif_of(capsys, example.parent)
    assert sarif_errors(log) == []
    assert log["runs"][0]["results"], "the worked example has findings at or above nit/Singleton"
