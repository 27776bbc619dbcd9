"""Issue 20 item 4: the council's words are defined once, in `amicus_mcp/vocabulary.py`.

- every enum of every shipped JSON Schema (and of the MCP tools' input and output schemas) that
  spells vocabulary words is exactly one of the vocabulary's sets, in its order;
- no module under src/ holds a second copy of a set (read off the source's syntax tree), and the
  browser's own copies (JavaScript and CSS cannot import Python) equal the vocabulary;
- the fronts take their choices from it (argparse, MCP `Literal` arguments), and the prompt
  files that spell the verdict scale get it filled in from it.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from amicus_mcp import vocabulary as v

REPO = Path(__file__).resolve().parents[1]
SRC = REPO / "src" / "amicus_mcp"
SCHEMAS = sorted((SRC / "schemas").glob("*.schema.json"))
STATIC = SRC / "workspace" / "static"

STATUS_SETS = (v.RUN_STATUSES, v.TERMINAL_RUN_STATUSES, v.RESUMABLE_RUN_STATUSES, v.RESUMED_FROM_STATUSES,
               v.STAGE_STATUSES, v.LEG_FAILURES, v.LEG_OUTCOMES, v.LEG_STATUSES, v.TERMINAL_LEG_STATUSES,
               v.WAVE_STATUSES, v.TERMINAL_WAVE_STATUSES, v.CASE_STATUSES)
# family → the sets the vocabulary names in it. A family's words are the union of its sets.
FAMILIES: dict[str, tuple[tuple[str, ...], ...]] = {
    # the chair's closing line: a review's VERDICT scale, a question's ANSWER standings, or either
    "chair line": (v.VERDICT_SCALE, v.ANSWER_SCALE, v.CHAIR_LINES),
    "intent": (v.INTENTS, v.ANSWERING_INTENTS, v.FRAMED_INTENTS),
    "answer confidence": (v.ANSWER_CONFIDENCES,),
    "tier": (v.TIERS, v.TIER_DISPLAY_ORDER, v.DEBATED_TIERS, v.VERIFIED_TIERS),
    "vote": (v.VOTES,),
    "severity": (v.SEVERITIES, v.VERIFIED_SEVERITIES),
    "confidence": (v.CONFIDENCES,),
    "debate action": (v.DEBATE_ACTIONS, v.REVOTED_ACTIONS),
    "conformance": (v.CONFORMANCES,),
    "gate level": (v.GATE_LEVELS,),
    "kept decision": (v.KEPT_DECISIONS,),
    "evidence check": (v.EVIDENCE_CHECKS, v.UNVERIFIED_CHECKS, v.FOUND_CHECKS),
    "verification": (v.VERIFICATIONS,),
    "status": STATUS_SETS,
    "stage": (v.LEG_STAGES, v.PLANNED_STAGES, v.STAGE_NAMES, v.CORE_STAGE_NAMES),
    "gateway mode": (v.GATEWAY_MODES,),
    "cost source": (v.COST_SOURCES, v.PRICED_COST_SOURCES, v.PREFLIGHT_COST_SOURCES, v.ROLLED_COST_SOURCES, v.ESTIMATED_COST_SOURCES),
    "cost mode": (v.COST_MODES, v.CATALOG_PRICED_MODES),
    "error code": (v.ERROR_CODES, v.CEILING_ERROR_CODES),
    "validate error code": (v.FINDINGS_ERROR_CODES, v.ANSWER_ERROR_CODES),
    "doctor check": (v.DOCTOR_CHECKS, v.AGENT_SEATS),
    "doctor status": (v.DOCTOR_STATUSES,),
    "key source": (v.KEY_SOURCES,),
    "catalog state": (v.CATALOG_STATES,),
    "template source": (v.TEMPLATE_SOURCES,),
    "pack source": (v.PACK_SOURCES,),
}
# Words common enough to appear in other sets ("error" is also a chair attempt's outcome, "clean" an
# eval placement): an enum is one of these families only when every word of it is that family's.
# ("chair" is also a role, "auto" and "none" everyday words, "reported" a cost mode as well as a source.)
GENERIC = frozenset({"status", "conformance", "intent", "answer confidence", "stage", "gateway mode", "cost source",
                     "cost mode", "key source", "template source", "pack source", "doctor status",
                     "validate error code"})  # NO_FENCED_BLOCK, NOT_PARSEABLE: every block reader's too (a judge's)
# Sets no shipped schema spells (a configured server's `cost` is config, which has no schema).
UNSCHEMED = frozenset({"cost mode"})


def words(family: str) -> frozenset[str]:
    return frozenset(w for named in FAMILIES[family] for w in named)


# --------------------------------------------------------------------------- schema enums


def enums(node: Any, path: str = "") -> Iterator[tuple[str, list[Any]]]:
    """(JSON pointer, values) of every `enum` in a schema."""
    if isinstance(node, dict):
        if isinstance(node.get("enum"), list):
            yield path, node["enum"]
        for key, child in node.items():
            yield from enums(child, f"{path}/{key}")
    elif isinstance(node, list):
        for i, child in enumerate(node):
            yield from enums(child, f"{path}/{i}")


def enum_problems(where: str, values: list[Any]) -> tuple[list[str], list[str]]:
    """(the families this enum spells, what is wrong with it). A trailing null (an optional
    value) is not a word; the rest must be one of the family's named sets, in its order."""
    spelled = tuple(x for x in values if x is not None)
    found, problems = [], []
    for family, named in FAMILIES.items():
        own = [x for x in spelled if x in words(family)]
        every = bool(spelled) and len(own) == len(spelled)
        if not every and (family in GENERIC or not own):
            continue
        found.append(family)
        if spelled not in named:
            problems.append(f"{where}: {list(values)} is not a {family} set of amicus_mcp/vocabulary.py "
                            f"(one of {[list(n) for n in named]})")
    return found, problems


