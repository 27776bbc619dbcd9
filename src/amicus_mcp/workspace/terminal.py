"""`amicus watch RUN_ID` in a terminal: the workspace snapshot as a live stage/seat view.

The same data layer as the page (`snapshot.run_snapshot`, without the prose). On a
terminal the frame is redrawn in place; into a pipe or file a new frame is printed only
when it changed. Every model-derived string passes through `terminal_safe`, so no text in
a run can move the cursor or recolour the screen.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from typing import TYPE_CHECKING, TextIO

from ..vocabulary import IN_FLIGHT_LEG_STATUSES, TIER_DISPLAY_ORDER
from .fold import one_line

if TYPE_CHECKING:
    from ..documents.wave import Wave
    from .views import ReadableSnapshot, RunHeader, RunSnapshot, SeatRow, StageEntry

# The snapshot is read with .get where a key may be missing: a frame is drawn from whatever
# part of the snapshot is there (the tests draw partial ones).

CLEAR = "\x1b[H\x1b[2J"
STAGE_MARK = {"complete": "✓", "running": "●", "error": "✗", "aborted": "✗", "skipped": "→", "pending": "·"}
SEAT_COLUMNS = (("SEAT", 24), ("ROLE", 8), ("STATUS", 9), ("STAGE", 7), ("CALLS", 5), ("TOKENS", 20), ("COST", 12),
                ("LAST", 9), ("FLAG", 0))


def render_frame(snap: RunSnapshot) -> str:
    """One screenful for a run snapshot (any state)."""
    if snap["state"] == "unreadable":
        return one_line(f"Council run {snap['runId']}: cannot be read — {snap.get('error')} "
                        f"(run directory {snap['runDir']})")
    if snap["state"] == "schema-mismatch":
        return one_line(f"Council run {snap['runId']}: written by schema version {snap.get('schemaVersion')}, "
                        f"this amicus reads {snap.get('expectedSchemaVersion')}; not rendered ({snap['runDir']})")
    lines = [_headline(snap), _rail(snap.get("stages") or []), "", _seat_header()]
    lines += [_seat_line(row) for row in snap.get("seats") or []]
    lines += _footer(snap)
    return "\n".join(lines)


def _headline(snap: ReadableSnapshot) -> str:
    h = snap["header"]
    parts = [f"Council run {snap['runId']}: {h.get('status')}", *_stage_and_legs(h)]
    stall = snap.get("stall")
    if stall and stall.get("stalled"):
        parts.append(f"STALLED: no leg activity for {stall.get('threshold'):g}s or more")
    return one_line(" · ".join(parts))


def _stage_and_legs(header: RunHeader) -> list[str]:
    """The running stage and legs done of the planned total (max(legsPlanned, legs)); an ended
    run that did not do them all says how many it left undone."""
    parts = [f"stage {header['currentStage']}"] if header.get("currentStage") else []
    done, total = header.get("legsDone"), header.get("legsTotal")
    undone = total - done if isinstance(done, int) and isinstance(total, int) else 0
    left = f" ({undone} left undone)" if header.get("status") not in (None, "running") and undone > 0 else ""
    return [*parts, f"{done}/{total} legs done{left}"]


def _rail(stages: Sequence[StageEntry]) -> str:
    return "  " + " → ".join(f"{STAGE_MARK.get(str(s.get('status')), '?')} {s.get('name')}" for s in stages)


def _seat_header() -> str:
    return "  " + " ".join(name.ljust(width) if width else name for name, width in SEAT_COLUMNS)


def _seat_line(row: SeatRow) -> str:
    flags = []
    if row.get("stalled"):
        flags.append("stalled")
    if row.get("retries"):
        flags.append(f"retried x{row['retries']}")
    if row.get("dead"):
        flags.append(f"out: {row.get('deadReason')}")
    if row.get("judgeDropped"):
        flags.append("judge dropped")
    last = str(row.get("lastActivity") or "—")[11:19] or "—"
    values = (row.get("name"), row.get("role"), row.get("status"), row.get("stage") or "—", row.get("calls"),
              row["tokens"]["text"], row["cost"]["text"], last, "; ".join(flags))
    cells = [_fit(one_line(v), width) for v, (_, width) in zip(values, SEAT_COLUMNS, strict=True)]
    return "  " + " ".join(cells)


def _fit(text: str, width: int) -> str:
    if not width:
        return text
    return (text[: width - 1] + "…") if len(text) > width else text.ljust(width)


def _footer(snap: ReadableSnapshot) -> list[str]:
    lines = [""]
    h = snap["header"]
    error = h.get("error")
    if error:
        lines.append("  " + one_line(f"error: {error.get('code')}: {error.get('message')}"))
    banners = snap.get("banners")
    for d in banners.get("degrades", []) if banners else []:
        lines.append("  " + one_line(f"degraded ({d['channel']}): {d['what']} — {d['why']}"))
    chair = snap.get("chair")
    answer = bool(chair) and chair.get("line") == "ANSWER"  # a question council's chair
    if chair and chair.get("verdict"):
        said = f" — {chair['answer']}" if answer and chair.get("answer") else ""
        lines.append("  " + one_line(f"{'ANSWER' if answer else 'VERDICT'}: {chair['verdict']}{said} (chair {chair.get('model')})"))
    elif not snap.get("live"):
        lines.append("  " + one_line(f"no chair {'answer' if answer else 'verdict'}: {chair.get('reason') if chair else None}"))
    for row in snap.get("ranking") or []:
        lines.append("  " + one_line(f"#{row['rank']} {row.get('label') or row['name']} ({row['name']}): "
                                     f"peers-only {row['peersOnly']}"))
    counts = h.get("tierCounts")
    if isinstance(counts, dict):
        lines.append("  tiers: " + " · ".join(f"{t} {counts.get(t, 0)}" for t in TIER_DISPLAY_ORDER))
    lines.append("  " + one_line(f"cost: {_cost_text(snap)}"))
    return lines


def _cost_text(snap: ReadableSnapshot) -> str:
    cost = snap.get("cost")
    total = cost.get("total") if cost else None
    return total.get("text", "?") if total else "?"


def follow(read: Callable[[], RunSnapshot], out: TextIO, *, interval_s: float, tty: bool,
           sleep: Callable[[float], None] = time.sleep) -> RunSnapshot:
    """Redraw until the run is no longer live; returns the last snapshot."""
    previous = None
    while True:
        snap = read()
        frame = render_frame(snap)
        if frame != previous:
            out.write((CLEAR if tty else "") + frame + "\n" + ("" if tty else "\n"))
            out.flush()
            previous = frame
        if not snap.get("live"):
            return snap
        sleep(interval_s)


# --------------------------------------------------------------------------- live progress line
#
# `council run` and `fanout` at a terminal: one status line on stderr, redrawn in place.
# The council line is built from the same snapshot `amicus watch` renders (stage, legs done of
# the planned total, cost so far, a stalled seat), plus the time since the run started.

def progress_line(snap: RunSnapshot, *, now: datetime) -> str | None:
    """The one-line progress of a council run snapshot; None when there is nothing to say yet."""
    if snap["state"] != "ok":
        return None
    h = snap["header"]
    # A resumed run counts this attempt's time: the first attempt's clock would read as hung.
    since = (f"{elapsed_text(h['resumedAt'], now)} since resume" if h.get("resumedAt")
             else elapsed_text(h.get("createdAt"), now))
    parts = [f"council {snap['runId']}", *_stage_and_legs(h), since]
    parts.append(f"cost {_cost_text(snap)}")
    stalled = [str(row.get("name")) for row in snap.get("seats") or [] if row.get("stalled")]
    if stalled:
        parts.append("stalled: " + ", ".join(stalled))
    return one_line(" · ".join(parts))


def wave_progress_line(wave: Wave, *, now: datetime, stall_after_s: float) -> str | None:
    """The one-line progress of a fan-out wave document: legs done, elapsed, cost, a stalled leg."""
    from ..providers.cost import format_cost, rollup

    if not wave.legs:
        return None
    finished = [leg for leg in wave.legs if leg.status not in IN_FLIGHT_LEG_STATUSES]
    cost = rollup(leg.usage.to_doc() if leg.usage is not None else None for leg in finished)["cost"]
    parts = [f"wave {wave.wave_id}", f"{len(finished)}/{len(wave.legs)} legs done", elapsed_text(wave.created_at, now),
             f"cost {format_cost(cost['amount'], cost['source'])}"]
    stalled = [leg.model_input for leg in wave.legs
               if leg.status == "running" and _seconds_since(leg.created_at, now) >= stall_after_s]
    if stalled:
        parts.append("stalled: " + ", ".join(stalled))
    return one_line(" · ".join(parts))


def elapsed_text(started_iso: object, now: datetime) -> str:
    seconds = _seconds_since(started_iso, now)
    if seconds < 0:
        return "elapsed ?"
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"


def _seconds_since(iso: object, now: datetime) -> float:
    try:
        started = datetime.fromisoformat(str(iso).replace("Z", "+00:00"))
    except ValueError:
        return -1.0
    if started.tzinfo is None:
        started = started.replace(tzinfo=timezone.utc)
    return (now - started).total_seconds()
