"""Issue 29: one generated contract. Every generated file (the generated schemas, the tools'
published schemas, the bundle's manifest, the registry's entry) is what its declaration renders,
behind one command, `python -m amicus_mcp.contracts --check / --write`; CI runs `--check`, and
this test runs it too, so the README's test command catches a stale file."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from test_layers import import_graph

from amicus_mcp import contracts
from amicus_mcp.mcp import bundle, registry

REPO = Path(__file__).resolve().parents[1]


def test_every_generated_file_is_what_its_declaration_renders() -> None:
    stale = [contracts.where(contract.path) for contract, _ in contracts.stale()]
    assert stale == [], f"stale: {', '.join(stale)}: run {contracts.COMMAND}"


def test_it_covers_every_generated_file() -> None:
    paths = {contracts.where(contract.path) for contract in contracts.contracts()}
    assert {"manifest.json", "server.json", "src/amicus_mcp/mcp/published.json",
            "src/amicus_mcp/schemas/eval.schema.json", "src/amicus_mcp/schemas/eval-ledger-row.schema.json",
            "src/amicus_mcp/schemas/council-run-options.schema.json", "src/amicus_mcp/schemas/wave-options.schema.json",
            "src/amicus_mcp/schemas/council-pack.schema.json", "docs/mcp.md"} <= paths
    # The CLI commands' documents, the error envelope, the tally's input and validate's check.
    assert {f"src/amicus_mcp/schemas/{name}.schema.json" for name in (
        "council-tally-input", "council-validate", "council-presets", "council-packs", "council-templates",
        "cost-estimate", "doctor", "error", "keys")} <= paths
    council = ["council-verdict", "council-ledger-row", "council-stats", "council-gate", "council-debate",
               "council-rereview", "council-dismissed", "council-decisions", "council-pr-review", "council-run", "run",
               "council-leg"]
    assert {f"src/amicus_mcp/schemas/{name}.schema.json" for name in council} <= paths
    assert "src/amicus_mcp/schemas/council-tally.schema.json" not in paths  # the seed's file: held by a test, not made


def test_check_names_each_stale_file_and_the_command_and_write_fixes_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    manifest, server = tmp_path / "manifest.json", tmp_path / "server.json"
    manifest.write_text(bundle.render().replace('"amicus-mcp"', '"someone-else"'), encoding="utf-8")
    monkeypatch.setattr(bundle, "MANIFEST", manifest)
    monkeypatch.setattr(registry, "SERVER_JSON", server)  # missing: stale too
    assert contracts.main(["--check"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err == [f"{manifest} is stale: run python -m amicus_mcp.contracts --write",
                   f"{server} is stale: run python -m amicus_mcp.contracts --write"]
    assert contracts.main(["--write"]) == 0
    assert capsys.readouterr().out.splitlines() == [f"wrote {manifest}", f"wrote {server}"]
    assert manifest.read_text(encoding="utf-8") == bundle.render()
    assert server.read_text(encoding="utf-8") == registry.render()
    assert contracts.main(["--check"]) == 0 and capsys.readouterr().err == ""
    assert not [p for p in tmp_path.iterdir() if p.name not in ("manifest.json", "server.json")]  # no temp file left


def test_the_command_line() -> None:
    done = subprocess.run([sys.executable, "-m", "amicus_mcp.contracts", "--check"], capture_output=True, text=True,
                          cwd=REPO, timeout=120)
    assert (done.returncode, done.stderr) == (0, "")
    done = subprocess.run([sys.executable, "-m", "amicus_mcp.contracts", "--frobnicate"], capture_output=True,
                          text=True, cwd=REPO, timeout=60)
    assert done.returncode == 2 and "usage: python -m amicus_mcp.contracts --check | --write" in done.stderr


def test_nothing_imports_the_generator() -> None:
    """The CLI and the MCP server never load it: start-up pays nothing for it."""
    importers = sorted(m for m, edges in import_graph().items() if "amicus_mcp.contracts" in edges)
    assert importers == []


def test_a_new_option_reaches_the_options_schema_with_no_other_change() -> None:
    """options.json's schema is the options model's: an option added to the model is in it."""
    from typing import Annotated, Literal

    from pydantic import Field

    from amicus_mcp.engine.options import Option, RunOptions

    class Grown(RunOptions):
        rounds: Annotated[Annotated[int, Field(ge=1)] | None, Option(doc="how many rounds", when_set=True)] = None
        mode: Annotated[Literal["a", "b"] | None, Option(doc="a or b")] = None

    schema = contracts.options_schema("council-run-options", Grown, "t", "d")
    assert schema["properties"]["rounds"] == {"type": "integer", "minimum": 1, "description": "how many rounds"}
    assert schema["properties"]["mode"] == {"enum": ["a", "b", None], "description": "a or b"}
    assert schema["properties"]["ledger"]["const"] is False  # emit-when-set: only its other value is written
    assert schema["properties"]["intent"]["enum"] == ["question", "task"]  # a review's is never written
    assert "outDir" not in schema["properties"] and "runId" not in schema["properties"]  # identity: run.json's
    assert schema["required"] == ["schemaVersion", "type"] and schema["additionalProperties"] is False


def test_a_type_the_house_style_cannot_spell_is_an_error() -> None:
    with pytest.raises(TypeError, match="no house-style schema"):
        contracts.type_schema(bytes)
    with pytest.raises(TypeError, match="no house-style schema"):
        contracts.type_schema(int | tuple[int, int])
    # A union of shapes is any of them, null joining the first (the tally input's ranking slots).
    assert contracts.type_schema(str | None | list[str | None]) == {
        "anyOf": [{"type": ["string", "null"]}, {"type": "array", "items": {"type": ["string", "null"]}}]}
    assert contracts.type_schema(dict[str, object] | None) == {"type": ["object", "null"]}  # open JSON
    assert contracts.type_schema(list[str] | None, dropped=(None,)) == {"type": "array", "items": {"type": "string"}}


def test_a_typeddict_declaration_becomes_its_schema() -> None:
    """session-list.schema.json is documents/sessions.py's: NotRequired keys are optional, a
    Field's description is the key's, a word set from vocabulary.py is its enum."""
    from amicus_mcp.documents.sessions import SessionRow
    from amicus_mcp.vocabulary import AnsweringIntent, ChairLine

    schema = contracts.type_schema(SessionRow)
    assert schema["required"] == ["id", "type", "status", "createdAt", "models", "cost"]
    assert schema["properties"]["overallVerdict"]["enum"] == [*typing_args(ChairLine), None]
    cases = schema["properties"]["cases"]
    assert (cases["type"], cases["minimum"]) == ("integer", 0) and cases["description"].startswith("an eval's cases")
    # A task council's row carries its intent too (the declaration said only "question": mypy caught it).
    assert schema["properties"]["intent"]["enum"] == list(typing_args(AnsweringIntent))


def typing_args(literal: object) -> list[object]:
    import typing

    return [w for part in typing.get_args(literal) for w in (typing.get_args(part) or (part,))]


# --------------------------------------------------------------------------- the files a change touches
# Issue 29's count, reproduced: the change is made in a copy of the checkout, and `--check` there
# names what it makes stale (regenerated by `--write`); what a hand must still edit is whatever
# a holding test then finds wrong, checked here the way that test checks it.

def checkout_copy(tmp_path: Path) -> Path:
    """What `contracts` reads and writes, copied: the package, the docs' prose, the root files."""
    import shutil

    copy = tmp_path / "repo"
    shutil.copytree(REPO / "src" / "amicus_mcp", copy / "src" / "amicus_mcp",
                    ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "manifest.json", "server.json", *contracts.PROSE_FILES):
        (copy / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(REPO / name, copy / name)
    return copy


def contracts_in(copy: Path, flag: str) -> subprocess.CompletedProcess[str]:
    import os

    env = {**os.environ, "PYTHONPATH": str(copy / "src")}  # before the editable install's path
    return subprocess.run([sys.executable, "-m", "amicus_mcp.contracts", flag], capture_output=True, text=True,
                          cwd=copy, env=env, timeout=300)


def edit(path: Path, *replacements: tuple[str, str]) -> None:
    """Each (old, new) once in the file at `path`: a change made by hand, as a developer would."""
    text = path.read_text(encoding="utf-8")
    for old, new in replacements:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    path.write_text(text, encoding="utf-8")


def stale_in(copy: Path) -> set[str]:
    done = contracts_in(copy, "--check")
    return {line.split(" is stale: ")[0] for line in done.stderr.splitlines() if " is stale: " in line}


def test_a_new_run_option_is_one_declaration_by_hand(tmp_path: Path) -> None:
    """A run option with a flag, a tool argument and a pack key: one field in engine/options.py
    (plus the code that reads it). Its schemas, the tools' published schemas and docs/mcp.md's
    run options' table are regenerated; the docs' tool table needs no hand edit (before the
    table was generated, docs/mcp.md was a second file edited by hand)."""
    import json

    from docs_tables import run_option_arguments, table_rows

    copy = checkout_copy(tmp_path)
    assert stale_in(copy) == set()
    anchor = "    debate: Annotated[bool | None, Option("
    edit(copy / "src" / "amicus_mcp" / "engine" / "options.py", (anchor, (
        '    rounds: Annotated[bool | None, Option(flag=Flag("--rounds", "more rounds"),\n'
        '        arg=Arg("rounds", "Rounds", "More rounds"), pack="rounds")] = None\n') + anchor))

    assert {"src/amicus_mcp/schemas/council-run-options.schema.json", "src/amicus_mcp/schemas/council-pack.schema.json",
            "src/amicus_mcp/mcp/published.json", "docs/mcp.md"} <= stale_in(copy)  # each regenerated, none by hand
    assert contracts_in(copy, "--write").returncode == 0 and stale_in(copy) == set()
    published = json.loads((copy / "src" / "amicus_mcp" / "mcp" / "published.json").read_text(encoding="utf-8"))
    docs = (copy / "docs" / "mcp.md").read_text(encoding="utf-8")
    listed = run_option_arguments(docs)
    for row in table_rows(docs, "| tool | inputs | returns |"):  # test_docs_match_server's rule, in the copy
        tool = row[0].strip("`")
        mentioned = set(re.findall(r"`([A-Za-z]+)\??`", row[1])) | listed.get(tool, set())
        assert set(published[tool]["inputSchema"].get("properties", {})) <= mentioned, tool
    assert "rounds" in listed["amicus_council_run"] and "rounds" in listed["amicus_eval"]


def test_a_new_verdict_is_its_words_in_the_vocabulary_by_hand(tmp_path: Path) -> None:
    """A verdict on the review scale: vocabulary.py by hand (the phrase, what it means for the
    chair's brief, its tone for the chips) and nothing else. The schemas naming the scale, the
    tools' schemas, the workspace's chip colours (app.css), the skill's copy of the chair's brief
    and the prose naming the scale (README, the skill, the planted suite's README) are regenerated
    (issue 29's count: 9 files, 5 by hand, before)."""
    import json

    copy = checkout_copy(tmp_path)
    edit(copy / "src" / "amicus_mcp" / "vocabulary.py",
         ('OverallVerdict = Literal["Ship it", ', 'OverallVerdict = Literal["Ship it", "Ship with notes", '),
         ('    "Ship it": "solid, nothing blocking.",\n', '    "Ship it": "solid, nothing blocking.",\n'
                                                     '    "Ship with notes": "nothing blocking; the notes say what to do next.",\n'),
         ('"Ship it": "good", ', '"Ship it": "good", "Ship with notes": "good", '))

    regenerated = stale_in(copy)
    assert {"src/amicus_mcp/mcp/published.json", "src/amicus_mcp/schemas/session-list.schema.json",
            "src/amicus_mcp/schemas/council-verdict.schema.json", "src/amicus_mcp/schemas/council-gate.schema.json",
            "src/amicus_mcp/schemas/council-run.schema.json", "src/amicus_mcp/workspace/static/app.css",
            "src/amicus_mcp/eval/suites/planted/README.md", "README.md", "skills/second-opinion/SKILL.md",
            "skills/second-opinion/COUNCIL-DESIGN.md", "skills/second-opinion/SEAT-BRIEFS.md"} <= regenerated
    assert contracts_in(copy, "--write").returncode == 0 and stale_in(copy) == set()
    skill = (copy / "skills" / "second-opinion" / "SKILL.md").read_text(encoding="utf-8")
    briefs = (copy / "skills" / "second-opinion" / "SEAT-BRIEFS.md").read_text(encoding="utf-8")
    assert "`VERDICT: Ship with notes`" in skill and '"Ship with notes": nothing blocking; the notes' in briefs
    package = copy / "src" / "amicus_mcp"
    css = (package / "workspace" / "static" / "app.css").read_text(encoding="utf-8")
    assert ".chip.verdict-ship-it, .chip.verdict-ship-with-notes, .chip.verdict-converged { background: var(--verdict-good); }" in css
    assert "`Ship it`, `Ship with notes`, `Fix these first`" in (package / "eval" / "suites" / "planted" / "README.md").read_text(
        encoding="utf-8")

    # Nothing is left for a hand: no shipped schema has a word list with "Ship it" but not the new verdict.
    def old_scale(node: object) -> bool:
        if isinstance(node, list):
            return ("Ship it" in node and "Ship with notes" not in node) or any(old_scale(n) for n in node)
        return isinstance(node, dict) and any(old_scale(n) for n in node.values())

    assert [p.name for p in sorted((package / "schemas").glob("*.schema.json"))
            if old_scale(json.loads(p.read_text(encoding="utf-8")))] == []


def test_a_new_reported_run_field_is_its_declaration_by_hand(tmp_path: Path) -> None:
    """A run.json field the report shows: its field in documents/run.py, marked `Reported` (plus
    the code that sets it; tests/engine/test_reported_fields.py shows both renderers take it with
    no code of their own). council-run.schema.json is regenerated, carrying its description
    (before the schema was generated it was a second file by hand; issue 29's count: 5 before)."""
    import json

    copy = checkout_copy(tmp_path)
    anchor = "    pid: WhenSet[int] = None\n"
    edit(copy / "src" / "amicus_mcp" / "documents" / "run.py", (anchor, (
        '    reviewed_by: Annotated[WhenSet[str], Reported("Reviewed by"), Field(description=(\n'
        '        "Who the run was for (emitted when set)."))] = None\n') + anchor))

    assert "src/amicus_mcp/schemas/council-run.schema.json" in stale_in(copy)
    assert contracts_in(copy, "--write").returncode == 0 and stale_in(copy) == set()
    schema = json.loads((copy / "src" / "amicus_mcp" / "schemas" / "council-run.schema.json").read_text(encoding="utf-8"))
    assert schema["properties"]["reviewedBy"]["description"] == "Who the run was for (emitted when set)."
    assert "reviewedBy" not in schema.get("required", [])  # a run.json from before it stays valid