def check_schema_enums(documents: dict[str, Any]) -> tuple[set[str], list[str]]:
    families: set[str] = set()
    problems: list[str] = []
    for name, doc in documents.items():
        for pointer, values in enums(doc):
            found, wrong = enum_problems(f"{name}#{pointer}", values)
            families.update(found)
            problems += wrong
    return families, problems


def test_every_shipped_schema_enum_of_vocabulary_words_is_the_vocabulary() -> None:
    documents = {path.name: json.loads(path.read_text(encoding="utf-8")) for path in SCHEMAS}
    families, problems = check_schema_enums(documents)
    assert problems == []
    # The check reached every family the schemas spell (it cannot pass by matching nothing).
    assert families == set(FAMILIES) - UNSCHEMED


def test_the_schema_enum_check_reports_a_drifted_enum() -> None:
    drifted = {
        "a.json": {"properties": {"overallVerdict": {"enum": ["Ship it", "Fix it first", None]}}},
        "b.json": {"properties": {"tier": {"enum": ["Contested", "Confirmed", "Singleton", "Disputed"]}}},
        "c.json": {"properties": {"status": {"enum": ["running", "complete", "error"]}}},
        "d.json": {"properties": {"outcome": {"enum": ["completed", "error", "timeout"]}}},  # not statuses
    }
    _, problems = check_schema_enums(drifted)
    assert [p.split(":")[0] for p in problems] == ["a.json#/properties/overallVerdict", "b.json#/properties/tier",
                                                    "c.json#/properties/status"]


