"""Reading the skill, the command and the README the way the checks need them.

Markdown is split into fenced code blocks and prose; prose is split into inline code spans.
Each checker returns a list of problems (empty when all is well) so that a test can show every
problem at once, and so that the checkers themselves can be tested on documents that must fail.
"""

from __future__ import annotations

import argparse
import copy
import json
import re
import shlex
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from importlib.resources import files
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
SKILL_DIR = REPO / "skills" / "second-opinion"
SKILL = SKILL_DIR / "SKILL.md"
SEAT_BRIEFS = SKILL_DIR / "SEAT-BRIEFS.md"
COMMAND = REPO / "commands" / "council.md"
README = REPO / "README.md"
MCP_DOC = REPO / "docs" / "mcp.md"
SKILL_FILES = sorted(SKILL_DIR.glob("*.md"))
# The documents whose names are checked against what the package really has.
NAMED_DOCS = [*SKILL_FILES, COMMAND, README, MCP_DOC]
# Names that look like tool names but are not: the import package and the sessions dir.
NOT_TOOLS = frozenset({"amicus_mcp", "amicus_sessions"})

PROMPTS = files("amicus_mcp").joinpath("prompts")
SOURCE = REPO / "src" / "amicus_mcp"


# --------------------------------------------------------------------------- Markdown


@dataclass(frozen=True)
class Fence:
    info: str  # the info string: "json", "bash", "text", …
    body: str
    line: int  # 1-based line of the opening fence
    before: str  # the last non-blank line before the opening fence


_FENCE_OPEN = re.compile(r"^(`{3,})(.*)$")


def split_markdown(text: str) -> tuple[list[Fence], str]:
    """(the fenced code blocks, the prose with every fenced block blanked out)."""
    fences: list[Fence] = []
    prose: list[str] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        match = _FENCE_OPEN.match(lines[i])
        if not match:
            prose.append(lines[i])
            i += 1
            continue
        ticks, info = match.group(1), match.group(2).strip()
        before = next((ln for ln in reversed(prose) if ln.strip()), "")
        start = i
        body: list[str] = []
        i += 1
        while i < len(lines) and not re.fullmatch(rf"`{{{len(ticks)},}}\s*", lines[i]):
            body.append(lines[i])
            i += 1
        fences.append(Fence(info, "\n".join(body), start + 1, before))
        prose.extend([""] * (i - start + 1))
        i += 1
    return fences, "\n".join(prose)


def code_spans(prose: str) -> list[str]:
    """Inline code spans (single or double backticks), whitespace collapsed."""
    spans = []
    for match in re.finditer(r"(`+)(.+?)\1", prose, re.DOTALL):
        spans.append(" ".join(match.group(2).split()))
    return spans


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


# --------------------------------------------------------------------------- the MCP tools


@lru_cache(maxsize=1)
def tools() -> dict[str, Any]:
    from amicus_mcp.mcp.server import build_tools
    from amicus_mcp.mcp.state import ServerState

    return {tool.name: tool for tool in build_tools(ServerState())}


def app_only_tools() -> set[str]:
    """The tools only a client with MCP Apps sees, for the inline view (never for the model)."""
    from amicus_mcp.mcp.app_view import bind
    from amicus_mcp.mcp.server import build_tools, make_tool
    from amicus_mcp.mcp.state import ServerState

    state = ServerState()
    return {tool.name for tool in bind(build_tools(state), state, make_tool)} - set(tools())


def tool_params(name: str) -> set[str]:
    return set(tools()[name].parameters.get("properties", {}))


def closed_input_schema(name: str) -> dict[str, Any]:
    """The tool's input schema with unknown arguments forbidden, so an invented one fails."""
    schema = copy.deepcopy(tools()[name].parameters)
    schema["additionalProperties"] = False
    return schema


# --------------------------------------------------------------------------- the CLI


@lru_cache(maxsize=1)
def cli_index() -> dict[tuple[str, ...], frozenset[str]]:
    """Every command path of `amicus` → the option strings it accepts."""
    from amicus_mcp.cli import build_parser

    index: dict[tuple[str, ...], frozenset[str]] = {}

    def walk(parser: argparse.ArgumentParser, path: tuple[str, ...]) -> None:
        getattr(parser, "complete", lambda: None)()  # the flags a command adds only when it is parsed
        options: set[str] = set()
        for action in parser._actions:
            options.update(action.option_strings)
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, (*path, name))
        index[path] = frozenset(options)

    walk(build_parser(), ())
    return index


def all_cli_flags() -> set[str]:
    return {flag for flags in cli_index().values() for flag in flags}


def command_lines(text: str) -> Iterator[str]:
    """Every `amicus …` command line in a document: inline spans and lines of code blocks."""
    fences, prose = split_markdown(text)
    for span in code_spans(prose):
        if span.startswith("amicus "):
            yield span
    for fence in fences:
        if fence.info not in ("", "bash", "sh", "console", "shell"):
            continue
        joined = re.sub(r"\\\n\s*", " ", fence.body)
        for line in joined.split("\n"):
            line = line.strip().removeprefix("$ ")
            line = re.sub(r"\s+#\s.*$", "", line)
            if line.startswith("amicus "):
                yield line


