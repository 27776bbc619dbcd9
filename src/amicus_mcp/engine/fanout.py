"""`amicus fanout`: pre-flight, then one wave, with signals and exit codes handled.

The same function serves the CLI and (through the engine worker) the MCP server, so both
fronts get the same checks, the same on-disk state and the same exit codes: 0 complete,
2 partial, 1 failed, 130/143 aborted by SIGINT/SIGTERM.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ..documents.wave import Wave
from ..providers.base import Message
from ..providers.cost import plan_legs, preflight_estimate
from ..providers.routing import ProviderRegistry
from .options import WaveOptions, write_options
from .preflight import check_gateway, check_material, check_timeout_minutes, dropped_notice, prepare_bench, read_prompt_file
from .signals import run_until_signal
from .store import SessionStore, new_id, resolve_project
from .waves import WavePlan, run_wave, wave_exit_code

if TYPE_CHECKING:
    from ..documents.commands import CostEstimateDocument


async def estimate(options: WaveOptions) -> CostEstimateDocument:
    """What a wave would cost, before spending anything (unpriced legs are listed, never $0)."""
    prompt = read_prompt_file(options.prompt_file, allow_secrets=options.allow_secrets)
    bench = await prepare_bench(options.models, options.council, gateway=check_gateway(options.gateway),
                                cost_gate=options.cost_gate, validate=options.validate_models, ready=False)
    planned = preflight_estimate(plan_legs(bench.routes, len(prompt), bench.catalog))
    return {"schemaVersion": 2, "type": "cost-estimate", "legs": len(bench.routes), "estimate": planned.to_doc(),
            "summary": planned.describe()}


async def fanout(options: WaveOptions, *, briefing: str | None = None,
                 registry: ProviderRegistry | None = None) -> tuple[Wave, int]:
    """Run a wave; return (the final wave document, the process exit code). `briefing` is
    the wave directory's own copy when a worker runs a wave another front prepared."""
    if briefing is None:
        prompt = read_prompt_file(options.prompt_file, allow_secrets=options.allow_secrets)
    else:
        prompt = check_material(briefing, what="the wave's prompt", allow_secrets=options.allow_secrets)
    mode = check_gateway(options.gateway)
    timeout_s = check_timeout_minutes(options.timeout_min)
    store = SessionStore(resolve_project(options.project))
    bench = await prepare_bench(options.models, options.council, gateway=mode, cost_gate=options.cost_gate,
                                validate=options.validate_models)
    wave_id = options.wave_id or new_id()
    store.session_dir(wave_id)  # validates a caller-supplied id before anything is written
    copy = store.write_briefing(wave_id, prompt)  # the prompt every leg received
    write_options(store.session_dir(wave_id), options)
    plan = WavePlan(
        wave_id=wave_id,
        models=bench.models,
        messages=(Message("user", prompt),),
        timeout_s=timeout_s,
        gateway=mode,
        prompt_meta={"source": "file", "file": str(copy.resolve()), "chars": len(prompt)},
        notices=[dropped_notice(bench.dropped)] if bench.dropped else [],
        pid=os.getpid(),
    )
    own_registry = registry is None
    active = registry or ProviderRegistry(project=store.project)
    try:
        wave, signal_exit = await run_until_signal(lambda: run_wave(plan, store, active))
    finally:
        if own_registry:
            await active.aclose()
        for session_id in (plan.wave_id, *(plan.leg_id(i) for i in range(len(plan.models)))):
            store.sweep(session_id)  # the wave is final: what an interrupted write left goes
    if signal_exit is not None or wave is None:
        return store.read_wave(plan.wave_id), signal_exit or 1
    return wave, wave_exit_code(wave.status)