@pytest.mark.anyio
async def test_every_mcp_tool_schema_enum_of_vocabulary_words_is_the_vocabulary() -> None:
    from mcp import Client
    from mcp.types import Implementation

    from amicus_mcp.mcp.server import build_server

    info = Implementation(name="claude-code", version="9.9")
    async with Client(build_server(), mode="legacy", client_info=info) as client:  # type: ignore[arg-type]
        tools = (await client.list_tools()).tools
    documents = {f"{t.name} {kind}": schema for t in tools
                 for kind, schema in (("input", t.input_schema), ("output", t.output_schema)) if schema}
    families, problems = check_schema_enums(documents)
    assert problems == []
    verdict = next(t for t in tools if t.name == "amicus_verdict").input_schema["properties"]["overallVerdict"]
    assert list(v.CHAIR_LINES) in [list(e) for _, e in enums(verdict)]  # the MCP argument type is the scale
    assert "chair line" in families
    intent = next(t for t in tools if t.name == "amicus_council_run").input_schema["properties"]["intent"]
    assert list(v.INTENTS) in [list(e) for _, e in enums(intent)]


# --------------------------------------------------------------------------- no second copy


def literal_sets(tree: ast.AST) -> Iterator[tuple[int, list[str]]]:
    """(line, string words) of every tuple, list and set literal (a `Literal[...]` is a tuple)."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            strings = [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
            if len(strings) >= 2:
                yield node.lineno, strings


def copies(source: str, where: str) -> list[str]:
    """Every literal in `source` that restates a vocabulary set: two or more words of one
    family, or, for the generic words (statuses, conformance), exactly one of its named sets."""
    problems = []
    for line, strings in literal_sets(ast.parse(source)):
        for family, named in FAMILIES.items():
            if family in GENERIC:
                hit = frozenset(strings) in {frozenset(n) for n in named}
            else:
                hit = len([s for s in strings if s in words(family)]) >= 2
            if hit:
                problems.append(f"{where}:{line}: {strings} restates the vocabulary's {family} words; "
                                "import them from amicus_mcp.vocabulary")
    return problems


def test_no_module_holds_a_second_copy_of_a_vocabulary_set() -> None:
    problems = []
    for path in sorted(SRC.rglob("*.py")):
        if path == SRC / "vocabulary.py":
            continue
        problems += copies(path.read_text(encoding="utf-8"), str(path.relative_to(REPO)))
    assert problems == []


@pytest.mark.parametrize("source", [
    'OVERALL = ("Ship it", "Fix these first", "Fundamental rethink")',
    'Verdict = Literal["Ship it", "Fix these first", "Fundamental rethink"]',
    'VERDICTS = ["agree", "dispute", "neutral"]',
    'x = {"blocker", "major"}',
    'TERMINAL = ("complete", "partial", "error", "aborted")',
    'def f(s): return s in ("error", "aborted")',
    'parser.add_argument("--fail-on", choices=("never", "fix-these-first"))',
    'ORDER = ("clean", "repaired", "unstructured")',
    'RUN_ORDER = ("stage1", "stage2", "debate", "verify", "chair")',
    'StageName = Literal["stage1", "stage2", "tally", "tally-provisional", "debate-defense", "debate-revote", "verify", "chair", "verdict"]',
    'Gateway = Literal["auto", "direct", "openrouter"]',
    'CostKind = Literal["reported", "estimated", "unknown"]',
    'def f(s): return s in ("estimated", "mixed")',
    'def f(s): return s in ("reported", "catalog", "local", "none")',
    'CODES = ("BAD_ARGS", "MISSING_PROMPT")',
])
def test_the_copy_check_finds_a_restated_set(source: str) -> None:
    assert copies(source, "x.py") != []


@pytest.mark.parametrize("source", [
    'def f(s): return s == "Ship it"',
    'DEAD = ("error", "timeout", "crashed")',  # not a set the vocabulary names
    'GLYPHS = {"agree": "✓", "dispute": "✗"}',  # a table keyed by the words (checked below)
    'order = [*TIERS, "Missed"]',
    'ROWS = ("suite", "bench", "chair", "matcher", "critic", "lenses", "debate")',  # chair and debate as eval words
    'KINDS = ("gateway", "direct", "server")',
])
def test_the_copy_check_leaves_other_literals_alone(source: str) -> None:
    assert copies(source, "x.py") == []


def test_tables_keyed_by_vocabulary_words_cover_exactly_the_vocabulary() -> None:
    from amicus_mcp.cli.fanout import _MARK
    from amicus_mcp.council.report_html import TIER_CLASS, VERDICT_CLASS
    from amicus_mcp.council.report_model import GLYPHS
    from amicus_mcp.council.tiers import _VERDICT_KEY
    from amicus_mcp.eval.plots import TIER_COLOURS
    from amicus_mcp.workspace.terminal import STAGE_MARK

    assert set(GLYPHS) == {*v.VOTES, "unknown"}
    assert set(_VERDICT_KEY) == set(v.VOTES)
    assert set(VERDICT_CLASS) == {*v.VERDICT_SCALE, *v.ANSWER_SCALE} == set(v.CHAIR_LINE_TONES)
    assert set(VERDICT_CLASS.values()) <= set(v.VERDICT_TONES)
    assert tuple(v.VERDICT_MEANINGS) == v.VERDICT_SCALE  # the chair's brief explains every verdict, in order
    assert set(TIER_CLASS) == set(v.TIERS)
    assert set(TIER_COLOURS) == {*v.TIERS, "Missed"}
    assert set(STAGE_MARK) == {*v.STAGE_STATUSES, "pending"}  # pending: a stage not started yet
    assert set(_MARK) == set(v.LEG_STATUSES)


# --------------------------------------------------------------------------- the browser's copies


def js_object(source: str, name: str) -> dict[str, str]:
    """`const NAME = { key: 'value', … };` of a script, its \\u escapes decoded."""
    body = re.search(rf"const {name} = \{{(.*?)\}};", source, re.S)
    assert body, f"no `const {name}` object"
    pairs = re.findall(r"(\w+)\s*:\s*'((?:[^'\\]|\\.)*)'", body.group(1))
    return {key: json.loads(f'"{value}"') for key, value in pairs}


def slug(text: str) -> str:
    """app.js's `slug`: lower case, every run of other characters one '-'."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower())


