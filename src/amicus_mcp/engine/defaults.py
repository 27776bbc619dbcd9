"""Defaults an installation sets for the council runs it starts, from the environment.

    AMICUS_DEFAULT_BENCH     a saved council or built-in bench (`budget`), or models separated
                             by commas (`gemini,gpt,deepseek`): the bench when none is given
    AMICUS_DEFAULT_CHAIR     the chair when none is given (pre-flight takes the next independent
                             one, with a notice, when it sits on the bench: `preflight.pick_chair`)
    AMICUS_DEFAULT_MAX_COST  the whole-run ceiling in USD when none is given (0: no ceiling)

Claude Desktop's bundle sets them from its settings form; a shell can too. They fill only
what a run left unset after its pack, so a typed value beats the pack, the pack beats these,
and these beat the built-in defaults. Unset, empty and unfilled placeholders all mean "not
set" (`envvars.setting`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypedDict

from ..envvars import setting
from ..errors import BadArgs
from ..front import setting as setting_name
from .options import RunOptions, parse_dollars

BENCH_ENV = "AMICUS_DEFAULT_BENCH"
CHAIR_ENV = "AMICUS_DEFAULT_CHAIR"
MAX_COST_ENV = "AMICUS_DEFAULT_MAX_COST"


class _Filled(TypedDict, total=False):
    """The RunOptions fields these defaults may fill."""

    models: list[str]
    council: str
    max_cost: float | None  # 0 is "no ceiling": None


def apply_env_defaults(options: RunOptions, env: Mapping[str, str] | None = None) -> RunOptions:
    changes: _Filled = {}
    bench = setting(BENCH_ENV, env)
    if bench and not options.models and not options.council:
        members = [m.strip() for m in bench.split(",") if m.strip()]
        if "," in bench:
            changes["models"] = members
        else:
            changes["council"] = bench
    ceiling = setting(MAX_COST_ENV, env)
    if ceiling and options.max_cost is None:
        changes["max_cost"] = _dollars(ceiling)
    return options.model_copy(update=changes) if changes else options


def default_chair(env: Mapping[str, str] | None = None) -> str | None:
    """The installation's chair for a run that names none (pre-flight decides whether it can
    chair this bench)."""
    return setting(CHAIR_ENV, env)


def _dollars(text: str) -> float | None:
    """The setting's ceiling: `options.parse_dollars`'s plain decimal; a literal zero is "no ceiling"."""
    try:
        value = parse_dollars(text)
    except ValueError as exc:
        raise BadArgs(f"{setting_name(MAX_COST_ENV)} {exc}",
                      hint=f"set {setting_name(MAX_COST_ENV)} to e.g. 2.00 (0 for no ceiling), or clear it") from None
    return value or None
