"""The generated contract files, from their declarations, behind one command:

    python -m amicus_mcp.contracts --check    exit 1 naming every stale file (CI runs it)
    python -m amicus_mcp.contracts --write    rewrite every stale file (atomically)

The files it keeps:

    schemas/eval*.schema.json   the eval's documents (eval/documents.py, pydantic models)
    schemas/council-run-options, wave-options
                                options.json (engine/options.py: one field, with its Option, per key)
    schemas/council-pack        a policy pack (engine/packs.py: its own keys; the options' pack keys)
    schemas/session-list        `amicus list --json` (documents/sessions.py, TypedDicts)
    schemas/wave                wave.json (documents/wave.py, a document model)
    schemas/council-run, run, council-leg
                                run.json, a leg's run.json, legs/<key>.json (documents/run.py,
                                documents/legs.py; a rule across keys from the model's json_schema_extra)
    schemas/council-rereview, council-dismissed, council-decisions, council-pr-review
                                the pull-request loop's documents (documents/pr_loop.py, models)
    schemas/council-verdict, council-ledger-row, council-stats, council-gate, council-debate
                                the council's own outputs (documents/council.py, TypedDicts)
    schemas/council-tally-input what the tally reads (documents/tally.py, the TypedDicts that check it)
    schemas/error               the error envelope (envelope.py, TypedDicts)
    schemas/council-validate    `council validate --json` (documents/validate.py, TypedDicts)
    schemas/cost-estimate, doctor, keys, council-presets, council-packs, council-templates
                                the CLI commands' own documents (documents/commands.py, TypedDicts)
    mcp/published.json          the tools' schemas as the built tools publish them (mcp/published.py)
    manifest.json               the Claude Desktop bundle's manifest (mcp/bundle.py)
    server.json                 the MCP Registry's entry (mcp/registry.py)
    docs/mcp.md, README.md, skills/second-opinion/*.md, eval/suites/planted/README.md
                                their generated spans (the run options' table, from engine/options.py;
                                the verdict scale, from vocabulary.py) and the skill's prompt copies
    workspace/static/app.css    its verdict chips' colours, by each phrase's tone (vocabulary.py)

A key's description, bounds and words are its declaration's (`Annotated[..., Field(...)]`); what
the house style has no word for (uniqueItems, an if/then across keys) is the declaration's
`json_schema_extra`, on the key or in its config. The one shipped schema not generated is
council-tally.schema.json, the seed's own file and the authority: tests/test_council_documents.py
holds documents/council.py's TallyRecord to it. This module sits above every layer (it imports the declarations of each) and nothing imports it: the CLI and the MCP
server never load it.
"""

from __future__ import annotations

import re
import sys
import json
import types
import typing
from collections.abc import Callable, Iterator
from functools import partial
from importlib.resources import files
from pathlib import Path
from typing import Any, Literal, NamedTuple, Union

import annotated_types
import typing_extensions

from .schemas import JsonSchema

COMMAND = "python -m amicus_mcp.contracts --write"
PACKAGE = Path(str(files("amicus_mcp")))
REPO = PACKAGE.parents[1]


class Contract(NamedTuple):
    path: Path
    render: Callable[[], str]  # the file's whole text, as the declaration says it


def contracts() -> Iterator[Contract]:
    """Every generated file with what renders it (imported here, not at module level: a
    `--check` of one kind should not pay for building every other)."""
    from .eval import documents as eval_documents
    from .mcp import bundle, published, registry

    schemas = PACKAGE / "schemas"
    for name, (model, title, description) in OPTIONS_DOCUMENTS.items():
        yield Contract(schemas / f"{name}.schema.json", partial(_options_text, name, model, title, description))
    yield Contract(schemas / "council-pack.schema.json", partial(_schema_text, pack_schema))
    for name, (declaration, title, description) in {**DOCUMENT_SCHEMAS, **TYPED_DOCUMENTS}.items():
        yield Contract(schemas / f"{name}.schema.json", partial(_declared_text, name, declaration, title, description))
    for name in eval_documents.DOCUMENTS:
        yield Contract(schemas / f"{name}.schema.json",
                       partial(_schema_text, partial(eval_documents.schema_document, name)))
    yield Contract(published.target(), published.text)
    yield Contract(bundle.MANIFEST, bundle.render)
    yield Contract(registry.SERVER_JSON, registry.render)
    for name in PACKAGE_PROSE:  # the package's own files with generated spans
        yield Contract(PACKAGE / name, partial(prose_text, PACKAGE / name))
    if (REPO / "pyproject.toml").is_file():  # a checkout: its prose (an installed package has none)
        for path in PROSE_FILES:
            yield Contract(REPO / path, partial(prose_text, REPO / path))


