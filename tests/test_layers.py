"""The import graph: no cycles, and no arrow from a lower layer to a higher one.

This file is the authority on the layers (the README's Layout section describes them in
words, and a test below keeps the two naming the same layers). The graph is read from the source, not from
what happens to be imported at run time: every `import` and `from … import` anywhere in a
module counts — inside a function (a lazy import is still an arrow), under `TYPE_CHECKING`
(a type hint is still a dependency) — and so does `importlib.import_module("amicus_mcp…")`
with a literal name.

Layers, bottom to top (a module may import its own layer and the layers below it):

    base       the package's own modules: vocabulary, documents, schemas, errors, config,
               secrets, fsio, termsafe, envvars, places, keysfile, textcodec
    council    pure council logic
    providers  model access
    engine     the engine, with the top-level modules that serve it: presets, doctor
    eval       planted-flaw suites run through the engine
    workspace  the browser / inline view both other fronts open
    fronts     cli and mcp, which never import each other
    contracts  the generator of the shipped contract files (contracts.py): it reads the
               declarations of every layer, and nothing imports it
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = "amicus_mcp"

# (layer, the top-level names under amicus_mcp it holds). A module not listed under a package
# of its own is a top-level module, named here.
LAYERS: tuple[tuple[str, frozenset[str]], ...] = (
    ("base", frozenset({"", "vocabulary", "documents", "schemas", "errors", "config", "secrets", "fsio", "termsafe",
                        "envvars", "places", "keysfile", "textcodec", "desktop", "front", "envelope"})),
    ("council", frozenset({"council"})),
    ("providers", frozenset({"providers"})),
    ("engine", frozenset({"engine", "presets", "doctor"})),
    ("eval", frozenset({"eval"})),
    ("workspace", frozenset({"workspace"})),
    ("fronts", frozenset({"cli", "mcp"})),
    ("contracts", frozenset({"contracts"})),
)
# Packages of one layer that must not import each other: the fronts hold no logic of their own.
STRANGERS = (frozenset({"cli", "mcp"}),)
# A package other layers reach only through its front door, the package itself (its __init__ and
# `__all__`), never one of its modules; and the layers held to it.
DOORS = {"engine": frozenset({"eval", "workspace", "cli", "mcp"})}


def module_files() -> dict[str, Path]:
    """Every module of the package by its dotted name (a package by its own name)."""
    files: dict[str, Path] = {}
    for path in sorted((SRC / PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        files[".".join(parts)] = path
    return files


MODULES = module_files()


def imported_names(module: str, path: Path) -> Iterator[tuple[str, int]]:
    """(the dotted name imported, line) for every import the module's source holds."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    yield from names_in(path.read_text(encoding="utf-8"), package)


