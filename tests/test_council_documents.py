"""Issue 29: the council's own outputs are declared (documents/council.py) and held to their
contract — the tally record to the seed's council-tally schema, the rest to the shipped schemas —
and read back through one validating reader each, which keeps the document as it was written.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import TypeAdapter

from amicus_mcp.documents import council as docs
from amicus_mcp.errors import BadSession
from amicus_mcp.schemas import load_schema

ROOT = Path(__file__).resolve().parents[1]
SEED_TALLY = Path("/work/shared/seeds/002_983c26ae50630c38.txt")
WORKED = ROOT / "tests" / "fixtures" / "worked-example"

PAIRS = [(docs.TallyRecord, "council-tally"), (docs.Verdict, "council-verdict"), (docs.LedgerRow, "council-ledger-row"),
         (docs.Stats, "council-stats"), (docs.GateRecord, "council-gate"), (docs.DebateRecord, "council-debate")]
# Keys the tally record carries beyond the seed's schema (which leaves its findings open): the
# evidence a finding quotes and what --verify found of it, echoed from the tally input.
TALLY_EXTENSIONS = {".findings[]": {"evidence", "evidenceCheck", "evidenceLocation", "verification",
                                    "verificationLines", "verificationReason"}}


def _resolve(node: Any, root: dict[str, Any]) -> Any:
    while isinstance(node, dict) and "$ref" in node:
        target: Any = root
        for part in node["$ref"][2:].split("/"):
            target = target[part]
        node = target
    return node


def _object_of(node: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    """The object branch of a declaration's `X | None`."""
    for option in node.get("anyOf", []):
        option = _resolve(option, root)
        if option.get("type") == "object":
            return option
    return node


def _values(node: dict[str, Any], root: dict[str, Any]) -> set[Any] | None:
    """A node's const / enum values (None when it has neither), across a union's branches."""
    node = _resolve(node, root)
    if "const" in node:
        return {node["const"]}
    if "enum" in node:
        return set(node["enum"])
    if "anyOf" in node:
        found: set[Any] = set()
        for option in node["anyOf"]:
            option = _resolve(option, root)
            if option.get("type") == "null":
                found.add(None)
                continue
            values = _values(option, root)
            if values is None:
                return None
            found |= values
        return found
    return None


def _differences(decl: Any, schema: Any, droot: dict[str, Any], sroot: dict[str, Any], path: str = "") -> list[str]:
    decl, schema = _object_of(_resolve(decl, droot), droot), _resolve(schema, sroot)
    out: list[str] = []
    wanted = _values(schema, sroot)
    if wanted is not None and _values(decl, droot) != wanted:
        out.append(f"{path}: values {_values(decl, droot)} ≠ schema {wanted}")
    if "properties" in schema:
        declared = decl.get("properties", {})
        missing = set(schema["properties"]) - set(declared)
        extra = set(declared) - set(schema["properties"]) - TALLY_EXTENSIONS.get(path, set())
        if missing:
            out.append(f"{path}: not declared {sorted(missing)}")
        if extra and schema.get("additionalProperties") is False:
            out.append(f"{path}: declared beyond a closed schema {sorted(extra)}")
        elif extra:
            out.append(f"{path}: declared but not in the schema {sorted(extra)}")
        if set(schema.get("required", [])) != set(decl.get("required", [])):
            out.append(f"{path}: required {sorted(decl.get('required', []))} ≠ schema {sorted(schema.get('required', []))}")
        if schema.get("additionalProperties") is False and decl.get("additionalProperties") is not False:
            out.append(f"{path}: the schema is closed, the declaration open")
        for key, sub in schema["properties"].items():
            if key in declared:
                out += _differences(declared[key], sub, droot, sroot, f"{path}.{key}")
    items = schema.get("items")
    if isinstance(items, dict):
        decl_items = decl.get("items")
        if decl_items is None:
            out.append(f"{path}: the schema has items, the declaration none")
        else:
            out += _differences(decl_items, items, droot, sroot, f"{path}[]")
    return out


@pytest.mark.parametrize(("declaration", "name"), PAIRS, ids=[name for _, name in PAIRS])
def test_declaration_agrees_with_its_schema(declaration: type, name: str) -> None:
    declared = TypeAdapter(declaration).json_schema()
    schema = json.loads(SEED_TALLY.read_text(encoding="utf-8")) if name == "council-tally" and SEED_TALLY.is_file() \
        else load_schema(name)
    assert _differences(declared, schema, declared, schema) == []


