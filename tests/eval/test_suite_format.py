"""The suite format: the shipped suite's size and validity, and bad suite input refused — each
problem a clear error naming the file and the field, before anything is sent."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from eval_helpers import eval_argv, run_cli

from amicus_mcp.eval.documents import DOCUMENTS, schema_document
from amicus_mcp.eval.suite import artifact_lines, load_suite, shipped_suite_path
from amicus_mcp.schemas import load_schema, schema_errors


def test_the_shipped_suite_is_big_enough_and_every_case_is_valid() -> None:
    suite = load_suite()
    flawed = [c for c in suite.cases if not c.clean]
    kinds = {c.doc.kind for c in suite.cases}
    assert len(flawed) >= 12 and len(suite.cases) - len(flawed) >= 2
    assert sum(len(c.doc.plantedFlaws) for c in flawed) >= 30
    assert len(kinds) >= 5
    # The figures of the closing note.
    assert (len(suite.cases), len(flawed), sum(len(c.doc.plantedFlaws) for c in flawed), len(kinds)) == (16, 13, 70, 7)
    assert kinds == {"code-diff", "design-note", "api-spec", "sql-migration", "infra-config", "pricing-page", "policy-page"}
    for case in suite.cases:
        raw = json.loads((suite.path / "cases" / case.id / "case.json").read_text(encoding="utf-8"))
        assert schema_errors(raw, "eval-case") == [], case.id
        classes = {f.flaw_class for f in case.doc.plantedFlaws}
        assert classes <= {"correctness", "security", "concurrency", "resource", "resilience", "consistency", "capacity",
                           "availability", "performance", "compatibility", "reliability", "operability", "compliance"}
        for flaw in case.doc.plantedFlaws:  # every flaw's quote sits on its lines (checked at load, shown here)
            lines = artifact_lines(case.artifact_text)
            text = "\n".join(lines[a - 1:b][0] if a == b else "\n".join(lines[a - 1:b]) for a, b in flaw.location.ranges())
            assert flaw.location.quote is None or flaw.location.quote in text
    assert schema_errors(json.loads((suite.path / "suite.json").read_text(encoding="utf-8")), "eval-suite") == []


def test_the_shipped_schemas_are_the_models_schemas() -> None:
    for name in DOCUMENTS:
        assert load_schema(name) == schema_document(name), f"regenerate: python -m amicus_mcp.contracts --write ({name})"


# --------------------------------------------------------------------------- bad input

def suite_copy(tmp_path: Path, case: str = "rate-limiter-diff") -> tuple[Path, Path, dict[str, Any]]:
    """A one-case copy of the shipped suite; (suite folder, that case's case.json, its document)."""
    root = tmp_path / "suite"
    shutil.copytree(shipped_suite_path(), root, ignore=shutil.ignore_patterns("README.md"))
    for folder in (root / "cases").iterdir():
        if folder.name != case:
            shutil.rmtree(folder)
    path = root / "cases" / case / "case.json"
    return root, path, json.loads(path.read_text(encoding="utf-8"))


def refused(tmp_path: Path, suite: Path, fake, capsys) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    code, out = run_cli(eval_argv(tmp_path / "ev", project, "--suite", str(suite), "--json"))
    envelope = json.loads(out)
    assert code == 1 and schema_errors(envelope, "error") == []
    assert fake.chat_requests() == [], "something was sent before the suite was checked"
    assert not (tmp_path / "ev").exists() and not (project / ".claude").exists()
    return envelope["error"]


def edit(path: Path, doc: dict[str, Any]) -> None:
    path.write_text(json.dumps(doc), encoding="utf-8")


@pytest.mark.parametrize("change, field, words", [
    (lambda d: d.pop("expectedVerdict"), "expectedVerdict", "this field is required"),
    (lambda d: d["plantedFlaws"][1].pop("severity"), "plantedFlaws[1].severity", "this field is required"),
    (lambda d: d["plantedFlaws"][0].update(severity="huge"), "plantedFlaws[0].severity", "blocker"),
    (lambda d: d["plantedFlaws"][2]["location"].update(lines=[60, 99]), "plantedFlaws[2].location.lines",
     "past the end of the artifact"),
    (lambda d: d["plantedFlaws"][2]["location"].update(lines=[[1, 2], [180, 181]]), "plantedFlaws[2].location.lines",
     "line 181 is past the end"),
    (lambda d: d["plantedFlaws"][0]["location"].update(lines=[30, 26]), "plantedFlaws[0].location.lines", "ends before"),
    (lambda d: d["plantedFlaws"][0]["location"].update(lines=[1, 5]), "plantedFlaws[0].location.quote",
     "is not on the lines given"),
    (lambda d: d["plantedFlaws"][3].update(id="F1"), "plantedFlaws[3].id", "duplicate flaw id 'F1'"),
    (lambda d: d["plantedFlaws"][0]["location"].update(anchors=["nowhere_in_it"]), "plantedFlaws[0].location.anchors[0]",
     "does not appear in the artifact"),
    (lambda d: d.update(surprise=1), "surprise", "unknown field"),
    (lambda d: d.update(id="another-id"), "id", "does not match its folder"),
    (lambda d: d.update(artifact="missing.diff"), "artifact", "is missing"),
    (lambda d: d.update(plantedFlaws=[]), "expectedVerdict", "a clean case"),
], ids=["missing-field", "missing-flaw-field", "bad-severity", "lines-past-the-end", "second-range-past-the-end",
        "backwards-range", "quote-elsewhere", "duplicate-id", "anchor-not-in-artifact", "unknown-field", "id-vs-folder",
        "artifact-missing", "clean-but-expects-a-fix"])
def test_bad_case_input_is_refused_naming_file_and_field(tmp_path: Path, fake, capsys, change, field: str,
                                                          words: str) -> None:
    suite, path, doc = suite_copy(tmp_path)
    change(doc)
    edit(path, doc)
    error = refused(tmp_path, suite, fake, capsys)
    assert f"{path}: {field}" in error["message"], error["message"]
    assert words in error["message"], error["message"]
    assert error["code"] == "BAD_ARGS" and error["hint"]


def test_bad_suite_files_are_refused(tmp_path: Path, fake, capsys) -> None:
    suite, path, _ = suite_copy(tmp_path)
    path.write_text("{not json", encoding="utf-8")
    assert "not a JSON document" in refused(tmp_path, suite, fake, capsys)["message"]
    path.unlink()
    assert f"{path}: the file is missing" in refused(tmp_path, suite, fake, capsys)["message"]
    (suite / "suite.json").write_text(json.dumps({"schemaVersion": 2, "type": "eval-suite", "name": "Bad Name",
                                                  "version": 1}), encoding="utf-8")
    message = refused(tmp_path, suite, fake, capsys)["message"]
    assert f"{suite / 'suite.json'}: name" in message
    assert "is not a folder" in refused(tmp_path, tmp_path / "nowhere", fake, capsys)["message"]


def test_a_binary_artifact_is_refused(tmp_path: Path, fake, capsys) -> None:
    suite, path, doc = suite_copy(tmp_path)
    (path.parent / doc["artifact"]).write_bytes(b"\x00\x01binary")
    message = refused(tmp_path, suite, fake, capsys)["message"]
    assert f"{path}: artifact" in message and "binary" in message


def test_flags_that_are_a_case_s_own_are_refused(tmp_path: Path, fake, capsys) -> None:
    project = tmp_path / "project"
    project.mkdir()
    for extra, flag in ((["--template", "pr-diff"], "--template"), (["--var", "a=b"], "--var")):
        code, out = run_cli(eval_argv(tmp_path / "ev", project, *extra, "--json"))
        error = json.loads(out)["error"]
        assert code == 1 and error["message"].startswith(f"{flag} does not apply to an eval")
    code, out = run_cli(["eval", "run", "--models", "fake/a,fake/b", "--chair", "fake/chair", "--json"])
    assert code == 1 and "--matcher" in json.loads(out)["error"]["message"]
    code, out = run_cli(eval_argv(tmp_path / "ev", project, "--case", "no-such-case", "--json"))
    assert code == 1 and "--case no-such-case: no such case" in json.loads(out)["error"]["message"]
    assert fake.chat_requests() == []


# --------------------------------------------------------------------------- every problem at once

def test_every_problem_of_a_suite_is_reported_at_once(tmp_path: Path, fake, capsys) -> None:
    suite, path, doc = suite_copy(tmp_path)
    shutil.copytree(shipped_suite_path() / "cases" / "worker-cronjob-config", suite / "cases" / "worker-cronjob-config")
    doc.pop("expectedVerdict")
    doc["plantedFlaws"][0]["location"].update(lines=[30, 26])
    doc["plantedFlaws"][3].update(id="F1")
    edit(path, doc)
    other = suite / "cases" / "worker-cronjob-config" / "case.json"
    other_doc = json.loads(other.read_text(encoding="utf-8"))
    other_doc.update(surprise=1)
    edit(other, other_doc)
    error = refused(tmp_path, suite, fake, capsys)
    message = error["message"]
    assert message.startswith("the suite has 2 problems"), message  # the schema's, then the other case's
    assert f"{path}: expectedVerdict: this field is required" in message
    assert f"{other}: surprise: unknown field" in message
    # A case whose document parses has all of its own problems listed.
    doc["expectedVerdict"] = "Fix these first"
    edit(path, doc)
    message = refused(tmp_path, suite, fake, capsys)["message"]
    assert f"{path}: plantedFlaws[0].location.lines: range 30-26 ends before" in message
    assert f"{path}: plantedFlaws[3].id: duplicate flaw id 'F1'" in message
    assert f"{other}: surprise: unknown field" in message and message.startswith("the suite has 3 problems")


def test_the_format_hint_names_a_readme_that_exists(tmp_path: Path, fake, capsys) -> None:
    suite, path, doc = suite_copy(tmp_path)
    doc.update(surprise=1)
    edit(path, doc)
    hint = refused(tmp_path, suite, fake, capsys)["hint"]
    readme = shipped_suite_path() / "README.md"
    assert str(readme) in hint and readme.is_file()
    assert "the suite's README" not in hint


# --------------------------------------------------------------------------- links out of the suite

def outside_file(tmp_path: Path) -> Path:
    secret = tmp_path / "elsewhere" / "passwd"
    secret.parent.mkdir()
    secret.write_text("".join(f"outsider{n}:x:{n}:{n}::/home/outsider{n}:/bin/sh\n" for n in range(40)), encoding="utf-8")
    return secret


def test_an_artifact_linked_out_of_the_suite_is_refused_and_never_sent(tmp_path: Path, fake, capsys) -> None:
    suite, path, doc = suite_copy(tmp_path)
    artifact = path.parent / doc["artifact"]
    artifact.unlink()
    artifact.symlink_to(outside_file(tmp_path))
    error = refused(tmp_path, suite, fake, capsys)  # nothing sent, nothing written
    assert error["code"] == "BAD_ARGS"
    assert f"'{doc['artifact']}' is a link that leaves the suite's folder" in error["message"]
    assert str(tmp_path / "elsewhere" / "passwd") in error["message"] and "copy the file" in error["hint"]
    assert "outsider" not in json.dumps(error)
    # The same for /etc/passwd itself, and for case.json.
    artifact.unlink()
    artifact.symlink_to("/etc/passwd")
    assert "/etc/passwd" in refused(tmp_path, suite, fake, capsys)["message"]
    artifact.unlink()
    artifact.write_text((shipped_suite_path() / "cases" / "rate-limiter-diff" / doc["artifact"]).read_text(encoding="utf-8"),
                        encoding="utf-8")
    moved = tmp_path / "elsewhere" / "case.json"
    path.rename(moved)
    path.symlink_to(moved)
    assert "'case.json' is a link that leaves the suite's folder" in refused(tmp_path, suite, fake, capsys)["message"]


def test_a_case_folder_or_cases_linked_out_of_the_suite_is_not_walked(tmp_path: Path, fake, capsys) -> None:
    suite, _, _ = suite_copy(tmp_path)
    (suite / "cases" / "etc").symlink_to("/etc")
    message = refused(tmp_path, suite, fake, capsys)["message"]
    assert f"{suite / 'cases' / 'etc'}: a link that leaves the suite's folder (to /etc)" in message
    shutil.rmtree(suite / "cases")
    (suite / "cases").symlink_to("/etc")
    message = refused(tmp_path, suite, fake, capsys)["message"]
    assert f"{suite / 'cases'}: a link that leaves the suite's folder" in message and "/etc/" not in message


def test_a_link_inside_the_suite_is_read(tmp_path: Path, fake, capsys) -> None:
    from amicus_mcp.eval.suite import load_suite

    suite, path, doc = suite_copy(tmp_path)
    artifact = path.parent / doc["artifact"]
    shared = suite / "shared.diff"
    artifact.rename(shared)
    artifact.symlink_to(shared)
    assert load_suite(suite).cases[0].artifact_text == shared.read_text(encoding="utf-8")


def test_a_case_with_a_secret_is_refused_naming_the_case(tmp_path: Path, fake, capsys) -> None:
    suite, path, doc = suite_copy(tmp_path)
    artifact = path.parent / doc["artifact"]
    artifact.write_text(artifact.read_text(encoding="utf-8") + "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n",
                        encoding="utf-8")
    error = refused(tmp_path, suite, fake, capsys)
    assert error["code"] == "SECRET_IN_MATERIAL" and "case 'rate-limiter-diff'" in error["message"]


def test_eval_run_help_offers_only_what_an_eval_takes(capsys) -> None:
    from amicus_mcp.cli import main as cli_main

    try:
        cli_main(["eval", "run", "--help"])
    except SystemExit:
        pass
    text = " ".join(capsys.readouterr().out.split())
    assert "--max-cost MAX_COST the whole suite's ceiling on known spend, USD: the cases' councils share it evenly" in text
    for flag in ("--intent", "--template", "--var"):  # a case brings its own briefing: never offered
        assert flag not in text, flag
    from amicus_mcp.mcp.published import built_schemas  # the MCP argument says the same

    schema = built_schemas()["amicus_eval"]["inputSchema"]["properties"]
    assert schema["maxCost"]["description"].startswith("The whole suite's ceiling on known spend, USD: the cases' "
                                                       "councils share it evenly")
    assert not {"intent", "template", "vars"} & set(schema)



@pytest.mark.parametrize("text, words", [
    ("[" * 50_000 + "]" * 50_000, "nested"),  # deeper than Python's parser recurses: a crash, unless refused
    ('{"schemaVersion": NaN}', "NaN"),
    ('{"schemaVersion": ' + "9" * 5000 + "}", "out of range"),
], ids=["too-deep", "nan", "huge-number"])
def test_a_suite_or_case_file_that_is_not_strict_json_is_refused(tmp_path: Path, fake, capsys, text: str,
                                                                   words: str) -> None:
    """Suite and case files are read as every input document is (fsio.loads_json): a nest too deep,
    NaN or a number out of range is a BAD_ARGS naming the file, never a crash."""
    suite, path, _ = suite_copy(tmp_path)
    for target in (path, suite / "suite.json"):
        original = target.read_text(encoding="utf-8")
        target.write_text(text, encoding="utf-8")
        error = refused(tmp_path, suite, fake, capsys)
        assert error["code"] == "BAD_ARGS" and str(target) in error["message"] and words in error["message"], error
        target.write_text(original, encoding="utf-8")
