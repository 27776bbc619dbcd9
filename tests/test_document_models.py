"""Issue 20 item 1: every document the engine writes has a pydantic model, and the model and the
shipped JSON Schema (the public contract) agree.

`agree(model, schema)` walks both at once: an object schema's properties are the model's keys,
its required keys are the model's required fields, `additionalProperties: false` is a closed
model; each property's type, nullability, const / enum, bounds, length and pattern match the
field's annotation. An object schema that declares no properties holds the model only to its
required keys. The schema's `if`/`then` (a usage block's unknown cost is null) is checked by the
schemas alone.

Then the family's rules, on real documents: a document read into its model and written back is
byte-identical (emit-when-set keys, key order, unknown keys kept), a running run.json is compact
and a final one indented.
"""

from __future__ import annotations

import json
import types
import typing
from typing import Any, Literal, Union

import annotated_types
import pytest
from pydantic.fields import FieldInfo

from amicus_mcp.documents.base import Document, WhenSet
from amicus_mcp.documents.legs import FinishedLeg, LegRun
from amicus_mcp.documents.pr_loop import DecisionsDocument, DismissedDocument, PrReviewDocument, RereviewDocument
from amicus_mcp.documents.run import RunManifest
from amicus_mcp.documents.wave import Wave
from amicus_mcp.schemas import load_schema

PAIRS = [(RunManifest, "council-run"), (LegRun, "run"), (Wave, "wave"), (FinishedLeg, "council-leg"),
         (RereviewDocument, "council-rereview"), (DismissedDocument, "council-dismissed"),
         (DecisionsDocument, "council-decisions"), (PrReviewDocument, "council-pr-review")]
NOT_NULL = typing.get_args(WhenSet)[1:]  # the metadata that marks an absent-or-value key


# --------------------------------------------------------------------------- the walk


def resolve(node: dict[str, Any], schema: str) -> tuple[dict[str, Any], str]:
    """Follow a `$ref` (within the schema, or to another shipped schema by file name)."""
    while "$ref" in node:
        ref = node["$ref"]
        if ref.startswith("#/"):
            target: Any = load_schema(schema)
            for part in ref[2:].split("/"):
                target = target[part]
            node = target
        else:
            schema = ref.removesuffix(".schema.json")
            node = load_schema(schema)
    return node, schema


def unwrap(annotation: Any) -> tuple[Any, list[Any]]:
    """(the bare type, every metadata item on the way down) of an Annotated type."""
    metadata: list[Any] = []
    while typing.get_origin(annotation) is typing.Annotated:
        for item in annotation.__metadata__:  # Field(ge=1) inside Annotated carries its own
            metadata += list(item.metadata) if isinstance(item, FieldInfo) else [item]
        annotation = annotation.__origin__
    return annotation, metadata


def flatten(annotation: Any) -> tuple[list[Any], list[Any]]:
    """(every member of the union, with no Annotated left; all their metadata)."""
    bare, metadata = unwrap(annotation)
    origin = typing.get_origin(bare)
    if origin is not Union and origin is not types.UnionType:
        return [bare], metadata
    options: list[Any] = []
    for member in typing.get_args(bare):
        inner, more = flatten(member)
        options += inner
        metadata += more
    return options, metadata


def schema_types(node: dict[str, Any]) -> set[str]:
    kind = node.get("type")
    return set(kind) if isinstance(kind, list) else ({kind} if kind else set())


