"""Briefing templates, policy packs and the gate, end to end: `amicus council run --template … /
--pack …` against the loopback fake provider, then `amicus council gate` on the run it wrote."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pytest
from council_helpers import check_documents, finding, load, member, preflight_refused, review, u
from fakeprovider import chat

from amicus_mcp.cli import main as cli_main
from amicus_mcp.engine.options import RunOptions
from amicus_mcp.schemas import schema_errors

DESIGN = "# Widget cache\n\nThe cache evicts every entry on every write.\n"


@pytest.fixture
def design(tmp_path: Path) -> Path:
    path = tmp_path / "design.md"
    path.write_text(DESIGN, encoding="utf-8")
    return path


def bench(fake: Any, *, blocker: bool = False) -> None:
    severity = "blocker" if blocker else "major"
    stage1 = review("north", block={"overall": "o", "findings": [finding(1, "north", severity=severity)]})
    member(fake, "a", cost=0.001, stage1=chat(stage1, usage=u(0.001)))
    member(fake, "b", tag="south", cost=0.001)
    member(fake, "c", tag="east", cost=0.001)
    member(fake, "chair", cost=0.001)


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any]]:
    code = cli_main(["council", "run", *argv, "--json"])
    return code, json.loads(capsys.readouterr().out)


def sha(path: Path) -> str:
    return "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()


def cli_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any]]:
    code = cli_main([*argv, "--json"])
    return code, json.loads(capsys.readouterr().out)


# --------------------------------------------------------------------------- templates


def test_a_run_from_a_template_an_artifact_and_vars(fake, design, run_dir, project, capsys):
    bench(fake)
    code, run = run_json(capsys, "--models", "fake/a,fake/b", "--chair", "fake/chair", "--template", "design-doc",
                         "--artifact", str(design), "--var", "audience=the platform team",
                         "--var", "constraints=p99 under 5 ms", "--out-dir", str(run_dir), "--project", str(project))
    assert code == 0, run
    assert check_documents(run_dir) == run
    assert run["template"]["name"] == "design-doc" and run["template"]["source"] == "builtin"
    assert run["template"]["hash"].startswith("sha256:") and run["template"]["path"] == "builtin:design-doc"
    assert run["template"]["vars"] == {"audience": "the platform team", "constraints": "p99 under 5 ms",
                                       "focus": "correctness, failure modes and operability"}
    assert run["artifact"] == {"path": str(design.resolve()), "hash": sha(design), "bytes": len(DESIGN)}
    assert "pack" not in run
    # briefing-stage1.md shows the composed briefing as sent, and it is what every seat got
    briefing = (run_dir / "briefing-stage1.md").read_text(encoding="utf-8")
    for needle in ("design document, `design.md`", "the platform team", "p99 under 5 ms",
                   "correctness, failure modes and operability",  # focus: its default
                   "```\n# Widget cache\n\nThe cache evicts every entry on every write.\n```"):
        assert needle in briefing, needle
    assert fake.prompts("a")[0] == briefing


@pytest.mark.parametrize(("extra", "message", "hint"), [
    (["--template", "plan"], "needs variable(s) goal", "--var goal="),
    (["--template", "design-doc", "--var", "audiance=x"], "has no variable(s) audiance", "audience, constraints, focus"),
    (["--template", "nope"], "unknown template 'nope'", "design-doc"),
    (["--template", "design-doc", "--prompt-file", "b.md"], "not both", "prompt file"),
])
def test_template_mistakes_are_bad_args_before_any_spend(fake, design, run_dir, project, capsys, extra, message, hint):
    bench(fake)
    error = preflight_refused(capsys, ["--models", "fake/a,fake/b", "--chair", "fake/chair", "--artifact", str(design),
                                       *extra, "--out-dir", str(run_dir), "--project", str(project)])
    assert error["code"] == "BAD_ARGS" and message in error["message"] and hint in error["hint"]
    assert fake.requests == [] and not run_dir.exists()


@pytest.mark.parametrize(("content", "message"), [
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00", "is binary"),
    (b"caf\xe9 latin-1", "is not UTF-8"),
    (b"x" * (400 * 1024 + 1), "the limit is 409600"),
    (b"  \n", "is empty"),
])
def test_an_unusable_artifact_is_bad_args(fake, tmp_path, run_dir, project, capsys, content, message):
    artifact = tmp_path / "artifact.bin"
    artifact.write_bytes(content)
    error = preflight_refused(capsys, ["--models", "fake/a,fake/b", "--chair", "fake/chair", "--template", "essay",
                                       "--artifact", str(artifact), "--out-dir", str(run_dir), "--project", str(project)])
    assert error["code"] == "BAD_ARGS" and message in error["message"] and error["hint"]
    assert fake.requests == []


def test_a_fifo_artifact_template_or_pack_is_refused_at_once(fake, tmp_path, run_dir, project, capsys):
    """The artifact, template and pack readers are the one bounded reader: a FIFO never blocks them."""
    fifo = tmp_path / "pipe.md"
    os.mkfifo(fifo)
    base = ["--models", "fake/a,fake/b", "--chair", "fake/chair", "--out-dir", str(run_dir), "--project", str(project)]
    for extra in (["--template", "essay", "--artifact", str(fifo)], ["--template", str(fifo), "--artifact", str(fifo)],
                  ["--pack", str(tmp_path / "pipe.json")]):
        if extra[0] == "--pack":
            os.mkfifo(tmp_path / "pipe.json")
        error = preflight_refused(capsys, [*base, *extra])
        assert error["code"] == "BAD_ARGS" and "a FIFO" in error["message"], error
    assert fake.requests == []


def test_a_missing_artifact_and_an_artifact_without_a_template(fake, design, run_dir, project, capsys):
    base = ["--models", "fake/a,fake/b", "--chair", "fake/chair", "--out-dir", str(run_dir), "--project", str(project)]
    assert "does not exist" in preflight_refused(capsys, [*base, "--template", "essay", "--artifact", "nope.md"])["message"]
    assert "--artifact needs --template" in preflight_refused(capsys, [*base, "--artifact", str(design)])["message"]
    assert "needs --artifact" in preflight_refused(capsys, [*base, "--template", "essay"])["message"]


def test_template_list_and_show_with_user_templates(config_dir, capsys):
    user = config_dir / "templates"
    user.mkdir()
    (user / "runbook.md").write_text('---\n{"title": "Runbook", "description": "an on-call runbook", "variables": '
                                     '{"service": {"description": "the service", "required": true}}}\n---\n'
                                     "Review the runbook for $service.\n\n$artifact\n", encoding="utf-8")
    (user / "essay.md").write_text('---\n{"title": "Mine", "description": "my essay template"}\n---\n$artifact\n', encoding="utf-8")
    (user / "broken.md").write_text("no front matter", encoding="utf-8")
    code, doc = cli_json(capsys, "council", "template", "list")
    assert code == 0 and schema_errors(doc, "council-templates") == []
    by = {(t["name"], t["source"]): t for t in doc["templates"]}
    assert by[("runbook", "user")]["variables"] == [{"name": "service", "required": True, "description": "the service"}]
    assert by[("essay", "builtin")]["shadowed"] is True and "shadowed" not in by[("essay", "user")]
    assert "no front matter" in by[("broken", "user")]["error"]
    assert {n for n, s in by if s == "builtin"} == {"design-doc", "pr-diff", "plan", "prd", "essay", "question"}
    code, shown = cli_json(capsys, "council", "template", "show", "essay")
    assert code == 0 and schema_errors(shown, "council-templates") == []
    assert (shown["source"], shown["title"]) == ("user", "Mine")  # the user's shadows the built-in
    assert cli_main(["council", "template", "show", "plan"]) == 0
    out = capsys.readouterr().out
    assert "goal (required)" in out and "--template plan --artifact FILE --var goal=…" in out


# --------------------------------------------------------------------------- packs


def test_a_run_from_a_saved_pack_with_one_flag_overriding_it(fake, design, run_dir, project, capsys):
    bench(fake)
    code, saved = cli_json(capsys, "council", "pack", "save", "design-review", "--models", "fake/a,fake/b",
                           "--chair", "fake/chair", "--template", "design-doc", "--var", "audience=SREs",
                           "--max-cost", "2", "--timeout", "7", "--description", "every design doc")
    assert code == 0 and schema_errors(saved, "council-packs") == []
    assert (saved["version"], saved["overwritten"]) == (1, False)
    assert schema_errors(saved["pack"], "council-pack") == []
    code, run = run_json(capsys, "--pack", "design-review", "--chair", "fake/c", "--artifact", str(design),
                         "--out-dir", str(run_dir), "--project", str(project))
    assert code == 0, run.get("degrades")
    assert check_documents(run_dir) == run
    assert run["chair"] == "fake/c"  # the typed flag wins
    assert run["bench"] == ["fake/a", "fake/b"] and run["options"]["timeout"] == 7 and run["options"]["maxCost"] == 2
    pack_file = Path(saved["path"])
    assert run["pack"] == {"name": "design-review", "version": 1, "hash": sha(pack_file), "source": "saved",
                           "path": str(pack_file)}
    assert run["template"]["name"] == "design-doc" and run["artifact"]["hash"] == sha(design)
    assert "SREs" in (run_dir / "briefing-stage1.md").read_text(encoding="utf-8")
    assert fake.prompts("chair") == []  # the pack's chair never ran


def test_pack_save_bumps_the_version_and_list_show_report_it(config_dir, capsys):
    assert cli_main(["council", "pack", "save", "ci", "--council", "budget", "--chair", "kimi"]) == 0
    assert "Saved pack 'ci' (version 1)" in capsys.readouterr().out
    code, again = cli_json(capsys, "council", "pack", "save", "ci", "--council", "budget", "--chair", "gemini", "--debate")
    assert (code, again["version"], again["overwritten"]) == (0, 2, True)
    (config_dir / "packs" / "junk.json").write_text("{", encoding="utf-8")
    code, listed = cli_json(capsys, "council", "pack", "list")
    assert code == 0 and schema_errors(listed, "council-packs") == []
    rows = {r["name"]: r for r in listed["packs"]}
    assert rows["ci"]["version"] == 2 and rows["ci"]["settings"] == ["chair", "council", "debate"]
    assert "is not valid JSON" in rows["junk"]["error"]
    code, shown = cli_json(capsys, "council", "pack", "show", "ci")
    assert code == 0 and schema_errors(shown, "council-packs") == []
    assert shown["pack"] == {"schemaVersion": 2, "type": "council-pack", "name": "ci", "version": 2,
                             "council": "budget", "chair": "gemini", "debate": True}


@pytest.mark.parametrize(("argv", "message"), [
    (["council", "pack", "save", "Bad Name", "--chair", "x"], "pack name 'Bad Name' is not allowed"),
    (["council", "pack", "save", "p"], "at least one setting"),
    (["council", "pack", "save", "p", "--template", "plan", "--var", "gaol=x"], "has no variable(s) gaol"),
    (["council", "pack", "save", "p", "--models", "a,b", "--max-cost", "-1"], "--max-cost must be a plain decimal"),
    (["council", "pack", "show", "nope"], "no saved pack 'nope'"),
])
def test_pack_mistakes_are_bad_args(config_dir, capsys, argv, message):
    assert cli_main([*argv, "--json"]) == 1
    error = json.loads(capsys.readouterr().out)["error"]
    assert error["code"] == "BAD_ARGS" and message in error["message"], error


def test_a_pack_file_in_the_repository_with_a_relative_template(fake, design, tmp_path, run_dir, project, capsys):
    bench(fake)
    repo = tmp_path / "repo" / ".github"
    repo.mkdir(parents=True)
    (repo / "review.md").write_text('---\n{"title": "Ours", "description": "our review", "variables": '
                                    '{"team": {"description": "the team", "required": true}}}\n---\n'
                                    "House rules for $team.\n\n$artifact\n", encoding="utf-8")
    pack = repo / "council-pack.json"
    pack.write_text(json.dumps({"schemaVersion": 2, "type": "council-pack", "name": "house", "version": 3,
                                "models": ["fake/a", "fake/b"], "chair": "fake/chair", "template": "review.md",
                                "vars": {"team": "payments"}, "debate": True}), encoding="utf-8")
    code, run = run_json(capsys, "--pack", str(pack), "--no-debate", "--var", "team=ledger", "--artifact", str(design),
                         "--out-dir", str(run_dir), "--project", str(project))
    assert code == 0, run
    assert check_documents(run_dir) == run
    assert run["pack"]["source"] == "file" and run["pack"]["version"] == 3 and run["pack"]["hash"] == sha(pack)
    assert run["template"] == {"name": "review", "source": "file", "hash": sha(repo / "review.md"),
                               "path": str((repo / "review.md").resolve()), "vars": {"team": "ledger"}}
    assert "debate" not in run  # --no-debate overrides the pack's debate: true
    assert "House rules for ledger." in (run_dir / "briefing-stage1.md").read_text(encoding="utf-8")


def test_a_preflight_error_about_a_pack_value_says_so(fake, design, run_dir, project, capsys, tmp_path):
    bench(fake)
    pack = tmp_path / "p.json"
    pack.write_text(json.dumps({"schemaVersion": 2, "type": "council-pack", "name": "clash", "version": 1,
                                "models": ["fake/a", "fake/b"], "chair": "fake/a"}), encoding="utf-8")
    base = ["--prompt-file", str(design), "--out-dir", str(run_dir), "--project", str(project)]
    error = preflight_refused(capsys, ["--pack", str(pack), *base])
    assert error["message"] == "the chair 'fake/a' is also a bench seat (set by pack 'clash')"
    # the same mistake typed by hand is not blamed on the pack
    partly = preflight_refused(capsys, ["--pack", str(pack), "--chair", "fake/b", *base])
    assert partly["message"] == "the chair 'fake/b' is also a bench seat (bench set by pack 'clash')"
    typed = preflight_refused(capsys, ["--pack", str(pack), "--models", "fake/a,fake/c", "--chair", "fake/c", *base])
    assert typed["message"] == "the chair 'fake/c' is also a bench seat"
    assert fake.requests == []
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"schemaVersion": 2, "type": "council-pack", "name": "x", "chiar": "y"}), encoding="utf-8")
    assert "chiar" in preflight_refused(capsys, ["--pack", str(bad), *base])["message"]


def test_the_worker_reads_the_template_and_the_pack_back_from_options_json(tmp_path, monkeypatch):
    from amicus_mcp.engine.briefing_inputs import apply_pack
    from amicus_mcp.engine.options import read_options, write_options

    monkeypatch.chdir(tmp_path)
    record = {"name": "ci", "version": 1, "hash": "h", "source": "saved", "path": str(tmp_path / "p.json")}
    options = RunOptions(models=["a", "b"], template="design-doc", artifact="d.md", vars={"audience": "x y"},
                         pack="ci", timeout_min=5.0, debate=False, pack_record=record)
    write_options(tmp_path, options)
    back = read_options(tmp_path)
    assert (back.template, back.artifact, back.vars) == ("design-doc", str(tmp_path / "d.md"), {"audience": "x y"})
    assert (back.pack, back.pack_record, back.debate, back.timeout_min) == ("ci", record, False, 5.0)
    assert apply_pack(back) == back  # the pack's defaults are already in: it is never read again


# --------------------------------------------------------------------------- the gate on a real run


def test_the_gate_on_a_finished_run(fake, design, run_dir, project, capsys):
    bench(fake, blocker=True)  # one blocker, Confirmed by the bench; the chair says "Fix these first"
    code, run = run_json(capsys, "--models", "fake/a,fake/b,fake/c", "--chair", "fake/chair", "--template", "design-doc",
                         "--artifact", str(design), "--out-dir", str(run_dir), "--project", str(project))
    assert code == 0 and run["overallVerdict"] == "Fix these first"
    assert [(f["severity"], f["tier"]) for f in load(run_dir, "verdict.json")["findings"] if f["severity"] == "blocker"] == [("blocker", "Confirmed")]
    expected = {"never": 0, "fundamental-rethink": 0, "fix-these-first": 4, "disputed-blocker": 4, "confirmed-blocker": 4}
    for level, exit_code in expected.items():
        assert cli_main(["council", "gate", str(run_dir), "--fail-on", level]) == exit_code, level
        line = capsys.readouterr().out
        assert line.count("\n") == 1 and line.startswith("gate passes" if exit_code == 0 else "gate fails")
    code, doc = cli_json(capsys, "council", "gate", str(run_dir / "verdict.json"), "--fail-on", "fix-these-first")
    assert code == 4 and schema_errors(doc, "council-gate") == [] and doc["source"] == str(run_dir / "verdict.json")


def test_the_gate_on_a_run_without_a_chair_verdict(fake, design, run_dir, project, capsys):
    bench(fake)
    member(fake, "chair", chair=chat("Synthesis with no verdict line."), chair_repair=chat("still none"))
    code, run = run_json(capsys, "--models", "fake/a,fake/b", "--chair", "fake/chair", "--template", "essay",
                         "--artifact", str(design), "--out-dir", str(run_dir), "--project", str(project))
    assert code == 2 and run["overallVerdict"] is None
    assert cli_main(["council", "gate", str(run_dir), "--fail-on", "fundamental-rethink"]) == 4
    assert "no chair verdict" in capsys.readouterr().out
    assert cli_main(["council", "gate", str(run_dir), "--fail-on", "fundamental-rethink", "--allow-no-verdict"]) == 0
    assert cli_main(["council", "gate", str(run_dir), "--fail-on", "confirmed-blocker"]) == 0


def test_the_gate_on_a_run_that_failed_is_an_error(tmp_path, capsys):
    run_dir = tmp_path / "council-x"
    run_dir.mkdir()
    (run_dir / "run.json").write_text(json.dumps({"status": "error", "error": {"code": "COUNCIL_QUORUM", "message": "only 1"}}))
    assert cli_main(["council", "gate", str(run_dir), "--fail-on", "never", "--json"]) == 1
    error = json.loads(capsys.readouterr().out)["error"]
    assert error["code"] == "BAD_ARGS" and "COUNCIL_QUORUM" in error["message"]


def test_apply_pack_fills_only_what_was_not_typed(tmp_path, config_dir):
    from amicus_mcp.engine.briefing_inputs import apply_pack

    pack = tmp_path / "p.json"
    pack.write_text(json.dumps({"schemaVersion": 2, "type": "council-pack", "name": "p", "version": 1,
                                "council": "budget", "chair": "kimi", "lenses": ["x", "y", "z"], "debate": True,
                                "template": "design-doc", "vars": {"audience": "SREs", "focus": "latency"},
                                "maxCost": 2, "timeout": 7, "gateway": "openrouter"}), encoding="utf-8")
    filled = apply_pack(RunOptions(pack=str(pack), chair="gemini", debate=False, vars={"focus": "cost"}))
    assert (filled.council, filled.models, filled.chair, filled.debate) == ("budget", None, "gemini", False)
    assert (filled.lenses, filled.max_cost, filled.timeout_min, filled.gateway) == (["x", "y", "z"], 2.0, 7.0, "openrouter")
    assert filled.template == "design-doc" and filled.vars == {"audience": "SREs", "focus": "cost"}
    assert set(filled.pack_fields) == {"bench", "lenses", "max_cost", "timeout_min", "gateway", "template", "vars"}
    assert filled.pack_record["source"] == "file" and filled.pack_record["hash"] == sha(pack)
    assert apply_pack(filled) is filled  # idempotent
    # typing the bench replaces the pack's bench whole; another template drops the pack's vars
    other = apply_pack(RunOptions(pack=str(pack), models=["a", "b"], template="essay"))
    assert (other.models, other.council, other.template, other.vars) == (["a", "b"], None, "essay", None)
    assert "bench" not in other.pack_fields and "vars" not in other.pack_fields
    # a prompt file is the whole briefing: the pack's template and vars do not apply
    prompt = apply_pack(RunOptions(pack=str(pack), prompt_file="b.md"))
    assert (prompt.template, prompt.vars) == (None, None)