def test_the_workspace_scripts_glyphs_are_the_vocabularys() -> None:
    from amicus_mcp.council.report_model import GLYPHS
    from amicus_mcp.workspace.terminal import STAGE_MARK

    app = (STATIC / "app.js").read_text(encoding="utf-8")
    assert js_object(app, "GLYPH") == GLYPHS
    assert js_object(app, "STAGE_GLYPH") == STAGE_MARK


def test_the_workspace_styles_every_verdict_tier_and_run_status() -> None:
    css = (STATIC / "app.css").read_text(encoding="utf-8")
    missing = [cls for cls in (*(f".chip.verdict-{slug(p)}" for p in v.VERDICT_SCALE),
                               *(f"tr.tier-{slug(t)}" for t in v.TIERS),
                               *(f".chip.status-{slug(s)}" for s in v.RUN_STATUSES)) if cls not in css]
    assert missing == []


def test_no_workspace_script_restates_a_vocabulary_set() -> None:
    problems = []
    for path in sorted(STATIC.glob("*.js")):
        for array in re.findall(r"\[[^\[\]]*\]", path.read_text(encoding="utf-8")):
            quoted = re.findall(r"'([^']*)'|\"([^\"]*)\"", array)
            strings = [a or b for a, b in quoted]
            for family in FAMILIES.keys() - GENERIC:
                if len([s for s in strings if s in words(family)]) >= 2:
                    problems.append(f"{path.name}: {array} restates the vocabulary's {family} words")
    assert problems == []


# --------------------------------------------------------------------------- fronts and prompts


def subparser(parser: argparse.ArgumentParser, *path: str) -> argparse.ArgumentParser:
    for name in path:
        group = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parser = group.choices[name]
    complete = getattr(parser, "complete", None)  # the run flags are added when their command is chosen
    return complete() if complete is not None else parser


