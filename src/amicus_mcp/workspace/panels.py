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
from typing import Any

from ..council.report import format_money
from ..engine.run_state import STAGE_ORDER
from ..vocabulary import QUESTION
from .identities import CHAIR_LABEL, display_label, primary_leg, reviewed

DEAD_STATUSES = ("error", "timeout", "crashed")  # crashed: in flight when the engine died


# --------------------------------------------------------------------------- time


def parse_time(value: Any) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)


def latest(values: Sequence[Any]) -> datetime | None:
    times = [t for t in (parse_time(v) for v in values) if t is not None]
    return max(times) if times else None


def last_activity(doc: Mapping[str, Any]) -> datetime | None:
    """The most recent thing the run recorded: a leg or stage starting or finishing."""
    stamps: list[Any] = [doc.get("createdAt")]
    for item in [*legs_of(doc), *(s for s in doc.get("stages") or [] if isinstance(s, dict))]:
        stamps += [item.get("startedAt"), item.get("completedAt")]
    return latest(stamps)


def legs_of(doc: Mapping[str, Any]) -> list[dict[str, Any]]:
    legs = doc.get("legs")
    return [leg for leg in legs if isinstance(leg, dict)] if isinstance(legs, list) else []


# --------------------------------------------------------------------------- stage rail