def test_the_shipped_tally_schema_is_the_seeds() -> None:
    if not SEED_TALLY.is_file():
        pytest.skip("the seeds are not on this machine")
    assert load_schema("council-tally") == json.loads(SEED_TALLY.read_text(encoding="utf-8"))


_STATED = ("type", "const", "enum", "required", "additionalProperties", "minimum", "maximum", "minItems", "minLength",
           "pattern", "uniqueItems")


def _unstated(declared: dict[str, Any], schema: dict[str, Any], path: str = "") -> list[str]:
    """Every word the schema says of a key (its type, values, bounds, required keys, closedness)
    that the declaration, rendered as contracts renders a declaration, does not say the same."""
    def same(value: Any) -> Any:
        return sorted(map(repr, value)) if isinstance(value, list) else value

    out = [f"{path}.{word}: declared {declared.get(word)!r}, schema {schema[word]!r}" for word in _STATED
           if word in schema and not isinstance(schema[word], dict) and same(declared.get(word)) != same(schema[word])]
    for key, sub in schema.get("properties", {}).items():
        if key in declared.get("properties", {}):
            out += _unstated(declared["properties"][key], sub, f"{path}.{key}")
    for part, mark in (("items", "[]"), ("additionalProperties", "{}")):
        if isinstance(schema.get(part), dict):
            out += _unstated(declared.get(part, {}), schema[part], path + mark)
    return out


def test_the_tally_declaration_says_what_the_seeds_schema_says_key_by_key() -> None:
    """The seed's council-tally schema stays the authority (shipped as it is, above): TallyRecord,
    rendered as contracts renders a declaration, states each key's type, values and bounds as it
    does, not only its keys. The check can fail: a seed that said otherwise of one key differs."""
    from amicus_mcp.contracts import type_schema

    declared, seed = type_schema(docs.TallyRecord), load_schema("council-tally")
    assert _unstated(declared, seed) == []
    edited = json.loads(json.dumps(seed))
    edited["properties"]["findings"]["items"]["properties"]["unattributedPeerDrops"]["minimum"] = 0
    edited["properties"]["judged"]["type"] = "integer"
    assert [line.split(":")[0] for line in _unstated(declared, edited)] == [
        ".judged.type", ".findings[].unattributedPeerDrops.minimum"]


def test_the_gate_records_rule_is_its_declarations() -> None:
    """council-gate.schema.json's if/then/else (exit code 0 when passed, 4 when not) is generated
    from GateRecord's config, and a record against it fails the schema."""
    from amicus_mcp.council.gate import evaluate_gate
    from amicus_mcp.schemas import schema_errors

    schema = load_schema("council-gate")
    assert {k: schema[k] for k in ("if", "then", "else")} == docs.GateRecord.__pydantic_config__["json_schema_extra"]
    verdict = json.loads((WORKED / "verdict.json").read_text(encoding="utf-8"))
    record = dict(evaluate_gate(verdict, "never"))
    assert record["passed"] is True and schema_errors(record, "council-gate") == []
    assert schema_errors({**record, "exitCode": 4}, "council-gate")
    assert schema_errors({**record, "passed": False}, "council-gate")


def test_the_checker_sees_a_wrong_key() -> None:
    """The walk itself can fail: a declaration missing a required key of its schema differs."""
    declared = TypeAdapter(docs.GateBlocker).json_schema()
    schema = {"type": "object", "required": ["id", "tier", "why"], "properties": {"id": {}, "tier": {}, "why": {}}}
    assert _differences(declared, schema, declared, schema)


@pytest.mark.parametrize(("declaration", "name"), [(docs.TallyRecord, "tally"), (docs.Verdict, "verdict")])
def test_the_worked_example_is_its_declaration_unchanged(declaration: type, name: str) -> None:
    text = (WORKED / f"{name}.json").read_text(encoding="utf-8")
    doc = json.loads(text)
    checked = docs.check_document(declaration, doc, what=name)
    assert checked is doc
    assert json.dumps(checked, indent=2, ensure_ascii=False) + "\n" == text


def test_a_bad_document_names_its_problem() -> None:
    doc = json.loads((WORKED / "tally.json").read_text(encoding="utf-8"))
    doc["findings"][0]["tier"] = "Confirmd"
    with pytest.raises(BadSession) as raised:
        docs.check_document(docs.TallyRecord, doc, what="tally record", where="tally.json")
    assert "'tally.json' is not a valid tally record" in raised.value.message
    assert "findings[0].tier" in raised.value.message


