"""`amicus fanout` — one prompt to N models at once."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

import anyio

from ..fsio import dumps_json
from .option_flags import WAVE
from .output import say

if TYPE_CHECKING:
    from ..documents.legs import LegRun
    from ..documents.wave import Wave


def register(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser("fanout", help="send one prompt to several models at once (a wave)")
    WAVE.add_to(p)  # every wave option (engine/options.py)
    p.add_argument("--estimate", action="store_true", help="print what the wave would cost and exit without spending")
    p.add_argument("--json", action="store_true", help="print the wave document")
    p.add_argument("--quiet", action="store_true", help="no live progress line on stderr (it is shown only at a terminal)")
    p.set_defaults(handler=cmd_fanout)


def cmd_fanout(args: argparse.Namespace) -> int:
    from ..engine import estimate_wave as estimate
    from ..engine import run_wave as fanout

    options = WAVE.options(args)
    if args.estimate:
        doc = anyio.run(estimate, options)
        say(dumps_json(doc) if args.json else f"Estimate for {doc['legs']} leg(s): {doc['summary']}")
        return 0

    from ..engine import new_id
    from .progress import ProgressLine, wanted, wave_line, with_progress

    # The id is fixed here so the progress line can find the wave.
    options.wave_id = args.wave_id or new_id()
    line = ProgressLine(wave_line(args.project, options.wave_id), sys.stderr) if wanted(args) else None
    wave, code = anyio.run(lambda: with_progress(lambda: fanout(options), line))
    if not args.json:
        for notice in wave.notices:
            if notice.startswith("dropped unavailable council member"):
                say(f"Notice: {notice}", err=True)
    say(dumps_json(wave.to_doc()) if args.json else render_wave(wave))
    return code


_MARK = {"complete": "✓", "error": "✗", "timeout": "⏱", "aborted": "■", "crashed": "✗", "running": "…", "queued": "⋯"}


def render_leg(leg: LegRun) -> str:
    from ..providers.cost import format_cost

    cost = leg.usage.cost if leg.usage is not None else None
    amount, source = (cost.amount, cost.source) if cost is not None else (None, "unknown")
    seconds = f"{leg.duration_ms / 1000:.1f}s" if leg.duration_ms is not None else "—"
    served = f" ({leg.model})" if leg.model and leg.model != leg.model_input else ""
    cut = " (truncated: cut at a length limit)" if leg.truncated else ""
    line = f"  {_MARK.get(leg.status, '?')} {leg.leg_id}  {leg.model_input}{served}  {leg.status}{cut}  {seconds}  {format_cost(amount, source)}"
    if leg.error is not None:
        line += f"\n      {leg.error.code}: {leg.error.message}"
    return line


def render_wave(wave: Wave) -> str:
    from ..providers.cost import format_cost

    counts = wave.counts
    cost = wave.usage.cost if wave.usage is not None else None
    unpriced = cost.unpriced_legs if cost is not None else 0
    amount, source = (cost.amount, cost.source) if cost is not None else (None, "unknown")
    lines = [f"Wave {wave.wave_id}: {wave.status} ({counts.complete}/{counts.total} complete)"]
    lines += [render_leg(leg) for leg in wave.legs]
    total = format_cost(amount, source)
    lines.append(f"  cost: {total}" + (f" (+{unpriced} unpriced)" if unpriced and amount is not None else ""))
    lines += [f"  notice: {n}" for n in wave.notices]
    return "\n".join(lines)
