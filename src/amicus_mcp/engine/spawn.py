"""Starting long work in a detached child process that outlives whoever started it.

A council run or a fanout wave can take many minutes; the MCP server (or any other front)
must answer at once, and the work must survive that front exiting or restarting. So the
front does every pre-flight check itself, writes the run's inputs to its directory, then
starts the engine worker on that directory (`python -m amicus_mcp.engine.worker DIR`) in its
own session (`start_new_session`, so a signal to the front's process group never reaches
it), with stdin closed and stdout/stderr going to a log file there. No options travel as
argv: the worker reads them back from `options.json`. All state is on disk:

    council run   <runDir>/options.json  the run's options (engine/options.py)
                  <runDir>/briefing.md   the briefing the worker briefs off (a copy)
                  <runDir>/run.json      seeded `running` so status works before the worker
                                         writes its first checkpoint
                  <runDir>/spawn.pid     the worker's pid: crash detection before run.json
                                         carries the engine's own pid
                  <runDir>/engine.log    the worker's stdout and stderr
                  pointer file           <project>/.claude/amicus_sessions/council-<id>.json
    wave          <waveDir>/options.json, briefing.md, wave.json and each leg's run.json
                  seeded `running` (with the worker's pid), <waveDir>/engine.log

A parent that stays alive would keep a finished child as a zombie, which still answers
`kill(pid, 0)` and would hide a crash from the readers: a daemon thread reaps each child.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, TypedDict

from ..errors import BadArgs, InternalError, MissingPrompt
from ..front import worker_env
from .options import WaveOptions, write_options
from .run_dir import ENGINE_LOG, RunDir, write_pointer
from .store import SessionStore, new_id, now_iso

if TYPE_CHECKING:  # the engine proper is imported by whoever prepared the run
    from ..documents.commands import DroppedMemberDoc
    from ..documents.run import RunManifest
    from .preflight import Prepared
    from .resume import Resumable


def cli_argv(*args: str) -> list[str]:
    """The argv that runs `amicus ARGS…` with this interpreter (no console script needed)."""
    return [sys.executable, "-m", "amicus_mcp.cli", *args]


def worker_argv(directory: Path) -> list[str]:
    """The argv of the engine worker for a run or wave directory (its options.json says which)."""
    return [sys.executable, "-m", "amicus_mcp.engine.worker", str(directory)]


def spawn_detached(argv: Sequence[str], *, cwd: Path, log_path: Path) -> int:
    """Start `argv` detached from this process; its output goes to `log_path`. Returns the pid.

    Raises OSError when the process cannot be started (the caller decides what that means).
    """
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "ab") as log:
        proc = subprocess.Popen(  # noqa: S603 - argv is built by us, never by a shell
            list(argv),
            cwd=str(cwd),
            env=worker_env(),  # a tool call's worker writes its hints for the MCP client
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            close_fds=True,
            **_detach_kwargs(),
        )
    threading.Thread(target=proc.wait, name=f"reap-{proc.pid}", daemon=True).start()
    return proc.pid


class _Detached(TypedDict, total=False):
    """Popen's keywords that detach a worker from its parent (the platform's own)."""

    creationflags: int
    start_new_session: bool


def _detach_kwargs() -> _Detached:
    if os.name == "nt":
        flags = getattr(subprocess, "DETACHED_PROCESS", 0) | getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)
        return {"creationflags": flags}
    return {"start_new_session": True}


# --------------------------------------------------------------------------- council runs


class StartedRun(NamedTuple):
    run_id: str
    run_dir: Path
    pid: int
    dropped: tuple[DroppedMemberDoc, ...] = ()


def start_council_run(prep: Prepared) -> StartedRun:
    """Start a prepared council run (`preflight.prepare`'s result) as a detached worker."""
    from .manifest import write_inputs

    run_dir = prep.dir
    write_inputs(prep)
    run_dir.write(seed_manifest(prep), compact=False)
    try:
        pid = spawn_detached(worker_argv(run_dir.path), cwd=prep.store.project, log_path=run_dir / ENGINE_LOG)
    except OSError as exc:
        _record_spawn_failure(prep, exc)
        raise InternalError(f"could not start the council engine: {exc.strerror or exc}",
                            hint=f"the run directory {run_dir.path} records the failure; check the Python environment") from None
    run_dir.write_spawn_pid(pid)
    write_pointer(prep.store, prep.run_id, run_dir)
    return StartedRun(prep.run_id, run_dir.path, pid, tuple(prep.dropped))


async def start_resumed_run(run_dir: RunDir, *, max_cost: float | None = None) -> StartedRun:
    """Check and pre-flight a resumable run (engine/resume.py; its ceiling raised to `max_cost`,
    when given), then continue it in a detached worker (`amicus_council_resume`; resume_council
    is the foreground's)."""
    import anyio

    from .resume import check_resumable, prepare_resume

    target = check_resumable(run_dir, max_cost=max_cost)
    prep = await prepare_resume(target)
    return await anyio.to_thread.run_sync(_spawn_resumed, target, prep)  # it spawns: off the event loop


def _spawn_resumed(target: Resumable, prep: Prepared) -> StartedRun:
    """Reopen a checked, pre-flighted resumable run and continue it in a detached worker
    (`… worker RUN_DIR --resume`)."""
    from .resume import reopen

    run_dir = target.run_dir
    run_dir.clear_spawn_pid()  # the dead attempt's pid must not stand for the new one
    reopen(target, pid=None)
    try:
        pid = spawn_detached([*worker_argv(run_dir.path), "--resume"], cwd=prep.store.project,
                             log_path=run_dir / ENGINE_LOG)
    except OSError as exc:
        message = f"could not start the council engine: {exc.strerror or exc}"
        record_failure(run_dir.read(), run_dir, code="INTERNAL", message=message, exit_code=1)
        raise InternalError(message, hint=f"the run directory {run_dir.path} records the failure") from None
    run_dir.write_spawn_pid(pid)
    return StartedRun(target.manifest.run_id, run_dir.path, pid)


def _record_spawn_failure(prep: Prepared, exc: OSError) -> None:
    record_failure(seed_manifest(prep), prep.dir, code="INTERNAL", exit_code=1,
                   message=f"could not start the council engine: {exc.strerror or exc}")


def record_failure(manifest: RunManifest, run_dir: RunDir, *, code: str, message: str, exit_code: int) -> None:
    """A run that failed before its engine could record anything ends `error`, saying why."""
    from .run_state import RunState

    RunState(run_dir, manifest).fail_to_start(code=code, message=message, exit_code=exit_code)


def seed_manifest(prep: Prepared) -> RunManifest:
    """The `running` run.json the child takes over (same runId, so its pre-flight accepts it)."""
    from .manifest import initial_manifest

    return initial_manifest(prep)


# --------------------------------------------------------------------------- waves


class StartedWave(NamedTuple):
    wave_id: str
    leg_ids: list[str]
    pid: int
    notices: tuple[str, ...] = ()


async def start_wave(options: WaveOptions, *, prompt: str | None = None) -> StartedWave:
    """Pre-flight a wave exactly as `amicus fanout` does, then start it as a detached worker.
    The prompt is `options.prompt_file`, or `prompt` (inline text, from the MCP tool)."""
    from .preflight import (check_gateway, check_material, check_timeout_minutes, dropped_notice, prepare_bench,
                            read_prompt_file)
    from .store import resolve_project

    text = _wave_prompt(prompt, options.prompt_file,
                        lambda path: read_prompt_file(path, allow_secrets=options.allow_secrets))
    if prompt is not None:
        text = check_material(text, what="the prompt", allow_secrets=options.allow_secrets)
    mode = check_gateway(options.gateway)
    check_timeout_minutes(options.timeout_min)
    bench = await prepare_bench(options.models, options.council, gateway=mode,
                                cost_gate=options.cost_gate, validate=options.validate_models)
    store = SessionStore(resolve_project(options.project))
    wave_id = new_id()
    briefing = store.write_briefing(wave_id, text)
    write_options(store.session_dir(wave_id), options)
    try:
        pid = spawn_detached(worker_argv(store.session_dir(wave_id)), cwd=store.project,
                             log_path=store.session_dir(wave_id) / ENGINE_LOG)
    except OSError as exc:
        raise InternalError(f"could not start the fanout wave: {exc.strerror or exc}",
                            hint="check the Python environment amicus runs in") from None
    leg_ids = seed_wave(store, wave_id, bench.models, pid=pid, briefing=briefing, chars=len(text))
    notices = (dropped_notice(bench.dropped),) if bench.dropped else ()
    return StartedWave(wave_id, leg_ids, pid, notices)


def _wave_prompt(prompt: str | None, prompt_file: str | None, read_file: Callable[[str], str]) -> str:
    if prompt is not None and prompt_file is not None:
        raise BadArgs("pass exactly one of a prompt text and a prompt file, not both",
                            hint="inline text for short prompts, a file for long ones")
    if prompt_file is not None:
        return read_file(prompt_file)
    if prompt is None or not prompt.strip():
        raise MissingPrompt("a prompt is required and must not be empty", hint="pass the prompt text or a prompt file")
    return prompt


def seed_wave(store: SessionStore, wave_id: str, models: Sequence[str], *, pid: int, briefing: Path,
              chars: int) -> list[str]:
    """Write `running` wave and leg documents unless the child already wrote its own.

    They say what the child's own first write will say (the child reads the same briefing
    file), so a reader never sees the wave change shape when the child takes over.
    """
    from .waves import PromptMeta, WavePlan, build_wave_doc, new_leg

    meta: PromptMeta = {"source": "file", "file": str(briefing.resolve()), "chars": chars}
    plan = WavePlan(wave_id=wave_id, models=list(models), messages=(), timeout_s=1.0, prompt_meta=meta, pid=pid)
    legs = [new_leg(plan, index) for index in range(len(plan.models))]
    for leg in legs:
        if not store.leg_path(leg.leg_id).exists():
            store.write_leg(leg)
    if not store.wave_path(wave_id).exists():
        store.write_wave(build_wave_doc(plan, legs, created_at=now_iso()))
    return [leg.leg_id for leg in legs]