def check_command(line: str) -> list[str]:
    """Problems with one `amicus …` command line: an unknown command, or an unknown flag."""
    try:
        words = shlex.split(line)
    except ValueError:
        words = line.split()
    words = [w for w in words[1:] if w not in (">", "|") and not w.startswith(">")]
    index = cli_index()
    path: tuple[str, ...] = ()
    rest = list(words)
    while rest and (*path, rest[0]) in index:
        path = (*path, rest.pop(0))
    has_subcommands = any(len(key) > len(path) and key[: len(path)] == path for key in index)
    if has_subcommands and rest and not rest[0].startswith("-"):
        return [f"`{line}`: `{' '.join(('amicus', *path, rest[0]))}` is not a command"]
    allowed = index[path] | {"-h", "--help"}
    problems = []
    for word in rest:
        if re.fullmatch(r"--?[A-Za-z][A-Za-z0-9-]*(=.*)?", word):
            flag = word.split("=", 1)[0]
            if flag not in allowed:
                problems.append(f"`{line}`: `amicus {' '.join(path)}` has no option {flag}")
    return problems


def flag_mentions(prose: str) -> Iterator[str]:
    """Backticked spans that are a bare CLI flag, e.g. `--no-ledger` or `--lenses a,b,c`."""
    for span in code_spans(prose):
        match = re.match(r"^(--[a-z][a-z0-9-]*)(?:[ =]|$)", span)
        if match:
            yield match.group(1)


# --------------------------------------------------------------------------- tool mentions


def tool_mentions(text: str) -> set[str]:
    return set(re.findall(r"\bamicus_[a-z_]+\b", text)) - NOT_TOOLS


_CALL = re.compile(r"\b(amicus_[a-z_]+)\(([^()]*)\)")


def split_args(raw: str) -> list[str]:
    """Top-level comma-separated arguments (commas inside brackets or quotes do not split)."""
    parts, depth, quote, current = [], 0, "", ""
    for ch in raw:
        if quote:
            current += ch
            if ch == quote:
                quote = ""
            continue
        if ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(current.strip())
            current = ""
            continue
        current += ch
    if current.strip():
        parts.append(current.strip())
    return parts


def check_calls(text: str) -> list[str]:
    """`amicus_tool(param, param: value)` spans: the tool exists and takes every named param."""
    _, prose = split_markdown(text)
    problems = []
    for span in code_spans(prose):
        for match in _CALL.finditer(span):
            name, raw = match.group(1), match.group(2)
            if name not in tools():
                problems.append(f"`{span}`: no tool {name}")
                continue
            for arg in split_args(raw):
                param = arg.split(":", 1)[0].strip()
                if param not in tool_params(name):
                    problems.append(f"`{span}`: {name} has no parameter '{param}'")
    return problems


# --------------------------------------------------------------------------- field names


_CAMEL = re.compile(r"(?<![A-Za-z0-9_$./<-])[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+(?![A-Za-z0-9_])")


def _schema_keys(node: Any, out: set[str]) -> None:
    if isinstance(node, dict):
        for key in ("properties", "$defs", "definitions"):
            if isinstance(node.get(key), dict):
                out.update(node[key])
        for value in node.values():
            _schema_keys(value, out)
    elif isinstance(node, list):
        for value in node:
            _schema_keys(value, out)


@lru_cache(maxsize=1)
def known_names() -> frozenset[str]:
    """Every field name that exists: tool inputs and outputs, the shipped schemas, and the
    string literals of the package source (config keys, document keys)."""
    from amicus_mcp.schemas import SCHEMA_NAMES, load_schema

    names: set[str] = set()
    for tool in tools().values():
        _schema_keys(tool.parameters, names)
        _schema_keys(tool.output_schema or {}, names)
    for schema in SCHEMA_NAMES:
        _schema_keys(load_schema(schema), names)
    for path in SOURCE.rglob("*.py"):
        names.update(re.findall(r"[\"']([a-z][A-Za-z0-9]*)[\"']", read(path)))
    return frozenset(names)


def check_field_names(text: str) -> list[str]:
    """camelCase names in inline code must exist somewhere in the package's interfaces."""
    _, prose = split_markdown(text)
    problems = []
    for span in code_spans(prose):
        if span.startswith(("amicus ", "http", "$")):
            continue
        for name in _CAMEL.findall(span):
            if name not in known_names():
                problems.append(f"`{span}`: no field, parameter or config key named '{name}'")
    return problems


def env_mentions(text: str) -> set[str]:
    return set(re.findall(r"\bAMICUS_[A-Z_]+\b", text))


@lru_cache(maxsize=1)
def source_text() -> str:
    return "\n".join(read(path) for path in sorted(SOURCE.rglob("*.py")))


# --------------------------------------------------------------------------- JSON examples


_CHECK = re.compile(r"^<!-- check: (?P<spec>.+?) -->$")


@dataclass(frozen=True)
class Example:
    doc: Any
    checks: dict[str, str]  # kind → argument ("" when none)
    where: str


def parse_checks(spec: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for word in shlex.split(spec):
        key, _, value = word.partition("=")
        out[key] = value
    return out


def json_examples(path: Path) -> tuple[list[Example], list[str]]:
    """Every ```json block of a document with its check marker (the line just before it)."""
    fences, _ = split_markdown(read(path))
    examples, problems = [], []
    for fence in fences:
        if fence.info != "json":
            continue
        where = f"{path.relative_to(REPO)}:{fence.line}"
        try:
            doc = json.loads(fence.body)
        except json.JSONDecodeError as err:
            problems.append(f"{where}: not JSON: {err}")
            continue
        marker = _CHECK.match(fence.before.strip())
        examples.append(Example(doc, parse_checks(marker.group("spec")) if marker else {}, where))
    return examples, problems


def iter_json_blocks(paths: Iterable[Path]) -> Iterator[Example]:
    for path in paths:
        yield from json_examples(path)[0]