def rendered(schema: JsonSchema) -> str:
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def _schema_text(build: Callable[[], JsonSchema]) -> str:
    return rendered(build())


def _options_text(name: str, model: Callable[[], Any], title: str, description: str) -> str:
    return rendered(options_schema(name, model(), title, description))


def _declared_text(name: str, declaration: Callable[[], Any], title: str, description: str) -> str:
    """A document model's or a TypedDict's schema file."""
    kind = declaration()
    if typing.get_origin(kind) in (Union, types.UnionType):  # one of several documents (by `type` or shape)
        body: JsonSchema = {"oneOf": [typeddict_schema(member) for member in typing.get_args(kind)]}
    else:
        body = type_schema(kind) if typing_extensions.is_typeddict(kind) else document_schema(kind, top=True)
    return rendered({"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": schema_id(name),
                     "title": title, "description": description, **body})


# --------------------------------------------------------------------------- schemas in the house style
# A schema written the way the hand-written ones are: a nullable X is `"type": [X, "null"]`, a
# word set an `enum` (one word a `const`), bounds beside the type, then items, then the key's
# description. pydantic's own `model_json_schema()` spells the same contract with anyOf, titles
# and defaults, which would change every shipped file's look for nothing. A union of shapes is
# `anyOf` (a whole document that is one of several, `oneOf`); what a type cannot say rides on the
# declaration as pydantic's `json_schema_extra`: a key's (a `$ref` to another shipped schema) or a
# TypedDict's config (its rules across keys: if/then, not).

SCHEMA_ID = "amicus-mcp/schemas/{name}.schema.json"
# The schemas the original amicus published under its own ids (its docs/schemas.md): kept, so a
# document or schema that refers to one by its id still finds it.
PUBLISHED_IDS = {name: f"https://raw.githubusercontent.com/BourbonDog/amicus/main/schemas/{name}.schema.json"
                 for name in ("council-ledger-row", "council-stats", "council-tally", "council-validate")}


def schema_id(name: str) -> str:
    return PUBLISHED_IDS.get(name) or SCHEMA_ID.format(name=name)


_TYPES = {str: "string", bool: "boolean", int: "integer", float: "number"}


def _unwrap(annotation: Any) -> tuple[Any, list[Any]]:
    """(the bare type, every constraint on the way down) of an Annotated type."""
    from pydantic.fields import FieldInfo

    metadata: list[Any] = []
    while typing.get_origin(annotation) is typing.Annotated:
        for item in annotation.__metadata__:
            if isinstance(item, FieldInfo):
                metadata += [*item.metadata, *([_Extra(item.json_schema_extra)]
                                               if isinstance(item.json_schema_extra, dict) else [])]
            else:
                metadata.append(item)
        annotation = annotation.__origin__
    return annotation, metadata


class _Extra(dict[str, object]):
    """A key's `Field(json_schema_extra=...)`: schema words its type cannot say (a `$ref` to
    another shipped schema replaces the type's own words)."""


def _with_extra(schema: JsonSchema, metadata: list[Any]) -> JsonSchema:
    for item in metadata:
        if isinstance(item, _Extra):
            schema = dict(item) if "$ref" in item else {**schema, **item}
    return schema


def _members(annotation: Any) -> tuple[list[Any], list[Any]]:
    """(the members of a union, each still Annotated; the union's own constraints). A union
    inside it (`Rate | None`, Rate an Annotated `int | float`) is opened, its constraints the union's."""
    bare, metadata = _unwrap(annotation)
    if typing.get_origin(bare) not in (Union, types.UnionType):
        return [annotation], []
    members: list[Any] = []
    for member in typing.get_args(bare):
        inner, more = _members(member)
        members += inner
        metadata += more
    return members, metadata


