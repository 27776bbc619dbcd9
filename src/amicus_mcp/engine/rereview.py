"""`council run --baseline RUN`: the run's findings matched to the baseline run's
(council/rereview.py), recorded as `rereview.json` beside the verdict. SARIF, the review
comments, the gate (`--gate-on new`), the run's summary and the Action's read it from there."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..documents.pr_loop import PR_LOOP_VERSION
from .run_dir import REREVIEW, RunDir
from .run_findings import read_run_findings, run_findings_of


def resolve_baseline(target: str, project: str | None) -> str:
    """The baseline's verdict.json, absolute (a run directory, its verdict.json, or a run id in `project`)."""
    run = run_findings_of(target, project)
    return str(run.source.resolve())


def write_rereview(run_dir: Path, baseline: str) -> dict[str, Any]:
    """Match the finished run in `run_dir` to `baseline` (a verdict.json) and write rereview.json."""
    from ..council.rereview import match_baseline
    from ..fsio import atomic_write_json

    new, old = read_run_findings(RunDir(run_dir).verdict_path), read_run_findings(baseline)
    doc = {"schemaVersion": PR_LOOP_VERSION, "type": "council-rereview", "runId": new.verdict.get("runId"),
           "baselineRunId": old.verdict.get("runId"), "baseline": str(baseline),
           **match_baseline(new.findings, old.findings)}
    from ..documents.pr_loop import RereviewDocument

    doc = RereviewDocument.parse(doc, what="re-review").to_doc()  # checked against its model before it is written
    atomic_write_json(run_dir / REREVIEW, doc)
    return doc
