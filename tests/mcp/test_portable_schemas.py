"""Issue 19 item 9: the output schemas are published in a portable spelling (no `type` lists)
that accepts and rejects exactly the documents the shipped schemas do.

The shipped council-tally schema is seed 002 verbatim and stays the authority for the tally
record; the tools publish `portable(...)` of it (and of the verdict and stats schemas). The
proof here is by example: valid documents from the worked example, then hypothesis mutations
of them (a value replaced by one of another type, a key dropped or added, at any depth),
each judged by both schemas with the same validator.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from amicus_mcp.council.ledger import derive_stats, ledger_rows
from amicus_mcp.mcp.models import portable, shipped_schema, verdict_result_schema
from amicus_mcp.mcp.server import build_tools
from amicus_mcp.mcp.state import ServerState

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "worked-example"


def load(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


def documents() -> dict[str, tuple[dict[str, Any], list[Any]]]:
    """Each schema-published tool: (the schema as shipped, valid documents for it)."""
    tally, verdict = load("tally.json"), load("verdict.json")
    seated = copy.deepcopy(tally)
    seated["meta"]["seats"] = [{"id": "a#1", "alias": "a"}, "not a seat object"]
    seated["findings"][0].update(raiserSeat="a#1", tierOverride={"from": None, "to": "Contested", "reason": None},
                                 debate={"action": "defended", "previousTier": None})
    with_seats = {**copy.deepcopy(verdict), "seats": [{"id": "a#1"}], "runType": None, "chair": None}
    stats = derive_stats(ledger_rows(tally))
    return {
        "amicus_council_tally": (shipped_schema("council-tally"), [tally, seated]),
        "amicus_verdict": (verdict_result_schema(), [{"verdict": verdict}, {"verdict": with_seats, "markdown": "# R"}]),
        "amicus_council_stats": (shipped_schema("council-stats"), [stats]),
    }


DOCUMENTS = documents()
VALIDATORS = {tool: (Draft202012Validator(schema), Draft202012Validator(portable(schema)))
              for tool, (schema, _) in DOCUMENTS.items()}

json_value = st.recursive(st.none() | st.booleans() | st.integers(-3, 3) | st.floats(-2, 2) | st.text(max_size=3),
                          lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.text(max_size=3), inner,
                                                                                     max_size=2), max_leaves=4)


def paths(node: Any, here: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [here]
    if isinstance(node, dict):
        for key, value in node.items():
            out += paths(value, (*here, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            out += paths(value, (*here, index))
    return out


def mutated(doc: Any, path: tuple[Any, ...], how: str, value: Any) -> Any:
    """`doc` with the node at `path` replaced by `value`, removed (`drop`) or given an extra key."""
    doc = copy.deepcopy(doc)
    if not path:
        return value
    parent = doc
    for step in path[:-1]:
        parent = parent[step]
    last = path[-1]
    if how == "drop" and isinstance(parent, dict):
        del parent[last]
    elif how == "extra" and isinstance(parent[last], dict):
        parent[last]["unexpected"] = value
    else:
        parent[last] = value
    return doc


@pytest.mark.parametrize("tool", sorted(DOCUMENTS))
def test_the_published_output_schema_is_the_portable_shipped_one(tool: str) -> None:
    published = {t.name: t.output_schema for t in build_tools(ServerState())}
    schema, valid = DOCUMENTS[tool]
    assert published[tool] == portable(schema)
    assert '"type": [' not in json.dumps(published[tool])
    for doc in valid:
        assert VALIDATORS[tool][0].is_valid(doc) and VALIDATORS[tool][1].is_valid(doc)


@pytest.mark.parametrize("tool", sorted(DOCUMENTS))
@settings(max_examples=400, deadline=None)
@given(data=st.data())
def test_both_schemas_accept_and_reject_the_same_documents(tool: str, data: st.DataObject) -> None:
    _, valid = DOCUMENTS[tool]
    doc = data.draw(st.sampled_from(valid))
    path = data.draw(st.sampled_from(paths(doc)))
    how = data.draw(st.sampled_from(["replace", "drop", "extra"]))
    candidate = mutated(doc, path, how, data.draw(json_value))
    shipped, published = VALIDATORS[tool]
    assert shipped.is_valid(candidate) == published.is_valid(candidate), (path, how, candidate)


def test_the_rewrite_keeps_every_other_keyword_and_an_existing_anyof() -> None:
    schema = {"type": ["number", "null"], "minimum": 0, "description": "d", "enum": [{"type": ["x", "y"]}, None, 1],
              "anyOf": [{"maximum": 5}, {"type": "null"}]}
    assert portable(schema) == {"minimum": 0, "description": "d", "enum": [{"type": ["x", "y"]}, None, 1],
                                "anyOf": [{"maximum": 5}, {"type": "null"}],
                                "allOf": [{"anyOf": [{"type": "number"}, {"type": "null"}]}]}
    check, rewritten = Draft202012Validator(schema), Draft202012Validator(portable(schema))
    for value in (None, 1, 3, 7, -1, "a", [], {"type": ["x", "y"]}):
        assert check.is_valid(value) == rewritten.is_valid(value), value
