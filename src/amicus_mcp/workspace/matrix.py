"""The adjudication matrix, street-cred and Stage-4 decisions, from the run's verdict.

The matrix is the report's own (`council.report.build_model`): columns in seat space when
the document carries a seat table, alias space otherwise, a vote whose judge names no
column folded into `UNATTRIBUTED`, the raiser's own vote marked. `verdict.json` is the
source (it carries Stage-4 decisions and tier overrides); when it is missing or unreadable
the undecided verdict is rebuilt in memory from `tally.json`. Claims and locations come
from `tally.json`, which keeps them.

Debate re-votes come from `debate.json` (the engine's council-debate record): each debated
finding lists its `disputers` and its `revotes` `{judge, verdict, reason?}`, the judge being a
seat id. A re-voted cell opens that judge's `revote-<seat>.md` and shows the reason.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..council.report import build_model, format_score
from ..council.report_model import UNATTRIBUTED, FindingView, Matrix
from ..council.verdict import build_verdict
from ..documents.run import SeatRecord
from ..errors import AmicusError

MAX_ROWS = 500


def verdict_source(verdict: Any, verdict_error: str | None, tally: Any, *,
                   live: bool = False) -> tuple[Mapping[str, Any] | None, list[str]]:
    """(the verdict document to render, notes on how it was obtained). A live run's tally is
    written when Stage 2 (and any debate) ends, its verdict only after the chair: rebuilt from
    the tally meanwhile, which is the expected path then, not a note."""
    notes = [f"verdict.json could not be read ({verdict_error})"] if verdict_error else []
    if isinstance(verdict, dict) and verdict.get("type") == "council-verdict":
        return verdict, notes
    if verdict is not None and verdict_error is None:
        notes.append("verdict.json is not a council-verdict document")
    if not isinstance(tally, dict):
        return None, notes
    try:
        rebuilt = build_verdict(tally, [])
    except AmicusError as err:
        return None, [*notes, f"tally.json is not a usable tally record ({err.message})"]
    if notes or (verdict is None and not live):
        notes.append("the matrix is rebuilt from tally.json (no Stage-4 decisions)")
    return rebuilt, notes


def matrix_panel(verdict: Mapping[str, Any], tally: Any, seats: Sequence[SeatRecord],
                 judges_completed: int | None, revotes: Mapping[tuple[str, str], dict[str, Any]]) -> dict[str, Any]:
    matrix = build_model(verdict, record=tally if isinstance(tally, dict) else None).matrix
    claims = _claims(tally)
    columns = [_column(key, seats) for key in matrix.columns]
    rows = [_row(view, claims.get(view.id, {}), matrix, revotes) for view in matrix.rows]
    judges = judges_completed if judges_completed is not None else _voting_columns(matrix)
    judged = tally.get("judged") if isinstance(tally, dict) else verdict.get("judged")
    return {
        "columns": columns,
        "rows": rows[:MAX_ROWS],
        "total": len(rows),
        "shown": min(len(rows), MAX_ROWS),
        "judges": judges,
        "peersReduced": judges < 2 or judged is False,
        "hasUnattributed": matrix.has_unattributed,
    }


def _column(key: str, seats: Sequence[SeatRecord]) -> dict[str, Any]:
    if key == UNATTRIBUTED:
        return {"key": key, "seat": None, "unattributed": True}
    seat = next((s for s in seats if s.id == key), None)
    if seat is None:
        same_alias = [s for s in seats if s.alias == key]
        seat = same_alias[0] if len(same_alias) == 1 else None
    return {"key": key, "seat": seat.id if seat else None, "unattributed": False}


def _row(view: FindingView, claim: Mapping[str, Any], matrix: Matrix,
         revotes: Mapping[tuple[str, str], dict[str, Any]]) -> dict[str, Any]:
    basis = view.basis
    votes = []
    for column, vote in zip(matrix.columns, view.votes, strict=True):
        revote = revotes.get((view.id, column))
        votes.append({"kind": vote.kind, "raiser": vote.raiser, "revote": revote})
    return {
        "id": view.id, "severity": view.severity, "raiser": view.raiser, "tier": view.tier,
        "basis": basis.text, "thin": basis.thin,
        "override": {"from": view.override.from_tier, "to": view.override.to_tier, "reason": view.override.reason}
        if view.override else None,
        "decision": view.decision, "applied": view.applied, "duplicateOf": view.duplicate_of,
        "debate": {"action": view.debate.action, "previousTier": view.debate.previous_tier} if view.debate else None,
        "claim": claim.get("claim"), "location": claim.get("location"),
        "votes": votes,
        # The evidence check (issue 30), only on a checked finding, so older runs' rows are unchanged.
        **({"evidenceCheck": view.evidence_check, "evidenceText": view.evidence_text,
            "evidence": view.evidence} if view.evidence_check is not None else {}),
        **({"verification": view.verification} if view.verification is not None else {}),
    }


def _claims(tally: Any) -> dict[str, dict[str, Any]]:
    findings = tally.get("findings") if isinstance(tally, dict) else None
    out: dict[str, dict[str, Any]] = {}
    for finding in findings if isinstance(findings, list) else []:
        if isinstance(finding, dict) and isinstance(finding.get("id"), str):
            out[finding["id"]] = {k: finding.get(k) for k in ("claim", "location") if isinstance(finding.get(k), str)}
    return out


def _voting_columns(matrix: Matrix) -> int:
    voted = {i for row in matrix.rows for i, vote in enumerate(row.votes) if vote.kind is not None}
    return sum(1 for i in voted if matrix.columns[i] != UNATTRIBUTED)


def revote_index(debate: Any) -> dict[tuple[str, str], dict[str, Any]]:
    """(finding id, judge seat) → {verdict, previousVerdict, reason, seat} from `debate.json`.
    Only disputers are asked to re-vote, so a disputer's previous verdict is `dispute`."""
    rows = debate.get("findings") if isinstance(debate, dict) else None
    index: dict[tuple[str, str], dict[str, Any]] = {}
    for row in rows if isinstance(rows, list) else []:
        if not isinstance(row, dict) or not isinstance(row.get("id"), str):
            continue
        disputers = _list(row.get("disputers"))
        for vote in _list(row.get("revotes")):
            judge = vote.get("judge") if isinstance(vote, dict) else None
            if isinstance(judge, str) and judge:
                index[(row["id"], judge)] = {"verdict": vote.get("verdict"), "reason": vote.get("reason"), "seat": judge,
                                             "previousVerdict": "dispute" if judge in disputers else None}
    return index


