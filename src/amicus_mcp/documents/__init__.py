"""The pydantic models of the documents amicus writes and reads, one module per document kind.

    base      the family's rules: emit-when-set keys, key order kept, unknown keys kept
    usage     a leg's usage block, a wave's rollup and a run's usage
    run       run.json, the council-run manifest, and the run status snapshot
    legs      a wave's leg run document, a council leg's finished answer and launch record
    wave      wave.json
    pointers  the project's pointer files (council-<runId>.json)
    tally     the tally input and decisions a caller hands in (TypedDicts: no instances built)
    council   the council's outputs: tally record, verdict, ledger row, stats, gate, debate
              (TypedDicts, checked by `check_document` when read)
    pr_loop   rereview.json, dismissed.json, the decisions memory, the PR review

The shipped JSON Schemas (schemas/) are the public contract; tests/test_document_models.py
holds every model to its schema. Names of the tally module are importable from here too.
"""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    # The tally input's validators are built on first use, not whenever a document model is.
    import importlib

    if name.startswith("__") or name in ("base", "usage", "run", "legs", "wave", "pointers", "tally", "council", "pr_loop"):
        raise AttributeError(name)  # a submodule not imported yet: the import system asks first
    tally = importlib.import_module(f"{__name__}.tally")
    try:
        return getattr(tally, name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