def agree(annotation: Any, node: dict[str, Any], schema: str, where: str, metadata: list[Any] | None = None) -> None:
    node, schema = resolve(node, schema)
    options, found = flatten(annotation)
    metadata = [*(metadata or []), *found]
    nullable = type(None) in options and not any(m in metadata for m in NOT_NULL)
    options = [o for o in options if o is not type(None)]
    allows_null = "null" in schema_types(node) or None in node.get("enum", [])
    assert nullable == allows_null, f"{where}: the model {'allows' if nullable else 'refuses'} null, the schema does not agree"
    check_bounds(metadata, node, where)
    literals = [v for o in options if typing.get_origin(o) is Literal for v in typing.get_args(o)]
    if literals:
        wanted = [node["const"]] if "const" in node else [v for v in node.get("enum", []) if v is not None]
        assert sorted(map(repr, literals)) == sorted(map(repr, wanted)), f"{where}: {literals} ≠ schema {wanted}"
        return
    assert "const" not in node and "enum" not in node, f"{where}: the schema pins values the model does not"
    kinds = schema_types(node) - {"null"}
    if any(isinstance(o, type) and issubclass(o, Document) for o in options):
        (model,) = options
        assert kinds <= {"object"}, f"{where}: a document, but the schema says {kinds}"
        agree_model(model, node, schema, where)
        return
    expected = set()
    for option in options:
        origin = typing.get_origin(option) or option
        if origin is list:
            expected.add("array")
            if "items" in node:
                agree(typing.get_args(option)[0], node["items"], schema, f"{where}[]")
        elif origin is dict:
            expected.add("object")
            if isinstance(node.get("additionalProperties"), dict):
                agree(typing.get_args(option)[1], node["additionalProperties"], schema, f"{where}{{}}")
        elif option is str:
            expected.add("string")
        elif option is bool:
            expected.add("boolean")
        elif option is int:
            expected.add("integer")
        elif option is float:
            expected.add("number")
        else:
            raise AssertionError(f"{where}: no schema counterpart for {option!r}")
    if expected == {"integer", "number"}:  # Number: an int stays an int
        expected = {"number"}
    assert expected == kinds, f"{where}: the model says {sorted(expected)}, the schema {sorted(kinds)}"


def check_bounds(metadata: list[Any], node: dict[str, Any], where: str) -> None:
    bounds = {}
    for item in metadata:
        if isinstance(item, annotated_types.Ge):
            bounds["minimum"] = item.ge
        elif isinstance(item, annotated_types.Gt):
            bounds["exclusiveMinimum"] = item.gt
        elif isinstance(item, annotated_types.MinLen):
            bounds["minItems" if "array" in schema_types(node) else "minLength"] = item.min_length
        elif getattr(item, "pattern", None):
            bounds["pattern"] = item.pattern
    schema_bounds = {k: node[k] for k in ("minimum", "exclusiveMinimum", "minItems", "minLength", "pattern") if k in node}
    assert bounds == schema_bounds, f"{where}: bounds {bounds} ≠ schema {schema_bounds}"


def agree_model(model: type[Document], node: dict[str, Any], schema: str, where: str) -> None:
    fields: dict[str, FieldInfo] = model.model_fields
    keys = {info.alias or name: info for name, info in fields.items()}
    family = {model._wire[name] for name in model._always}  # required when read (`parse`)
    required = {key for key, info in keys.items() if info.is_required()} | family
    assert required == set(node.get("required", [])) or "properties" not in node and set(node.get("required", [])) <= required, \
        f"{where}: required {sorted(required)} ≠ schema {sorted(node.get('required', []))}"
    closed = model.model_config.get("extra") == "forbid"
    assert closed == (node.get("additionalProperties") is False), f"{where}: open/closed differs"
    if "properties" not in node:
        return
    assert set(keys) == set(node["properties"]), (
        f"{where}: only in the model {sorted(set(keys) - set(node['properties']))}, "
        f"only in the schema {sorted(set(node['properties']) - set(keys))}")
    for key, info in keys.items():
        agree(info.annotation, node["properties"][key], schema, f"{where}.{key}", list(info.metadata))


@pytest.mark.parametrize(("model", "schema"), PAIRS, ids=[s for _, s in PAIRS])
def test_model_and_shipped_schema_agree(model: type[Document], schema: str) -> None:
    agree_model(model, load_schema(schema), schema, schema)


