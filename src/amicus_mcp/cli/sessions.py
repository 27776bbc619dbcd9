"""`amicus status | list | abort | wait` — council runs, waves and legs, from their on-disk state."""

from __future__ import annotations

import argparse
import shlex
from typing import TYPE_CHECKING

import anyio

from ..engine import SessionStore, resolve_project
from ..errors import EXIT_OK, BadArgs
from ..fsio import dumps_json
from ..places import PROJECT_DEFAULT
from ..vocabulary import QUESTION
from .fanout import render_leg, render_wave
from .output import say

if TYPE_CHECKING:
    from ..documents.run import RunStatusView
    from ..engine import Observation


TARGET_HELP = "a council run id or run directory, a wave id or a leg id"


def register(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser("status", help="where a council run, wave or leg is")
    p.add_argument("id", metavar="ID_OR_RUN_DIR", help=TARGET_HELP)
    _common(p)
    p.set_defaults(handler=cmd_status)

    p = commands.add_parser("list", help="council runs and waves in this project, newest first")
    p.add_argument("--tag", help="only the council runs started with this --tag")
    _common(p)
    p.set_defaults(handler=cmd_list)

    p = commands.add_parser("abort", help="stop a running council run or wave (it records `aborted`)")
    p.add_argument("id", metavar="ID_OR_RUN_DIR", help=TARGET_HELP)
    _common(p)
    p.set_defaults(handler=cmd_abort)

    p = commands.add_parser("wait", help="block until a run, wave or leg finishes, or the timeout passes "
                                         "(exit 0 complete, 2 partial, 1 failed, 3 still running at the timeout)")
    p.add_argument("id", metavar="ID_OR_RUN_DIR", help=TARGET_HELP)
    p.add_argument("--timeout", type=float, default=50.0, help="seconds to wait at most (default 50)")
    _common(p)
    p.set_defaults(handler=cmd_wait)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--project", help="the project the work ran in (" + PROJECT_DEFAULT + ")")
    p.add_argument("--json", action="store_true")


def _store(args: argparse.Namespace) -> SessionStore:

    return SessionStore(resolve_project(args.project))


def cmd_status(args: argparse.Namespace) -> int:
    from ..engine import read_status as status

    say(render(status(_store(args), args.id), as_json=args.json))
    return EXIT_OK


def cmd_list(args: argparse.Namespace) -> int:
    from ..engine import list_all
    from ..engine import check_tag
    from ..providers.cost import format_cost

    rows = list_all(_store(args), tag=None if args.tag is None else check_tag(args.tag))
    if args.json:
        say(dumps_json({"schemaVersion": 2, "type": "session-list", "items": rows}))
    elif not rows:
        say(f"No council runs tagged '{args.tag}' in this project." if args.tag else
            "No council runs or waves in this project yet.")
    else:
        for row in rows:
            line = "ANSWER" if row.get("intent") == QUESTION else "VERDICT"  # a question's chair answers
            verdict = f"  {line}: {row['overallVerdict']}" if row.get("overallVerdict") else ""
            cost = format_cost(row.get("cost"), "reported" if row.get("cost") is not None else "unknown")
            tag = f"  [{row['tag']}]" if row.get("tag") else ""
            cases = row.get("cases")  # an eval: its cases' councils are one `amicus status` away
            held = f"  {cases} case{'' if cases == 1 else 's'} (amicus status {row['id']})" if cases is not None else ""
            say(f"{row['id']}  {row['type']:<11}  {row['status']:<8}  {row['createdAt'] or '—'}  {cost}  "
                  f"{', '.join(m for m in row['models'] if m)}{tag}{held}{verdict}")
    return EXIT_OK


def cmd_abort(args: argparse.Namespace) -> int:
    from ..engine import abort

    result = abort(_store(args), args.id)
    if args.json:
        say(dumps_json(result))
    elif result.get("alreadyTerminal"):
        say(f"{args.id} is not running (status: {result['status']}).")
    else:
        say(f"{args.id}: abort requested" + ("" if result["signalled"] else " (its process was already gone)"))
    return EXIT_OK


def cmd_wait(args: argparse.Namespace) -> int:
    from ..engine import wait

    if not args.timeout > 0:
        raise BadArgs(f"--timeout must be a positive number of seconds, got {args.timeout}", hint="e.g. --timeout 50")
    waited = anyio.run(lambda: wait(_store(args), args.id, timeout_s=args.timeout))
    say(dumps_json(waited.to_doc()) if args.json else render(waited.observation, as_json=False))
    if waited.timed_out and not args.json:
        say(f"  still running after {waited.waited_ms / 1000:.0f}s — run 'amicus wait {shlex.quote(args.id)}' again")
    return waited.exit_code


def render(observation: Observation, *, as_json: bool) -> str:
    from ..documents.legs import LegRun
    from ..documents.run import RunStatusView
    from ..documents.wave import Wave
    from ..engine import document

    if as_json:
        return dumps_json(document(observation))
    if isinstance(observation, RunStatusView):
        return render_run_status(observation)
    if isinstance(observation, Wave):
        return render_wave(observation)
    if isinstance(observation, LegRun):
        return render_leg(observation)
    from .eval import render_eval_status  # a job of a layer above: an eval

    return render_eval_status(observation)


def render_run_status(run: RunStatusView) -> str:
    undone = run.legs_total - run.legs_complete
    left = f"; {undone} left undone" if run.status != "running" and undone > 0 else ""  # what an abort or failure cut
    lines = [f"Council run {run.run_id}: {run.status}"
             + (f" — stage {run.current_stage}" if run.current_stage else "")
             + f" ({run.legs_complete}/{run.legs_total} legs done{left})"]
    for leg in run.legs:
        who = leg.seat or leg.model
        lines.append(f"  {leg.stage:<7} {leg.role:<13} {who:<24} {leg.status}")
    if run.error is not None:
        lines.append(f"  error: {run.error.code}: {run.error.message}")
    if run.overall_verdict:
        line = "ANSWER" if run.intent == QUESTION else "VERDICT"
        said = f" — {run.answer}" if run.intent == QUESTION and run.answer else ""
        lines.append(f"  {line}: {run.overall_verdict}{said}")
    if run.resumable:
        lines.append(f"  resumable (nothing it finished is sent again): {run.resume_command}")
    from .council import cost_text

    lines.append(f"  cost: {cost_text(run)}")
    return "\n".join(lines)
