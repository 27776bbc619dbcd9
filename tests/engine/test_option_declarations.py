"""Issue 20 item 2: one declaration per option.

A run option is one field of the options model (engine/options.py); its CLI flag, its MCP
argument, its pack key and the flag → argument name errors are renamed with all derive from
that field. These tests hold the fronts to the fields, hold the shipped schemas (options.json,
the pack) to the models, and show that an option added to the model reaches every front with
no other change.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any, Literal

import pytest

from amicus_mcp.engine import packs
from amicus_mcp.cli import build_parser
from amicus_mcp.cli.option_flags import BENCH, RUN, SETTINGS, WAVE
from amicus_mcp.engine import options as opts
from amicus_mcp.engine.options import Arg, Flag, Option, RunOptions, WaveOptions, declared
from amicus_mcp.errors import BadArgs
from amicus_mcp.mcp import option_args, params
from amicus_mcp.schemas import load_schema

# --------------------------------------------------------------------------- schemas and models


def json_types(schema: dict[str, Any], defs: dict[str, Any] | None = None) -> set[str]:
    """The JSON types a (sub)schema allows, however it spells them (a `$ref` into `defs` followed)."""
    if "$ref" in schema and defs is not None:
        return json_types(defs[schema["$ref"].rsplit("/", 1)[-1]], defs)
    if "anyOf" in schema:
        return set().union(*(json_types(s, defs) for s in schema["anyOf"]))
    if "const" in schema:
        return {_type_of(schema["const"])}
    if "enum" in schema:
        return {_type_of(v) for v in schema["enum"]}
    kind = schema.get("type", [])
    return set(kind if isinstance(kind, list) else [kind])


def _type_of(value: Any) -> str:
    return {bool: "boolean", int: "integer", float: "number", str: "string", type(None): "null"}[type(value)]


@pytest.mark.parametrize(("model", "name"), [(RunOptions, "council-run-options"), (WaveOptions, "wave-options")])
def test_the_shipped_options_schema_names_every_field_with_its_types(model: Any, name: str) -> None:
    shipped = load_schema(name)["properties"]
    whole = model.model_json_schema(by_alias=True, mode="serialization")
    generated = whole["properties"]
    assert list(shipped) and set(shipped) == set(generated), f"{name}: schema and model disagree on the keys"
    for key, spec in shipped.items():
        assert json_types(spec) <= json_types(generated[key], whole.get("$defs", {})), f"{name}.{key}"


def normalised(schema: dict[str, Any]) -> dict[str, Any]:
    """A property as the hand-written schema spells it: no titles or defaults, a nullable X as X."""
    schema = {k: v for k, v in schema.items() if k not in ("title", "default", "description")}
    if "anyOf" in schema:
        rest = [s for s in schema.pop("anyOf") if s != {"type": "null"}]
        assert len(rest) == 1, rest
        schema.update(normalised(rest[0]))
    if "enum" in schema or "const" in schema:
        schema.pop("type", None)
    if "items" in schema:
        schema["items"] = normalised(schema["items"])
    return schema


def test_the_shipped_pack_schema_is_the_pack_model() -> None:
    shipped = load_schema("council-pack")
    generated = packs.pack_model().model_json_schema()
    assert list(shipped["properties"]) and set(shipped["properties"]) == set(generated["properties"])
    for key, spec in shipped["properties"].items():
        assert normalised(spec) == normalised(generated["properties"][key]), key
    assert shipped["additionalProperties"] is False and generated["additionalProperties"] is False
    assert set(packs.pack_keys()) == {d.option.pack for d in declared("run") if d.option.pack}


# --------------------------------------------------------------------------- the fronts


def command(*words: str) -> argparse.ArgumentParser:
    parser: Any = build_parser()
    for word in words:
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parser = sub.choices[word]
    return parser.complete()


def flags_of(parser: argparse.ArgumentParser) -> set[str]:
    return {flag for action in parser._actions for flag in action.option_strings}


def test_every_option_with_a_flag_is_on_the_commands_that_take_it() -> None:
    runs = {d.option.flag.name for d in declared("run") if d.option.flag}
    assert runs <= flags_of(command("council", "run"))
    assert {d.option.flag.name for d in declared("wave") if d.option.flag} <= flags_of(command("fanout"))
    assert {f"--{s}" for s in ("models", "chair", "timeout", "var")} <= flags_of(command("council", "pack", "save"))
    assert {"--prompt-file", "--artifact", "--out-dir", "--pack"} & flags_of(command("council", "pack", "save")) == set()
    eval_flags = flags_of(command("eval", "run"))
    assert {"--pack", "--no-cost-gate", "--models", "--template"} <= eval_flags and "--claude-review" not in eval_flags


def test_a_command_line_becomes_the_options_model() -> None:
    args = command("council", "run").parse_args(
        ["--models", "a, b", "--lenses", "x,y", "--var", "goal=ship", "--var", "who=us", "--max-cost", "2",
         "--timeout", "3", "--no-cost-gate", "--no-debate", "--prompt-file", "b.md"])
    options = RUN.options(args)
    assert (options.models, options.lenses, options.vars) == (["a", "b"], ["x", "y"], {"goal": "ship", "who": "us"})
    assert (options.max_cost, options.timeout_min, options.cost_gate, options.debate) == (2.0, 3.0, False, False)
    assert (options.validate_models, options.allow_secrets, options.chair) == (True, False, None)
    wave = WAVE.options(command("fanout").parse_args(["--models", "a", "--prompt-file", "p.md"]))
    assert wave.timeout_min == 15.0 and wave.prompt_file == "p.md"
    with pytest.raises(BadArgs, match="has an empty member"):
        RUN.options(command("council", "run").parse_args(["--models", "a,,b"]))
    assert SETTINGS.options(command("council", "pack", "save").parse_args(["p", "--chair", "c"])).chair == "c"
    assert BENCH.options(command("eval", "run").parse_args(["--out-dir", "e", "--models", "a,b"])).out_dir is None


async def tool_schemas() -> dict[str, dict[str, Any]]:
    """Each tool's input schema as its handler builds it now (not as published.json recorded it)."""
    from amicus_mcp.mcp.published import built_schemas

    return {name: schemas["inputSchema"] for name, schemas in built_schemas().items()}


