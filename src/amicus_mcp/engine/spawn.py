"""Starting long work in a detached child process that outlives whoever started it.

A council run or a fanout wave can take many minutes; the MCP server (or any other front)
must answer at once, and the work must survive that front exiting or restarting. So the
front does every pre-flight check itself, then starts the ordinary CLI command for the work
in its own session (`start_new_session`, so a signal to the front's process group never
reaches it), with stdin closed and stdout/stderr going to a log file in the run or wave
directory. All state the front needs afterwards is on disk:

    council run   <runDir>/briefing.md   the briefing the child briefs off (a copy)
                  <runDir>/run.json      seeded `running` so status works before the child
                                         writes its first checkpoint
                  <runDir>/spawn.pid     the child's pid: crash detection before run.json
                                         carries the engine's own pid
                  <runDir>/engine.log    the child's stdout and stderr
                  pointer file           <project>/.claude/amicus_sessions/council-<id>.json
    wave          <waveDir>/briefing.md, wave.json and each leg's run.json seeded
                  `running` (with the child's pid), <waveDir>/engine.log

A parent that stays alive would keep a finished child as a zombie, which still answers
`kill(pid, 0)` and would hide a crash from the readers: a daemon thread reaps each child.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import BadArgs, InternalError, MissingPrompt
from ..fsio import atomic_write_json, atomic_write_text
from .run_state import write_pointer
from .store import SessionStore, new_task_id, now_iso

if TYPE_CHECKING:  # the engine proper is imported by whoever prepared the run
    from .council_run import Prepared, RunOptions

ENGINE_LOG = "engine.log"
SPAWN_PID = "spawn.pid"


def cli_argv(*args: str) -> list[str]:
    """The argv that runs `amicus ARGS…` with this interpreter (no console script needed)."""
    return [sys.executable, "-m", "amicus_mcp.cli", *args]


def spawn_detached(argv: Sequence[str], *, cwd: Path, log_path: Path) -> int:
    """Start `argv` detached from this process; its output goes to `log_path`. Returns the pid.

    Raises OSError when the process cannot be started (the caller decides what that means).
    """
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "ab") as log:
        proc = subprocess.Popen(  # noqa: S603 - argv is built by us, never by a shell
            list(argv),
            cwd=str(cwd),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            close_fds=True,
            **_detach_kwargs(),
        )
    threading.Thread(target=proc.wait, name=f"reap-{proc.pid}", daemon=True).start()
    return proc.pid


def _detach_kwargs() -> dict[str, Any]:
    if os.name == "nt":
        flags = getattr(subprocess, "DETACHED_PROCESS", 0) | getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)
        return {"creationflags": flags}
    return {"start_new_session": True}


# --------------------------------------------------------------------------- council runs


@dataclass(frozen=True)
class StartedRun:
    run_id: str
    run_dir: Path
    pid: int
    dropped: list[dict[str, str]] = field(default_factory=list)


def start_council_run(prep: Prepared) -> StartedRun:
    """Start a prepared council run (`council_run.prepare`'s result) as a detached child."""
    run_dir: Path = prep.run_dir
    run_dir.mkdir(parents=True, exist_ok=True)
    briefing = atomic_write_text(run_dir / "briefing.md", prep.briefing)
    atomic_write_json(run_dir / "run.json", seed_manifest(prep))
    # A template run's child composes the same briefing from the same template and artifact,
    # so its run.json records them; any other run's child briefs off the copy.
    source = [] if prep.options.template else ["--prompt-file", str(briefing)]
    argv = cli_argv("council", "run", *council_flags(prep.options), *source,
                    "--out-dir", str(run_dir), "--project", str(prep.store.project),
                    "--run-id", prep.run_id, "--json")
    try:
        pid = spawn_detached(argv, cwd=prep.store.project, log_path=run_dir / ENGINE_LOG)
    except OSError as exc:
        _record_spawn_failure(prep, exc)
        raise InternalError(f"could not start the council engine: {exc.strerror or exc}",
                            hint=f"the run directory {run_dir} records the failure; check the Python environment") from None
    atomic_write_text(run_dir / SPAWN_PID, f"{pid}\n")
    write_pointer(prep.store, prep.run_id, run_dir)
    return StartedRun(prep.run_id, run_dir, pid, list(prep.dropped))


def _record_spawn_failure(prep: Prepared, exc: OSError) -> None:
    doc = seed_manifest(prep)
    doc.update(status="error", exitCode=1, completedAt=now_iso(),
               error={"code": "INTERNAL", "message": f"could not start the council engine: {exc.strerror or exc}"})
    atomic_write_json(prep.run_dir / "run.json", doc)


def council_flags(options: RunOptions) -> list[str]:
    """The `amicus council run` flags that carry the caller's choices to the child."""
    from .council_run import DEFAULT_TIMEOUT_MIN

    flags = ["--models", ",".join(options.models)] if options.models else ["--council", str(options.council)]
    if options.chair:
        flags += ["--chair", options.chair]
    if options.max_cost is not None:
        flags += ["--max-cost", repr(float(options.max_cost))]
    flags += ["--timeout", repr(float(options.timeout_min if options.timeout_min is not None else DEFAULT_TIMEOUT_MIN))]
    if options.gateway:
        flags += ["--gateway", options.gateway]
    if not options.cost_gate:
        flags.append("--no-cost-gate")
    if not options.validate:
        flags.append("--no-validate-model")
    if options.critic:
        flags += ["--critic", options.critic]
    if options.lenses:
        flags += ["--lenses", ",".join(options.lenses)]
    if options.debate:
        flags.append("--debate")
    elif options.pack:
        flags.append("--no-debate")  # explicit, so the child's pack cannot turn it back on
    if options.template:
        flags += ["--template", options.template, "--artifact", str(Path(str(options.artifact)).resolve())]
        for name, value in (options.vars or {}).items():
            flags += ["--var", f"{name}={value}"]
    if options.pack:
        flags += ["--pack", options.pack if options.pack_record is None or options.pack_record["source"] == "saved"
                  else options.pack_record["path"]]
    if options.claude_review:
        flags += ["--claude-review", str(Path(options.claude_review).resolve())]
    if options.allow_secrets:
        flags.append("--allow-secrets")
    return flags


def seed_manifest(prep: Prepared) -> dict[str, Any]:
    """The `running` run.json the child takes over (same runId, so its pre-flight accepts it)."""
    from .council_run import initial_manifest

    return initial_manifest(prep)


# --------------------------------------------------------------------------- waves


@dataclass(frozen=True)
class StartedWave:
    wave_id: str
    task_ids: list[str]
    pid: int
    notices: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class WaveRequest:
    """A fanout wave to start: exactly one of `prompt` (text) and `prompt_file`."""

    project: Path
    models: Sequence[str] | None = None
    council: str | None = None
    prompt: str | None = None
    prompt_file: str | None = None
    timeout_min: float = 15.0
    gateway: str | None = None
    cost_gate: bool = True
    validate: bool = True
    allow_secrets: bool = False


async def start_wave(request: WaveRequest) -> StartedWave:
    """Pre-flight a wave exactly as `amicus fanout` does, then start it as a detached child."""
    from .preflight import (check_gateway, check_material, check_timeout_minutes, dropped_notice, prepare_bench,
                            read_prompt_file)

    prompt = _wave_prompt(request.prompt, request.prompt_file,
                          lambda path: read_prompt_file(path, allow_secrets=request.allow_secrets))
    if request.prompt is not None:
        prompt = check_material(prompt, what="the prompt", allow_secrets=request.allow_secrets)
    mode = check_gateway(request.gateway)
    check_timeout_minutes(request.timeout_min)
    bench = await prepare_bench(request.models, request.council, gateway=mode,
                                cost_gate=request.cost_gate, validate=request.validate)
    store = SessionStore(request.project)
    wave_id = new_task_id()
    briefing = store.write_briefing(wave_id, prompt)
    argv = cli_argv("fanout", *wave_flags(request), "--prompt-file", str(briefing),
                    "--project", str(request.project), "--wave-id", wave_id, "--json")
    try:
        pid = spawn_detached(argv, cwd=request.project, log_path=store.task_dir(wave_id) / ENGINE_LOG)
    except OSError as exc:
        raise InternalError(f"could not start the fanout wave: {exc.strerror or exc}",
                            hint="check the Python environment amicus runs in") from None
    task_ids = seed_wave(store, wave_id, bench.models, pid=pid, briefing=briefing, chars=len(prompt))
    notices = [dropped_notice(bench.dropped)] if bench.dropped else []
    return StartedWave(wave_id, task_ids, pid, notices)


def _wave_prompt(prompt: str | None, prompt_file: str | None, read_file: Callable[[str], str]) -> str:
    if prompt is not None and prompt_file is not None:
        raise BadArgs("pass exactly one of a prompt text and a prompt file, not both",
                            hint="inline text for short prompts, a file for long ones")
    if prompt_file is not None:
        return read_file(prompt_file)
    if prompt is None or not prompt.strip():
        raise MissingPrompt("a prompt is required and must not be empty", hint="pass the prompt text or a prompt file")
    return prompt


def wave_flags(request: WaveRequest) -> list[str]:
    models = request.models
    flags = ["--models", ",".join(models)] if models else ["--council", str(request.council)]
    flags += ["--timeout", repr(float(request.timeout_min))]
    if request.gateway:
        flags += ["--gateway", request.gateway]
    if not request.cost_gate:
        flags.append("--no-cost-gate")
    if not request.validate:
        flags.append("--no-validate-model")
    if request.allow_secrets:
        flags.append("--allow-secrets")
    return flags


def seed_wave(store: SessionStore, wave_id: str, models: Sequence[str], *, pid: int, briefing: Path,
              chars: int) -> list[str]:
    """Write `running` wave and leg documents unless the child already wrote its own.

    They say what the child's own first write will say (the child reads the same briefing
    file), so a reader never sees the wave change shape when the child takes over.
    """
    from .waves import WavePlan, build_wave_doc, new_leg

    meta = {"source": "file", "file": str(briefing.resolve()), "chars": chars}
    plan = WavePlan(wave_id=wave_id, models=list(models), messages=(), timeout_s=1.0, prompt_meta=meta, pid=pid)
    legs = [new_leg(plan, index) for index in range(len(plan.models))]
    for leg in legs:
        if not (store.task_dir(leg["taskId"]) / "run.json").exists():
            store.write_leg(leg)
    if not store.wave_path(wave_id).exists():
        store.write_wave(build_wave_doc(plan, legs, created_at=now_iso()))
    return [leg["taskId"] for leg in legs]
