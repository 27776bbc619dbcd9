"""Live progress for `council run` and `fanout`: one line on stderr, redrawn in place.

Shown only at a terminal, never under `--json` or `--quiet`, and never into a pipe or a
file: the result on stdout stays exactly what it was. The line itself is rendered by
`workspace/terminal.py` from the same on-disk state `amicus watch` reads.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Awaitable, Callable
from datetime import datetime, timezone
from typing import Any, TextIO, TypeVar

import anyio

from ..errors import AmicusError

T = TypeVar("T")
REDRAW = "\r\x1b[K"  # back to column 0, clear to the end of the line
INTERVAL_S = 0.5


def wanted(args: Any, stream: TextIO | None = None) -> bool:
    out = stream or sys.stderr
    return not getattr(args, "json", False) and not getattr(args, "quiet", False) and out.isatty()


class ProgressLine:
    """Redraws `render()` on `stream` until stopped; clears its line when done."""

    def __init__(self, render: Callable[[datetime], str | None], stream: TextIO) -> None:
        self.render = render
        self.stream = stream
        self.drawn = False

    def draw(self) -> None:
        try:
            line = self.render(datetime.now(timezone.utc))
        except (AmicusError, OSError, ValueError):
            return  # the run's files are not there yet (or mid-replace): keep the last line
        if not line:
            return
        self.stream.write(REDRAW + line[: self.width() - 1])
        self.stream.flush()
        self.drawn = True

    def width(self) -> int:
        try:
            columns = os.get_terminal_size(self.stream.fileno()).columns
        except (OSError, ValueError):
            columns = 0
        return max(20, columns) if columns else 80  # a terminal that reports no size gets 80

    def clear(self) -> None:
        if self.drawn:
            self.stream.write(REDRAW)
            self.stream.flush()
            self.drawn = False

    async def run(self) -> None:
        while True:
            self.draw()
            await anyio.sleep(INTERVAL_S)


async def with_progress(work: Callable[[], Awaitable[T]], line: ProgressLine | None) -> T:
    """Run `work` with the progress line beside it (none when `line` is None)."""
    if line is None:
        return await work()
    outcome: list[T] = []
    failure: list[BaseException] = []
    async with anyio.create_task_group() as group:
        group.start_soon(line.run)
        try:
            outcome.append(await work())
        except Exception as exc:  # re-raised as itself below, not wrapped in a task-group error
            failure.append(exc)
        finally:
            group.cancel_scope.cancel()
            line.clear()
    if failure:
        raise failure[0]
    return outcome[0]


def council_line(project: str | None, run_id: str) -> Callable[[datetime], str | None]:
    from ..engine import SessionStore, resolve_project
    from ..workspace import DEFAULT_STALL_S
    from ..workspace.snapshot import run_snapshot
    from ..workspace.terminal import progress_line

    store = SessionStore(resolve_project(project))

    def render(now: datetime) -> str | None:
        return progress_line(run_snapshot(store, run_id, stall_after_s=DEFAULT_STALL_S, now=now, texts=False), now=now)

    return render


def wave_line(project: str | None, wave_id: str) -> Callable[[datetime], str | None]:
    from ..engine import SessionStore, resolve_project
    from ..workspace import DEFAULT_STALL_S
    from ..workspace.terminal import wave_progress_line

    store = SessionStore(resolve_project(project))

    def render(now: datetime) -> str | None:
        return wave_progress_line(store.read_wave(wave_id), now=now, stall_after_s=DEFAULT_STALL_S)

    return render
