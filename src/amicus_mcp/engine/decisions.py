"""The memory of Stage-4 decisions: `council-decisions.json` beside the reliability ledger.

Every accept / deny taken through `council verdict` or `amicus_verdict` is kept with the user's
reason, the finding it was about (claim, location, severity) and the run it was taken in, per
project. A later run of the same project matches its findings to the project's *denied* ones
the way a re-review matches a baseline (council/rereview.py: location first, then claim) and
writes `dismissed.json` beside its verdict: each match marks a finding **previously dismissed**.
The gate does not count such a finding as a blocker unless it is Confirmed again with verified
evidence (council/gate.py). `amicus decisions list / forget ID` read and prune the memory. Every
change is a read-modify-write under the file's lock (fsio.locked), so verdicts taken by two
processes at once (two Claude sessions, a CI job) never lose one another's decisions.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal, TypedDict, cast

from ..documents.pr_loop import PR_LOOP_VERSION, DismissedDocument, DismissedMatch
from ..errors import BadArgs, BadSession
from ..fsio import atomic_write_json, locked, read_json
from ..vocabulary import KEPT_DECISIONS
from .run_dir import DISMISSED

DECISIONS_FILE = "council-decisions.json"


class DecisionEntry(TypedDict):
    """One remembered accept / deny (documents/pr_loop.py's DecisionsDocument checks it on read)."""

    id: str
    project: str
    runId: Any  # the verdict's runId, as it was
    findingId: str
    decision: str
    reason: str | None
    severity: Any
    claim: Any
    location: Any
    decidedAt: str


class DecisionsMemory(TypedDict):
    """council-decisions.json (a newer writer's keys kept)."""

    schemaVersion: int
    type: Literal["council-decisions"]
    decisions: list[DecisionEntry]


class DecisionsListing(DecisionsMemory):
    path: str
    project: str | None
REMEMBERED = KEPT_DECISIONS  # the decisions a later run can learn from


def decisions_path() -> Path:
    from ..config import config_dir

    return config_dir() / DECISIONS_FILE


def read_memory(path: Path | None = None) -> DecisionsMemory:
    path = path or decisions_path()
    if not path.is_file():
        return {"schemaVersion": PR_LOOP_VERSION, "type": "council-decisions", "decisions": []}
    doc = read_json(path, what="decisions memory")
    if not isinstance(doc, dict) or doc.get("type") != "council-decisions" or not isinstance(doc.get("decisions"), list):
        raise BadArgs(f"'{path}' is not a council-decisions document",
                      hint="move it aside; amicus writes a new one at the next decision")
    from ..documents.pr_loop import DecisionsDocument

    try:
        DecisionsDocument.parse(doc, what="decisions memory", where=path)
    except BadSession as exc:
        raise BadArgs(exc.message, hint="move it aside; amicus writes a new one at the next decision") from None
    doc["schemaVersion"] = PR_LOOP_VERSION  # a memory written as version 1 reads as it is, and is written back as 2
    return cast("DecisionsMemory", doc)  # checked by its model just above


def entry_id(project: str, run_id: Any, finding_id: Any) -> str:
    return "D" + hashlib.sha256(f"{project}\0{run_id}\0{finding_id}".encode()).hexdigest()[:10]


def remember(verdict: Mapping[str, Any], record: Mapping[str, Any], decisions: Sequence[Mapping[str, Any]],
             project: Path) -> list[DecisionEntry]:
    """Keep the accept / deny decisions of `verdict` (with their reasons) for `project`; returns the entries kept."""
    by_id = {str(f.get("id")): f for f in record.get("findings") or [] if isinstance(f, Mapping)}
    reasons = {str(d.get("id")): d.get("reason") for d in decisions if isinstance(d, Mapping)}
    run_id = verdict.get("runId")
    now = datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")
    kept: list[DecisionEntry] = []
    for finding in verdict.get("findings") or []:
        fid = str(finding.get("id"))
        if finding.get("decision") not in REMEMBERED or fid not in reasons:
            continue  # only what this call decided, not what a previous verdict carried
        source = by_id.get(fid, {})
        reason = reasons[fid]
        kept.append({"id": entry_id(str(project), run_id, fid), "project": str(project), "runId": run_id,
                     "findingId": fid, "decision": finding["decision"],
                     "reason": reason if isinstance(reason, str) and reason.strip() else None,
                     "severity": finding.get("severity"), "claim": source.get("claim"),
                     "location": source.get("location"), "decidedAt": now})
    if not kept:
        return []
    path = decisions_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    fresh = {e["id"] for e in kept}
    with locked(path):  # a read-modify-write: two verdicts taken at once both stay remembered
        doc = read_memory(path)
        doc["decisions"] = [e for e in doc["decisions"] if e.get("id") not in fresh] + kept
        atomic_write_json(path, doc)
    return kept


def list_decisions(project: Path | None = None) -> DecisionsListing:
    """The council-decisions document, only `project`'s entries when one is given."""
    doc = read_memory()
    rows = [e for e in doc["decisions"] if project is None or e.get("project") == str(project)]
    return {"schemaVersion": PR_LOOP_VERSION, "type": "council-decisions", "path": str(decisions_path()),
            "project": str(project) if project is not None else None, "decisions": rows}


def forget(decision_id: str) -> DecisionEntry:
    path = decisions_path()
    if not path.is_file():
        raise BadArgs(f"no remembered decision '{decision_id}'", hint="'amicus decisions list' shows their ids")
    with locked(path):
        doc = read_memory(path)
        gone = [e for e in doc["decisions"] if e.get("id") == decision_id]
        if not gone:
            raise BadArgs(f"no remembered decision '{decision_id}'", hint="'amicus decisions list' shows their ids")
        doc["decisions"] = [e for e in doc["decisions"] if e.get("id") != decision_id]
        atomic_write_json(path, doc)
    return gone[0]


def denied_for(project: Path) -> list[DecisionEntry]:
    return [e for e in read_memory()["decisions"] if e.get("project") == str(project) and e.get("decision") == "denied"]


def mark_dismissed(run_dir: Path, verdict: Mapping[str, Any], findings: Sequence[Mapping[str, Any]],
                   project: Path) -> DismissedDocument | None:
    """Match the run's findings to the project's denied ones; write dismissed.json when any matches."""
    from ..council.rereview import match_baseline

    denied = denied_for(project)
    if not denied:
        return None
    as_findings = [{"id": e["id"], "claim": e.get("claim"), "location": e.get("location")} for e in denied]
    by_id = {e["id"]: e for e in denied}
    matched = [d for d in match_baseline(findings, as_findings)["decisions"] if d["status"] == "still-open"]
    if not matched:
        return None
    doc = {"schemaVersion": PR_LOOP_VERSION, "type": "council-dismissed", "runId": verdict.get("runId"), "project": str(project),
           "findings": [{"id": d["id"], "decisionId": d["baselineId"], "dismissedIn": by_id[d["baselineId"]].get("runId"),
                         "reason": by_id[d["baselineId"]].get("reason"), "by": d["by"], "score": d["score"]}
                        for d in matched]}
    dismissed = DismissedDocument.parse(doc, what="dismissed findings")
    atomic_write_json(run_dir / DISMISSED, dismissed.to_doc())
    return dismissed


def dismissed_note(match: DismissedMatch) -> str:
    reason = match.reason or "no reason given"
    return f"in run {match.dismissed_in}, reason: {reason}"
