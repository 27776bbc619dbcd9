"""The Council Review action's script, run locally exactly as action.yml runs it: a real
subprocess `python -m amicus_mcp.cli.action` with the action's INPUT_* variables, GITHUB_STEP_SUMMARY
and GITHUB_OUTPUT pointing at temp files, against the loopback fake provider."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from council_helpers import check_documents, member
from fakeprovider import error

from amicus_mcp.schemas import schema_errors

DESIGN = "# Widget cache\n\nThe cache evicts every entry on every write.\n"


def outputs_of(path: Path) -> dict[str, str]:
    return dict(line.split("=", 1) for line in path.read_text(encoding="utf-8").splitlines() if line)


def run_action(tmp_path: Path, cwd: Path, **inputs: str) -> tuple[int, Path, dict[str, str], str]:
    """(exit code, the step summary file, the outputs, stdout+stderr)."""
    summary, outputs = tmp_path / "summary.md", tmp_path / "outputs.txt"
    summary.unlink(missing_ok=True)
    outputs.unlink(missing_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("INPUT_", "GITHUB_"))}
    env.update({f"INPUT_{k.upper()}": v for k, v in inputs.items()})
    env.update(GITHUB_STEP_SUMMARY=str(summary), GITHUB_OUTPUT=str(outputs), GITHUB_RUN_ID="77",
               RUNNER_TEMP=str(tmp_path / "runner-temp"))
    env.update({k: v for k, v in inputs.items() if k.startswith("GITHUB_")})
    proc = subprocess.run([sys.executable, "-m", "amicus_mcp.cli.action"], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    return proc.returncode, summary, outputs_of(outputs) if outputs.exists() else {}, proc.stdout + proc.stderr


@pytest.fixture
def members(fake: Any) -> None:
    for name in ("a", "b"):
        member(fake, name, cost=0.002)
    member(fake, "chair", cost=0.001)  # its VERDICT: Fix these first


def test_the_action_runs_reports_and_exits_with_the_gate(fake, members, tmp_path, project):
    (project / "design.md").write_text(DESIGN, encoding="utf-8")
    inputs = {"MODELS": "fake/a,fake/b", "CHAIR": "fake/chair", "TEMPLATE": "design-doc", "ARTIFACT": "design.md",
              "VARS": "audience=the platform team\nconstraints=p99 under 5 ms\n", "MAX_COST": "1.50"}
    code, summary, outputs, log = run_action(tmp_path, project, **inputs, FAIL_ON="fix-these-first", OUT_DIR="council-ci")
    assert code == 4, log
    run_dir = project / "council-ci"
    run = check_documents(run_dir)
    assert run["template"]["name"] == "design-doc" and run["artifact"]["path"] == str(project / "design.md")
    assert outputs == {"run-dir": str(run_dir), "verdict": "Fix these first",
                       "tier-counts": json.dumps(run["tierCounts"], separators=(",", ":"), sort_keys=True),
                       "cost": f"{run['usage']['cost']['amount']:.4f}", "gate": "fail"}
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("## Council review: FAILED\n\ngate fails: the chair's verdict is 'Fix these first'")
    assert "# Council Report" in text and "## Adjudication matrix" in text
    # Each finding in the summary says what it claims and where (issue 19), from the run's tally.json.
    assert "- **A1** (major, raiser fake/a) — a1/d0/n0\n  - seat-a claim 1\n  - location: section 2" in text
    assert "- **B1** (major, raiser fake/b) — a1/d0/n0\n  - seat-b claim 1\n  - location: section 2" in text
    assert "gate fails: the chair's verdict is 'Fix these first' (--fail-on fix-these-first)" in log
    assert "the platform team" in (run_dir / "briefing-stage1.md").read_text(encoding="utf-8")

    code, summary, outputs, log = run_action(tmp_path, project, **inputs, FAIL_ON="fundamental-rethink", OUT_DIR="council-ci-2")
    assert code == 0, log
    assert outputs["gate"] == "pass" and outputs["verdict"] == "Fix these first"
    assert summary.read_text(encoding="utf-8").startswith("## Council review: passed")


def git(repo: Path, *argv: str) -> str:
    return subprocess.run(["git", *argv], cwd=repo, check=True, capture_output=True, text=True,
                          env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
                               "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid"}).stdout.strip()


def pull_request(tmp_path: Path, **added: str) -> Path:
    """A repository checked out as actions/checkout leaves a pull request: `feature` changes
    cache.py (and adds `added` files) on top of origin/main."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "cache.py").write_text("def evict(cache):\n    cache.clear()\n", encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    git(repo, "update-ref", "refs/remotes/origin/main", git(repo, "rev-parse", "HEAD"))  # as actions/checkout leaves it
    git(repo, "checkout", "-qb", "feature")
    (repo / "cache.py").write_text("def evict(cache, key):\n    cache.pop(key, None)\n", encoding="utf-8")
    for name, text in added.items():
        (repo / name).write_text(text, encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "evict one key")
    return repo


