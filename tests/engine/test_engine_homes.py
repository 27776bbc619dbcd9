"""Issue 20 item 3: legs and pre-flight in their own homes. The leg runner and its stat rows live
in engine/legs.py, pre-flight's `prepare` in engine/preflight.py, the first manifest, its hashes
and inputs in engine/manifest.py; council_run.py keeps the stage order and defines none of them,
and no second copy of any of them exists in the engine."""

from __future__ import annotations

import ast
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "src" / "amicus_mcp" / "engine"

HOMES = {
    "legs.py": {"LegRunner", "LegAsk", "LegResult", "StatRows", "Row", "truncation_notice"},
    "preflight.py": {"prepare", "Prepared", "compose_or_read", "seat_table", "check_run_dir"},
    "manifest.py": {"initial_manifest", "sha256_text", "options_sha256", "write_inputs"},
}


def defined(path: Path) -> set[str]:
    """The names a module defines at its top level (functions and classes)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.name for node in tree.body
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}


def test_each_piece_has_one_home_in_the_engine() -> None:
    where: dict[str, list[str]] = {}
    for path in sorted(ENGINE.glob("*.py")):
        for name in defined(path):
            where.setdefault(name, []).append(path.name)
    for home, names in HOMES.items():
        for name in sorted(names):
            assert where.get(name) == [home], f"{name} is defined in {where.get(name)}, not only in {home}"


def test_council_run_keeps_the_stage_order_and_nothing_else() -> None:
    assert defined(ENGINE / "council_run.py") == {"CouncilRun", "run_council", "run_prepared", "ledger_holds"}


def test_the_run_context_hands_a_leg_to_the_runner() -> None:
    """RunContext.leg builds the ask and awaits the runner: no cache, claim or call of its own."""
    tree = ast.parse((ENGINE / "context.py").read_text(encoding="utf-8"))
    leg = next(node for node in ast.walk(tree) if isinstance(node, ast.AsyncFunctionDef) and node.name == "leg")
    calls = {node.func.attr for node in ast.walk(leg)
             if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)}
    assert "run" in calls
    assert not calls & {"claim", "lookup", "complete", "ask", "write_json", "settle"}
    assert len(leg.body) <= 4
