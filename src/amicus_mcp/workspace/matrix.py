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

from ..council.report import build_model, format_score
from ..council.report_model import UNATTRIBUTED, FindingView, Matrix
from ..council.verdict import build_verdict
from ..documents.council import ScoredFinding, TallyRecord, Verdict
from ..documents.run import SeatRecord
from ..errors import AmicusError
from .views import (DecisionEntry, DissentPanel, MatrixColumn, MatrixPanel, MatrixRow, OverrideCell, RankingEntry,
                    Revote, StreetCredEntry, VoteCell)

MAX_ROWS = 500
Revotes = Mapping[tuple[str, str], Revote]  # (finding id, judge seat) → that judge's re-vote


def verdict_source(verdict: Verdict | None, verdict_error: str | None, tally: TallyRecord | None, *,
                   live: bool = False) -> tuple[Verdict | None, list[str]]:
    """(the verdict document to render, notes on how it was obtained). A live run's tally is
    written when Stage 2 (and any debate) ends, its verdict only after the chair: rebuilt from
    the tally meanwhile, which is the expected path then, not a note. Both documents come
    checked against their declarations (RunDir.read_verdict / read_tally)."""
    notes = [f"verdict.json could not be read ({verdict_error})"] if verdict_error else []
    if verdict is not None:
        return verdict, notes
    if tally is None:
        return None, notes
    try:
        rebuilt = build_verdict(tally, [])
    except AmicusError as err:
        return None, [*notes, f"tally.json is not a usable tally record ({err.message})"]
    if notes or not live:
        notes.append("the matrix is rebuilt from tally.json (no Stage-4 decisions)")
    return rebuilt, notes


def matrix_panel(verdict: Verdict, tally: TallyRecord | None, seats: Sequence[SeatRecord],
                 judges_completed: int | None, revotes: Revotes, *, provisional: bool = False) -> MatrixPanel:
    matrix = build_model(verdict, record=tally).matrix
    claims = _claims(tally)
    columns = [_column(key, seats) for key in matrix.columns]
    rows = [_row(view, claims.get(view.id), matrix, revotes) for view in matrix.rows]
    judges = judges_completed if judges_completed is not None else _voting_columns(matrix)
    judged = tally.get("judged") if tally is not None else verdict.get("judged")
    return {
        "columns": columns,
        "rows": rows[:MAX_ROWS],
        "total": len(rows),
        "shown": min(len(rows), MAX_ROWS),
        "judges": judges,
        "peersReduced": judges < 2 or judged is False,
        "hasUnattributed": matrix.has_unattributed,
        "provisional": provisional,
    }


def _column(key: str, seats: Sequence[SeatRecord]) -> MatrixColumn:
    if key == UNATTRIBUTED:
        return {"key": key, "seat": None, "unattributed": True}
    seat = next((s for s in seats if s.id == key), None)
    if seat is None:
        same_alias = [s for s in seats if s.alias == key]
        seat = same_alias[0] if len(same_alias) == 1 else None
    return {"key": key, "seat": seat.id if seat else None, "unattributed": False}


def _row(view: FindingView, claim: ScoredFinding | None, matrix: Matrix, revotes: Revotes) -> MatrixRow:
    basis = view.basis
    votes: list[VoteCell] = []
    for column, vote in zip(matrix.columns, view.votes, strict=True):
        revote = revotes.get((view.id, column))
        votes.append({"kind": vote.kind, "raiser": vote.raiser, "revote": revote})
    row: MatrixRow = {
        "id": view.id, "severity": view.severity, "raiser": view.raiser, "tier": view.tier,
        "basis": basis.text, "thin": basis.thin,
        "override": {"from": view.override.from_tier, "to": view.override.to_tier, "reason": view.override.reason}
        if view.override else None,
        "decision": view.decision, "applied": view.applied, "duplicateOf": view.duplicate_of,
        "debate": {"action": view.debate.action, "previousTier": view.debate.previous_tier} if view.debate else None,
        "claim": claim.get("claim") if claim else None, "location": claim.get("location") if claim else None,
        "votes": votes,
    }
    # The evidence check (issue 30), only on a checked finding, so older runs' rows are unchanged.
    if view.evidence_check is not None:
        row.update({"evidenceCheck": view.evidence_check, "evidenceText": view.evidence_text, "evidence": view.evidence})
    if view.verification is not None:
        row["verification"] = view.verification
    return row


