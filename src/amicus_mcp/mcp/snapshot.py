"""Projecting the engine's status documents onto the compact `Snapshot` the tools return.

`engine.control.status` returns the whole document (run.json, wave.json or a leg's
run.json), with every output text in it. A tool result should say where the work is and,
once it is done, what came of it — the texts themselves are paged through `amicus_read`.
Cost so far is the rollup of finished legs: an unpriced leg is counted, never taken as $0.
A council run's `legsTotal` is the engine's `legsPlanned` (the legs planned so far, written
at the start and raised as each stage is planned) when run.json has it, never fewer than the
legs already listed. Text a model or a remote body may have written (errors, degrade reasons,
the notices that repeat them) is fenced.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ..vocabulary import QUESTION
from .fence import fence, fence_all
from .models import NEXT_READ, NEXT_RESUME, NEXT_WAIT, Cost, LegRow, Snapshot


def snapshot(task_id: str, doc: Mapping[str, Any], *, terminal: bool) -> Snapshot:
    kind = doc.get("type")
    if kind == "council-run":
        snap = _run(task_id, doc, terminal)
    elif kind == "eval-run":
        snap = _eval(task_id, doc, terminal)
    elif kind == "wave":
        snap = _wave(task_id, doc, terminal)
    else:
        snap = _leg(task_id, doc, terminal)
    snap.next = NEXT_READ[snap.kind] if terminal else NEXT_WAIT
    if snap.resumable:
        snap.next = NEXT_RESUME
    return snap


def progress_message(snap: Snapshot) -> str:
    """One line for a progress notification: stage, legs done, cost so far."""
    parts = [f"{snap.kind} {snap.id}: {snap.status}"]
    stage = f"stage {snap.stage}" if snap.stage else None
    unit = "cases" if snap.kind == "eval-run" else "legs"
    if snap.legs_total:
        parts += [*([stage] if stage else []), f"{snap.legs_done}/{snap.legs_total} {unit} done"]
    else:  # nothing planned yet: say what is starting rather than "0/0 legs done"
        parts.append(f"{stage} starting" if stage else "starting")
    amount = snap.cost.amount
    cost = "cost unknown so far" if amount is None else f"${amount:.4f} so far"
    if snap.cost.unpriced_legs:
        cost += f" (+{snap.cost.unpriced_legs} unpriced)"
    parts.append(cost)
    return " · ".join(parts)


def _run(task_id: str, doc: Mapping[str, Any], terminal: bool) -> Snapshot:
    legs = _list(doc.get("legs"))
    run_dir = (doc.get("options") or {}).get("outDir")
    report = Path(run_dir) / "report.html" if run_dir else None
    return Snapshot(
        id=task_id, kind="council-run", status=str(doc.get("status")), terminal=terminal,
        stage=doc.get("currentStage"), legs_done=_count_done(legs), legs_total=_planned(doc.get("legsPlanned"), legs),
        cost=_cost(leg.get("usage") for leg in legs if leg.get("status") != "running"),
        created_at=doc.get("createdAt"), completed_at=doc.get("completedAt"), run_dir=run_dir,
        exit_code=doc.get("exitCode"), overall_verdict=doc.get("overallVerdict"),
        intent=QUESTION if doc.get("intent") == QUESTION else None,
        answer=fence(doc["answer"]) if isinstance(doc.get("answer"), str) else None,  # the chair wrote it
        tier_counts=doc.get("tierCounts"), judged=doc.get("judged"),
        report=str(report) if report is not None and report.exists() else None,
        error=_error(doc.get("error")), degrades=_degrades(doc.get("degrades")) or None,
        notices=fence_all(_strings(doc.get("notices"))) or None,
        legs=[_run_leg(leg) for leg in legs],
        resumable=doc.get("resumable") if isinstance(doc.get("resumable"), bool) else None,
    )


def _eval(task_id: str, doc: Mapping[str, Any], terminal: bool) -> Snapshot:
    """An eval: its cases stand where a run's legs do; its report is eval.html."""
    cases = _list(doc.get("cases"))
    report = doc.get("report")
    known = [c for c in cases if isinstance(c.get("cost"), Mapping)]
    unpriced = sum(int(c["cost"].get("unpricedLegs") or 0) for c in known)
    amount = doc.get("cost")
    return Snapshot(
        id=task_id, kind="eval-run", status=str(doc.get("status")), terminal=terminal, stage=doc.get("stage"),
        legs_done=int(doc.get("casesDone") or 0), legs_total=int(doc.get("casesTotal") or len(cases)),
        cost=Cost(amount=float(amount) if isinstance(amount, (int, float)) else None, unpriced_legs=unpriced),
        created_at=doc.get("createdAt"), completed_at=doc.get("completedAt"), run_dir=doc.get("evalDir"),
        exit_code=doc.get("exitCode"), report=report if isinstance(report, str) else None,
        error=_error(doc.get("error")), notices=fence_all(_strings(doc.get("notices"))) or None,
        legs=[LegRow(id=str(c.get("runId")), model=str(c.get("caseId")), status=str(c.get("status")), stage="case",
                     cost=_number_or_none(_dict(c.get("cost")).get("amount"))) for c in cases],
    )