def _bounds(metadata: list[Any], kind: str) -> JsonSchema:
    out: JsonSchema = {}
    for item in metadata:
        if isinstance(item, annotated_types.Ge):
            out["minimum"] = item.ge
        elif isinstance(item, annotated_types.Gt):
            out["exclusiveMinimum"] = item.gt
        elif isinstance(item, annotated_types.Le):
            out["maximum"] = item.le
        elif isinstance(item, annotated_types.Lt):
            out["exclusiveMaximum"] = item.lt
        elif isinstance(item, annotated_types.MinLen):
            out["minItems" if kind == "array" else "minLength"] = item.min_length
        elif isinstance(item, annotated_types.MaxLen):
            out["maxItems" if kind == "array" else "maxLength"] = item.max_length
        elif getattr(item, "pattern", None):
            out["pattern"] = item.pattern
    return out


def type_schema(annotation: Any, *, dropped: tuple[Any, ...] = ()) -> JsonSchema:
    """The schema of one key's value; `dropped`: values the writer never writes (an
    emit-when-set key's default)."""
    members, metadata = _members(annotation)
    nullable = any(m is type(None) for m in members) and None not in dropped and not _when_set(metadata)
    members = [m for m in members if m is not type(None)]
    if {_unwrap(m)[0] for m in members} == {int, float}:  # a Number: an integral figure stays an int
        members = [float]
    words = [w for m in members if typing.get_origin(_unwrap(m)[0]) is Literal for w in typing.get_args(_unwrap(m)[0])]
    if words:
        words = [w for w in words if w not in dropped] + ([None] if nullable else [])
        return {"const": words[0]} if len(words) == 1 else {"enum": words}
    scalars = [_unwrap(m) for m in members]
    if len(members) > 1 and all(kind in _TYPES for kind, _ in scalars):  # plain values (`str | Number`): one type list
        kinds = [_TYPES[kind] for kind, _ in scalars if not (kind is int and float in (k for k, _ in scalars))]
        metadata += [c for _, more in scalars for c in more]
        return _with_extra({"type": kinds + (["null"] if nullable else []), **_bounds(metadata, "scalar")}, metadata)
    if len(members) > 1:  # a union of shapes: any of them (null joins the first)
        branches = [type_schema(m) for m in members]
        branches[0] = _nullable(branches[0], nullable)
        return _with_extra({"anyOf": branches}, metadata)
    bare, more = _unwrap(members[0])
    metadata += more
    return _with_extra(_one_type(bare, metadata, nullable, dropped), metadata)


def _one_type(bare: Any, metadata: list[Any], nullable: bool, dropped: tuple[Any, ...]) -> JsonSchema:
    if bare in (Any, object):  # deliberately unconstrained: any JSON value
        return {}
    if bare is bool and dropped:  # an emit-when-set switch: written only with the other value
        left = [v for v in (True, False) if v not in dropped]
        if len(left) == 1:
            return {"const": left[0]}
    if typing_extensions.is_typeddict(bare):
        return _nullable(typeddict_schema(bare), nullable)
    if isinstance(bare, type) and _is_document(bare):
        return _nullable(document_schema(bare), nullable)
    origin = typing.get_origin(bare) or bare
    if origin is list:
        item = typing.get_args(bare)[0] if typing.get_args(bare) else object
        kind, inner = "array", ({} if item in (Any, object) else {"items": type_schema(item)})
    elif origin is dict:
        value = typing.get_args(bare)[1] if typing.get_args(bare) else Any
        kind, inner = "object", ({} if value in (Any, object) else {"additionalProperties": type_schema(value)})
    elif origin in _TYPES:
        kind, inner = _TYPES[origin], {}
    else:
        raise TypeError(f"no house-style schema for {bare!r}")
    return {"type": [kind, "null"] if nullable else kind, **_bounds(metadata, kind), **inner}