def _claims(tally: TallyRecord | None) -> dict[str, ScoredFinding]:
    """The tally's findings by id: their claims and locations, which the verdict does not keep."""
    return {finding["id"]: finding for finding in tally["findings"]} if tally is not None else {}


def _voting_columns(matrix: Matrix) -> int:
    voted = {i for row in matrix.rows for i, vote in enumerate(row.votes) if vote.kind is not None}
    return sum(1 for i in voted if matrix.columns[i] != UNATTRIBUTED)


def revote_index(debate: object) -> dict[tuple[str, str], Revote]:
    """(finding id, judge seat) → {verdict, previousVerdict, reason, seat} from `debate.json` (as
    `RunDir.read_debate` checked it; any other JSON is read defensively, a row it cannot use skipped). Only disputers are asked to re-vote, so a disputer's
    previous verdict is `dispute`."""
    rows = debate.get("findings") if isinstance(debate, dict) else None
    index: dict[tuple[str, str], Revote] = {}
    for row in _list(rows):
        finding = row.get("id") if isinstance(row, dict) else None
        if not isinstance(row, dict) or not isinstance(finding, str):
            continue
        disputers = _list(row.get("disputers"))
        for vote in _list(row.get("revotes")):
            judge = vote.get("judge") if isinstance(vote, dict) else None
            if isinstance(vote, dict) and isinstance(judge, str) and judge:
                index[(finding, judge)] = {"verdict": vote.get("verdict"), "reason": vote.get("reason"), "seat": judge,
                                           "previousVerdict": "dispute" if judge in disputers else None}
    return index


def street_cred(verdict: Verdict) -> list[StreetCredEntry]:
    out: list[StreetCredEntry] = []
    for row in verdict.get("streetCred") or []:
        seat = row.get("seat")
        out.append({"name": str(seat if isinstance(seat, str) and seat else row.get("model")),
                    "peersOnly": format_score(row.get("peersOnly")), "withSelf": format_score(row.get("withSelf"))})
    return out


def decisions(verdict: Verdict) -> list[DecisionEntry]:
    """Stage-4 decisions recorded on the verdict (decided findings only)."""
    out: list[DecisionEntry] = []
    for finding in verdict.get("findings") or []:
        decision = finding.get("decision")
        if decision is None:
            continue
        override = finding.get("tierOverride")
        cell: OverrideCell | None = {"from": override.get("from"), "to": override.get("to"),
                                     "reason": override.get("reason")} if override else None
        out.append({"id": str(finding.get("id")), "decision": str(decision), "applied": finding.get("applied") is True,
                    "duplicateOf": finding.get("duplicateOf"), "override": cell})
    return out


def voters(verdict: Verdict) -> set[str]:
    """Every judge key (seat id or alias) that cast at least one vote."""
    keys: set[str] = set()
    for finding in verdict.get("findings") or []:
        for vote in finding.get("adjudications") or []:
            keys.update(v for v in (vote.get("seat"), vote.get("judge")) if isinstance(v, str))
    return keys


def _list(value: object) -> list[object]:
    return value if isinstance(value, list) else []


def ranking_panel(verdict: Verdict, labels: Mapping[str, str]) -> list[RankingEntry]:
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


def dissent_panel(verdict: Verdict) -> DissentPanel:
    """A question council's dissent, as the report gives it: the chair's dissent item by item,
    then the claims the council put in the Disputed tier."""
    question = build_model(verdict).question
    if question is None:
        return {"chair": [], "disputed": []}
    return {"chair": list(question.dissent), "disputed": [row.id for row in question.disputed]}