def test_unknown_keys_are_kept() -> None:
    doc = json.loads((WORKED / "verdict.json").read_text(encoding="utf-8"))
    doc["fromANewerWriter"] = {"x": 1}
    assert docs.check_document(docs.Verdict, doc, what="verdict")["fromANewerWriter"] == {"x": 1}  # type: ignore[typeddict-item]


def test_pr_loop_documents_are_version_2_and_a_version_1_file_still_reads(tmp_path: Path) -> None:
    from amicus_mcp.documents.pr_loop import PR_LOOP_VERSION, RereviewDocument
    from amicus_mcp.engine.decisions import read_memory

    assert PR_LOOP_VERSION == 2
    entry = {"id": "D0123456789", "project": "/p", "runId": "r1", "findingId": "A1", "decision": "denied",
             "reason": None, "severity": "major", "claim": None, "location": None, "decidedAt": "2026-01-01T00:00:00Z"}
    memory = tmp_path / "council-decisions.json"
    memory.write_text(json.dumps({"schemaVersion": 1, "type": "council-decisions", "decisions": [entry]}), encoding="utf-8")
    assert read_memory(memory) == {"schemaVersion": 2, "type": "council-decisions", "decisions": [entry]}
    memory.write_text(json.dumps({"schemaVersion": 1, "type": "council-decisions", "decisions": [{"id": "x"}]}),
                      encoding="utf-8")
    with pytest.raises(Exception, match="is not a valid decisions memory"):
        read_memory(memory)
    old = {"schemaVersion": 1, "type": "council-rereview", "runId": None, "baselineRunId": None, "baseline": "b",
           "decisions": [], "resolved": [], "counts": {"new": 0, "still-open": 0, "resolved": 0}}
    assert RereviewDocument.parse(old, what="re-review").to_doc() == old
    assert RereviewDocument.parse({**old, "schemaVersion": 2}, what="re-review").schema_version == 2


# Building tally.json / verdict.json / debate.json paths: by the file name, or by the run_dir constant.
_PATH_BUILDING = __import__("re").compile(
    r"""["'](tally|tally-provisional|verdict|debate)\.json["']\s*(?!\s*(not\s+)?in\b)|/\s*(TALLY|TALLY_PROVISIONAL|VERDICT|DEBATE)\b""")


def test_only_run_dir_builds_the_tally_and_verdict_paths() -> None:
    """RunDir (engine/run_dir.py) is the one home of tally.json, verdict.json and debate.json: every
    other module reads them through `read_tally` / `read_verdict` / `read_debate` or takes their `*_path`."""
    src = ROOT / "src" / "amicus_mcp"
    found = []
    for path in sorted(src.rglob("*.py")):
        if path == src / "engine" / "run_dir.py":
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#", 1)[0]
            if _PATH_BUILDING.search(code) and "add_argument" not in code:
                found.append(f"{path.relative_to(src)}:{number}: {line.strip()}")
    assert found == []


def test_the_path_check_sees_a_path_built() -> None:
    assert _PATH_BUILDING.search('read_json(run_dir / "tally.json", what="tally record")')
    assert _PATH_BUILDING.search("record = _read(verdict_path.parent / TALLY)")
    assert not _PATH_BUILDING.search("if VERDICT not in files:")
    assert _PATH_BUILDING.search('read_optional_json(run_dir / "debate.json", "debate record")')


def test_run_dir_reads_a_runs_tally_and_verdict(tmp_path: Path) -> None:
    import shutil

    from amicus_mcp.engine.run_dir import RunDir

    for name in ("tally", "verdict"):
        shutil.copy(WORKED / f"{name}.json", tmp_path / f"{name}.json")
    run = RunDir(tmp_path)
    assert run.read_tally() == json.loads((WORKED / "tally.json").read_text(encoding="utf-8"))
    assert run.read_verdict()["type"] == "council-verdict"
    (tmp_path / "verdict.json").write_text('{"type": "council-tally"}', encoding="utf-8")
    with pytest.raises(BadSession, match="is not a council-verdict document"):
        run.read_verdict()
    (tmp_path / "tally.json").unlink()
    with pytest.raises(BadSession, match="does not exist"):
        run.read_tally()