def test_without_an_artifact_the_action_reviews_the_pull_request_diff(fake, members, tmp_path, config_dir):
    repo = pull_request(tmp_path)
    pack = repo / "council-pack.json"
    pack.write_text(json.dumps({"schemaVersion": 2, "type": "council-pack", "name": "pr", "version": 2,
                                "models": ["fake/a", "fake/b"], "chair": "fake/chair"}), encoding="utf-8")
    code, summary, outputs, log = run_action(tmp_path, repo, PACK="council-pack.json", FAIL_ON="never",
                                             GITHUB_BASE_REF="main", GITHUB_WORKSPACE=str(repo))
    assert code == 0, log
    run_dir = Path(outputs["run-dir"])
    assert run_dir == repo / "council-ci-77"
    run = check_documents(run_dir)
    assert run["pack"]["name"] == "pr" and run["pack"]["version"] == 2
    assert run["template"]["name"] == "pr-diff"
    diff = Path(run["artifact"]["path"])
    assert diff == tmp_path / "runner-temp" / "amicus-pr.diff"
    assert "+    cache.pop(key, None)" in diff.read_text(encoding="utf-8")
    assert "+    cache.pop(key, None)" in (run_dir / "briefing-stage1.md").read_text(encoding="utf-8")
    assert outputs["gate"] == "pass" and "gate passes: --fail-on never" in summary.read_text(encoding="utf-8")


def test_a_failed_run_exits_1_and_says_why_in_the_summary(fake, tmp_path, project):
    (project / "design.md").write_text(DESIGN, encoding="utf-8")
    code, summary, outputs, log = run_action(tmp_path, project, MODELS="fake/a,fake/b", CHAIR="fake/a",
                                             ARTIFACT="design.md", FAIL_ON="never", OUT_DIR="out")
    assert code == 1, log
    assert outputs["gate"] == "error" and outputs["verdict"] == ""
    assert "**The council run failed** (exit 1): BAD_ARGS: the chair 'fake/a' is also a bench seat" in summary.read_text(encoding="utf-8")
    assert fake.requests == []


def test_the_action_needs_a_bench_and_an_artifact(tmp_path, project, config_dir):
    code, summary, _, log = run_action(tmp_path, project, TEMPLATE="essay", ARTIFACT="x.md")
    assert code == 1 and "the action needs a bench" in log
    code, summary, _, log = run_action(tmp_path, project, MODELS="a,b")
    assert code == 1 and "not a pull_request event" in summary.read_text(encoding="utf-8")


def test_the_gate_document_the_action_decides_from_is_the_cli_gate(fake, members, tmp_path, project):
    """The action and `amicus council gate` are one function: same run, same answer."""
    from amicus_mcp.cli import main as cli_main

    (project / "design.md").write_text(DESIGN, encoding="utf-8")
    code, _, outputs, log = run_action(tmp_path, project, MODELS="fake/a,fake/b", CHAIR="fake/chair",
                                       ARTIFACT="design.md", FAIL_ON="fix-these-first", OUT_DIR="g")
    assert code == 4, log
    assert cli_main(["council", "gate", outputs["run-dir"], "--fail-on", "fix-these-first"]) == 4
    assert schema_errors(json.loads((project / "g" / "run.json").read_text()), "council-run") == []


def test_a_pull_request_diff_over_the_read_limit_says_how_to_narrow_it(fake, members, tmp_path, config_dir):
    """Issue 19 item 4: a diff past what a council reviews at once ends with a clear message
    naming the action's `paths` input; with `paths` set, the narrowed diff is reviewed."""
    repo = pull_request(tmp_path, **{"vendored.js": "".join(f"var v{i} = {i};\n" for i in range(40_000))})
    bench = {"MODELS": "fake/a,fake/b", "CHAIR": "fake/chair", "FAIL_ON": "never", "GITHUB_BASE_REF": "main",
             "GITHUB_WORKSPACE": str(repo)}
    code, summary, _, log = run_action(tmp_path, repo, **bench)
    assert code == 1, log
    text = summary.read_text(encoding="utf-8")
    assert "**Error** (BAD_ARGS): the pull request's diff origin/main...HEAD is " in text
    assert "over the 400 KiB a council reviews at once" in text
    assert "→ narrow the diff with the action's 'paths' input (e.g. paths: src/ docs/)" in text
    assert fake.chat_requests() == []

    code, summary, outputs, log = run_action(tmp_path, repo, **bench, PATHS="cache.py")
    assert code == 0, log
    diff = (tmp_path / "runner-temp" / "amicus-pr.diff").read_text(encoding="utf-8")
    assert "+    cache.pop(key, None)" in diff and "vendored.js" not in diff
    assert outputs["gate"] == "pass"


