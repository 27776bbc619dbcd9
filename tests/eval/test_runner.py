"""The eval runner's behaviour on a few cases: the estimate before anything is sent, the
ceiling shared across the cases, the matcher's repair, a matcher that fails, a lost case."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from eval_helpers import LEG_COST, eval_argv, known_bench, run_cli
from eval_truth import BENCH, truth
from fakeprovider import FakeProvider, Reply, chat, configure_fake, error, prompt_of, usage

from amicus_mcp.eval.suite import load_suite
from amicus_mcp.schemas import schema_errors

SUITE = load_suite()
TWO = ["rate-limiter-diff", "worker-cronjob-config"]  # one flawed case, one clean


@pytest.fixture
def bench(fake: FakeProvider, config_dir: Path) -> Any:
    configure_fake(config_dir, fake, cost="reported")
    return known_bench(fake, SUITE, truth(SUITE))


def cases(*ids: str) -> list[str]:
    return [arg for case in ids for arg in ("--case", case)]


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def test_the_estimate_comes_first_and_sends_nothing(fake: FakeProvider, config_dir: Path, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AMICUS_OPENROUTER_BASE_URL", fake.base_url)
    monkeypatch.setenv("OPENROUTER_API_KEY", "sk-or-test-dummy")
    fake.catalog = [{"id": f"vendor/{n}", "name": n, "context_length": 100000,
                     "pricing": {"prompt": "0.000001", "completion": "0.00001"}} for n in ("a", "b", "c", "chair", "m")]
    project = tmp_path / "project"
    project.mkdir()
    argv = ["eval", "run", "--models", "openrouter/vendor/a,openrouter/vendor/b,openrouter/vendor/c",
            "--chair", "openrouter/vendor/chair", "--matcher", "openrouter/vendor/m", "--out-dir", str(tmp_path / "ev"),
            "--project", str(project), "--max-cost", "9", *cases(*TWO), "--estimate"]
    code, out = run_cli([*argv, "--json"])
    est = load_text(out)
    assert code == 0 and schema_errors(est, "eval-estimate") == []
    # 3 reviews, 3 judgements, the chair and one matcher call per case, each at a typical 4,000 output tokens.
    assert (est["cases"], est["legs"], est["unpricedModels"], est["maxCost"]) == (2, 16, [], 9)
    assert [row["legs"] for row in est["perCase"]] == [8, 8]
    assert 16 * 4000 * 1e-5 < est["amount"] < 16 * 4000 * 1e-5 + 16 * 0.02
    assert est["amount"] == pytest.approx(sum(row["amount"] for row in est["perCase"]))
    assert fake.chat_requests() == [] and not (tmp_path / "ev").exists()
    code, text = run_cli(argv)
    assert text.startswith(f"Estimate: ~${est['amount']:.4f} for 2 cases, 16 calls; ceiling $9.00")


def test_a_ceiling_too_low_speaks_of_the_suite_and_names_one_that_fits(fake: FakeProvider, config_dir: Path,
                                                                       tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    import re

    monkeypatch.setenv("AMICUS_OPENROUTER_BASE_URL", fake.base_url)
    monkeypatch.setenv("OPENROUTER_API_KEY", "sk-or-test-dummy")
    fake.catalog = [{"id": f"vendor/{n}", "name": n, "context_length": 100000,
                     "pricing": {"prompt": "0.000001", "completion": "0.00001"}} for n in ("a", "b", "c", "chair", "m")]
    project = tmp_path / "project"
    project.mkdir()
    three = [*TWO, "profile-cache-design"]

    def attempt(ceiling: str) -> tuple[int, Any]:
        code, out = run_cli(["eval", "run", "--models", "openrouter/vendor/a,openrouter/vendor/b,openrouter/vendor/c",
                             "--chair", "openrouter/vendor/chair", "--matcher", "openrouter/vendor/m",
                             "--out-dir", str(tmp_path / "ev"), "--project", str(project), "--max-cost", ceiling,
                             *cases(*three), "--estimate", "--json"])
        return code, load_text(out)

    code, doc = attempt("0.10")
    error = doc["error"]
    assert code == 1 and error["code"] == "COST_CEILING_TOO_LOW"
    assert error["message"].startswith("the --max-cost $0.1 ceiling cannot hold this eval: its 3 cases share it "
                                       "evenly ($0.0333 each)"), error["message"]
    smallest = re.search(r"raise --max-cost to at least (\d+\.\d{4})", error["hint"]).group(1)
    assert f"The smallest ceiling that fits the 3 cases is ${smallest}" in error["message"]
    assert float(smallest) > 0.10
    code, est = attempt(smallest)  # the ceiling it named holds every case's council
    assert code == 0 and est["maxCost"] == float(smallest), est
    code, doc = attempt(f"{float(smallest) - 0.0001:.4f}")  # and it is the smallest one that does
    assert code == 1 and doc["error"]["code"] == "COST_CEILING_TOO_LOW"
    assert fake.chat_requests() == []


def test_a_matcher_missing_from_the_catalog_is_refused_naming_the_flag(fake: FakeProvider, config_dir: Path,
                                                                      tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AMICUS_OPENROUTER_BASE_URL", fake.base_url)
    monkeypatch.setenv("OPENROUTER_API_KEY", "sk-or-test-dummy")
    fake.catalog = [{"id": f"vendor/{n}", "name": n, "context_length": 100000,
                     "pricing": {"prompt": "0.000001", "completion": "0.00001"}} for n in ("a", "b", "c", "chair")]
    project = tmp_path / "project"
    project.mkdir()
    code, out = run_cli(["eval", "run", "--models", "openrouter/vendor/a,openrouter/vendor/b,openrouter/vendor/c",
                         "--chair", "openrouter/vendor/chair", "--matcher", "openrouter/vendor/nope",
                         "--out-dir", str(tmp_path / "ev"), "--project", str(project), *cases(*TWO), "--estimate",
                         "--json"])
    error = load_text(out)["error"]
    assert code == 1 and error["code"] == "BAD_MODEL" and error["message"].startswith("--matcher: "), error
    assert "vendor/nope" in error["message"] and fake.chat_requests() == []


def load_text(text: str) -> Any:
    return json.loads(text)


def test_the_ceiling_is_the_whole_suite_s_split_evenly(bench: Any, tmp_path: Path, project: Path) -> None:
    code, _ = run_cli(eval_argv(tmp_path / "ev", project, "--max-cost", "3", *cases(*TWO), "--json"))
    assert code == 0
    for case in TWO:
        options = load(tmp_path / "ev" / "cases" / case / "council" / "options.json")
        assert options["maxCost"] == 1.5 and options["ledger"] is False
    assert load(tmp_path / "ev" / "eval-options.json")["bench"]["maxCost"] == 3
    assert load(tmp_path / "ev" / "eval.json")["bench"]["maxCost"] == 3


def test_a_matcher_reply_that_cannot_be_read_is_asked_once_more(bench: Any, fake: FakeProvider, tmp_path: Path,
                                                                  project: Path) -> None:
    answers: list[str] = []

    def flaky(body: Any) -> Reply:
        answers.append(prompt_of(body))
        return chat("I think they all match.", usage=usage(cost=LEG_COST)) if len(answers) == 1 else bench.matcher(body)

    fake.respond("matcher", flaky)
    code, out = run_cli(eval_argv(tmp_path / "ev", project, *cases("rate-limiter-diff"), "--json"))
    assert code == 0
    case_dir = tmp_path / "ev" / "cases" / "rate-limiter-diff"
    matches = load(case_dir / "matches.json")
    assert matches["legs"] == 2 and {d["by"] for d in matches["decisions"]} <= {"matcher", "prefilter"}
    assert "Your previous answer could not be used" in answers[1] and "NO_FENCED_BLOCK" in answers[1]
    assert (case_dir / "matcher-output.md").read_text(encoding="utf-8") == "I think they all match."
    assert (case_dir / "matcher-prompt-2.md").read_text(encoding="utf-8") == answers[1]
    assert matches["usage"] == {"amount": 2 * LEG_COST, "unpricedLegs": 0}


def test_a_failing_matcher_leaves_findings_undecided_and_says_so(bench: Any, fake: FakeProvider, tmp_path: Path,
                                                                   project: Path) -> None:
    fake.respond("matcher", lambda body: error(500, "matcher is down"))
    code, out = run_cli(eval_argv(tmp_path / "ev", project, *cases("rate-limiter-diff"), "--json"))
    doc = load_text(out)
    assert code == 2 and doc["status"] == "partial"
    undecided = [d for d in load(tmp_path / "ev" / "cases" / "rate-limiter-diff" / "matches.json")["decisions"]
                 if d["by"] == "undecided"]
    assert undecided and all(d["flaw"] is None and d["candidates"] for d in undecided)
    assert doc["cases"][0]["findingCounts"]["undecided"] == len(undecided)
    assert doc["council"]["recall"]["found"] == 0  # nothing was decided, so nothing counts as found
    assert any("got no usable answer from the matcher" in n and "recall is a floor" in n for n in doc["notes"])
    manifest = load(tmp_path / "ev" / "eval-run.json")
    assert any("the matcher call failed" in n for n in manifest["notices"])
    # Re-scoring a partial eval ends as its text says: partial, exit 2 (degraded).
    code, text = run_cli(["eval", "score", str(tmp_path / "ev")])
    assert code == 2 and text.startswith(f"Eval {doc['evalId']}: partial (exit 2) — suite planted v1, 1 case\n"), text
    code, _ = run_cli(["eval", "score", str(tmp_path / "ev"), "--json"])
    assert code == 2


def test_a_recall_that_is_only_a_floor_is_never_shown_as_a_measurement(bench: Any, fake: FakeProvider,
                                                                        config_dir: Path, tmp_path: Path,
                                                                        project: Path) -> None:
    fake.respond("matcher", lambda body: error(500, "matcher is down"))
    code, out = run_cli(eval_argv(tmp_path / "ev", project, *cases(*TWO), "--json"))
    doc = load_text(out)
    recall = doc["council"]["recall"]
    assert code == 2 and recall["found"] == 0 and recall["undecided"] > 0
    assert any(s["recall"]["undecided"] > 0 for s in doc["seats"])
    md = (tmp_path / "ev" / "eval.md").read_text(encoding="utf-8")
    assert (f"- Recall (a floor): at least 0 of 5 planted flaws found by the council (≥0.0%); the matcher left "
            f"{recall['undecided']} findings undecided") in md
    assert "Recall: 0" not in md
    for seat in doc["seats"]:  # a seat's figure is marked exactly when it is a floor
        row = next(line for line in md.splitlines() if line.startswith(f"| {seat['seat']} |"))
        assert ("| ≥0.0% | ≥0/5 |" in row) == (seat["recall"]["undecided"] > 0), row
    html = (tmp_path / "ev" / "eval.html").read_text(encoding="utf-8")
    assert "Recall (a floor): at least 0 of 5" in html and "<td>≥0.0%</td>" in html
    # The eval ledger carries the undecided count; `council stats` marks the figure and counts its evals.
    rows = [json.loads(line) for line in (config_dir / "eval-ledger.jsonl").read_text(encoding="utf-8").splitlines()]
    undecided = {m["model"]: m["recall"]["undecided"] for m in doc["models"]}
    assert [r["undecided"] for r in rows] == [undecided[r["model"]] for r in rows] and any(undecided.values())
    assert all(schema_errors(r, "eval-ledger-row") == [] for r in rows)
    code, table = run_cli(["council", "stats"])
    lines = table.splitlines()
    assert lines[0].split()[5:8] == ["evals", "recall", "false-alarm"]
    resolved = {m["resolvedModel"]: undecided[m["model"]] for m in doc["models"]}
    for line in lines[1:]:
        floor = resolved[line.split()[0]] > 0
        assert line.split()[5:7] == ["1", "≥0.00" if floor else "0.00"] and ("recall a floor" in line) == floor, table
    code, out = run_cli(["council", "stats", "--json"])
    stats = load_text(out)
    assert schema_errors(stats, "council-stats") == []
    assert {m["model"]: m["measured"]["floorEvals"] for m in stats["models"]} == {
        k: int(v > 0) for k, v in resolved.items()}
    # An older row, written before the count was recorded, is still a valid row (the key is optional).
    old = {k: v for k, v in rows[0].items() if k != "undecided"}
    assert schema_errors(old, "eval-ledger-row") == []


def test_a_case_whose_council_fails_is_lost_and_named(bench: Any, fake: FakeProvider, tmp_path: Path,
                                                        project: Path) -> None:
    for model in BENCH[:2]:  # two of three seats are down on one case: its council has no quorum
        def down(body: Any, m: str = model) -> Reply:
            if "Per-client token-bucket rate limiter" in prompt_of(body):
                return error(503, "overloaded")
            return bench.answer(m, body)

        fake.respond(model.removeprefix("fake/"), down)
    code, out = run_cli(eval_argv(tmp_path / "ev", project, *cases(*TWO), "--json"))
    doc = load_text(out)
    assert code == 2 and (doc["casesScored"], doc["casesLost"]) == (1, 1)
    lost = next(c for c in doc["cases"] if c["caseId"] == "rate-limiter-diff")
    assert lost["scored"] is False and "COUNCIL_QUORUM" in lost["lostReason"]
    assert doc["council"]["recall"]["planted"] == 0  # the lost case is left out, never counted as missed
    assert any("rate-limiter-diff" in n and "left out of every figure" in n for n in doc["notes"])


def test_a_matcher_that_honours_a_schema_is_held_to_one(bench: Any, fake: FakeProvider, config_dir: Path,
                                                          tmp_path: Path, project: Path) -> None:
    """The same fake server as a second provider whose models take a JSON-schema response_format."""
    doc = load(config_dir / "config.json")
    doc["providers"]["fakes"] = {**doc["providers"]["fake"], "structuredOutputs": True}
    (config_dir / "config.json").write_text(json.dumps(doc), encoding="utf-8")
    argv = [a if a != "fake/matcher" else "fakes/matcher"
            for a in eval_argv(tmp_path / "ev", project, *cases("rate-limiter-diff"), "--json")]
    code, out = run_cli(argv)
    assert code == 0
    (request,) = fake.chat_requests("matcher")
    schema = request.body["response_format"]["json_schema"]["schema"]
    assert request.body["response_format"]["json_schema"]["strict"] is True
    asked = schema["properties"]["matches"]["items"]["properties"]["finding"]["enum"]
    matches = load(tmp_path / "ev" / "cases" / "rate-limiter-diff" / "matches.json")
    assert asked == [d["finding"] for d in matches["decisions"] if d["candidates"]]
    assert (tmp_path / "ev" / "cases" / "rate-limiter-diff" / "matcher-output.md").read_text(
        encoding="utf-8").startswith('{"matches"')
    assert load_text(out)["bench"]["matcher"] == "fakes/matcher"


def test_status_list_and_the_progress_line_read_the_eval_from_disk(shipped_eval: Any,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from datetime import timedelta

    from amicus_mcp.cli.eval import eval_line
    from amicus_mcp.engine.store import parse_iso

    monkeypatch.setenv("AMICUS_CONFIG_DIR", str(shipped_eval.config))
    manifest = load(shipped_eval.directory / "eval-run.json")
    project = str(shipped_eval.project)
    code, text = run_cli(["status", manifest["id"], "--project", project])
    assert code == 0 and text.startswith(f"Eval {manifest['id']}: partial (16/16 cases done)")
    assert "rate-limiter-diff" in text and "report: " in text
    code, out = run_cli(["list", "--project", project, "--json"])
    listed = load_text(out)
    assert schema_errors(listed, "session-list") == []
    kinds = [row["type"] for row in listed["items"]]
    # An eval is one entry: its 16 case councils are reached from it (status names each run), not listed.
    assert kinds == ["eval-run"] and listed["items"][0]["cases"] == 16
    assert all(case["runId"] in text for case in manifest["cases"])
    code, text = run_cli(["list", "--project", project])
    assert len(text.splitlines()) == 1 and f"16 cases (amicus status {manifest['id']})" in text
    render = eval_line(shipped_eval.directory / "eval-run.json")
    line = render(parse_iso(manifest["createdAt"]) + timedelta(seconds=75))
    assert line == (f"eval {manifest['id']}: done · 16/16 cases done · 0 running · ${manifest['cost']:.4f} so far · 1m15s")


def test_a_tag_applies_to_the_eval_its_cases_and_its_ledger_rows(bench: Any, config_dir: Path, tmp_path: Path,
                                                                  project: Path) -> None:
    code, _ = run_cli(eval_argv(tmp_path / "untagged", project, *cases("rate-limiter-diff"), "--json"))
    assert code == 0
    code, out = run_cli(eval_argv(tmp_path / "tagged", project, *cases("worker-cronjob-config"), "--tag", "nightly",
                                  "--json"))
    doc = load_text(out)
    assert code == 0 and doc["tag"] == "nightly"
    manifest = load(tmp_path / "tagged" / "eval-run.json")
    assert manifest["tag"] == "nightly" and schema_errors(manifest, "eval-run") == []
    assert load(tmp_path / "tagged" / "cases" / "worker-cronjob-config" / "council" / "run.json")["tag"] == "nightly"
    rows = [json.loads(line) for line in (config_dir / "eval-ledger.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [r.get("tag") for r in rows] == [None] * 3 + ["nightly"] * 3
    assert all(schema_errors(r, "eval-ledger-row") == [] for r in rows)
    code, out = run_cli(["list", "--project", str(project), "--tag", "nightly", "--json"])
    assert [(i["id"], i["type"]) for i in load_text(out)["items"]] == [(doc["evalId"], "eval-run")]
    # council stats --tag: the tagged eval's figures only (a clean case: nothing planted, false alarms counted).
    code, out = run_cli(["council", "stats", "--tag", "nightly", "--json"])
    stats = load_text(out)
    assert code == 0 and schema_errors(stats, "council-stats") == [] and stats["tag"] == "nightly"
    assert {m["measured"]["evals"] for m in stats["models"]} == {1}
    assert {m["measured"]["planted"] for m in stats["models"]} == {0}  # not the untagged eval's 5 flaws
    code, out = run_cli(["council", "stats", "--json"])
    assert {m["measured"]["evals"] for m in load_text(out)["models"]} == {2}
    code, out = run_cli(["council", "stats", "--tag", "other", "--json"])
    assert load_text(out)["models"] == []


def test_a_pack_s_template_is_said_to_go_unused(bench: Any, tmp_path: Path, project: Path) -> None:
    """Each case brings its own briefing: a pack that sets a template is applied for its other
    settings, and the eval says its template is not used (engine.pack_sets_template, as the CI
    action asks it)."""
    from amicus_mcp.engine import pack_sets_template

    templated, plain = tmp_path / "templated.json", tmp_path / "plain.json"
    for path, extra in ((templated, {"template": "design-doc"}), (plain, {})):
        path.write_text(json.dumps({"schemaVersion": 2, "type": "council-pack", "name": path.stem, "version": 1,
                                    "debate": False, **extra}), encoding="utf-8")
    assert pack_sets_template(str(templated)) and not pack_sets_template(str(plain))
    for path in (templated, plain):
        code, _ = run_cli(eval_argv(tmp_path / f"ev-{path.stem}", project, "--pack", str(path),
                                    *cases(TWO[1]), "--json"))
        assert code == 0
        notices = load(tmp_path / f"ev-{path.stem}" / "eval-run.json")["notices"]
        said = [n for n in notices if "sets a template" in n]
        assert said == ([f"pack '{path.stem}' sets a template; an eval's cases bring their own briefing, so it is not "
                         "used"] if path is templated else [])