def _when_set(metadata: list[Any]) -> bool:
    """An emit-when-set key of a document (documents/base.py WhenSet): absent or a value, never null."""
    from .documents.base import WhenSet

    marks = typing.get_args(WhenSet)[1:]
    return any(m in marks for m in metadata)


def _is_document(kind: type) -> bool:
    from .documents.base import Document

    return issubclass(kind, Document)


def _nullable(schema: JsonSchema, nullable: bool) -> JsonSchema:
    if not nullable or "$ref" in schema or "type" not in schema:
        return {"anyOf": [schema, {"type": "null"}]} if nullable else schema
    kinds = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
    return {**schema, "type": [*kinds, "null"] if "null" not in kinds else kinds}


def _shipped(model: type) -> str | None:
    """The shipped schema a nested document has its own file for (referred to, not repeated)."""
    from .documents.legs import LegRun

    refs: dict[type, str] = {LegRun: "run.schema.json"}
    return refs.get(model)


def document_schema(model: Any, *, top: bool = False) -> JsonSchema:
    """A document model's schema (documents/base.py): its keys by alias, required as `parse`
    requires them, open unless the model forbids extra keys."""
    ref = None if top else _shipped(model)
    if ref is not None:
        return {"$ref": ref}
    properties: dict[str, JsonSchema] = {}
    required = []
    always = {model._wire[name] for name in model._always}
    for name, info in model.model_fields.items():
        key = info.alias or name
        annotation = typing.Annotated[(info.annotation, *info.metadata)] if info.metadata else info.annotation
        properties[key] = {**type_schema(annotation), **({"description": info.description} if info.description else {})}
        if info.is_required() or key in always:
            required.append(key)
    return {"type": "object", **({"required": required} if required else {}),
            **({"additionalProperties": False} if model.model_config.get("extra") == "forbid" else {}),
            "properties": properties, **_rules(model.model_config)}


def typeddict_schema(declaration: Any) -> JsonSchema:
    """A TypedDict's schema: its keys (required unless NotRequired), each with the description
    its `Field` carries; closed when its pydantic config forbids extra keys."""
    from pydantic.fields import FieldInfo

    hints = typing.get_type_hints(declaration, include_extras=True)
    properties: dict[str, JsonSchema] = {}
    required = []
    for key, annotation in hints.items():
        # Read from the hint, not __required_keys__: under `from __future__ import annotations`
        # the class cannot see a NotRequired inside its string annotations.
        wrapper = typing.get_origin(annotation)
        optional = wrapper is typing_extensions.NotRequired
        if wrapper is typing_extensions.Required or (declaration.__total__ and not optional):
            required.append(key)
        while typing.get_origin(annotation) in (typing_extensions.NotRequired, typing_extensions.Required):
            annotation = typing.get_args(annotation)[0]
        description = next((m.description for m in getattr(annotation, "__metadata__", ())
                            if isinstance(m, FieldInfo) and m.description), None)
        properties[key] = {**type_schema(annotation), **({"description": description} if description else {})}
    config = getattr(declaration, "__pydantic_config__", None) or {}
    return {"type": "object", **({"required": required} if required else {}),
            **({"additionalProperties": False} if config.get("extra") == "forbid" else {}), "properties": properties,
            **_rules(config)}


def _rules(config: Any) -> JsonSchema:
    """A declaration's rules across its keys (an if/then, a not), as its config's `json_schema_extra` states them."""
    extra = config.get("json_schema_extra")
    return dict(extra) if isinstance(extra, dict) else {}