def test_an_unjudged_run_fails_the_actions_gate_unless_the_input_allows_it(fake, tmp_path, project):
    """Issue 19: one judge left (judged: false) — every blocker level would pass by default."""
    member(fake, "a", cost=0.002)
    member(fake, "b", cost=0.002, judge=error(400, "judge crashed"))
    member(fake, "chair", cost=0.001)
    (project / "design.md").write_text(DESIGN, encoding="utf-8")
    inputs = {"MODELS": "fake/a,fake/b", "CHAIR": "fake/chair", "ARTIFACT": "design.md", "FAIL_ON": "confirmed-blocker"}
    code, summary, outputs, log = run_action(tmp_path, project, **inputs, OUT_DIR="unjudged")
    assert code == 4, log
    assert outputs["gate"] == "fail"
    assert "gate fails: the run was never cross-reviewed (judged: false" in summary.read_text(encoding="utf-8")
    code, summary, outputs, log = run_action(tmp_path, project, **inputs, ALLOW_UNJUDGED="true", OUT_DIR="allowed")
    assert code == 0, log
    assert outputs["gate"] == "pass" and "allowed by --allow-unjudged" in summary.read_text(encoding="utf-8")


def test_the_actions_inputs_make_the_options_its_flags_would(tmp_path, project):
    """Issue 20 item 2: the action builds RunOptions itself (each input read as its flag is) and runs
    the council in process; the same choices typed as `council run` flags make the same options."""
    from amicus_mcp.cli import build_parser
    from amicus_mcp.cli.action import run_options
    from amicus_mcp.cli.option_flags import RUN

    env = {"INPUT_MODELS": "fake/a, fake/b", "INPUT_CHAIR": "fake/chair", "INPUT_VARS": "audience=the team\n\nx=1\n",
           "INPUT_MAX_COST": "1.50", "INPUT_TIMEOUT": "3"}
    action = run_options(env, artifact="design.md", out_dir=str(tmp_path / "out"), template="design-doc")
    args = build_parser().parse_args(["council", "run", "--models", "fake/a, fake/b", "--chair", "fake/chair",
                                      "--var", "audience=the team", "--var", "x=1", "--max-cost", "1.50",
                                      "--timeout", "3", "--template", "design-doc", "--artifact", "design.md",
                                      "--out-dir", str(tmp_path / "out")])
    assert action.document() == RUN.options(args).document() and action.out_dir == str(tmp_path / "out")


def test_a_bad_input_is_named_as_the_action_names_it(tmp_path, project, config_dir):
    (project / "design.md").write_text(DESIGN, encoding="utf-8")
    code, summary, outputs, log = run_action(tmp_path, project, MODELS="fake/a,fake/b", CHAIR="fake/chair",
                                             ARTIFACT="design.md", MAX_COST="lots", OUT_DIR="out")
    assert code == 1, log
    assert outputs["gate"] == "error"
    # (issue 27 item 25: the one strict reader of a sum of dollars words the refusal)
    assert ("**The council run failed** (exit 1): BAD_ARGS: max-cost must be a plain decimal number of dollars "
            "like 2 or 0.50, got 'lots'") in summary.read_text(encoding="utf-8")


def test_a_blocker_whose_quote_is_not_in_the_artifact_does_not_block_with_require_evidence(fake, tmp_path, project):
    """Issue 30: the Action's require-evidence input is the gate's --require-evidence, and the step
    summary shows each finding's evidence check."""
    from council_helpers import finding, review
    from fakeprovider import chat

    def seat(tag: str, **fields: Any) -> Any:
        return chat(review(tag, block={"overall": f"{tag} take", "findings": [finding(1, tag, **fields)]}))

    member(fake, "a", cost=0.002, stage1=seat("seat-a", severity="blocker", evidence="cache.flush_all(force=True)"))
    member(fake, "b", cost=0.002, stage1=seat("seat-b", evidence="The cache evicts every entry on every write."))
    member(fake, "chair", cost=0.001)
    (project / "design.md").write_text(DESIGN, encoding="utf-8")
    inputs = {"MODELS": "fake/a,fake/b", "CHAIR": "fake/chair", "ARTIFACT": "design.md", "FAIL_ON": "confirmed-blocker"}
    code, summary, outputs, log = run_action(tmp_path, project, **inputs, OUT_DIR="plain")
    assert code == 4 and outputs["gate"] == "fail", log
    text = summary.read_text(encoding="utf-8")
    assert "  - evidence check: **not-found** — evidence not found in the material" in text
    assert "  - evidence check: **verified** — evidence verified in the material (at design.md:3)" in text
    code, summary, outputs, log = run_action(tmp_path, project, **inputs, REQUIRE_EVIDENCE="true", OUT_DIR="grounded")
    assert code == 0 and outputs["gate"] == "pass", log
    assert "A1 (evidence not-found)" in summary.read_text(encoding="utf-8")