def choices(parser: argparse.ArgumentParser, flag: str) -> tuple[str, ...]:
    return tuple(next(a for a in parser._actions if flag in a.option_strings).choices)  # type: ignore[arg-type]


def test_the_cli_takes_its_choices_from_the_vocabulary() -> None:
    from amicus_mcp.cli import build_parser

    parser = build_parser()
    assert choices(subparser(parser, "council", "verdict"), "--overall-verdict") == v.CHAIR_LINES
    assert choices(subparser(parser, "council", "run"), "--intent") == v.INTENTS
    assert choices(subparser(parser, "council", "validate"), "--intent") == v.INTENTS
    assert choices(subparser(parser, "council", "gate"), "--fail-on") == v.GATE_LEVELS


def test_the_prompt_files_take_the_verdict_scale_from_the_vocabulary() -> None:
    from amicus_mcp.council import briefings

    prompts = SRC / "prompts"
    spelled = [f"{path.name}: {phrase!r}" for path in sorted(prompts.glob("*.md"))
               for phrase in (*v.VERDICT_SCALE, *v.ANSWER_SCALE) if phrase in path.read_text(encoding="utf-8")]
    assert spelled == []  # each spells `$verdict_forms`, `$verdict_meanings`, `$answer_standings`, … instead

    record = {"findings": [], "streetCred": []}
    packet = briefings.chair_packet(briefing="B", date="2026-07-02", record=record, findings=[], reviews=[], rankings=[])
    repair = briefings.chair_repair_prompt("a synthesis")
    assert " · ".join(f"`VERDICT: {p}`" for p in v.VERDICT_SCALE) in packet
    assert all(f'"{p}": ' in packet for p in v.VERDICT_SCALE)
    assert repair.endswith("\n\n" + "\n".join(f"VERDICT: {p}" for p in v.VERDICT_SCALE) + "\n")
    assert "$" not in packet.split("## How to close", 1)[1] and "$" not in repair

    from amicus_mcp.council import question_briefings

    asked = question_briefings.question_chair_packet(briefing="Q", date="2026-07-02", record={"findings": []},
                                                     ranking=[], answers=[], rankings=[])
    again = question_briefings.chair_answer_repair_prompt("a synthesis")
    assert "`ANSWER: <Converged, Split or Insufficient> — <the council's answer in one sentence>`" in asked
    assert all(f'"{p}": ' in asked for p in v.ANSWER_SCALE) and "where the standing is one of" in again
    assert "$" not in asked.split("## How to close", 1)[1] and "$" not in again