def options_schema(name: str, model: Any, title: str, description: str) -> JsonSchema:
    """options.json's schema from its model: every key written (not `exclude`d), its type as the
    field declares it, its description the Option's `doc` (or the field's own)."""
    from .engine.options import Option

    properties: dict[str, JsonSchema] = {}
    required = []
    fields = model.model_fields
    order = [n for n in ("schema_version", "type") if n in fields] + [n for n in fields
                                                                     if n not in ("schema_version", "type")]
    for field in order:
        info = fields[field]
        if info.exclude:
            continue
        option = next((m for m in info.metadata if isinstance(m, Option)), Option())
        dropped = (info.default, *option.omitted) if option.when_set else ()
        extra = [m for m in info.metadata if not isinstance(m, Option)]
        spec = type_schema(typing.Annotated[(info.annotation, *extra)] if extra else info.annotation, dropped=dropped)
        doc = option.doc or info.description
        properties[info.alias or field] = {**spec, **({"description": doc} if doc else {})}
        if typing.get_origin(info.annotation) is Literal:
            required.append(info.alias or field)  # the family's own keys: always written
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_ID.format(name=name),
            "title": title, "description": description, "type": "object", "required": required,
            **({"additionalProperties": False} if model.model_config.get("extra") == "forbid" else {}),
            "properties": properties}


def pack_schema() -> JsonSchema:
    """The pack's schema: its own keys, then one per run option a pack may hold, typed as the
    pack holds it (`pack_type`); a pack writes only what it sets (never null)."""
    from .engine.options import packed
    from .engine.packs import PackDocument

    properties: dict[str, JsonSchema] = {}
    for key, info in PackDocument.model_fields.items():
        spec = type_schema(typing.Annotated[(info.annotation, *info.metadata)] if info.metadata else info.annotation,
                           dropped=(None,))
        properties[key] = {**spec, **({"description": info.description} if info.description else {})}
    for d in packed():
        spec = type_schema(d.option.pack_type or d.annotation, dropped=(None,))
        properties[str(d.option.pack)] = {**spec, **({"description": d.option.pack_doc} if d.option.pack_doc else {})}
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_ID.format(name="council-pack"),
            "title": "amicus council policy pack",
            "description": "A named, versioned set of `amicus council run` defaults (`<config dir>/packs/NAME.json`, or "
                           "any file given to --pack). Any flag typed on a run overrides the pack's value for that "
                           "field. Unknown keys are refused. Family v2.",
            "type": "object", "required": ["schemaVersion", "type", "name", "version"],  # `pack save` writes version
            "additionalProperties": False, **PackDocument.SCHEMA_RULES, "properties": properties}


def _declared(module: str, name: str) -> Callable[[], Any]:
    """A declaration, imported when its file is rendered."""
    from importlib import import_module

    return lambda: getattr(import_module(f"amicus_mcp.{module}"), name)


DOCUMENT_SCHEMAS: dict[str, tuple[Callable[[], Any], str, str]] = {
    "wave": (_declared("documents.wave", "Wave"), "amicus wave document",
             "`amicus fanout`: one prompt to N models. `<sessions>/<waveId>/wave.json`, rewritten atomically as legs "
             "finish. Family v2."),
    "council-rereview": (_declared("documents.pr_loop", "RereviewDocument"), "amicus council re-review",
                         "`rereview.json` in a run directory started with `council run --baseline RUN`: each of the "
                         "run's findings matched to the baseline run's (location first, then claim; council/rereview.py)"
                         " — still-open when matched, new when not — and the baseline's unmatched findings as resolved. "
                         "Every decision says how it was made (by: location | claim, with its claim similarity; or "
                         "matcher, the --matcher model's, with its reason)."),
    "council-dismissed": (_declared("documents.pr_loop", "DismissedDocument"), "amicus previously dismissed findings",
                          "`dismissed.json` in a run directory: the run's findings that match one the user denied in "
                          "an earlier run of the project (the decisions memory), matched as a re-review matches "
                          "(location, then claim). The judges' bundle marks them, and the gate does not count such a "
                          "blocker unless it is Confirmed again with verified evidence."),
    "council-decisions": (_declared("documents.pr_loop", "DecisionsDocument"), "amicus decisions memory",
                          "`council-decisions.json` beside the reliability ledger (and `amicus decisions list --json`, "
                          "which adds path and project): every accept / deny Stage-4 decision taken through `council "
                          "verdict` or `amicus_verdict`, with the user's reason, per project. A later run of the project "
                          "marks a finding that matches a denied one as previously dismissed (dismissed.json)."),
    "council-run": (_declared("documents.run", "RunManifest"), "amicus council-run manifest",
                    "`<runDir>/run.json`, checkpointed atomically after every leg, stage and chair attempt by `amicus "
                    "council run`. Family v2."),
    "run": (_declared("documents.legs", "LegRun"), "amicus leg run document",
            "One model call of a fanout wave (`<sessions>/<legId>/run.json`, and each entry of wave.json `legs`); "
            "`amicus status` of a council run's leg has the same shape, with where in its run it is. Family v2."),
    "council-leg": (_declared("documents.legs", "FinishedLeg"), "a finished council leg (legs/<key>.json)",
                    "One leg the provider answered, kept in the run directory under its content key "
                    "(engine/legcache.py) so a resumed run reuses it instead of sending it again. Written before "
                    "run.json records the leg."),
    "council-pr-review": (_declared("documents.pr_loop", "PrReviewDocument"), "amicus council pr-review result",
                          "`amicus council pr-review RUN --repo OWNER/NAME --pr N [--post]`: a run's findings as one "
                          "pull-request review — the review as it is (or would be) POSTed to GitHub's /pulls/N/reviews, "
                          "which findings went inline and which into the body, the Markdown preview, and, after --post, "
                          "GitHub's review id and URL."),
}