def _number_or_none(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _dict(raw: Any) -> Mapping[str, Any]:
    return raw if isinstance(raw, Mapping) else {}


def _wave(task_id: str, doc: Mapping[str, Any], terminal: bool) -> Snapshot:
    legs = _list(doc.get("legs"))
    return Snapshot(
        id=task_id, kind="wave", status=str(doc.get("status")), terminal=terminal,
        legs_done=_count_done(legs), legs_total=len(legs),
        cost=_cost(leg.get("usage") for leg in legs if leg.get("status") != "running"),
        created_at=doc.get("createdAt"), completed_at=doc.get("completedAt"),
        error=_error(doc.get("error")), notices=fence_all(_strings(doc.get("notices"))) or None,
        legs=[_wave_leg(leg) for leg in legs],
    )


def _leg(task_id: str, doc: Mapping[str, Any], terminal: bool) -> Snapshot:
    done = doc.get("status") != "running"
    return Snapshot(
        id=task_id, kind="leg", status=str(doc.get("status")), terminal=terminal,
        legs_done=int(done), legs_total=1, cost=_cost([doc.get("usage")] if done else []),
        created_at=doc.get("createdAt"), completed_at=doc.get("completedAt"),
        error=_error(doc.get("error")), legs=[_wave_leg(doc)],
    )


def _run_leg(leg: Mapping[str, Any]) -> LegRow:
    return LegRow(id=str(leg.get("id")), model=leg.get("model"), status=str(leg.get("status")),
                  stage=leg.get("stage"), role=leg.get("role"), seat=leg.get("seat"),
                  duration_ms=leg.get("durationMs"), cost=_leg_cost(leg.get("usage")), error=_error(leg.get("error")))


def _wave_leg(leg: Mapping[str, Any]) -> LegRow:
    """A leg run document's row (a council leg's also says its stage, role and seat)."""
    return LegRow(id=str(leg.get("taskId")), model=leg.get("model") or leg.get("modelInput"),
                  status=str(leg.get("status")), stage=leg.get("stage"), role=leg.get("role"), seat=leg.get("seat"),
                  duration_ms=leg.get("durationMs"), cost=_leg_cost(leg.get("usage")), error=_error(leg.get("error")))


def _cost(usages: Iterable[Any]) -> Cost:
    from ..providers.cost import rollup

    total = rollup(u if isinstance(u, Mapping) else None for u in usages)["cost"]
    return Cost(amount=total["amount"], unpriced_legs=total["unpricedLegs"])


def _leg_cost(usage: Any) -> float | None:
    cost = usage.get("cost") if isinstance(usage, Mapping) else None
    amount = cost.get("amount") if isinstance(cost, Mapping) else None
    return float(amount) if isinstance(amount, (int, float)) and not isinstance(amount, bool) else None


def _planned(planned: Any, legs: list[Mapping[str, Any]]) -> int:
    known = planned if isinstance(planned, int) and not isinstance(planned, bool) else 0
    return max(known, len(legs))


def _count_done(legs: list[Mapping[str, Any]]) -> int:
    return sum(1 for leg in legs if leg.get("status") != "running")


def _error(err: Any) -> str | None:
    """An error as `CODE: message`, fenced: a provider's message can echo a remote body."""
    if isinstance(err, Mapping):
        return fence(f"{err.get('code', 'ERROR')}: {err.get('message', '')}".rstrip(": "))
    return fence(str(err)) if err else None


def _degrades(raw: Any) -> list[str]:
    """What a degraded run lost and why, fenced: a reason can quote a provider's error."""
    return fence_all(f"{entry.get('channel')}: {entry.get('what')} — {entry.get('why')}" for entry in _list(raw))


def _list(raw: Any) -> list[Mapping[str, Any]]:
    return [item for item in raw if isinstance(item, Mapping)] if isinstance(raw, list) else []


def _strings(raw: Any) -> list[str]:
    return [item for item in raw if isinstance(item, str)] if isinstance(raw, list) else []
