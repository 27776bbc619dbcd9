"""SIGINT / SIGTERM end long work cleanly: the work is cancelled, writes its aborted state,
and the process exits 130 (SIGINT) or 143 (SIGTERM).

A process has one handler per signal, so a call nested inside another — the councils an eval
runs side by side in one process — does not install its own: it follows the outermost call,
which owns the handlers and tells every follower when a signal came. Each follower cancels its
own work and returns the signal's code, so every run records itself aborted. An outer call
that is `graceful` only passes the news on: its work is expected to notice (`signal_received`),
let its followers wind down and return.
"""

from __future__ import annotations

import signal
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TypeVar

import anyio
import anyio.abc

T = TypeVar("T")

SIGNAL_EXIT = {signal.SIGINT: 130, signal.SIGTERM: 143}


@dataclass
class _Watch:
    """The outermost call's news: which signal came (None until one does)."""

    code: int | None = None
    event: anyio.Event = field(default_factory=anyio.Event)


_WATCH: ContextVar[_Watch | None] = ContextVar("amicus_signal_watch", default=None)


def signal_received() -> int | None:
    """The exit code of the signal the enclosing `run_until_signal` received, if one came."""
    watch = _WATCH.get()
    return watch.code if watch is not None else None


async def run_until_signal(work: Callable[[], Awaitable[T]], *, graceful: bool = False) -> tuple[T | None, int | None]:
    """Run `work`; a SIGINT/SIGTERM cancels it. Returns (result, the signal's exit code or None)."""
    outer = _WATCH.get()
    watch = outer or _Watch()
    result: list[T] = []
    stopped: list[int] = []
    token = None if outer is not None else _WATCH.set(watch)
    try:
        async with anyio.create_task_group() as group:

            async def listen(*, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
                with anyio.open_signal_receiver(*SIGNAL_EXIT) as signals:
                    task_status.started()
                    async for signum in signals:
                        watch.code = SIGNAL_EXIT[signal.Signals(signum)]
                        watch.event.set()
                        if not graceful:
                            stopped.append(watch.code)
                            group.cancel_scope.cancel()
                        return

            async def follow() -> None:
                await watch.event.wait()
                stopped.append(watch.code or 143)
                group.cancel_scope.cancel()

            if outer is None:
                # The handlers are installed before `work` starts: a signal that arrives once
                # the work has written anything is always recorded, never the default kill.
                await group.start(listen)
            else:
                group.start_soon(follow)
            result.append(await work())
            group.cancel_scope.cancel()
    finally:
        if token is not None:
            _WATCH.reset(token)
    code = stopped[0] if stopped else (watch.code if graceful and outer is None else None)
    return (result[0] if result else None), code
