"""`amicus_wait`: block for one bounded slice, with progress notifications along the way.

The slice is waited in steps of at most `PROGRESS_EVERY_S` through `engine.control.wait`;
after each step a progress notification says where the work is (stage, legs done, cost so
far), which also keeps Claude Code's idle timer alive. Cancelling the call ends only this
loop: the work runs in its own process and never notices.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from .models import WaitResult
from .progress import progress, progress_message

if TYPE_CHECKING:
    from ..engine import Observation
    from ..engine import SessionStore


PROGRESS_EVERY_S = 5.0

Report = Callable[[float, float | None, str | None], Awaitable[None]]


async def wait_with_progress(store: SessionStore, target: str, *, budget_s: float, report: Report,
                             every_s: float | None = None) -> WaitResult:
    """Wait until the id is terminal or `budget_s` passes; the last progress plus timing."""
    from ..engine import is_terminal, wait
    from ..engine import read_status as status

    step = every_s or PROGRESS_EVERY_S
    started = time.monotonic()
    doc = status(store, target)  # an unknown id fails here, before any waiting
    sent = 0.0
    while not is_terminal(doc):
        left = budget_s - (time.monotonic() - started)
        if left <= 0:
            break
        sent = await _progress(report, target, doc, started, sent, budget_s)
        doc = (await wait(store, target, timeout_s=min(step, left))).observation
    terminal = is_terminal(doc)
    snap = progress(target, doc, terminal=terminal)
    waited = int((time.monotonic() - started) * 1000)
    return WaitResult(**snap.model_dump(), timed_out=not terminal, waited_ms=waited, slice_seconds=budget_s)


async def _progress(report: Report, target: str, doc: Observation, started: float, last: float,
                    budget_s: float) -> float:
    """Send one notification; progress values must strictly increase, so they are elapsed seconds."""
    value = max(round(time.monotonic() - started, 3), last + 0.001)
    await report(value, budget_s, progress_message(progress(target, doc, terminal=False)))
    return value
