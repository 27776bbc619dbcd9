"""The generated contract files, from their declarations, behind one command:

    python -m amicus_mcp.contracts --check    exit 1 naming every stale file (CI runs it)
    python -m amicus_mcp.contracts --write    rewrite every stale file (atomically)

The files it keeps:

    schemas/eval*.schema.json   the eval's documents (eval/documents.py, pydantic models)
    mcp/published.json          the tools' schemas as the built tools publish them (mcp/published.py)
    manifest.json               the Claude Desktop bundle's manifest (mcp/bundle.py)
    server.json                 the MCP Registry's entry (mcp/registry.py)

The other shipped schemas are still written by hand; tests/test_document_models.py and
tests/engine/test_option_declarations.py hold those with a model to it. This module sits above
every layer (it imports the declarations of each) and nothing imports it: the CLI and the MCP
server never load it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from importlib.resources import files
from pathlib import Path
from typing import NamedTuple

COMMAND = "python -m amicus_mcp.contracts --write"
PACKAGE = Path(str(files("amicus_mcp")))


class Contract(NamedTuple):
    path: Path
    render: Callable[[], str]  # the file's whole text, as the declaration says it


def contracts() -> Iterator[Contract]:
    """Every generated file with what renders it (imported here, not at module level: a
    `--check` of one kind should not pay for building every other)."""
    import json

    from .eval import documents as eval_documents
    from .mcp import bundle, published, registry

    for name in eval_documents.DOCUMENTS:
        yield Contract(PACKAGE / "schemas" / f"{name}.schema.json",
                       lambda name=name: json.dumps(eval_documents.schema_document(name), indent=2, ensure_ascii=False) + "\n")
    yield Contract(published.target(), published.text)
    yield Contract(bundle.MANIFEST, bundle.render)
    yield Contract(registry.SERVER_JSON, registry.render)


def stale() -> list[tuple[Contract, str]]:
    """(contract, its text) for every file that is missing or not what its declaration renders."""
    out = []
    for contract in contracts():
        text = contract.render()
        try:
            current = contract.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            current = None
        if current != text:
            out.append((contract, text))
    return out


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

    found = stale()
    if args == ["--check"]:
        for contract, _ in found:
            print(f"{where(contract.path)} is stale: run {COMMAND}", file=sys.stderr)
        return 1 if found else 0
    for contract, text in found:
        atomic_write_text(contract.path, text, mask_keys=False)
        print(f"wrote {where(contract.path)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
