"""Issue 29's count for a run.json field shown in the report: the field's declaration in
documents/run.py carries `Reported(label)`, and both renderers show it under "About this run"
with no code of their own — the run's report.html as the run writes it, and the Markdown report
`council report` / `amicus_read` render from the run directory. By hand: the field (documents/run.py)
and the code that sets it; council-run.schema.json is regenerated (`python -m amicus_mcp.contracts
--write`), and no test here names the fields marked today."""

from __future__ import annotations

from typing import Annotated

import pytest
from council_helpers import member

from amicus_mcp.documents import run as run_documents
from amicus_mcp.documents.base import WhenSet
from amicus_mcp.documents.run import Reported, RunManifest, reported_lines
from amicus_mcp.engine import manifest as engine_manifest
from amicus_mcp.engine.run_dir import RunDir
from amicus_mcp.engine.run_report import render_verdict

pytestmark = pytest.mark.anyio


class Grown(RunManifest):
    """run.json with one new field, as it would be declared."""

    reviewed_by: Annotated[WhenSet[str], Reported("Reviewed by")] = None


def made(**fields: object) -> Grown:
    """The run's manifest as the engine makes it, with the new field set (the code that sets a
    new field is the one other file it takes)."""
    manifest = Grown(**fields)  # type: ignore[arg-type]
    manifest.reviewed_by = "the platform team"
    return manifest


def test_a_run_from_before_a_reported_field_reports_nothing_new() -> None:
    """A marked field is optional (a run.json written before it existed stays valid) and an
    unset one adds no line: marking a field changes no older run's report. Holds for whatever
    fields are marked, so marking one is no edit here."""
    marked = {name: info for name, info in Grown.model_fields.items()
              if any(isinstance(m, Reported) for m in info.metadata)}
    assert "reviewed_by" in marked
    assert [name for name, info in marked.items() if info.is_required()] == []
    bare = Grown(run_id="r", status="complete", stages=[], bench=["a", "b"], chair="c")
    assert reported_lines(bare) == ()


async def test_a_reported_field_reaches_both_reports(fake, council, run_dir, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(engine_manifest, "RunManifest", made)  # the engine builds run.json as this model
    monkeypatch.setattr(run_documents, "RunManifest", Grown)  # and reads it back (RunDir.read) as it
    for name in ("a", "b", "c", "chair"):
        member(fake, name)
    run, code = await council(["fake/a", "fake/b", "fake/c"])
    assert (code, run["reviewedBy"]) == (0, "the platform team")
    assert reported_lines(RunDir(run_dir).read())[-1:] == ("Reviewed by: the platform team",)  # after any marked today

    html = (run_dir / "report.html").read_text(encoding="utf-8")
    markdown = render_verdict(run_dir / "verdict.json", RunDir(run_dir).read_verdict())
    assert "Reviewed by: the platform team" in html and "Reviewed by: the platform team" in markdown
    assert "About this run" in markdown
