"""`amicus fanout` — one prompt to N models at once."""

from __future__ import annotations

import argparse
import sys
from typing import Any

import anyio

from ..fsio import dumps_json
from .option_flags import WAVE
from .output import say


def register(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser("fanout", help="send one prompt to several models at once (a wave)")
    WAVE.add_to(p)  # every wave option (engine/options.py)
    p.add_argument("--estimate", action="store_true", help="print what the wave would cost and exit without spending")
    p.add_argument("--json", action="store_true", help="print the wave document")
    p.add_argument("--quiet", action="store_true", help="no live progress line on stderr (it is shown only at a terminal)")
    p.set_defaults(handler=cmd_fanout)


def cmd_fanout(args: argparse.Namespace) -> int:
    from ..engine.fanout import estimate, fanout

    options = WAVE.options(args)
    if args.estimate:
        doc = anyio.run(estimate, options)
        say(dumps_json(doc) if args.json else f"Estimate for {doc['legs']} leg(s): {doc['summary']}")
        return 0

    from ..engine.store import new_task_id
    from .progress import ProgressLine, wanted, wave_line, with_progress

    # The id is fixed here so the progress line can find the wave.
    options.wave_id = args.wave_id or new_task_id()
    line = ProgressLine(wave_line(args.project, options.wave_id), sys.stderr) if wanted(args) else None
    wave, code = anyio.run(lambda: with_progress(lambda: fanout(options), line))
    if not args.json:
        for notice in wave.get("notices", []):
            if notice.startswith("dropped unavailable council member"):
                say(f"Notice: {notice}", err=True)
    say(dumps_json(wave) if args.json else render_wave(wave))
    return code


_MARK = {"complete": "✓", "error": "✗", "timeout": "⏱", "aborted": "■", "crashed": "✗", "running": "…"}


def render_leg(leg: dict[str, Any]) -> str:
    from ..providers.cost import format_cost

    cost = leg.get("usage", {}) or {}
    amount = (cost.get("cost") or {}).get("amount")
    source = (cost.get("cost") or {}).get("source", "unknown")
    seconds = f"{leg['durationMs'] / 1000:.1f}s" if isinstance(leg.get("durationMs"), int) else "—"
    served = f" ({leg['model']})" if leg.get("model") and leg["model"] != leg["modelInput"] else ""
    cut = " (truncated: cut at a length limit)" if leg.get("truncated") else ""
    line = f"  {_MARK.get(leg['status'], '?')} {leg['taskId']}  {leg['modelInput']}{served}  {leg['status']}{cut}  {seconds}  {format_cost(amount, source)}"
    if leg.get("error"):
        line += f"\n      {leg['error']['code']}: {leg['error']['message']}"
    return line


def render_wave(wave: dict[str, Any]) -> str:
    from ..providers.cost import format_cost

    counts = wave["counts"]
    cost = (wave.get("usage") or {}).get("cost") or {}
    unpriced = cost.get("unpricedLegs") or 0
    lines = [f"Wave {wave['waveId']}: {wave['status']} ({counts['complete']}/{counts['total']} complete)"]
    lines += [render_leg(leg) for leg in wave["legs"]]
    total = format_cost(cost.get("amount"), cost.get("source", "unknown"))
    lines.append(f"  cost: {total}" + (f" (+{unpriced} unpriced)" if unpriced and cost.get("amount") is not None else ""))
    lines += [f"  notice: {n}" for n in wave.get("notices", [])]
    return "\n".join(lines)