TYPED_DOCUMENTS: dict[str, tuple[Callable[[], Any], str, str]] = {
    "session-list": (_declared("documents.sessions", "SessionList"), "amicus session list",
                     "`amicus list --json`: the project's council runs, waves and evals, newest first. Family v2."),
    "council-tally-input": (_declared("documents.tally", "TallyInput"), "amicus council tally input",
                            "What `amicus council tally` and amicus_council_tally read: the de-anonymized Stage-2 "
                            "result. Extra keys are allowed (the family grows additively)."),
    "error": (_declared("envelope", "ErrorEnvelope"), "amicus error envelope",
              "What every --json command prints when it fails (exit 1). Family v2."),
    "council-verdict": (_declared("documents.council", "Verdict"), "amicus council-verdict document",
                        "`amicus council verdict` / amicus_verdict: a closed projection of the tally record merged "
                        "with Stage-4 decisions. Council family v2."),
    "council-ledger-row": (_declared("documents.council", "LedgerRow"), "amicus council-ledger row",
                           "One line of the append-only reliability ledger `<configDir>/council-ledger.jsonl`, written "
                           "by every tally that is not run with --no-ledger: one row per distinct (model alias, "
                           "resolvedModel) pair on the bench (amicus_mcp.council.ledger.ledger_rows). Council family "
                           "v2. Rows carry no finding text, claim or artifact content. Read tolerantly (unparseable "
                           "lines are skipped), so additive fields are allowed."),
    "council-stats": (_declared("documents.council", "Stats"), "amicus council-stats document",
                      "Per-model reviewer reliability derived from the council ledger (`council stats --json`, "
                      "amicus_council_stats; amicus_mcp.council.ledger.derive_stats). Council family v2. One entry "
                      "per `resolvedModel || model`, in order of first appearance in the ledger."),
    "council-gate": (_declared("documents.council", "GateRecord"), "amicus council gate result",
                     "`amicus council gate RUN_ID_OR_DIR --fail-on LEVEL --json`: a verdict's outcome as a CI result. "
                     "exitCode 0 = passed, 4 = failed. Family v2."),
    "council-debate": (_declared("documents.council", "DebateRecord"), "amicus council-debate record",
                       "`<runDir>/debate.json`: the Stage-2.5 rebuttal round of a `council run --debate`, finding by "
                       "finding. Written only when a defense or re-vote ran. Family v2."),
    "council-validate": (_declared("documents.validate", "ValidateDocument"), "amicus council-validate document",
                         "Stage-1 findings-block check (`council validate --json`). Council family v2. `ok` is true "
                         "exactly when `errors` is empty; `findings` echoes the parsed findings only when ok (and is "
                         "[] otherwise). An ok document with `findings: []` is a clean review, which is valid. Exit 0 "
                         "when ok, 2 when invalid. With `--intent question` the file is a question council's answer: "
                         "`intent` is `question`, `findings` holds its key claims and `answer` the rest of a valid "
                         "block."),
    "cost-estimate": (_declared("documents.commands", "CostEstimateDocument"), "amicus cost estimate",
                      "`amicus fanout --estimate --json`: what a wave would cost, computed before any spend. Family v2."),
    "doctor": (_declared("documents.commands", "DoctorReport"), "amicus doctor report", "`amicus doctor --json`. Family v2."),
    "keys": (_declared("documents.commands", "KeysDocument"), "amicus keys documents",
             "`amicus keys set|list|unset --json`. Names only: a key's value never appears. Family v2."),
    "council-presets": (_declared("documents.commands", "CouncilPresetDocument"), "amicus council preset documents",
                        "`amicus council save|list|show --json`. Family v2."),
    "council-packs": (_declared("documents.commands", "CouncilPackDocument"), "amicus council pack documents",
                      "`amicus council pack save|list|show --json`. Family v2."),
    "council-templates": (_declared("documents.commands", "CouncilTemplateDocument"), "amicus briefing template documents",
                          "`amicus council template list|show --json`. Family v2."),
}

