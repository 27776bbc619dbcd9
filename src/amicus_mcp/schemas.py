"""The JSON Schemas every document is checked against, loaded from inside the package."""

from __future__ import annotations

import json
from functools import lru_cache
from importlib.resources import files
from typing import Any

# Open JSON, typed so that a reader narrows a value before using it (never `Any`):
JsonObject = dict[str, object]  # an object whose shape is not ours: a wire body, a foreign document passed through
JsonSchema = dict[str, object]  # a JSON Schema document (a tool's input or output schema, a shipped schema)

SCHEMA_NAMES = (
    "council-tally",
    "council-tally-input",
    "council-verdict",
    "council-validate",
    "council-stats",
    "council-ledger-row",
    "council-presets",
    "error",
    "run",
    "wave",
    "council-run",
    "cost-estimate",
    "council-debate",
    "doctor",
    "keys",
    "session-list",
    "council-pack",
    "council-packs",
    "council-templates",
    "council-gate",
    "council-pr-review",
    "council-rereview",
    "council-decisions",
    "council-dismissed",
    "council-run-options",
    "wave-options",
    "council-leg",
    "eval-suite",
    "eval-case",
    "eval-run-options",
    "eval-run",
    "eval-matches",
    "eval",
    "eval-estimate",
    "eval-compare",
    "eval-ledger-row",
)


@lru_cache(maxsize=None)
def load_schema(name: str) -> JsonSchema:
    text = files("amicus_mcp").joinpath("schemas", f"{name}.schema.json").read_text(encoding="utf-8")
    return json.loads(text)


@lru_cache(maxsize=None)
def _validator(name: str) -> Any:
    # Imported lazily: keeps CLI and server start-up small.
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource

    # Every shipped schema is registered under its $id, so one may `$ref` another by name.
    registry: Registry = Registry().with_resources(
        (str(load_schema(other)["$id"]), Resource.from_contents(load_schema(other))) for other in SCHEMA_NAMES
    )
    return Draft202012Validator(load_schema(name), registry=registry)


def schema_errors(doc: Any, name: str) -> list[str]:
    """Every way `doc` breaks schema `name`, as `path: message` lines (empty when valid)."""
    out = []
    for err in sorted(_validator(name).iter_errors(doc), key=lambda e: [str(p) for p in e.absolute_path]):
        where = "/".join(str(p) for p in err.absolute_path) or "(root)"
        out.append(f"{where}: {err.message}")
    return out
