"""The run-detail panels built from `run.json`: stage rail, seats, cost, chair verdict.

Figures are formatted here, once, with the report's own formatters, so the page and the
terminal view show the same numbers. Honest figures: an unknown cost is `?` (or a `≥`
floor over the known part), never `$0`; `~` marks an estimate; a seat with no legs yet has
no tokens rather than zero tokens.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from decimal import Decimal
from pathlib import Path

from ..council.report import format_money
from ..documents.run import LegEntry, RunManifest, SeatRecord
from ..vocabulary import CORE_STAGE_NAMES, ESTIMATED_COST_SOURCES, QUESTION
from .identities import CHAIR_LABEL, display_label, primary_leg, reviewed
from .views import ChairPanel, CostFigure, CostPanel, LegErrorRow, Prose, RunTotal, SeatRow, StageEntry, TokenFigure

DEAD_STATUSES = ("error", "timeout", "crashed")  # crashed: in flight when the engine died


# --------------------------------------------------------------------------- time


def parse_time(value: object) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)


def latest(values: Sequence[object]) -> datetime | None:
    times = [t for t in (parse_time(v) for v in values) if t is not None]
    return max(times) if times else None


def last_activity(doc: RunManifest) -> datetime | None:
    """The most recent thing the run recorded: a leg or stage starting or finishing."""
    stamps: list[object] = [doc.created_at]
    for leg in doc.legs:
        stamps += [leg.started_at, leg.completed_at]
    for stage in doc.stages:
        stamps += [stage.started_at, stage.completed_at]
    return latest(stamps)


# --------------------------------------------------------------------------- stage rail


def stage_rail(doc: RunManifest) -> list[StageEntry]:
    """Every engine stage in order (`pending` until it starts), then any other recorded stage."""
    recorded = {s.name: s for s in doc.stages}
    names = [*CORE_STAGE_NAMES, *(n for n in recorded if n not in CORE_STAGE_NAMES)]
    rail: list[StageEntry] = []
    for name in names:
        entry = recorded.get(name)
        rail.append({"name": name, "status": entry.status if entry else "pending",
                     "startedAt": entry.started_at if entry else None,
                     "completedAt": entry.completed_at if entry else None})
    return rail


def stage_status(doc: RunManifest, name: str) -> str | None:
    stage = doc.stage_named(name)
    return stage.status if stage is not None else None


# --------------------------------------------------------------------------- money and tokens


def amount_of(value: object) -> Decimal | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return Decimal(str(value))


def leg_cost(leg: LegEntry) -> tuple[Decimal | None, bool]:
    """(known amount or None, estimated) for one finished leg."""
    cost = leg.usage.cost if leg.usage is not None else None
    amount = amount_of(cost.amount) if cost is not None else None
    return amount, amount is not None and cost is not None and cost.source in ESTIMATED_COST_SOURCES


def cost_figure(legs: Sequence[LegEntry]) -> CostFigure:
    """The summed cost of finished legs: amount (known part), unknown count, display text."""
    finished = [leg for leg in legs if leg.finished]
    known = [leg_cost(leg) for leg in finished]
    amounts = [a for a, _ in known if a is not None]
    unknown = len(known) - len(amounts)
    total = sum(amounts, Decimal(0))
    return {"amount": float(total) if amounts else None, "unknownLegs": unknown,
            "text": money_text(total if amounts else None, estimated=any(e for _, e in known), floor=unknown > 0)}


def money_text(amount: Decimal | None, *, estimated: bool, floor: bool) -> str:
    if amount is None:
        return "?" if floor else "—"
    return ("≥ " if floor else "") + ("~" if estimated else "") + format_money(amount)


def tokens_of(legs: Sequence[LegEntry]) -> TokenFigure:
    counts: dict[str, int | None] = {"input": None, "output": None}
    for leg in legs:
        tokens = leg.usage.tokens if leg.usage is not None else None
        for key in counts:
            value = getattr(tokens, key) if tokens is not None else None
            if value is not None:
                counts[key] = (counts[key] or 0) + value
    if counts["input"] is None and counts["output"] is None:
        return {"input": None, "output": None, "text": "—"}
    text = f"{_count(counts['input'])} in / {_count(counts['output'])} out"
    return {"input": counts["input"], "output": counts["output"], "text": text}


def _count(value: int | None) -> str:
    return "?" if value is None else f"{value:,}"


# --------------------------------------------------------------------------- seats


def seat_rows(run_dir: Path, doc: RunManifest, seats: Sequence[SeatRecord], labels: Mapping[str, str],
              *, now: datetime, stall_after_s: float, live: bool, voters: set[str] | None) -> list[SeatRow]:
    """One row per bench seat (dead seats flagged), then the chair's row once it has legs."""
    rows = [_seat_row(run_dir, doc, seat, labels, now=now, stall_after_s=stall_after_s, live=live, voters=voters)
            for seat in seats]
    chair_legs = [leg for leg in doc.legs if leg.stage == "chair"]
    if chair_legs:
        rows.append(_row(key="chair", name=doc.chair or chair_legs[-1].model, role="chair",
                         label=CHAIR_LABEL, legs=chair_legs, now=now, stall_after_s=stall_after_s, live=live))
    return rows