OPTIONS_DOCUMENTS: dict[str, tuple[Callable[[], Any], str, str]] = {
    "council-run-options": (_declared("engine.options", "RunOptions"), "council run options (options.json)",
                            "A council run's inputs, written to its run directory by whichever front started it and "
                            "read back by the engine worker: the caller's choices with a pack's defaults filled in "
                            "(packRecord names the pack). The run's id and directory are in run.json. Family v2."),
    "wave-options": (_declared("engine.options", "WaveOptions"), "fanout wave options (options.json)",
                     "A fanout wave's inputs, written to its wave directory and read back by the engine worker. "
                     "Family v2."),
}


# --------------------------------------------------------------------------- generated prose
# A span of a prose file between `<!-- generated: KEY -->` and `<!-- /generated -->` (in a
# stylesheet `/* generated: KEY */` and `/* /generated */`) is the text SPANS[KEY] renders from a
# declaration (the run options' table from engine/options.py, the verdict scale and the
# workspace's verdict chips from vocabulary.py), and a skill's copy of a prompt file is that file
# as the engine reads it: a new option or verdict reaches the prose by `--write`, and `--check`
# calls a hand edit inside a span stale.

PROSE_FILES = ("docs/mcp.md", "README.md", "skills/second-opinion/SKILL.md", "skills/second-opinion/COUNCIL-DESIGN.md",
               "skills/second-opinion/SEAT-BRIEFS.md")
PACKAGE_PROSE = ("workspace/static/app.css", "eval/suites/planted/README.md")  # shipped: kept in an installed package too
_SPAN = re.compile(r"(?P<open><!-- generated: (?P<key>[a-z-]+) -->|/\* generated: (?P<css>[a-z-]+) \*/)(?P<body>.*?)"
                   r"(?P<close><!-- /generated -->|/\* /generated \*/)", re.S)


def prose_text(path: Path) -> str:
    """The file as it is, with every generated span rendered anew."""
    def span(match: re.Match[str]) -> str:
        key = match["key"] or match["css"]
        if key not in SPANS:
            raise KeyError(f"{where(path)}: no generated span named {key!r} (known: {', '.join(SPANS)})")
        return f"{match['open']}{SPANS[key]()}{match['close']}"

    return _prompt_copies(_SPAN.sub(span, path.read_text(encoding="utf-8")))


_PROMPT_COPY = re.compile(r"(?P<open><!-- prompt: (?P<name>[a-z0-9-]+)\.md -->\n````text\n)(?P<body>.*?\n)(?P<close>````)", re.S)


def _prompt_copies(text: str) -> str:
    """A skill file's verbatim copies of the prompt files (`<!-- prompt: NAME.md -->` and a
    ````text block), as the engine reads each: the vocabulary's words filled in."""
    from .council.briefings import template

    return _PROMPT_COPY.sub(lambda m: f"{m['open']}{template(m['name']).template}{m['close']}", text)


def _cell(text: str) -> str:
    """A description as a table cell's Markdown: never a column break, an HTML tag or emphasis."""
    return text.replace("|", "\\|").replace("\n", " ").replace("<", "&lt;").replace("*", "\\*")


