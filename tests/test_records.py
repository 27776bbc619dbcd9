"""Start-up is measured (bench/), so a record is cheap to define: an immutable record is a
`typing.NamedTuple`, about a tenth of what a frozen dataclass costs to define (a council process
defines its records before it sends its first request). A dataclass is mutable state, or a
record whose default is computed per instance."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "amicus_mcp"
COMPUTED_DEFAULTS = {"providers/embedded.py:LocalSettings"}  # n_threads: the machine's CPU count


def frozen_dataclasses() -> set[str]:
    found = set()
    for path in SRC.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and any(
                    isinstance(d, ast.Call) and ast.unparse(d.func) == "dataclass"
                    and any(k.arg == "frozen" and ast.unparse(k.value) == "True" for k in d.keywords)
                    for d in node.decorator_list):
                found.add(f"{path.relative_to(SRC).as_posix()}:{node.name}")
    return found


def test_an_immutable_record_is_a_named_tuple() -> None:
    assert frozen_dataclasses() == COMPUTED_DEFAULTS
