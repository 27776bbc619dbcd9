"""SIGINT / SIGTERM end long work cleanly: the work is cancelled, writes its aborted state,
and the process exits 130 (SIGINT) or 143 (SIGTERM)."""

from __future__ import annotations

import signal
from collections.abc import Awaitable, Callable
from typing import TypeVar

import anyio
import anyio.abc

T = TypeVar("T")

SIGNAL_EXIT = {signal.SIGINT: 130, signal.SIGTERM: 143}


async def run_until_signal(work: Callable[[], Awaitable[T]]) -> tuple[T | None, int | None]:
    """Run `work`; a SIGINT/SIGTERM cancels it. Returns (result, the signal's exit code or None)."""
    received: list[int] = []
    result: list[T] = []
    async with anyio.create_task_group() as group:

        async def watch(*, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
            with anyio.open_signal_receiver(*SIGNAL_EXIT) as signals:
                task_status.started()
                async for signum in signals:
                    received.append(SIGNAL_EXIT[signal.Signals(signum)])
                    group.cancel_scope.cancel()
                    return

        # The handlers are installed before `work` starts: a signal that arrives once the
        # work has written anything is always recorded, never the default kill.
        await group.start(watch)
        result.append(await work())
        group.cancel_scope.cancel()
    return (result[0] if result else None), (received[0] if received else None)