def stage_rail(doc: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every engine stage in order (`pending` until it starts), then any other recorded stage."""
    recorded = {s["name"]: s for s in doc.get("stages") or [] if isinstance(s, dict) and isinstance(s.get("name"), str)}
    names = [*STAGE_ORDER, *(n for n in recorded if n not in STAGE_ORDER)]
    rail = []
    for name in names:
        entry = recorded.get(name, {})
        rail.append({"name": name, "status": entry.get("status", "pending"),
                     "startedAt": entry.get("startedAt"), "completedAt": entry.get("completedAt")})
    return rail


def stage_status(doc: Mapping[str, Any], name: str) -> str | None:
    return next((s.get("status") for s in doc.get("stages") or [] if isinstance(s, dict) and s.get("name") == name), None)


# --------------------------------------------------------------------------- money and tokens


def obj(value: Any) -> dict[str, Any]:
    """A JSON object, or {} for anything else (documents are read defensively)."""
    return value if isinstance(value, dict) else {}


def amount_of(value: Any) -> Decimal | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return Decimal(str(value))


def leg_cost(leg: Mapping[str, Any]) -> tuple[Decimal | None, bool]:
    """(known amount or None, estimated) for one finished leg."""
    cost = obj(obj(leg.get("usage")).get("cost"))
    amount = amount_of(cost.get("amount"))
    return amount, amount is not None and cost.get("source") in ("estimated", "mixed")


def cost_figure(legs: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The summed cost of finished legs: amount (known part), unknown count, display text."""
    finished = [leg for leg in legs if leg.get("status") != "running"]
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


def tokens_of(legs: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    counts: dict[str, int | None] = {"input": None, "output": None}
    for leg in legs:
        usage = leg.get("usage")
        tokens = usage.get("tokens") if isinstance(usage, dict) else None
        for key in counts:
            value = tokens.get(key) if isinstance(tokens, dict) else None
            if isinstance(value, int) and not isinstance(value, bool):
                counts[key] = (counts[key] or 0) + value
    if counts["input"] is None and counts["output"] is None:
        return {**counts, "text": "—"}
    text = f"{_count(counts['input'])} in / {_count(counts['output'])} out"
    return {**counts, "text": text}


def _count(value: int | None) -> str:
    return "?" if value is None else f"{value:,}"


# --------------------------------------------------------------------------- seats


def seat_rows(run_dir: Path, doc: Mapping[str, Any], seats: Sequence[Mapping[str, Any]], labels: Mapping[str, str],
              *, now: datetime, stall_after_s: float, live: bool, voters: set[str] | None) -> list[dict[str, Any]]:
    """One row per bench seat (dead seats flagged), then the chair's row once it has legs."""
    rows = [_seat_row(run_dir, doc, seat, labels, now=now, stall_after_s=stall_after_s, live=live, voters=voters)
            for seat in seats]
    chair_legs = [leg for leg in legs_of(doc) if leg.get("stage") == "chair"]
    if chair_legs:
        rows.append(_row(key="chair", name=str(doc.get("chair") or chair_legs[-1].get("model")), role="chair",
                         label=CHAIR_LABEL, legs=chair_legs, now=now, stall_after_s=stall_after_s, live=live))
    return rows


def _seat_row(run_dir: Path, doc: Mapping[str, Any], seat: Mapping[str, Any], labels: Mapping[str, str], *,
              now: datetime, stall_after_s: float, live: bool, voters: set[str] | None) -> dict[str, Any]:
    seat_id = str(seat["id"])
    legs = [leg for leg in legs_of(doc) if leg.get("seat") == seat_id]
    row = _row(key=seat_id, name=seat_id, role=str(seat.get("role") or "seat"), label=display_label(seat, labels),
               legs=legs, now=now, stall_after_s=stall_after_s, live=live)
    row["alias"] = seat["alias"]
    dead = dead_reason(run_dir, doc, seat)
    row.update(dead=dead is not None, deadReason=dead)
    judged = any(leg.get("stage") == "stage2" and leg.get("role") == "judge" for leg in legs)
    row["judgeDropped"] = bool(voters is not None and judged and seat_id not in voters and seat["alias"] not in voters)
    return row


def _row(*, key: str, name: str, role: str, label: str, legs: Sequence[Mapping[str, Any]], now: datetime,
         stall_after_s: float, live: bool) -> dict[str, Any]:
    running = [leg for leg in legs if leg.get("status") == "running"]
    last = legs[-1] if legs else None
    activity = latest([t for leg in legs for t in (leg.get("startedAt"), leg.get("completedAt"))])
    oldest_running = latest([leg.get("startedAt") for leg in running[:1]])
    stalled = live and oldest_running is not None and (now - oldest_running).total_seconds() >= stall_after_s
    return {
        "key": key, "name": name, "role": role, "label": label,
        "status": "running" if running else (str(last.get("status")) if last else "waiting"),
        "stage": str(last.get("stage")) if last else None,
        "calls": len(legs),
        "tokens": tokens_of(legs),
        "cost": cost_figure(legs),
        "lastActivity": activity.isoformat(timespec="milliseconds").replace("+00:00", "Z") if activity else None,
        "retries": sum(1 for leg in legs if leg.get("role") == "repair"),
        "stalled": stalled,
        "resolvedModels": sorted({str(leg["resolvedModel"]) for leg in legs if isinstance(leg.get("resolvedModel"), str)}),
        "error": _last_error(legs),
    }


def _last_error(legs: Sequence[Mapping[str, Any]]) -> dict[str, str] | None:
    for leg in reversed(legs):
        err = leg.get("error")
        if isinstance(err, dict):
            return {"code": str(err.get("code") or "ERROR"), "message": str(err.get("message") or "")}
    return None


def dead_reason(run_dir: Path, doc: Mapping[str, Any], seat: Mapping[str, Any]) -> str | None:
    """Why the seat is out of the council (no usable review), or None while it is not."""
    primary = primary_leg(doc, str(seat["id"]))
    stage1 = stage_status(doc, "stage1")
    if primary is None:
        refused = any(isinstance(r, dict) and r.get("stage") == "stage1" and seat["alias"] in (r.get("models") or [])
                      for r in doc.get("budgetRefusals") or [])
        return "its review was refused by the --max-cost ceiling" if refused else None
    if primary.get("status") in DEAD_STATUSES:
        raw = primary.get("error")
        err: dict[str, Any] = raw if isinstance(raw, dict) else {}
        return f"{err.get('code', primary['status'])}: {err.get('message', 'the review leg failed')}"
    if primary.get("status") == "complete" and stage1 not in (None, "running") and not reviewed(run_dir, doc, seat):
        return "it produced no usable review"
    return None


# --------------------------------------------------------------------------- cost panel


def cost_panel(doc: Mapping[str, Any], rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    ceiling = amount_of(obj(doc.get("options")).get("maxCost"))
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
        "refusals": len(doc.get("budgetRefusals") or []),
    }


def run_total(doc: Mapping[str, Any]) -> dict[str, Any]:
    """The engine's own total once written; while live, the sum of the finished legs."""
    usage = obj(doc.get("usage"))
    cost = usage.get("cost")
    if isinstance(cost, dict):
        unknown = usage["unknownLegs"] if isinstance(usage.get("unknownLegs"), int) else 0
        known = amount_of(cost.get("amount"))
        estimated = cost.get("source") in ("estimated", "mixed")
        return {"amount": float(known) if known is not None else None, "unknownLegs": unknown, "final": True,
                "text": money_text(known, estimated=estimated, floor=unknown > 0)}
    return {**cost_figure(legs_of(doc)), "final": False}


# --------------------------------------------------------------------------- chair


def chair_panel(doc: Mapping[str, Any], *, live: bool, output: dict[str, Any] | None) -> dict[str, Any]:
    verdict = doc.get("overallVerdict")
    attempts = [a for a in doc.get("chairAttempts") or [] if isinstance(a, dict)]
    question = doc.get("intent") == QUESTION
    extra = {"line": "ANSWER", "answer": doc.get("answer") if isinstance(doc.get("answer"), str) else None} \
        if question else {}  # a question council's chair gives an ANSWER line
    return {
        "verdict": verdict if isinstance(verdict, str) else None,
        **extra,
        "model": doc.get("chair"),
        "conformance": doc.get("chairConformance"),
        "attempts": [{"model": a.get("model"), "outcome": a.get("outcome"), "reason": a.get("reason")} for a in attempts],
        "output": output,
        "reason": None if isinstance(verdict, str) else no_verdict_reason(doc, live=live),
    }


def no_verdict_reason(doc: Mapping[str, Any], *, live: bool) -> str:
    """The engine's own account of a missing chair verdict — never a blank."""
    whys = [f"{d.get('what')}: {d.get('why')}" for d in doc.get("degrades") or []
            if isinstance(d, dict) and d.get("channel") == "chair"]
    if whys:
        return "; ".join(whys)
    chair = stage_status(doc, "chair")
    if live:
        return "the chair is deliberating" if chair == "running" else "the chair has not run yet"
    error = doc.get("error")
    gave = "an answer" if doc.get("intent") == QUESTION else "a verdict"
    ended = f"the run ended ({doc.get('status')}) before the chair gave {gave}"
    return f"{ended}: {error.get('code')}: {error.get('message')}" if isinstance(error, dict) else ended
