"""The flags of a council run, and the `RunOptions` they type: `council run`, `council pack save`
and `eval run` share them (one module, so each of those commands imports it, not another)."""

from __future__ import annotations

import argparse
from typing import Any


def add_run_settings(p: argparse.ArgumentParser) -> None:
    """The flags a policy pack can hold: `council run` and `council pack save` share them.
    Every default is None, so a typed value is told apart from an untyped one."""
    bench = p.add_mutually_exclusive_group()
    bench.add_argument("--models", help="comma-separated bench (at least 2 seats; repeats make twin seats)")
    bench.add_argument("--council", help="a saved council or a built-in bench")
    p.add_argument("--chair", help="the chair model; must not be a bench seat (default deepseek; the embedded model for the local bench)")
    p.add_argument("--critic", help="a bench member that gets the adversarial four-pass brief")
    p.add_argument("--lenses", help="comma-separated expert lenses, one per seat (assigned at random; not ledger-recorded)")
    p.add_argument("--debate", action=argparse.BooleanOptionalAction, default=None,
                   help="add one rebuttal round for Contested/Disputed findings (--no-debate overrides a pack)")
    p.add_argument("--template", help="a briefing template (built-in or user name, or a file); needs --artifact on a run")
    p.add_argument("--var", action="append", metavar="NAME=VALUE", help="a template variable (repeatable)")
    p.add_argument("--max-cost", type=float, help="whole-run ceiling on known spend, USD")
    p.add_argument("--timeout", type=float, help="per-leg timeout in minutes (default 15)")
    p.add_argument("--gateway", help="auto (default) | direct | openrouter")


def add_run_context(p: argparse.ArgumentParser) -> None:
    """The flags a run takes beside its settings (`council run` and `eval run` share them)."""
    p.add_argument("--pack", help="a saved policy pack or a pack file: its settings are this run's defaults")
    p.add_argument("--no-cost-gate", action="store_true", help="allow models priced above the per-Mtok threshold")
    p.add_argument("--no-validate-model", action="store_true", help="skip the catalog check of model ids")
    p.add_argument("--project", help="the project whose sessions dir indexes the run (default: cwd)")
    p.add_argument("--allow-secrets", action="store_true",
                   help="send material that looks like it holds a secret (refused by default: SECRET_IN_MATERIAL)")


def run_options(args: argparse.Namespace) -> Any:
    """The RunOptions a `council run` (or `pack save`) command line typed; None where untyped."""
    from ..council.templates import parse_var_args
    from ..engine.options import RunOptions
    from ..presets import parse_models_arg

    return RunOptions(
        prompt_file=getattr(args, "prompt_file", None), models=parse_models_arg(args.models) if args.models else None,
        council=args.council, chair=args.chair, out_dir=getattr(args, "out_dir", None), max_cost=args.max_cost,
        timeout_min=args.timeout, gateway=args.gateway, cost_gate=not getattr(args, "no_cost_gate", False),
        validate_models=not getattr(args, "no_validate_model", False), project=getattr(args, "project", None),
        run_id=getattr(args, "run_id", None), critic=args.critic,
        lenses=args.lenses.split(",") if args.lenses else None, debate=args.debate,
        claude_review=getattr(args, "claude_review", None), template=args.template,
        artifact=getattr(args, "artifact", None), vars=parse_var_args(args.var) or None,
        pack=getattr(args, "pack", None), allow_secrets=getattr(args, "allow_secrets", False),
    )