def run_options_table() -> str:
    """The run options as the tools take them: one row per argument, with the tools that take
    it, its CLI flag and pack key, and the description the tool publishes."""
    from .mcp.option_args import BENCH, RUN, WAVE

    tools = {"amicus_council_run": RUN, "amicus_eval": BENCH, "amicus_fanout": WAVE}
    rows: dict[str, tuple[Any, Any, set[str]]] = {}  # argument → (its declaration, its Arg, the tools)
    for tool, arguments in tools.items():
        for d, arg in arguments.declared():
            rows.setdefault(arg.name, (d, arg, set()))[2].add(tool)
    head = ["argument", *(f"`{tool}`" for tool in tools), "CLI flag", "pack key", "what it does"]
    lines = ["", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, (d, arg, taken) in rows.items():
        flag = f"`{d.option.flag.name}`" if d.option.flag is not None and not d.option.flag.hidden else ""
        pack = f"`{d.option.pack}`" if d.option.pack else ""
        marks = ["✓" if tool in taken else "" for tool in tools]
        lines.append("| " + " | ".join([f"`{name}`", *marks, flag, pack, _cell(arg.description)]) + " |")
    return "\n".join(lines) + "\n"


def _either(words: list[str]) -> str:
    return f"{', '.join(words[:-1])} or {words[-1]}"


def _verdict_forms() -> str:
    from .vocabulary import VERDICT_MARKER, VERDICT_SCALE

    return _either([f"`{VERDICT_MARKER}: {phrase}`" for phrase in VERDICT_SCALE])


def _verdicts() -> str:
    from .vocabulary import VERDICT_SCALE

    return _either([f"`{phrase}`" for phrase in VERDICT_SCALE])


def slug(text: str) -> str:
    """app.js's `slug` of a word (the class it gives the word's chip): lower case, every run of
    other characters one '-'."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower())


def _verdict_chips() -> str:
    """app.css's rule per tone for the chips of the chair's phrases: a phrase takes its tone's
    colour (vocabulary.CHAIR_LINE_TONES), which the stylesheet names `--verdict-<tone>`."""
    from .vocabulary import CHAIR_LINE_TONES, VERDICT_TONES

    rules = [", ".join(f".chip.verdict-{slug(phrase)}" for phrase, its in CHAIR_LINE_TONES.items() if its == tone)
             + f" {{ background: var(--verdict-{tone}); }}" for tone in VERDICT_TONES]
    return "\n" + "\n".join(rules) + "\n"


SPANS: dict[str, Callable[[], str]] = {
    "run-options": run_options_table,
    "verdict-forms": _verdict_forms,  # `VERDICT: Ship it`, … or `VERDICT: Fundamental rethink`
    "verdicts": _verdicts,  # `Ship it`, … or `Fundamental rethink`
    "verdict-chips": _verdict_chips,  # .chip.verdict-ship-it, .chip.verdict-converged { background: … }
}


def stale() -> Iterator[tuple[Contract, str]]:
    """(contract, its text) for every file that is missing or not what its declaration renders,
    each rendered when reached: a file written meanwhile is what a later one renders from (the
    tools' published schemas embed shipped schemas)."""
    for contract in contracts():
        text = contract.render()
        try:
            current = contract.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            current = None
        if current != text:
            yield contract, text


def where(path: Path) -> str:
    for root in (PACKAGE.parents[1], PACKAGE):
        if path.is_relative_to(root):
            return str(path.relative_to(root))
    return str(path)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args not in (["--check"], ["--write"]):
        print("usage: python -m amicus_mcp.contracts --check | --write", file=sys.stderr)
        return 2
    from .fsio import atomic_write_text
    from .schemas import load_schema

    if args == ["--check"]:
        found = list(stale())
        for contract, _ in found:
            print(f"{where(contract.path)} is stale: run {COMMAND}", file=sys.stderr)
        return 1 if found else 0
    for contract, text in stale():
        atomic_write_text(contract.path, text, mask_keys=False)
        load_schema.cache_clear()  # what renders next reads the file just written
        print(f"wrote {where(contract.path)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
