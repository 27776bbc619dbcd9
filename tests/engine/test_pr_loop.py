"""The pull-request loop (issue 32): a real council run against the loopback fake provider,
rendered as SARIF (validated against the official SARIF 2.1.0 schema, vendored under
tests/vendor/sarif) and as a pull-request review posted to a loopback fake of GitHub's REST API."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from council_helpers import finding, member, review
from fakeprovider import chat, usage

from amicus_mcp.cli import main as cli_main

SARIF_SCHEMA = Path(__file__).resolve().parents[1] / "vendor" / "sarif" / "sarif-schema-2.1.0.json"


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


# --------------------------------------------------------------------------- pr-review

TOKEN = "ghs_FAKEtoken0123456789abcdefABCDEF0123"
REPO, PR = "octo-org/widgets", 7
CACHE_PATCH = "@@ -10,5 +10,11 @@ class Cache:\n" + "".join(f"{'+' if i % 2 else ' '}line {i}\n" for i in range(10, 21)) + "-gone\n"
STORE_PATCH = "@@ -1,3 +1,4 @@\n import io\n+import os\n \n def open_store():\n"


@pytest.fixture
def github(monkeypatch: pytest.MonkeyPatch) -> Any:
    from fakegithub import FakeGitHub

    with FakeGitHub(token=TOKEN) as gh:
        gh.add_pr(REPO, PR, files=[{"filename": "src/cache.py", "patch": CACHE_PATCH},
                                   {"filename": "src/store.py", "patch": STORE_PATCH},
                                   {"filename": "logo.png"}])  # a binary file: no patch
        monkeypatch.setenv("GITHUB_API_URL", gh.base_url)
        monkeypatch.delenv("GITHUB_TOKEN", raising=False)
        yield gh


@pytest.fixture
def reviewed_run(fake, brief, project, tmp_path, capsys) -> Path:
    bench(fake)
    run_dir = tmp_path / "run"
    council_run(brief, project, run_dir, capsys)
    return run_dir


def pr_review(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli_main(["council", "pr-review", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_pr_review_previews_without_posting_and_posts_one_review_with_post(github, reviewed_run, capsys, monkeypatch):
    code, out, err = pr_review(capsys, str(reviewed_run), "--repo", REPO, "--pr", str(PR))
    assert code == 0, err
    assert out.startswith(f"# Review preview for {REPO}#{PR} (event COMMENT; not posted")
    assert "### src/cache.py:12" in out and "Every write evicts the whole cache." in out
    assert "### Findings not on the diff's lines" in out and "The store never closes its file." in out
    assert github.posts() == [] and github.reviews(REPO, PR) == []
    # without a token a preview still reads the PR; nothing carried an Authorization header
    assert all("authorization" not in r.headers for r in github.requests)

    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    code, out, err = pr_review(capsys, str(reviewed_run), "--repo", REPO, "--pr", str(PR), "--post", "--json")
    assert code == 0, err
    doc = json.loads(out)
    from amicus_mcp.schemas import schema_errors

    assert schema_errors(doc, "council-pr-review") == []
    assert doc["posted"] is True and doc["reviewId"] == 1
    (posted,) = github.reviews(REPO, PR)
    assert len(github.posts()) == 1
    assert posted["event"] == "COMMENT" and posted["commit_id"] == "a" * 40
    assert [(c["path"], c["line"], c["side"]) for c in posted["comments"]] == [("src/cache.py", 12, "RIGHT")]
    assert posted["comments"][0]["body"].startswith("**blocker** · Confirmed (1 agree / 0 dispute / 0 neutral) — "
                                                    "Every write evicts the whole cache.")
    # outside the diff (store.py:7) and without a file (section 2): in the body, not lost; the nit is under --min-severity
    assert "The store never closes its file. (src/store.py:7)" in posted["body"]
    assert "The eviction policy is not named. (section 2)" in posted["body"]
    assert "typo" not in posted["body"] + json.dumps(posted["comments"])
    assert github.posts()[0].headers["authorization"] == f"Bearer {TOKEN}"
    for text in (out, err, json.dumps(doc)):
        assert TOKEN not in text


def test_pr_review_thresholds_and_event(github, reviewed_run, capsys, monkeypatch):
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    code, out, err = pr_review(capsys, str(reviewed_run), "--repo", REPO, "--pr", str(PR), "--post",
                               "--min-severity", "nit", "--event", "REQUEST_CHANGES")
    assert code == 0, err
    assert out.startswith(f"Posted a REQUEST_CHANGES review on {REPO}#{PR}: 1 inline comment(s), 3 finding(s) in the body")
    (posted,) = github.reviews(REPO, PR)
    assert posted["event"] == "REQUEST_CHANGES" and "A typo in the docstring. (src/cache.py line 40)" in posted["body"]
    assert TOKEN not in out + err


@pytest.mark.parametrize(("refuse", "status", "needle"), [
    ("POST reviews", 403, "the token lacks 'pull-requests: write'"),
    ("GET files", 403, "the token lacks 'pull-requests: read'"),
    ("GET pulls", 404, "GitHub found no octo-org/widgets pull request #7 (404: Not Found), or the token cannot see it"),
    ("POST reviews", 422, "as unprocessable (422: Unprocessable Entity)"),
])
def test_github_refusals_are_clear_errors_that_never_show_the_token(github, reviewed_run, capsys, monkeypatch,
                                                                   refuse, status, needle):
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    github.refuse[refuse] = status
    code, out, err = pr_review(capsys, str(reviewed_run), "--repo", REPO, "--pr", str(PR), "--post", "--json")
    assert code == 1
    envelope = json.loads(out)
    assert envelope["error"]["code"] == "GITHUB_REFUSED", envelope
    assert needle in envelope["error"]["message"], envelope
    assert TOKEN not in out + err
    assert github.reviews(REPO, PR) == []


def test_post_needs_a_token_from_the_environment_and_bad_repo_or_pr_is_bad_args(github, reviewed_run, capsys):
    code, out, err = pr_review(capsys, str(reviewed_run), "--repo", REPO, "--pr", str(PR), "--post", "--json")
    assert code == 1 and json.loads(out)["error"]["code"] == "BAD_ARGS"
    assert "GITHUB_TOKEN" in json.loads(out)["error"]["message"]
    assert github.requests == []
    code, out, _ = pr_review(capsys, str(reviewed_run), "--repo", "not a repo", "--pr", str(PR), "--json")
    assert code == 1 and "is not OWNER/NAME" in json.loads(out)["error"]["message"]
    code, out, _ = pr_review(capsys, str(reviewed_run), "--repo", REPO, "--pr", "0", "--json")
    assert code == 1 and "is not a pull request number" in json.loads(out)["error"]["message"]
    assert github.requests == []


# --------------------------------------------------------------------------- the Action


def test_the_action_writes_sarif_previews_the_review_and_posts_it_only_when_asked(fake, github, project, tmp_path):
    from test_ci_action import run_action

    bench(fake)
    (project / "design.md").write_text("# Widget cache\n\nThe cache evicts every entry on every write.\n", encoding="utf-8")
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": PR}}), encoding="utf-8")
    inputs = {"MODELS": "fake/a,fake/b", "CHAIR": "fake/chair", "TEMPLATE": "design-doc", "ARTIFACT": "design.md",
              "VARS": "audience=the platform team\nconstraints=p99 under 5 ms\n", "FAIL_ON": "never",
              "SARIF_FILE": "council.sarif", "GITHUB_API_URL": github.base_url, "GITHUB_REPOSITORY": REPO,
              "GITHUB_EVENT_PATH": str(event), "GITHUB_TOKEN": TOKEN}
    code, summary, outputs, log = run_action(tmp_path, project, **inputs, OUT_DIR="ci-1")
    assert code == 0, log
    assert outputs["sarif-file"] == str(project / "council.sarif") and outputs["review"] == "preview"
    assert sarif_errors(json.loads((project / "council.sarif").read_text(encoding="utf-8"))) == []
    text = summary.read_text(encoding="utf-8")
    assert "## Pull-request review: preview (post-review is off; nothing was posted)" in text
    assert "### src/cache.py:12" in text
    assert github.posts() == []

    code, summary, outputs, log = run_action(tmp_path, project, **inputs, OUT_DIR="ci-2", POST_REVIEW="true")
    assert code == 0, log
    assert outputs["review"] == "posted"
    (posted,) = github.reviews(REPO, PR)
    assert posted["event"] == "COMMENT" and [c["line"] for c in posted["comments"]] == [12]
    assert TOKEN not in log + summary.read_text(encoding="utf-8")

    github.refuse["POST reviews"] = 403
    code, summary, outputs, log = run_action(tmp_path, project, **inputs, OUT_DIR="ci-3", POST_REVIEW="true")
    assert code == 1 and outputs["review"] == "error" and outputs["gate"] == "pass"
    assert "the token lacks 'pull-requests: write'" in summary.read_text(encoding="utf-8")
    assert len(github.reviews(REPO, PR)) == 1
    assert TOKEN not in log + summary.read_text(encoding="utf-8")


# --------------------------------------------------------------------------- re-review


def test_a_re_review_reports_new_still_open_and_resolved_and_gates_on_new(fake, brief, project, tmp_path, capsys):
    from amicus_mcp.schemas import schema_errors

    bench(fake, north=[finding(1, "north", severity="blocker", location="src/cache.py:12-14",
                               claim="Every write evicts the whole cache.")],
          south=[finding(1, "south", severity="major", location="src/store.py:7", claim="The store never closes its file.")])
    baseline = tmp_path / "baseline"
    council_run(brief, project, baseline, capsys)
    # after new commits: the eviction is still there (reworded, moved a line), the store is fixed, a new finding
    bench(fake, north=[finding(1, "north", severity="blocker", location="src/cache.py:13",
                               claim="Each write still evicts the whole cache.")],
          south=[finding(1, "south", severity="major", location="src/lock.py:3", claim="The lock is never released on error.")])
    again = tmp_path / "again"
    run = council_run(brief, project, again, capsys, "--baseline", str(baseline))
    doc = json.loads((again / "rereview.json").read_text(encoding="utf-8"))
    assert schema_errors(doc, "council-rereview") == []
    assert doc["baselineRunId"] != run["runId"] and doc["counts"] == {"new": 1, "still-open": 1, "resolved": 1}
    by_id = {d["id"]: d for d in doc["decisions"]}
    assert by_id["A1"]["status"] == "still-open" and by_id["A1"]["baselineId"] == "A1" and by_id["A1"]["by"] == "location"
    assert by_id["B1"]["status"] == "new" and by_id["B1"]["baselineId"] is None
    assert [r["claim"] for r in doc["resolved"]] == ["The store never closes its file."]
    assert "Re-review against run " in " ".join(run["notices"]) and "1 new, 1 still open, 1 resolved" in " ".join(run["notices"])
    # options.json records the baseline as the verdict it resolved to
    options = json.loads((again / "options.json").read_text(encoding="utf-8"))
    assert options["baseline"] == str((baseline / "verdict.json").resolve())

    # the Markdown report (council report; amicus_read's default) says what is new, still open and resolved
    assert cli_main(["council", "report", str(again / "verdict.json")]) == 0
    report = capsys.readouterr().out
    assert f"## Re-review against run {doc['baselineRunId']}: 1 new, 1 still open, 1 resolved" in report
    assert "- new: B1\n- still open: A1\n- resolved: 1\n  - **B1** major — The store never closes its file. (src/store.py:7)" in report
    # and so does the run's own report.html, written as the run ended
    page = (again / "report.html").read_text(encoding="utf-8")
    assert f"<h2>Re-review against run {doc['baselineRunId']}</h2>" in page
    assert "<li>new: B1</li><li>still open: A1</li><li>resolved: 1" in page
    assert ("<li><strong>B1</strong> (major) — The store never closes its file."
            '<div class="location">location: src/store.py:7</div></li>') in page
    # re-deciding the run into its own directory keeps the section on the page it rewrites
    decided = tmp_path / "decided.json"
    decided.write_text(json.dumps([{"id": "A1", "decision": "deferred"}]), encoding="utf-8")
    assert cli_main(["council", "verdict", str(again / "tally.json"), "--decisions", str(decided),
                     "-o", str(again / "verdict.json"), "--render", "--project", str(project)]) == 0
    capsys.readouterr()
    assert f"<h2>Re-review against run {doc['baselineRunId']}</h2>" in (again / "report.html").read_text(encoding="utf-8")
    # SARIF carries each result's status and the resolved ones as the run's properties
    log = sarif_of(capsys, again)
    assert sarif_errors(log) == []
    statuses = {r["properties"]["findingId"]: r["properties"]["reReview"] for r in log["runs"][0]["results"]}
    assert statuses == {"A1": "still-open", "B1": "new"}
    assert log["runs"][0]["properties"]["reReview"]["counts"] == {"new": 1, "still-open": 1, "resolved": 1}

    # the gate: the still-open blocker fails the plain gate; --gate-on new counts only what is new
    assert cli_main(["council", "gate", str(again), "--fail-on", "confirmed-blocker"]) == 4
    capsys.readouterr()
    assert cli_main(["council", "gate", str(again), "--fail-on", "confirmed-blocker", "--gate-on", "new", "--json"]) == 0
    gate = json.loads(capsys.readouterr().out)
    assert schema_errors(gate, "council-gate") == []
    # (the fake seats quote no evidence: the run's evidence check, issue 30, says so on the blocker)
    assert gate["gateOn"] == "new" and gate["blockers"] == [{"id": "A1", "tier": "Confirmed", "raiser": "fake/a",
                                                              "evidenceCheck": "absent", "reReview": "still-open"}]
    assert gate["reason"].endswith("--gate-on new: 1 still-open blocker(s) not counted")
    # --gate-on new on a run that is no re-review is a clear error
    assert cli_main(["council", "gate", str(baseline), "--fail-on", "confirmed-blocker", "--gate-on", "new", "--json"]) == 1
    assert "holds no rereview.json" in json.loads(capsys.readouterr().out)["error"]["message"]


def test_a_baseline_that_is_no_finished_run_is_refused_before_any_spend(fake, brief, project, tmp_path, capsys):
    bench(fake)
    code = cli_main(["council", "run", "--prompt-file", str(brief), "--models", "fake/a,fake/b", "--chair", "fake/chair",
                     "--out-dir", str(tmp_path / "r"), "--project", str(project), "--json", "--baseline", "no-such-run"])
    assert code == 1
    assert "no council run 'no-such-run'" in json.loads(capsys.readouterr().out)["error"]["message"]
    assert fake.requests == [] or all("chat" not in r.path for r in fake.requests)


def test_the_action_re_reviews_against_the_previous_runs_directory(fake, project, tmp_path):
    from test_ci_action import run_action

    (project / "design.md").write_text("# Widget cache\n\nThe cache evicts every entry on every write.\n", encoding="utf-8")
    inputs = {"MODELS": "fake/a,fake/b", "CHAIR": "fake/chair", "TEMPLATE": "design-doc", "ARTIFACT": "design.md",
              "VARS": "audience=the platform team\nconstraints=p99 under 5 ms\n", "FAIL_ON": "confirmed-blocker"}
    bench(fake, south=[finding(1, "south", severity="major", location="src/store.py:7", claim="The store never closes its file.")])
    code, _, _, log = run_action(tmp_path, project, **inputs, OUT_DIR="prev")
    assert code == 4, log  # the blocker
    bench(fake, south=[finding(1, "south", severity="major", location="src/lock.py:3", claim="The lock is never released on error.")])
    code, summary, outputs, log = run_action(tmp_path, project, **inputs, OUT_DIR="next", BASELINE="prev", GATE_ON="new")
    assert code == 0, log
    text = summary.read_text(encoding="utf-8")
    assert "still-open blocker(s) not counted" in text
    assert "## Re-review against run " in text and "- resolved: 1\n  - **B1** major — The store never closes its file. (src/store.py:7)" in text


# --------------------------------------------------------------------------- dismissed findings


def test_a_denied_finding_comes_back_marked_and_does_not_fail_the_gate(fake, brief, project, tmp_path, capsys):
    from amicus_mcp.schemas import schema_errors

    bench(fake)
    first = tmp_path / "first"
    run = council_run(brief, project, first, capsys)
    decisions = tmp_path / "decisions.json"
    decisions.write_text(json.dumps([{"id": "A1", "decision": "denied", "reason": "the cache is write-through by design"},
                                     {"id": "B1", "decision": "accepted", "applied": True}]), encoding="utf-8")
    assert cli_main(["council", "verdict", str(first / "tally.json"), "--decisions", str(decisions),
                     "-o", str(first / "verdict.json"), "--project", str(project)]) == 0
    assert "Remembered 1 dismissed finding(s)" in capsys.readouterr().err
    assert cli_main(["decisions", "list", "--project", str(project), "--json"]) == 0
    memory = json.loads(capsys.readouterr().out)
    assert schema_errors(memory, "council-decisions") == []
    assert [(e["findingId"], e["decision"], e["reason"]) for e in memory["decisions"]] == [
        ("A1", "denied", "the cache is write-through by design"), ("B1", "accepted", None)]
    denied = memory["decisions"][0]
    # the plain gate fails the first run on its Confirmed blocker
    assert cli_main(["council", "gate", str(first), "--fail-on", "confirmed-blocker"]) == 4
    capsys.readouterr()

    second = tmp_path / "second"
    council_run(brief, project, second, capsys)
    dismissed = json.loads((second / "dismissed.json").read_text(encoding="utf-8"))
    assert schema_errors(dismissed, "council-dismissed") == []
    assert [(m["id"], m["decisionId"], m["dismissedIn"], m["reason"]) for m in dismissed["findings"]] == [
        ("A1", denied["id"], run["runId"], "the cache is write-through by design")]
    bundle = (second / "bundle-stage2.md").read_text(encoding="utf-8")
    assert (f"  - previously dismissed by the user: in run {run['runId']}, reason: the cache is write-through by design"
            in bundle)
    assert bundle.count("previously dismissed by the user") == 1
    assert cli_main(["council", "gate", str(second), "--fail-on", "confirmed-blocker", "--json"]) == 0
    gate = json.loads(capsys.readouterr().out)
    assert schema_errors(gate, "council-gate") == []
    assert gate["passed"] and gate["blockers"][0]["previouslyDismissed"] is True
    assert gate["reason"].endswith("1 previously dismissed blocker(s) not counted: A1")
    assert cli_main(["council", "report", str(second / "verdict.json")]) == 0
    assert (f"## Previously dismissed\n\nThese findings match one the user denied in an earlier run; the gate does not "
            f"count them unless they come back Confirmed with verified evidence.\n\n- **A1** — dismissed in run "
            f"{run['runId']}: the cache is write-through by design") in capsys.readouterr().out
    page = (second / "report.html").read_text(encoding="utf-8")
    assert ("<h2>Previously dismissed</h2>" in page and f"<li><strong>A1</strong> — dismissed in run {run['runId']}: "
            "the cache is write-through by design</li>" in page)
    log = sarif_of(capsys, second)
    assert sarif_errors(log) == []
    (a1,) = [r for r in log["runs"][0]["results"] if r["properties"]["findingId"] == "A1"]
    assert a1["properties"]["dismissed"] == {"decisionId": denied["id"], "dismissedIn": run["runId"],
                                             "reason": "the cache is write-through by design"}

    # forgotten, the finding is raised and gated as new again
    assert cli_main(["decisions", "forget", denied["id"]]) == 0
    assert f"Forgot {denied['id']}" in capsys.readouterr().out
    third = tmp_path / "third"
    council_run(brief, project, third, capsys)
    assert not (third / "dismissed.json").exists()
    assert "previously dismissed" not in (third / "bundle-stage2.md").read_text(encoding="utf-8")
    assert cli_main(["council", "gate", str(third), "--fail-on", "confirmed-blocker"]) == 4
    capsys.readouterr()
    assert cli_main(["decisions", "forget", denied["id"], "--json"]) == 1
    assert "no remembered decision" in json.loads(capsys.readouterr().out)["error"]["message"]


def test_a_dismissed_finding_goes_into_the_review_body_not_on_a_line(fake, github, brief, project, tmp_path, capsys):
    bench(fake)
    first = tmp_path / "first"
    council_run(brief, project, first, capsys)
    decisions = tmp_path / "decisions.json"
    decisions.write_text(json.dumps([{"id": "A1", "decision": "denied", "reason": "by design"}]), encoding="utf-8")
    assert cli_main(["council", "verdict", str(first / "tally.json"), "--decisions", str(decisions),
                     "-o", str(first / "verdict.json"), "--project", str(project)]) == 0
    capsys.readouterr()
    second = tmp_path / "second"
    run = council_run(brief, project, second, capsys)
    assert any("match one dismissed before" in n for n in run["notices"])
    code, out, err = pr_review(capsys, str(second), "--repo", REPO, "--pr", str(PR), "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["review"]["comments"] == [] and "A1" in doc["inBody"]
    assert "Every write evicts the whole cache. (src/cache.py:12-14) — previously dismissed in run " in doc["review"]["body"]
    assert doc["review"]["body"].count(": by design") == 1



def test_a_dismissed_blocker_counts_again_only_when_confirmed_with_verified_evidence():
    from amicus_mcp.council.gate import evaluate_gate

    def verdict(tier: str, evidence: str | None) -> dict[str, Any]:
        f = {"id": "A1", "raiser": "a", "severity": "blocker", "tier": tier}
        if evidence is not None:
            f["evidenceCheck"] = evidence
        return {"type": "council-verdict", "runId": "r", "overallVerdict": "Ship it", "findings": [f],
                "tierCounts": {}}

    held = {"A1": {"id": "A1", "decisionId": "D0123456789", "dismissedIn": "r0", "reason": "by design"}}
    assert evaluate_gate(verdict("Confirmed", None), "confirmed-blocker")["passed"] is False
    assert evaluate_gate(verdict("Confirmed", None), "confirmed-blocker", dismissed=held)["passed"] is True
    assert evaluate_gate(verdict("Confirmed", "not-found"), "confirmed-blocker", dismissed=held)["passed"] is True
    assert evaluate_gate(verdict("Contested", "verified"), "disputed-blocker", dismissed=held)["passed"] is True
    back = evaluate_gate(verdict("Confirmed", "verified"), "confirmed-blocker", dismissed=held)
    assert back["passed"] is False and "previously dismissed" not in back["reason"]
    # the evidence check may come from the run's tally rather than the verdict
    from_tally = {"A1": {**held["A1"], "evidenceCheck": "verified"}}
    assert evaluate_gate(verdict("Confirmed", None), "confirmed-blocker", dismissed=from_tally)["passed"] is False
