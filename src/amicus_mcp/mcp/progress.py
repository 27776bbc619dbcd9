"""Projecting the engine's status documents onto the compact `Progress` the tools return.

`engine.control.status` returns the whole document (run.json, wave.json or a leg's
run.json), with every output text in it. A tool result should say where the work is and,
once it is done, what came of it — the texts themselves are paged through `amicus_read`.
Cost so far is the rollup of finished legs: an unpriced leg is counted, never taken as $0.
A council run's `legsTotal` is the engine's `legsPlanned` (the run's planned total, written
at the start and set anew as each stage is planned) when run.json has it, never fewer than the
legs already listed. Text a model or a remote body may have written (errors, degrade reasons,
the notices that repeat them) is fenced.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..documents.base import Document
from ..vocabulary import ANSWERING_INTENTS, IN_FLIGHT_LEG_STATUSES
from .fence import fence, fence_all
from .models import NEXT_READ, NEXT_RESUME, NEXT_WAIT, Cost, LegRow, Progress

if TYPE_CHECKING:
    from ..documents.legs import LegRun
    from ..documents.run import Degrade, LegEntry, RunStatusView
    from ..documents.usage import LegUsage
    from ..documents.wave import Wave
    from ..engine import Observation


def progress(target: str, doc: Observation, *, terminal: bool) -> Progress:
    from ..documents.legs import LegRun
    from ..documents.run import RunStatusView
    from ..documents.wave import Wave

    if isinstance(doc, RunStatusView):
        snap = _run(target, doc, terminal)
    elif isinstance(doc, Wave):
        snap = _wave(target, doc, terminal)
    elif isinstance(doc, LegRun):
        snap = _leg(target, doc, terminal)
    else:  # a job of a layer above: an eval
        snap = _eval(target, doc, terminal)
    snap.next = NEXT_READ[snap.kind] if terminal else NEXT_WAIT
    if snap.resumable:
        snap.next = NEXT_RESUME
    return snap


def progress_message(snap: Progress) -> str:
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


def _run(target: str, run: RunStatusView, terminal: bool) -> Progress:
    from ..engine import RUN_FILES

    run_dir = run.options.out_dir if run.options is not None else None
    report = Path(run_dir) / RUN_FILES.report if run_dir else None
    done, total = run.progress()
    return Progress(
        id=target, kind="council-run", status=run.status, terminal=terminal,
        stage=run.current_stage, legs_done=done, legs_total=total,
        cost=_cost(leg.usage for leg in run.legs if leg.finished),
        created_at=run.created_at, completed_at=run.completed_at, run_dir=run_dir,
        exit_code=run.exit_code, overall_verdict=run.overall_verdict,
        intent=run.intent if run.intent in ANSWERING_INTENTS else None,
        answer=fence(run.answer) if run.answer is not None else None,  # the chair wrote it
        tier_counts=run.tier_counts, judged=run.judged,
        report=str(report) if report is not None and report.exists() else None,
        error=_error(run.error), degrades=_degrades(run.degrades) or None,
        notices=fence_all(run.notices) or None,
        legs=[_run_leg(leg) for leg in run.legs],
        resumable=run.resumable,
    )


def _eval(target: str, doc: Mapping[str, Any], terminal: bool) -> Progress:
    """An eval: its cases stand where a run's legs do; its report is eval.html."""
    cases = _list(doc.get("cases"))
    report = doc.get("report")
    known = [c for c in cases if isinstance(c.get("cost"), Mapping)]
    unpriced = sum(int(c["cost"].get("unpricedLegs") or 0) for c in known)
    amount = doc.get("cost")
    return Progress(
        id=target, kind="eval-run", status=str(doc.get("status")), terminal=terminal, stage=doc.get("stage"),
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


def _wave(target: str, wave: Wave, terminal: bool) -> Progress:
    return Progress(
        id=target, kind="wave", status=wave.status, terminal=terminal,
        legs_done=sum(1 for leg in wave.legs if leg.status not in IN_FLIGHT_LEG_STATUSES), legs_total=len(wave.legs),
        cost=_cost(leg.usage for leg in wave.legs if leg.status not in IN_FLIGHT_LEG_STATUSES),
        created_at=wave.created_at, completed_at=wave.completed_at,
        error=_error(wave.error), notices=fence_all(wave.notices) or None,
        legs=[_wave_leg(leg) for leg in wave.legs],
    )


def _leg(target: str, leg: LegRun, terminal: bool) -> Progress:
    done = leg.status not in IN_FLIGHT_LEG_STATUSES  # a queued leg has not run yet
    return Progress(
        id=target, kind="leg", status=leg.status, terminal=terminal,
        legs_done=int(done), legs_total=1, cost=_cost([leg.usage] if done else []),
        created_at=leg.created_at, completed_at=leg.completed_at,
        error=_error(leg.error), legs=[_wave_leg(leg)],
    )


def _run_leg(leg: LegEntry) -> LegRow:
    return LegRow(id=leg.id, model=leg.model, status=leg.status, stage=leg.stage, role=leg.role, seat=leg.seat,
                  duration_ms=leg.duration_ms, cost=_leg_cost(leg.usage), error=_error(leg.error))


def _wave_leg(leg: LegRun) -> LegRow:
    """A leg run document's row (a council leg's also says its stage, role and seat)."""
    return LegRow(id=leg.leg_id, model=leg.model or leg.model_input, status=leg.status, stage=leg.stage,
                  role=leg.role, seat=leg.seat, duration_ms=leg.duration_ms, cost=_leg_cost(leg.usage),
                  error=_error(leg.error))


def _cost(usages: Iterable[LegUsage | None]) -> Cost:
    from ..providers.cost import rollup

    total = rollup(u.to_doc() if u is not None else None for u in usages)["cost"]
    return Cost(amount=total["amount"], unpriced_legs=total["unpricedLegs"])


def _leg_cost(usage: LegUsage | None) -> float | None:
    amount = usage.cost.amount if usage is not None else None
    return float(amount) if amount is not None else None


def _error(err: Any) -> str | None:
    """An error as `CODE: message`, fenced: a provider's message can echo a remote body."""
    if isinstance(err, Document):
        err = err.to_doc()
    if isinstance(err, Mapping):
        return fence(f"{err.get('code', 'ERROR')}: {err.get('message', '')}".rstrip(": "))
    return fence(str(err)) if err else None


def _degrades(degrades: Iterable[Degrade]) -> list[str]:
    """What a degraded run lost and why, fenced: a reason can quote a provider's error."""
    return fence_all(f"{d.channel}: {d.what} — {d.why}" for d in degrades)


def _list(raw: Any) -> list[Mapping[str, Any]]:
    return [item for item in raw if isinstance(item, Mapping)] if isinstance(raw, list) else []


def _strings(raw: Any) -> list[str]:
    return [item for item in raw if isinstance(item, str)] if isinstance(raw, list) else []
