"""Issue 29: no module is a shim. A name is imported from the module that defines it, or from one
that uses it itself (a transit import), never from a module that holds it only so that others
can take it from there (a re-export kept for old importers: the engine's council_run, context and
run_report shims were that). A package's door — an `__init__.py` that declares `__all__`
(engine/__init__.py) — re-exports by design and is left out.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "amicus_mcp"


class Module:
    def __init__(self, path: Path, root: Path) -> None:
        self.tree = ast.parse(path.read_text(encoding="utf-8"))
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        self.package = ".".join(parts[:-1])  # what `from .x` is relative to (a package's __init__: itself)
        self.name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        self.defined: set[str] = set()
        self.imported: set[str] = set()
        self.used: set[str] = set()
        for node in ast.walk(self.tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self.defined.add(node.name)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                self.imported |= {alias.asname or alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.Name):
                (self.defined if isinstance(node.ctx, ast.Store) else self.used).add(node.id)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                self.used.update(node.value.replace("[", " ").replace("]", " ").replace(",", " ").split())  # annotations
        self.door = path.name == "__init__.py" and "__all__" in self.defined

    def relative_imports(self) -> list[tuple[int, str, str]]:
        """(line, the module imported from, the name) of every `from .x import name`."""
        out = []
        for node in ast.walk(self.tree):
            if isinstance(node, ast.ImportFrom) and node.level:
                base = self.package.split(".")[: len(self.package.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
                out += [(node.lineno, target, alias.name) for alias in node.names]
        return out


def shim_imports(root: Path) -> list[str]:
    modules = {m.name: m for m in (Module(p, root) for p in sorted(root.rglob("*.py")))}
    found = []
    for module in modules.values():
        for line, target, name in module.relative_imports():
            source = modules.get(target)
            if source is None or source.door or f"{target}.{name}" in modules:  # a submodule, or the door
                continue
            if name in source.imported and name not in source.defined and name not in source.used:
                found.append(f"{module.name}:{line} takes {name} from {target}, which only re-exports it")
    return found


def test_no_module_takes_a_name_from_a_module_that_only_re_exports_it() -> None:
    assert shim_imports(SRC) == []


def test_the_shim_check_sees_a_re_export(tmp_path: Path) -> None:
    """The check can fail: a module that imports a word only for another to take it is a shim;
    one that uses the word itself is a transit import, and the door is left out."""
    root = tmp_path / "amicus_mcp"
    (root / "engine").mkdir(parents=True)
    (root / "vocabulary.py").write_text("WORD = 'x'\n", encoding="utf-8")
    (root / "shim.py").write_text("from .vocabulary import WORD  # noqa: F401\n", encoding="utf-8")
    (root / "transit.py").write_text("from .vocabulary import WORD\nUPPER = WORD.upper()\n", encoding="utf-8")
    (root / "engine" / "__init__.py").write_text("from ..vocabulary import WORD\n__all__ = ['WORD']\n", encoding="utf-8")
    (root / "engine" / "inner.py").write_text("from . import WORD\nfrom ..shim import WORD as X\n", encoding="utf-8")
    (root / "user.py").write_text("from .shim import WORD\nfrom .transit import WORD as W\nfrom .engine import WORD as V\n",
                                  encoding="utf-8")
    assert shim_imports(root) == ["amicus_mcp.engine.inner:2 takes WORD from amicus_mcp.shim, which only re-exports it",
                                  "amicus_mcp.user:1 takes WORD from amicus_mcp.shim, which only re-exports it"]
