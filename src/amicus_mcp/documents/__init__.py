"""The pydantic models of the documents amicus writes and reads, one module per document kind.

    base      the family's rules: emit-when-set keys, key order kept, unknown keys kept
    usage     a leg's usage block, a wave's rollup and a run's usage
    run       run.json, the council-run manifest, and the run status snapshot
    legs      a wave's leg run document, a council leg's finished answer and launch record
    wave      wave.json
    pointers  the project's pointer files (council-<runId>.json)
    tally     the tally input and decisions a caller hands in (TypedDicts: no instances built;
              the validators are built on first use)
    council   the council's outputs: tally record, verdict, ledger row, stats, gate, debate
              (TypedDicts, checked by `check_document` when read)
    pr_loop   rereview.json, dismissed.json, the decisions memory, the PR review
    sessions  `amicus list --json` (its schema is generated from it: python -m amicus_mcp.contracts)
    envelope  the error envelope every front gives a failed call (TypedDicts)
    validate  `council validate --json`: a review's or an answer's block checked (TypedDicts)
    commands  the CLI commands' own documents: doctor, keys, cost estimate, presets, packs,
              templates (TypedDicts, imported by their writers for type checking only)

The shipped JSON Schemas (schemas/) are the public contract: `python -m amicus_mcp.contracts`
generates those it lists from their declarations, and tests/test_document_models.py holds the
other models to theirs. Import a document's names from its own module.
"""

