"""A run's tag (issue 20): `--tag` / MCP `tag` / a pack's `tag`, a short label recorded on run.json,
the ledger rows and `amicus list`, and a filter for `council stats` and `amicus list`.

It is one field of the options model: its flag, its tool argument and its pack key derive from
it. An untagged run's documents and ledger rows are exactly what they were before tags.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from council_helpers import check_documents, ledger, load, member, preflight_refused

from amicus_mcp.cli import main as cli_main
from amicus_mcp.council.ledger import derive_stats, ledger_rows, render_stats
from amicus_mcp.schemas import schema_errors

pytestmark = pytest.mark.anyio

WORKED = Path(__file__).resolve().parents[1] / "fixtures" / "worked-example"


def bench(fake: Any) -> list[str]:
    for name in ("a", "b"):
        member(fake, name, cost=0.002)
    member(fake, "chair", cost=0.001)
    return ["fake/a", "fake/b"]


def cli_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any]]:
    code = cli_main([*argv, "--json"])
    return code, json.loads(capsys.readouterr().out)


def run_cli(capsys: pytest.CaptureFixture[str], brief: Path, run_dir: Path, project: Path, *extra: str) -> dict[str, Any]:
    code, run = cli_json(capsys, "council", "run", "--models", "fake/a,fake/b", "--chair", "fake/chair",
                         "--prompt-file", str(brief), "--out-dir", str(run_dir), "--project", str(project), *extra)
    assert code == 0, run
    return run


def test_a_tagged_run_records_its_tag_and_is_found_by_it(fake, brief, run_dir, project, config_dir, capsys):
    bench(fake)
    run = run_cli(capsys, brief, run_dir, project, "--tag", "release-2.3")
    assert run["tag"] == "release-2.3" and check_documents(run_dir, run) == run
    assert load(run_dir, "options.json")["tag"] == "release-2.3"
    rows = ledger(config_dir)
    assert rows and all(row["tag"] == "release-2.3" for row in rows)

    untagged = run_cli(capsys, brief, run_dir.parent / "untagged", project)
    assert "tag" not in untagged and "tag" not in load(run_dir.parent / "untagged", "options.json")
    assert len(ledger(config_dir)) == 2 * len(rows) and [row for row in ledger(config_dir) if "tag" not in row]

    code, listed = cli_json(capsys, "list", "--project", str(project), "--tag", "release-2.3")
    assert code == 0 and schema_errors(listed, "session-list") == []
    assert [(item["id"], item["tag"]) for item in listed["items"]] == [(run["runId"], "release-2.3")]
    _, everything = cli_json(capsys, "list", "--project", str(project))
    assert {item["id"] for item in everything["items"]} == {run["runId"], untagged["runId"]}
    assert cli_main(["list", "--project", str(project)]) == 0
    assert "[release-2.3]" in capsys.readouterr().out

    code, stats = cli_json(capsys, "council", "stats", "--tag", "release-2.3")
    assert code == 0 and schema_errors(stats, "council-stats") == [] and stats["tag"] == "release-2.3"
    assert {m["model"]: m["runs"] for m in stats["models"]} == {m["model"]: 1 for m in stats["models"]}
    _, overall = cli_json(capsys, "council", "stats")
    assert "tag" not in overall and {m["runs"] for m in overall["models"]} == {2}
    _, none = cli_json(capsys, "council", "stats", "--tag", "no-such-tag")
    assert none["models"] == []
    assert cli_main(["council", "stats", "--tag", "no-such-tag"]) == 0
    assert "No council runs tagged 'no-such-tag' recorded yet" in capsys.readouterr().out


def test_a_tag_that_is_not_one_is_bad_args_before_anything_is_sent(fake, brief, run_dir, project, capsys):
    error = preflight_refused(capsys, ["--models", "fake/a,fake/b", "--chair", "fake/chair", "--prompt-file", str(brief),
                                       "--out-dir", str(run_dir), "--project", str(project), "--tag", "has space"])
    assert error["code"] == "BAD_ARGS"
    # In words, never the regex (issue 27 item 20).
    assert error["message"] == "--tag 'has space' is not allowed: it may hold only 1-64 letters, digits, '.', '_' or '-' (no spaces)"
    assert "1-64 letters, digits" in error["hint"]
    assert fake.requests == [] and not run_dir.exists()
    for argv in (["council", "stats", "--tag", "x" * 65], ["list", "--project", str(project), "--tag", "a/b"]):
        code, envelope = cli_json(capsys, *argv)
        assert code == 1 and envelope["error"]["code"] == "BAD_ARGS"
        assert envelope["error"]["message"].endswith("is not allowed: it may hold only 1-64 letters, digits, '.', '_' or '-' (no spaces)")


async def test_a_pack_supplies_the_tag_and_a_typed_one_wins(fake, council, run_dir, tmp_path, config_dir, capsys):
    pack = tmp_path / "pack.json"
    pack.write_text(json.dumps({"schemaVersion": 2, "type": "council-pack", "name": "p", "tag": "from-pack"}))
    run, code = await council(bench(fake), pack=str(pack))
    assert code == 0 and run["tag"] == "from-pack"
    assert cli_main(["council", "pack", "save", "tagged", "--models", "fake/a,fake/b", "--tag", "nightly", "--json"]) == 0
    saved = json.loads(capsys.readouterr().out)
    assert saved["pack"]["tag"] == "nightly" and schema_errors(saved["pack"], "council-pack") == []


def test_the_ledger_rows_carry_a_tag_only_when_the_run_has_one() -> None:
    record = json.loads((WORKED / "tally.json").read_text(encoding="utf-8"))
    plain = ledger_rows(record)
    assert plain == ledger_rows(record, tag=None) and all("tag" not in row for row in plain)
    tagged = ledger_rows(record, tag="t1")
    assert tagged == [{**row, "tag": "t1"} for row in plain]
    assert all(schema_errors(row, "council-ledger-row") == [] for row in tagged)
    stats = derive_stats([*plain, *tagged], tag="t1")
    assert stats["tag"] == "t1" and render_stats(stats).startswith("Council runs tagged 't1':")
    assert derive_stats(tagged, tag="t1")["models"] == derive_stats(plain)["models"]
