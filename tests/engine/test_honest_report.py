"""Issue 12 ("Honest runs"), the council/report half, end to end through the CLI against the
loopback fake: prompt examples a weak model can copy, and a report that says what was lost,
what each finding claims, and what the debate round did."""

from __future__ import annotations

import json
from typing import Any

import re

from council_helpers import (
    auto_defend,
    auto_revote,
    check_documents,
    kind,
    load,
    member,
    review,
    voting_judge,
)
from council_prompts import example_block
from fakeprovider import chat, copycat, error

from amicus_mcp.cli import main as cli_main
from amicus_mcp.council.report import build_report


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


# --------------------------------------------------------------------------- 7/8. what was lost, what each finding says


def degraded_bench(fake) -> None:
    """Three seats: c dies in Stage 1, b's judgement fails, so one judge is left (judged:false)."""
    member(fake, "a", tag="north")
    member(fake, "b", tag="south", judge=error(400, "judge crashed"))
    member(fake, "c", stage1=error(400, "seat crashed"))
    member(fake, "chair")


def h2s(page: str) -> list[str]:
    return re.findall(r"<h2>(.*?)</h2>", page)


def test_a_degraded_run_says_what_was_lost(fake, brief, run_dir, project, capsys, tmp_path):
    degraded_bench(fake)
    code, run = run_cli(capsys, brief, run_dir, project, "fake/a,fake/b,fake/c")
    assert check_documents(run_dir) == run
    assert (code, run["judged"]) == (2, False)
    verdict = load(run_dir, "verdict.json")
    assert verdict["degrades"] == run["degrades"] and len(run["degrades"]) == 3
    assert verdict["judged"] is False and "notices" not in verdict  # every notice here is a loss
    assert verdict["synthesis"] == "Synthesis: the eviction policy must change first."
    assert verdict["hardQuestions"] == ["Why evict on write?"]

    page = (run_dir / "report.html").read_text(encoding="utf-8")
    assert h2s(page)[:3] == ["Verdict summary", "What was lost", "Chair&#x27;s synthesis"]
    chip = re.search(r'<p class="chair-verdict ([^"]*)">(.*?)</p>', page)
    assert chip and "degraded" in chip.group(1)
    assert "Fix these first" in chip.group(2) and "rests on fewer than two judges (judged: false)" in chip.group(2)
    lost = page.split("<h2>What was lost</h2>", 1)[1].split("</section>", 1)[0]
    assert "Notice: seat fake/c did not review — PROVIDER_REJECTED" in lost
    assert "Notice: judge fake/b produced no judgement" in lost
    assert "Notice: cross-review is thin — only 1 judge(s)" in lost
    # What each finding says: its claim and location, from the run's own record.
    assert '<div class="claim">north claim 1</div><div class="location">location: section 2</div>' in page
    assert "Why evict on write?" in page

    # After Stage 4: re-deciding the verdict keeps what was lost, and --render keeps the claims.
    decisions = tmp_path / "decisions.json"
    decisions.write_text(json.dumps([{"id": "A1", "decision": "accepted", "applied": True}]), encoding="utf-8")
    out = run_dir / "verdict.json"
    assert cli_main(["council", "verdict", str(run_dir / "tally.json"), "--decisions", str(decisions),
                     "-o", str(out), "--overall-verdict", "Fix these first", "--render"]) == 0
    capsys.readouterr()
    decided = load(run_dir, "verdict.json")
    assert decided["degrades"] == run["degrades"] and decided["synthesis"] == verdict["synthesis"]
    assert decided["findings"][0]["decision"] == "accepted"
    rerendered = (run_dir / "report.html").read_text(encoding="utf-8")
    assert "What was lost" in rerendered and "north claim 1" in rerendered and "accepted (applied)" in rerendered
    # `council report` over the run's verdict says what was lost, and (issue 19) what each finding
    # claims, from the run's own tally.json.
    assert cli_main(["council", "report", str(out), "--md"]) == 0
    md = capsys.readouterr().out
    assert "**Chair verdict: Fix these first** — _rests on fewer than two judges (judged: false)_" in md
    assert "## Verdict summary" in md and md.index("## What was lost") < md.index("## Chair's synthesis") < md.index("## Adjudication matrix")
    assert "- Notice: seat fake/c did not review — PROVIDER\\_REJECTED" in md
    assert "  - north claim 1\n  - location: section 2" in md


def test_informational_notices_are_notes_not_losses(fake, brief, run_dir, project, capsys):
    for name in "abc":
        member(fake, name)
    member(fake, "chair")
    code, run = run_cli(capsys, brief, run_dir, project, "fake/a,fake/b,fake/c",
                        "--lenses", "security-architect,site-reliability,product-manager")
    assert (code, run["status"]) == (0, "complete")
    assert run["notices"] and "degrades" not in run
    verdict = load(run_dir, "verdict.json")
    assert verdict["notices"] == run["notices"] and "degrades" not in verdict
    page = (run_dir / "report.html").read_text(encoding="utf-8")
    lost = page.split("<h2>What was lost</h2>", 1)[1].split("</section>", 1)[0]
    assert '<p class="empty">Nothing was lost.</p>' in lost and "<strong>Notes:</strong>" in lost
    assert "lens run: not recorded in the reliability ledger" in lost
    chip = re.search(r'<p class="chair-verdict ([^"]*)">', page)
    assert chip and "degraded" not in chip.group(1)