def _seat_row(run_dir: Path, doc: RunManifest, seat: SeatRecord, labels: Mapping[str, str], *,
              now: datetime, stall_after_s: float, live: bool, voters: set[str] | None) -> SeatRow:
    legs = [leg for leg in doc.legs if leg.seat == seat.id]
    row = _row(key=seat.id, name=seat.id, role=seat.role or "seat", label=display_label(seat, labels),
               legs=legs, now=now, stall_after_s=stall_after_s, live=live)
    row["alias"] = seat.alias
    dead = dead_reason(run_dir, doc, seat)
    row.update({"dead": dead is not None, "deadReason": dead})
    judged = any(leg.stage == "stage2" and leg.role == "judge" for leg in legs)
    row["judgeDropped"] = bool(voters is not None and judged and seat.id not in voters and seat.alias not in voters)
    return row


def _row(*, key: str, name: str, role: str, label: str, legs: Sequence[LegEntry], now: datetime,
         stall_after_s: float, live: bool) -> SeatRow:
    running = [leg for leg in legs if leg.status == "running"]
    queued = [leg for leg in legs if leg.status == "queued"]  # waiting for its agent CLI's slot
    last = legs[-1] if legs else None
    activity = latest([t for leg in legs for t in (leg.started_at, leg.completed_at)])
    oldest_running = latest([leg.started_at for leg in running[:1]])
    stalled = live and oldest_running is not None and (now - oldest_running).total_seconds() >= stall_after_s
    return {
        "key": key, "name": name, "role": role, "label": label,
        "status": "running" if running else "queued" if queued else (last.status if last else "waiting"),
        "stage": last.stage if last else None,
        "calls": len(legs),
        "tokens": tokens_of(legs),
        "cost": cost_figure(legs),
        "lastActivity": activity.isoformat(timespec="milliseconds").replace("+00:00", "Z") if activity else None,
        "retries": sum(1 for leg in legs if leg.role == "repair"),
        "stalled": stalled,
        "resolvedModels": sorted({leg.resolved_model for leg in legs if leg.resolved_model}),
        "error": _last_error(legs),
    }


def _last_error(legs: Sequence[LegEntry]) -> LegErrorRow | None:
    for leg in reversed(legs):
        if leg.error is not None:
            return {"code": leg.error.code or "ERROR", "message": leg.error.message or ""}
    return None


def dead_reason(run_dir: Path, doc: RunManifest, seat: SeatRecord) -> str | None:
    """Why the seat is out of the council (no usable review), or None while it is not."""
    primary = primary_leg(doc, seat.id)
    stage1 = stage_status(doc, "stage1")
    if primary is None:
        refused = any(r.stage == "stage1" and seat.alias in r.models for r in doc.budget_refusals)
        return "its review was refused by the --max-cost ceiling" if refused else None
    if primary.status in DEAD_STATUSES:
        if primary.error is None:
            return f"{primary.status}: the review leg failed"
        return f"{primary.error.code}: {primary.error.message}"
    if primary.status == "complete" and stage1 not in (None, "running") and not reviewed(run_dir, doc, seat):
        return "it produced no usable review"
    return None


# --------------------------------------------------------------------------- cost panel


def cost_panel(doc: RunManifest, rows: Sequence[SeatRow]) -> CostPanel:
    ceiling = amount_of(doc.options.max_cost) if doc.options is not None else None
    total = run_total(doc)
    fraction = None
    if ceiling and total["amount"] is not None:
        fraction = min(total["amount"] / float(ceiling), 1.0)
    return {
        "rows": [{"key": r["key"], "name": r["name"], "label": r["label"], "role": r["role"], "calls": r["calls"],
                  "cost": r["cost"], "dead": r.get("dead", False)} for r in rows],
        "total": total,
        "maxCost": float(ceiling) if ceiling else None,
        "maxCostText": format_money(ceiling) if ceiling else None,
        "fraction": fraction,
        "refusals": len(doc.budget_refusals),
    }


def run_total(doc: RunManifest) -> RunTotal:
    """The engine's own total once written; while live, the sum of the finished legs."""
    if doc.usage is not None:
        cost, unknown = doc.usage.cost, doc.usage.unknown_legs
        known = amount_of(cost.amount)
        estimated = cost.source in ESTIMATED_COST_SOURCES
        return {"amount": float(known) if known is not None else None, "unknownLegs": unknown, "final": True,
                "text": money_text(known, estimated=estimated, floor=unknown > 0)}
    return {**cost_figure(doc.legs), "final": False}


# --------------------------------------------------------------------------- chair


def chair_panel(doc: RunManifest, *, live: bool, output: Prose | None) -> ChairPanel:
    verdict = doc.overall_verdict
    panel: ChairPanel = {
        "verdict": verdict,
        "line": "ANSWER", "answer": doc.answer,  # a question council's: the chair's ANSWER line
        "model": doc.chair,
        "conformance": doc.chair_conformance,
        "attempts": [{"model": a.model, "outcome": a.outcome, "reason": a.reason} for a in doc.chair_attempts],
        "output": output,
        "reason": None if verdict is not None else no_verdict_reason(doc, live=live),
    }
    if doc.intent != QUESTION:  # a review's chair gives no ANSWER line (deleting keeps the other keys' order)
        del panel["line"], panel["answer"]
    return panel


def no_verdict_reason(doc: RunManifest, *, live: bool) -> str:
    """The engine's own account of a missing chair verdict — never a blank."""
    whys = [f"{d.what}: {d.why}" for d in doc.degrades if d.channel == "chair"]
    if whys:
        return "; ".join(whys)
    chair = stage_status(doc, "chair")
    if live:
        return "the chair is deliberating" if chair == "running" else "the chair has not run yet"
    gave = "an answer" if doc.intent == QUESTION else "a verdict"
    ended = f"the run ended ({doc.status}) before the chair gave {gave}"
    return f"{ended}: {doc.error.code}: {doc.error.message}" if doc.error is not None else ended