@pytest.mark.anyio
async def test_every_option_with_an_argument_is_an_argument_of_the_tools_that_take_it() -> None:
    tools = await tool_schemas()
    for tool, model, dropped in (("amicus_council_run", "run", set()), ("amicus_fanout", "wave", set()),
                                 ("amicus_eval", "run", {"prompt_file", "artifact", "claude_review", "out_dir",
                                                         "template", "vars", "intent"})):
        props = tools[tool]["properties"]
        for d in declared(model):
            if d.option.arg is None:
                continue
            if d.field in dropped:
                assert d.option.arg.name not in props or d.field == "out_dir", (tool, d.field)  # eval's outDir is its own
                continue
            prop = props[d.option.arg.name]
            assert prop["title"] == d.option.arg.title and prop["description"], (tool, d.field)
    assert tools["amicus_council_run"]["properties"]["noCostGate"]["default"] is False  # cost_gate, turned round
    assert "matcher" in tools["amicus_eval"]["required"]


def test_the_error_names_are_the_fields_own() -> None:
    names = params.argument_names("amicus_council_run")
    for d in declared("run"):
        if d.option.flag and d.option.arg:
            assert names[d.option.flag.name].split(":")[0] == d.option.arg.name
    assert names["--no-cost-gate"] == "noCostGate: true" and names["--prompt-file"] == "briefingFile"
    assert params.argument_names("amicus_fanout")["--prompt-file"] == "promptFile"
    assert "--prompt-file" not in params.argument_names("amicus_status")


def test_a_value_the_model_refuses_is_bad_args_naming_the_flag() -> None:
    with pytest.raises(BadArgs, match=r"^--max-cost 'lots' is not allowed: .*must be a plain decimal number of dollars"):
        RunOptions.given(max_cost="lots")


# --------------------------------------------------------------------------- a new option is one field


class Probe(RunOptions):
    probe: Annotated[str | None, Option(
        flag=Flag("--probe", "a probe option"), arg=Arg("probe", "Probe", "A probe option"), pack="probe",
        when_set=True)] = None
    probe_kind: Annotated[Literal["review", "question"] | None, Option(  # the shape of a choice (an intent)
        flag=Flag("--probe-kind", "a probe choice"), arg=Arg("probeKind", "Probe kind", "A probe choice"),
        pack="probeKind", when_set=True)] = None


CACHES = (opts.declared, packs.pack_model, packs.pack_keys, packs.number_keys, option_args.flag_arguments,
          params.argument_names)


@pytest.fixture
def probe(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for cached in CACHES:
        cached.cache_clear()
    monkeypatch.setitem(opts.MODELS, "run", Probe)
    yield
    monkeypatch.undo()
    for cached in CACHES:
        cached.cache_clear()


@pytest.mark.anyio
async def test_an_option_added_to_the_model_reaches_every_front(probe: None, config_dir: Path) -> None:
    from amicus_mcp.engine.briefing_inputs import apply_pack, pack_settings

    options = RUN.options(command("council", "run").parse_args(["--probe", "x", "--probe-kind", "question"]))
    assert options.probe == "x" and options.document()["probe"] == "x" and options.probe_kind == "question"
    with pytest.raises(BadArgs, match=r"--probe-kind: invalid choice: 'other'"):
        command("council", "run").parse_args(["--probe-kind", "other"])
    assert "probe" not in Probe().document()  # when_set: older documents stay as they were
    props = (await tool_schemas())["amicus_council_run"]["properties"]
    assert props["probe"]["title"] == "Probe"
    assert props["probeKind"]["anyOf"][0] == {"enum": ["review", "question"], "type": "string"}
    assert params.argument_names("amicus_council_run")["--probe"] == "probe"
    pack = config_dir / "p.json"
    pack.write_text(json.dumps({"schemaVersion": 2, "type": "council-pack", "name": "p", "probe": "from-pack"}))
    assert apply_pack(Probe(pack=str(pack))).probe == "from-pack"
    assert pack_settings(Probe(probe="y")) == {"probe": "y"}


# --------------------------------------------------------------------------- start-up


def test_building_the_cli_parser_does_not_load_the_options_model() -> None:
    code = ("import sys; from amicus_mcp.cli import build_parser; build_parser(); "
            "print(sorted(m for m in ('amicus_mcp.engine.options', 'pydantic.main') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
