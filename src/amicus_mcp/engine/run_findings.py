"""A finished run's findings as one list: the verdict's (tier, decision) joined with the tally's
(claim, location) and each raiser's review (rationale), for the renderings the pull-request loop
makes of them — SARIF and review comments. Reads only; a missing piece is absent, never invented."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, cast

from typing_extensions import NotRequired, TypedDict

from ..errors import BadArgs, BadSession
from ..vocabulary import EvidenceCheck
from .run_dir import VERDICT, RunDir, read_tally_beside, read_verdict_file

if TYPE_CHECKING:
    from ..documents.base import Family
    from ..documents.council import ReReview, Verdict, VerdictFinding
    from ..documents.pr_loop import RereviewDocument
    from ..schemas import JsonObject


class FindingDismissal(TypedDict):
    """The decision a finding matches, from dismissed.json."""

    decisionId: str
    dismissedIn: str | None
    reason: str | None


if TYPE_CHECKING:  # a declaration for the checker: the rows are the dicts built below (no pydantic at import)
    class RunFinding(VerdictFinding):
        """A verdict's finding joined with what the run knows of it besides (each where known)."""

        location: NotRequired[str]  # the tally's
        raiserSeat: NotRequired[str]
        evidence: NotRequired[str]
        evidenceCheck: NotRequired[EvidenceCheck]
        rationale: NotRequired[str]  # its raiser's review's
        reReview: NotRequired[ReReview]  # rereview.json's
        dismissed: NotRequired[FindingDismissal]  # dismissed.json's


class RunFindings(NamedTuple):
    verdict: Verdict
    findings: list[RunFinding]  # the verdict's findings, each with claim/location/rationale where known
    source: Path  # the verdict file read
    rereview: RereviewDocument | None = None  # rereview.json beside it (a run with --baseline)


def read_run_findings(path: str | Path) -> RunFindings:
    """The findings of the run whose verdict.json is `path` (or which a run directory `path` holds)."""
    target = Path(path)
    if target.is_dir():
        target = RunDir(target).verdict_path
    if not target.is_file():
        raise BadArgs(f"'{path}' holds no verdict.json", hint="pass a finished council run's directory or its verdict.json")
    try:
        verdict = read_verdict_file(target)
        tally: Mapping[str, Any] = read_tally_beside(target) if RunDir(target.parent).tally_path.is_file() else {}
    except BadSession as err:
        raise BadArgs(err.message, hint="pass a finished council run's directory or its verdict.json") from None
    return run_findings(verdict, tally, target)


def run_findings(verdict: Verdict, tally: Mapping[str, Any], target: Path) -> RunFindings:
    """The findings of `verdict` joined with its tally record's and the run directory's (beside
    `target`, the verdict's path): a verdict read from disk, or a run's own verdict before it is
    written (a re-review matches the run's findings before its verdict and report are final)."""
    by_id = {str(f.get("id")): f for f in (tally.get("findings") or []) if isinstance(f, Mapping)}
    merged: list[dict[str, object]] = []
    for finding in verdict.get("findings") or []:
        if not isinstance(finding, Mapping):
            continue
        row = dict(finding)
        for key in ("claim", "location", "raiserSeat", "evidence", "evidenceCheck"):
            if key not in row and key in by_id.get(str(finding.get("id")), {}):
                row[key] = by_id[str(finding.get("id"))][key]
        merged.append(row)
    rationales = RunDir(target.parent).review_rationales(merged)
    for row in merged:
        if rationales.get(str(row.get("id"))):
            row["rationale"] = rationales[str(row.get("id"))]
    rereview = RunDir(target.parent).read_rereview() if target.name == VERDICT else None
    statuses = {d.id: d.status for d in rereview.decisions} if rereview is not None else {}
    for row in merged:
        if str(row.get("id")) in statuses:
            row["reReview"] = statuses[str(row.get("id"))]
    dismissed = RunDir(target.parent).read_dismissed() if target.name == VERDICT else None
    matches = {m.id: m for m in dismissed.findings} if dismissed is not None else {}
    for row in merged:
        match = matches.get(str(row.get("id")))
        if match is not None:
            row["dismissed"] = FindingDismissal(decisionId=match.decision_id, dismissedIn=match.dismissed_in,
                                                reason=match.reason)
    # Each row is the verdict's finding with only the keys above added, each as its source declares it.
    return RunFindings(verdict, cast("list[RunFinding]", merged), target, rereview)


def run_findings_of(target: str, project: str | None) -> RunFindings:
    """A run's findings, by its run directory, its verdict.json or its id (in `project`'s sessions)."""
    if Path(target).exists():
        return read_run_findings(target)
    from .run_dir import find_run
    from .store import SessionStore, resolve_project

    store = SessionStore(resolve_project(project))
    run_dir = find_run(store, target)
    if run_dir is None:
        raise BadArgs(f"no council run '{target}' in {store.root} and no run directory there",
                      hint="pass the run id (amicus list) with the project it ran in, or its run directory")
    return read_run_findings(run_dir.path)


def as_json(doc: Family | None) -> JsonObject | None:
    """A document read beside a verdict, as the file holds it (what the renderings take)."""
    return doc.to_doc() if doc is not None else None