def names_in(source: str, package: str) -> Iterator[tuple[str, int]]:
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            yield from ((alias.name, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(anchor + ([node.module] if node.module else []))
            for alias in node.names:  # `from pkg import module` names a module; `from module import name` the module
                yield (f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base), node.lineno
        elif (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)
              and isinstance(node.args[0].value, str) and _called(node) == "import_module"):
            yield node.args[0].value, node.lineno


def _called(call: ast.Call) -> str | None:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None


def own_module(name: str) -> str | None:
    """The package module a dotted import name lands in (None: not this package)."""
    if name != PACKAGE and not name.startswith(PACKAGE + "."):
        return None
    while name not in MODULES:
        name = name.rpartition(".")[0]
    return name


def import_graph() -> dict[str, dict[str, int]]:
    """module → {module it imports: the first line that does}."""
    graph: dict[str, dict[str, int]] = {}
    for module, path in MODULES.items():
        edges = graph.setdefault(module, {})
        for name, line in imported_names(module, path):
            target = own_module(name)
            if target is not None and target != module:
                edges.setdefault(target, line)
    return graph


def top_name(module: str) -> str:
    """The name under amicus_mcp a module belongs to ("" for the package itself)."""
    return module.split(".")[1] if "." in module else ""


def layer_of(module: str) -> int:
    name = top_name(module)
    for rank, (_, names) in enumerate(LAYERS):
        if name in names:
            return rank
    raise AssertionError(f"{module} is in no layer: add '{name}' to LAYERS in {__file__}")


def cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph.get(node, {}):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def describe(graph: dict[str, dict[str, int]], component: list[str]) -> str:
    members = set(component)
    arrows = [f"{a} -> {b} (line {line})" for a in component for b, line in sorted(graph[a].items()) if b in members]
    return "\n  ".join(arrows)


def test_the_reader_sees_lazy_typing_and_dynamic_imports() -> None:
    """Every form an arrow can take is read, relative imports resolved from the module's package."""
    source = """
from __future__ import annotations
import importlib
from typing import TYPE_CHECKING
from .. import __version__
from . import fanout
from ..engine.options import RunOptions
if TYPE_CHECKING:
    from ..providers.route import Route
def lazy():
    from ..council import tally
    import amicus_mcp.fsio
    return importlib.import_module("amicus_mcp.workspace.server")
"""
    found = {own_module(name) for name, _ in names_in(source, "amicus_mcp.cli")} - {None}
    assert found == {"amicus_mcp", "amicus_mcp.cli.fanout", "amicus_mcp.engine.options", "amicus_mcp.providers.route",
                     "amicus_mcp.council.tally", "amicus_mcp.fsio", "amicus_mcp.workspace.server"}
    assert "amicus_mcp.engine.debate_round" in import_graph()["amicus_mcp.engine.council_run"]  # the real tree, in a function
    assert cycles({"a": {"b": 1}, "b": {"c": 1}, "c": {"a": 1}, "d": {"a": 1}}) == [["a", "b", "c"]]


def test_every_module_is_in_a_layer() -> None:
    for module in MODULES:
        layer_of(module)


def test_the_import_graph_has_no_cycles() -> None:
    graph = import_graph()
    found = cycles(graph)
    assert not found, "import cycles:\n  " + "\n\n  ".join(describe(graph, c) for c in found)


def test_no_import_points_up_a_layer_or_across_the_fronts() -> None:
    wrong = []
    for module, edges in sorted(import_graph().items()):
        for target, line in sorted(edges.items()):
            if layer_of(target) > layer_of(module):
                wrong.append(f"{module} (line {line}) -> {target}: {LAYERS[layer_of(module)][0]} imports "
                             f"{LAYERS[layer_of(target)][0]}")
            elif any({top_name(module), top_name(target)} <= pair and top_name(module) != top_name(target)
                     for pair in STRANGERS):
                wrong.append(f"{module} (line {line}) -> {target}: one front imports another")
    assert not wrong, "imports against the layers:\n  " + "\n  ".join(wrong)


def past_doors(graph: dict[str, dict[str, int]]) -> list[str]:
    """Every arrow from a layer held to a door into a module behind that door."""
    wrong = []
    for module, edges in sorted(graph.items()):
        for target, line in sorted(edges.items()):
            door = top_name(target)
            if module.count(".") and top_name(module) in DOORS.get(door, ()) and target != f"{PACKAGE}.{door}":
                wrong.append(f"{module} (line {line}) -> {target}: use {PACKAGE}.{door} (its front door)")
    return wrong


def test_the_fronts_eval_and_workspace_reach_the_engine_only_through_its_door() -> None:
    """cli/, mcp/, eval/ and workspace/ import `amicus_mcp.engine`, never a module behind it."""
    assert past_doors({"amicus_mcp.cli.x": {"amicus_mcp.engine.store": 3, "amicus_mcp.engine": 4},
                       "amicus_mcp.engine.y": {"amicus_mcp.engine.store": 5},
                       "amicus_mcp.council.z": {"amicus_mcp.council.tally": 6}}) == [
        "amicus_mcp.cli.x (line 3) -> amicus_mcp.engine.store: use amicus_mcp.engine (its front door)"]
    # the reader sees a door import as the package, a deep one (even lazy) as the module
    lazy = "def f():\n    from ..engine import RunDir\n    from ..engine.store import SessionStore\n"
    assert {own_module(n) for n, _ in names_in(lazy, "amicus_mcp.cli")} == {"amicus_mcp.engine",
                                                                           "amicus_mcp.engine.store"}
    wrong = past_doors(import_graph())
    assert not wrong, "imports past the engine's front door:\n  " + "\n  ".join(wrong)


def test_the_door_names_what_it_exports() -> None:
    """Every name in the door's `__all__` is there at run time, or (a type) to a type checker."""
    import amicus_mcp.engine as door

    types_only = {"Observation", "Prepared", "Arg", "Declared", "Flag", "RunOptions"}  # for annotations only
    missing = [name for name in door.__all__ if name not in types_only and not hasattr(door, name)]
    assert not missing
    # A door name that is also a module's would be replaced by the module once it is imported.
    assert not {name for name in door.__all__ if f"{PACKAGE}.engine.{name}" in MODULES}
    assert len(door.__all__) == len(set(door.__all__))


def test_every_door_name_is_one_a_front_uses() -> None:
    """The door stays small: a name no front (cli/, mcp/, eval/, workspace/) imports from it is
    not in `__all__` (what only the engine uses stays behind the door)."""
    import amicus_mcp.engine as door

    used: set[str] = set()
    for module, path in MODULES.items():
        if top_name(module) not in ("cli", "mcp", "eval", "workspace"):
            continue
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    base = ".".join(anchor + ([node.module] if node.module else []))
                if base == f"{PACKAGE}.engine":
                    used |= {alias.name for alias in node.names}
    assert sorted(set(door.__all__) - used) == []
    assert sorted(used - set(door.__all__)) == []


@pytest.mark.parametrize("module", sorted(m for m in MODULES if top_name(m) == "council"))
def test_council_imports_no_sdk_and_no_network(module: str) -> None:
    """council/ is pure: beside the layers above it, no MCP SDK, no network client, no event loop."""
    outside = {name.split(".")[0] for name, _ in imported_names(module, MODULES[module])}
    assert not outside & {"mcp", "httpx", "httpcore", "anyio", "asyncio", "socket", "urllib", "http"}


def test_the_readme_names_every_layer_in_order() -> None:
    readme = (SRC.parent / "README.md").read_text(encoding="utf-8")
    block = readme.split("imports point downward only", 1)[1].split("```", 2)[1]
    named = [line.split()[0] for line in block.splitlines() if line and not line.startswith(" ")]
    assert named == [name for name, _ in reversed(LAYERS)]