def test_the_vocabulary_imports_nothing_from_the_package() -> None:
    tree = ast.parse((SRC / "vocabulary.py").read_text(encoding="utf-8"))
    imported = [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    imported += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    assert all(m in ("__future__", "typing") for m in imported), imported


def test_every_error_class_has_a_vocabulary_code_and_every_code_a_class() -> None:
    from amicus_mcp import errors

    def subclasses(cls: type) -> set[type]:
        return {cls, *(d for sub in cls.__subclasses__() for d in subclasses(sub))}

    own = {c.code for c in subclasses(errors.AmicusError) if c.__module__ == errors.__name__}
    assert own == set(v.ERROR_CODES)
    assert not hasattr(errors, "ERROR_CODES")  # the vocabulary is the one list
    schema = json.loads((SRC / "schemas" / "error.schema.json").read_text(encoding="utf-8"))
    assert tuple(schema["properties"]["error"]["properties"]["code"]["enum"]) == v.ERROR_CODES


def test_the_engine_and_the_documents_take_the_stage_gateway_and_cost_words_from_the_vocabulary() -> None:
    from typing import get_args

    from amicus_mcp.documents.legs import LegRun
    from amicus_mcp.documents.run import OptionsRecord, Stage
    from amicus_mcp.documents.usage import RolledCost
    from amicus_mcp.engine import limits
    from amicus_mcp.providers import routing

    def literal_words(annotation: Any) -> set[str]:
        out: set[str] = set()
        for arg in get_args(annotation) or (annotation,):
            out |= literal_words(arg) if get_args(arg) else ({arg} if isinstance(arg, str) else set())
        return out

    assert literal_words(Stage.model_fields["name"].annotation) == set(v.STAGE_NAMES)
    assert literal_words(LegRun.model_fields["stage"].annotation) == set(v.LEG_STAGES)
    assert literal_words(OptionsRecord.model_fields["gateway"].annotation) == set(v.GATEWAY_MODES)
    assert literal_words(RolledCost.model_fields["source"].annotation) == set(v.ROLLED_COST_SOURCES)
    assert (limits.WAVES, limits.RUN_ORDER) == (v.PLANNED_STAGES, v.LEG_STAGES)
    assert routing.GATEWAY_MODES is v.GATEWAY_MODES


def test_the_sets_agree_with_each_other() -> None:
    assert v.TIER_DISPLAY_ORDER != v.TIERS and set(v.TIER_DISPLAY_ORDER) == set(v.TIERS)
    assert set(v.DEBATED_TIERS) < set(v.TIERS) and set(v.REVOTED_ACTIONS) < set(v.DEBATE_ACTIONS)
    assert set(v.TERMINAL_RUN_STATUSES) | {"running"} == set(v.RUN_STATUSES)
    assert set(v.RESUMABLE_RUN_STATUSES) < set(v.TERMINAL_RUN_STATUSES)
    assert set(v.TERMINAL_WAVE_STATUSES) == set(v.TERMINAL_RUN_STATUSES) | {"crashed"}
    assert set(v.LEG_OUTCOMES) < set(v.TERMINAL_LEG_STATUSES) and "running" not in v.TERMINAL_LEG_STATUSES
    # The phrases code names by constant: the best first, the worst last (the gate's levels and the
    # eval's clean case read them so), in scale order; a phrase between them is no edit here.
    named = (v.SHIP_IT, v.FIX_THESE_FIRST, v.FUNDAMENTAL_RETHINK)
    assert (v.VERDICT_SCALE[0], v.VERDICT_SCALE[-1]) == (v.SHIP_IT, v.FUNDAMENTAL_RETHINK)
    assert sorted(named, key=v.VERDICT_SCALE.index) == list(named)
    assert {name: phrases for name, (_, phrases) in v.VERDICT_SCALES.items()} == {
        "review": v.VERDICT_SCALE, "question": v.ANSWER_SCALE, "task": v.ANSWER_SCALE}
    assert set(v.ANSWERING_INTENTS) == set(v.INTENTS) - {v.REVIEW} and set(v.FRAMED_INTENTS) < set(v.INTENTS)
    assert v.CHAIR_LINES == (*v.VERDICT_SCALE, *v.ANSWER_SCALE) and set(v.VERDICT_SCALES) == set(v.INTENTS)
    assert set(v.PLANNED_STAGES) < set(v.LEG_STAGES) and set(v.CORE_STAGE_NAMES) < set(v.STAGE_NAMES)
    assert [n for n in v.STAGE_NAMES if n in v.CORE_STAGE_NAMES] == list(v.CORE_STAGE_NAMES)  # in run order
    assert set(v.COST_SOURCES) | {"mixed"} == set(v.ROLLED_COST_SOURCES) and "unknown" not in v.PRICED_COST_SOURCES
    assert set(v.ESTIMATED_COST_SOURCES) < set(v.ROLLED_COST_SOURCES) and set(v.CATALOG_PRICED_MODES) < set(v.COST_MODES)
    assert set(v.AGENT_SEATS) < set(v.DOCTOR_CHECKS)


def test_the_agent_seats_are_the_agent_clis() -> None:
    """`doctor` names each agent CLI by its seat word: one word per CLI providers/agents.py runs."""
    from amicus_mcp.providers.agents import AGENT_CLIS

    assert v.AGENT_SEATS == tuple(v.AGENT_PREFIX + name for name in AGENT_CLIS)


# --------------------------------------------------------------------------- one meaning per name


def top_level_names() -> dict[str, list[str]]:
    """Every class and type alias defined at a module's top level under src/ → the modules."""
    defined: dict[str, list[str]] = {}
    for path in sorted(SRC.rglob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            targets = [node.name] if isinstance(node, ast.ClassDef) else \
                [t.id for t in getattr(node, "targets", [getattr(node, "target", None)]) if isinstance(t, ast.Name)]
            for name in targets:
                defined.setdefault(name, []).append(str(path.relative_to(SRC)))
    return defined


def test_each_of_the_councils_overloaded_names_now_has_one_meaning() -> None:
    """Issue 29: `Snapshot` meant the engine's status union, the MCP tools' compact result and the
    workspace's page JSON; `Document` the documents' base model and an MCP pass-through. Now the
    engine's is an `Observation`, the tools' a `Progress`, the pass-through a `ShippedDocument`
    (the workspace keeps "snapshot", its `run_snapshot`), and each word set's type is the vocabulary's."""
    defined = top_level_names()
    assert "Snapshot" not in defined
    assert defined["Document"] == ["documents/base.py"]
    assert defined["Observation"] == ["engine/control.py"]
    assert defined["Progress"] == ["mcp/models.py"] and defined["ShippedDocument"] == ["mcp/models.py"]
    for name in ("LegStage", "StageName", "GatewayMode", "CostSource", "RolledCostSource", "CostMode", "ErrorCode"):
        assert defined[name] == ["vocabulary.py"], name


def test_the_id_a_caller_names_is_a_target_not_a_task_id() -> None:
    """status, wait, abort and the tools' projection take a council run's, a wave's or a leg's id:
    `target`, as `locate` calls it (`task_id` is an MCP task's id only: a wave leg's id is `leg_id`
    under the wire key `taskId`, and the sessions directory's entries are `session_dir`s)."""
    import inspect

    from amicus_mcp.engine import control
    from amicus_mcp.mcp import progress, waiting

    for fn in (control.locate, control.status, control.wait, control.abort, progress.progress,
               waiting.wait_with_progress):
        assert "target" in inspect.signature(fn).parameters and "task_id" not in inspect.signature(fn).parameters, fn
    # One id shape and one id maker for every run, wave and eval (they were TASK_ID and new_task_id).
    from amicus_mcp import engine

    assert engine.ID_SHAPE.match(engine.new_id())
    assert not hasattr(engine, "TASK_ID") and not hasattr(engine, "new_task_id")
    from amicus_mcp.documents.legs import LegRun
    from amicus_mcp.engine.store import SessionStore
    from amicus_mcp.mcp.models import WaveStarted

    assert "task_id" not in LegRun.model_fields and LegRun.model_fields["leg_id"].alias == "taskId"
    assert WaveStarted.model_fields["leg_ids"].alias == "taskIds"  # the seed's wire keys stay
    assert not hasattr(SessionStore, "task_dir") and hasattr(SessionStore, "session_dir")


def test_a_council_manifest_and_a_wave_legs_document_have_a_name_each() -> None:
    """Both files are `run.json` on disk (users' runs and sessions have them), but the council
    manifest is `run_dir.MANIFEST` and a wave leg's document `store.LEG_FILE`: no module imports
    the one under the other's name."""
    from amicus_mcp.engine import run_dir, store

    assert run_dir.MANIFEST == store.LEG_FILE == "run.json"
    renamed = [f"{path.relative_to(SRC)}:{node.lineno}" for path in sorted(SRC.rglob("*.py"))
               for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
               if isinstance(node, ast.ImportFrom) for alias in node.names
               if alias.name in ("MANIFEST", "LEG_FILE") and alias.asname not in (None, alias.name)]
    assert renamed == []