def test_hostile_claims_and_chair_text_are_escaped(fake, brief, run_dir, project, capsys):
    hostile = "<script>alert(1)</script> [click](http://evil.example) ![x](http://evil.example/p.png)"
    block = {"overall": "o", "findings": [{"id": 1, "severity": "major", "claim": f"# {hostile}\n\n| a | b |",
                                           "location": "<img src=x onerror=alert(2)>", "rationale": "r"}]}
    member(fake, "a", stage1=chat(review("a", block=block)))
    member(fake, "b")
    member(fake, "chair", chair=chat(f"{hostile}\n\n# Heading\n\n## Hard questions\n\n1. {hostile}\n\nVERDICT: Ship it"))
    code, run = run_cli(capsys, brief, run_dir, project, "fake/a,fake/b")
    assert code == 0
    page = (run_dir / "report.html").read_text(encoding="utf-8")
    assert "<script>" not in page and "<img" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    md = build_report(load(run_dir, "verdict.json"), record=load(run_dir, "tally.json"))
    # Every marker that could open a tag, a link or an image is backslash-escaped.
    assert not re.search(r"(?<!\\)<(script|img)|(?<!\\)\]\(|(?<!\\)!(?<!\\)\[", md)
    assert "\\<script\\>alert(1)\\</script\\> \\[click\\](http://evil.example)" in md
    assert "\n  - \\# \\<script\\>" in md  # the claim cannot open a heading or a tag
    assert not any(line.startswith(("#", "|")) and "script" in line for line in md.splitlines())


# --------------------------------------------------------------------------- 9. debate round, clean bench


def test_a_debated_run_reports_its_round(fake, brief, run_dir, project, capsys):
    """A1 is disputed by b and c (Disputed) and defended, and both re-vote agree (→ Confirmed);
    B1 is disputed by c alone (Contested) and withdrawn."""
    member(fake, "a", judge=voting_judge({}), defense=auto_defend("defend"))
    member(fake, "b", judge=voting_judge({"A1": "dispute"}), defense=auto_defend("withdraw"), revote=auto_revote("agree"))
    member(fake, "c", judge=voting_judge({"A1": "dispute", "B1": "dispute"}), revote=auto_revote("agree"))
    member(fake, "chair")
    code, run = run_cli(capsys, brief, run_dir, project, "fake/a,fake/b,fake/c", "--debate")
    assert check_documents(run_dir) == run
    assert code == 0 and run["debate"]["outcome"] == "ran"
    assert load(run_dir, "verdict.json")["debate"] == run["debate"]
    md = build_report(load(run_dir, "verdict.json"), record=load(run_dir, "tally.json"))
    section = md.split("## Debate round\n\n", 1)[1].split("\n\n", 1)[0]
    assert section.splitlines() == [
        "- Outcome: ran",
        "- Defended 1 · amended 0 · withdrawn 1 · no response 0",
        "- Verdict changes: 1",
        "- **A1**: defended — Disputed → Confirmed",
        "- **B1**: Withdrawn by raiser — stays Contested",
    ]
    page = (run_dir / "report.html").read_text(encoding="utf-8")
    assert "Debate round" in h2s(page) and "<strong>A1</strong>: defended — Disputed → Confirmed" in page


def test_an_all_clean_bench_says_no_findings_were_raised(fake, brief, run_dir, project, capsys):
    clean = chat(review("x", block={"overall": "Nothing to fix: the cache is sound.", "findings": []}))
    for name in ("a", "b"):
        member(fake, name, stage1=clean)
    member(fake, "chair")
    code, run = run_cli(capsys, brief, run_dir, project, "fake/a,fake/b")
    assert (code, run["judged"]) == (0, True)
    page = (run_dir / "report.html").read_text(encoding="utf-8")
    findings = page.split("<h2>Findings by tier</h2>", 1)[1].split("</section>", 1)[0]
    assert '<p class="empty">No findings were raised on this bench — a clean review is a valid review.</p>' in findings
    md = build_report(load(run_dir, "verdict.json"), record=load(run_dir, "tally.json"))
    assert md.index("No findings were raised on this bench") < md.index("## Cost")
    assert "What was lost" not in page


def test_an_inexact_cost_under_a_ceiling_is_in_the_verdict_and_the_report(fake, brief, run_dir, project, capsys):
    member(fake, "a")
    member(fake, "b", stage1=chat(review("seat-b")))  # no usage block: its cost is unknown
    member(fake, "chair")
    code, run = run_cli(capsys, brief, run_dir, project, "fake/a,fake/b", "--max-cost", "5")
    assert (code, run["status"]) == (2, "partial")
    assert load(run_dir, "verdict.json")["degrades"] == run["degrades"]
    assert [d["what"] for d in run["degrades"]] == ["cost total is a floor"]
    page = (run_dir / "report.html").read_text(encoding="utf-8")
    assert "<li>Notice: cost total is a floor — 1 leg(s) had no known cost under a --max-cost ceiling</li>" in page
