"""Issue 12 ("Honest runs"), the council/report half, end to end through the CLI against the
loopback fake: prompt examples a weak model can copy, and a report that says what was lost,
what each finding claims, and what the debate round did."""

from __future__ import annotations

import json
from typing import Any

from council_helpers import check_documents, kind, load, member
from council_prompts import example_block
from fakeprovider import copycat

from amicus_mcp.cli import main as cli_main


def run_cli(capsys, brief, run_dir, project, models: str, *extra: str) -> tuple[int, dict[str, Any]]:
    code = cli_main(["council", "run", "--models", models, "--chair", "fake/chair", "--prompt-file", str(brief),
                     "--out-dir", str(run_dir), "--project", str(project), "--json", *extra])
    return code, json.loads(capsys.readouterr().out)


# --------------------------------------------------------------------------- 3. examples a copycat can copy


def test_a_two_seat_bench_of_copycat_judges_is_still_judged(fake, brief, run_dir, project, capsys):
    """Every judge copies the example block of the judge prompt verbatim: it must be a valid
    judgement on this bench (two labels, its own finding ids), so cross-review is not lost."""
    for name in ("a", "b"):
        member(fake, name, judge=copycat(example_block), judge_repair=copycat(example_block))
    member(fake, "chair")
    code, run = run_cli(capsys, brief, run_dir, project, "fake/a,fake/b")
    assert check_documents(run_dir) == run
    assert (code, run["status"], run["judged"]) == (0, "complete", True)
    assert "degrades" not in run
    bundle = (run_dir / "bundle-stage2.md").read_text(encoding="utf-8")
    assert "Review C" not in bundle
    example = json.loads(example_block(bundle).removeprefix("```json").removesuffix("```"))
    assert example["ranking"] == ["Review B", "Review A"]
    assert [v["id"] for v in example["adjudications"]] == ["A1", "B1"]
    # No repair was needed: both judges' first answers (the copied example) parsed.
    assert [kind(p) for p in fake.prompts("a")] == ["stage1", "judge"]
    tally = load(run_dir, "tally.json")
    assert tally["judged"] is True and len({r["judge"] for r in load(run_dir, "tally-input.json")["rankings"]}) == 2