def test_the_walk_catches_a_disagreement() -> None:
    """The check can fail: a schema edited away from its model is caught, key by key."""
    edited = json.loads(json.dumps(load_schema("council-run")))
    edited["properties"]["legs"]["items"]["properties"]["status"]["enum"].remove("crashed")
    with pytest.raises(AssertionError, match=r"legs\[\]\.status"):
        agree_model(RunManifest, edited, "council-run", "council-run")
    edited = json.loads(json.dumps(load_schema("council-run")))
    edited["properties"]["resumes"]["items"]["properties"]["legsReused"]["minimum"] = 1
    with pytest.raises(AssertionError, match="bounds"):
        agree_model(RunManifest, edited, "council-run", "council-run")
    edited = json.loads(json.dumps(load_schema("wave")))
    del edited["properties"]["pid"]
    with pytest.raises(AssertionError, match="only in the model"):
        agree_model(Wave, edited, "wave", "wave")


# --------------------------------------------------------------------------- the family's rules


def test_emit_when_set_and_key_order() -> None:
    manifest = RunManifest(run_id="abcd1234", status="running", stages=[], bench=["a", "b"], chair="c", critic=None)
    assert list(manifest.to_doc()) == ["schemaVersion", "type", "runId", "status", "stages", "bench", "chair", "critic"]
    manifest.add("degrades", {"kind": "degrade", "channel": "stage1", "what": "w", "why": "y"})  # validated on write
    manifest.chair_conformance = "clean"
    manifest.exit_code = 2
    assert list(manifest.to_doc())[-3:] == ["degrades", "chairConformance", "exitCode"]
    manifest.drop("exit_code")
    assert "exitCode" not in manifest.to_doc() and manifest.exit_code is None


def test_unknown_keys_survive_in_place() -> None:
    doc = {"schemaVersion": 2, "type": "council-run", "runId": "r", "fromTheFuture": {"x": [1, 2]}, "status": "complete",
           "stages": [{"name": "stage1", "status": "complete", "newKey": True}], "bench": ["a", "b"], "chair": "c"}
    assert RunManifest.parse(doc, what="run manifest").to_doc() == doc
    assert list(RunManifest.parse(doc, what="run manifest").to_doc()) == list(doc)


def test_a_wrong_type_is_a_clear_error_naming_the_key() -> None:
    from amicus_mcp.errors import BadSession

    doc = {"schemaVersion": 2, "type": "council-run", "runId": "r", "status": "complete", "stages": [],
           "bench": ["a", "b"], "chair": "c", "legsPlanned": "7"}
    with pytest.raises(BadSession, match="legsPlanned"):
        RunManifest.parse(doc, what="run manifest")
    with pytest.raises(BadSession, match="exitCode"):
        RunManifest.parse({**doc, "legsPlanned": 7, "exitCode": None}, what="run manifest")


def test_a_models_rule_across_keys_is_its_generated_schemas() -> None:
    """run.schema.json's if/then (an unknown cost's amount is null) is the model's rule, generated
    from it: the model refuses what each schema holding a leg's usage refuses."""
    from jsonschema import Draft202012Validator
    from pydantic import ValidationError

    from amicus_mcp.documents.usage import LegCost, LegUsage

    unknown = {"tokens": {}, "cost": {"amount": None, "currency": "USD", "source": "unknown"}}
    priced = {"tokens": {}, "cost": {"amount": 0.25, "currency": "USD", "source": "unknown"}}
    LegUsage.model_validate(unknown)
    with pytest.raises(ValidationError, match="an unknown cost has no amount"):
        LegUsage.model_validate(priced)
    rule = LegCost.model_config["json_schema_extra"]
    for name, path in (("run", ["usage"]), ("council-leg", ["usage"]), ("council-run", ["legs", "items", "usage"])):
        node: Any = load_schema(name)
        for key in path:
            node = node[key] if key == "items" else node["properties"][key]
        assert {k: node["properties"]["cost"][k] for k in ("if", "then")} == rule, name
        assert Draft202012Validator(node).is_valid(unknown), name
        assert not Draft202012Validator(node).is_valid(priced), name