def street_cred(verdict: Mapping[str, Any]) -> list[dict[str, Any]]:
    rows = verdict.get("streetCred")
    out = []
    for row in rows if isinstance(rows, list) else []:
        if isinstance(row, dict):
            name = row.get("seat") if isinstance(row.get("seat"), str) and row.get("seat") else row.get("model")
            out.append({"name": str(name), "peersOnly": format_score(row.get("peersOnly")),
                        "withSelf": format_score(row.get("withSelf"))})
    return out


def decisions(verdict: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Stage-4 decisions recorded on the verdict (decided findings only)."""
    out = []
    for finding in verdict.get("findings") or []:
        if not isinstance(finding, dict) or finding.get("decision") is None:
            continue
        override = finding.get("tierOverride") if isinstance(finding.get("tierOverride"), dict) else None
        out.append({"id": str(finding.get("id")), "decision": str(finding["decision"]),
                    "applied": finding.get("applied") is True, "duplicateOf": finding.get("duplicateOf"),
                    "override": {"from": override.get("from"), "to": override.get("to"), "reason": override.get("reason")}
                    if override else None})
    return out


def voters(verdict: Mapping[str, Any]) -> set[str]:
    """Every judge key (seat id or alias) that cast at least one vote."""
    keys: set[str] = set()
    for finding in verdict.get("findings") or []:
        for vote in finding.get("adjudications") or [] if isinstance(finding, dict) else []:
            if isinstance(vote, dict):
                keys.update(v for v in (vote.get("seat"), vote.get("judge")) if isinstance(v, str))
    return keys


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def ranking_panel(verdict: Mapping[str, Any], labels: Mapping[str, str]) -> list[dict[str, Any]]:
    """A question council's answers in the aggregate ranking, as the report ranks them: rank, the
    answer's label and seat, its peers-only and with-self places, who ranked it where (after
    unblinding), and the answer itself."""
    question = build_model(verdict).question
    if question is None:
        return []
    return [{"rank": r.rank, "label": r.label or labels.get(r.who), "name": r.who, "peersOnly": r.peers_only,
             "withSelf": r.with_self, "perJudge": [{"judge": j, "place": p} for j, p in zip(question.judges, r.per_judge)],
             "claims": r.claims, "answer": r.answer, "confidence": r.confidence, "assumptions": list(r.assumptions)}
            for r in question.ranked]


def dissent_panel(verdict: Mapping[str, Any]) -> dict[str, Any]:
    """A question council's dissent, as the report gives it: the chair's dissent item by item,
    then the claims the council put in the Disputed tier."""
    question = build_model(verdict).question
    if question is None:
        return {"chair": [], "disputed": []}
    return {"chair": list(question.dissent), "disputed": [row.id for row in question.disputed]}
