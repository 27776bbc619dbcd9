"""`amicus fanout`: pre-flight, then one wave, with signals and exit codes handled.

The same function serves the CLI and (detached) the MCP server, so both fronts get the same
checks, the same on-disk state and the same exit codes: 0 complete, 2 partial, 1 failed,
130/143 aborted by SIGINT/SIGTERM.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..providers.base import Message
from ..providers.cost import plan_legs, preflight_estimate
from ..providers.routing import ProviderRegistry
from .preflight import check_gateway, check_timeout_minutes, dropped_notice, prepare_bench, read_prompt_file
from .signals import run_until_signal
from .store import SessionStore, new_task_id, resolve_project
from .waves import WavePlan, run_wave, wave_exit_code

DEFAULT_TIMEOUT_MIN = 15.0


async def estimate(
    *,
    prompt_file: str | None,
    models: Sequence[str] | None = None,
    council: str | None = None,
    gateway: str | None = None,
    cost_gate: bool = True,
    validate: bool = True,
    allow_secrets: bool = False,
) -> dict[str, Any]:
    """What a wave would cost, before spending anything (unpriced legs are listed, never $0)."""
    prompt = read_prompt_file(prompt_file, allow_secrets=allow_secrets)
    bench = await prepare_bench(models, council, gateway=check_gateway(gateway), cost_gate=cost_gate, validate=validate,
                                ready=False)
    planned = preflight_estimate(plan_legs(bench.routes, len(prompt), bench.catalog))
    return {"schemaVersion": 2, "type": "cost-estimate", "legs": len(bench.routes), "estimate": planned.to_doc(),
            "summary": planned.describe()}


async def fanout(
    *,
    prompt_file: str | None,
    models: Sequence[str] | None = None,
    council: str | None = None,
    timeout_min: float = DEFAULT_TIMEOUT_MIN,
    gateway: str | None = None,
    cost_gate: bool = True,
    validate: bool = True,
    project: str | None = None,
    wave_id: str | None = None,
    registry: ProviderRegistry | None = None,
    allow_secrets: bool = False,
) -> tuple[dict[str, Any], int]:
    """Run a wave; return (the final wave document, the process exit code)."""
    prompt = read_prompt_file(prompt_file, allow_secrets=allow_secrets)
    mode = check_gateway(gateway)
    timeout_s = check_timeout_minutes(timeout_min)
    store = SessionStore(resolve_project(project))
    bench = await prepare_bench(models, council, gateway=mode, cost_gate=cost_gate, validate=validate)
    plan = WavePlan(
        wave_id=wave_id or new_task_id(),
        models=bench.models,
        messages=(Message("user", prompt),),
        timeout_s=timeout_s,
        gateway=mode,
        prompt_meta={"source": "file", "file": str(Path(prompt_file).resolve()) if prompt_file else None, "chars": len(prompt)},
        notices=[dropped_notice(bench.dropped)] if bench.dropped else [],
        pid=os.getpid(),
    )
    store.task_dir(plan.wave_id)  # validates a caller-supplied id before anything is written
    store.write_briefing(plan.wave_id, prompt)
    own_registry = registry is None
    active = registry or ProviderRegistry()
    try:
        wave, signal_exit = await run_until_signal(lambda: run_wave(plan, store, active))
    finally:
        if own_registry:
            await active.aclose()
        for task_id in (plan.wave_id, *(plan.leg_id(i) for i in range(len(plan.models)))):
            store.sweep(task_id)  # the wave is final: what an interrupted write left goes
    if signal_exit is not None or wave is None:
        return store.read_wave(plan.wave_id), signal_exit or 1
    return wave, wave_exit_code(wave["status"])
