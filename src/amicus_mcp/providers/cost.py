"""What a wave cost, what a plan will cost, and the gate on over-priced models.

Honesty rules (amicus-facts §3.4): a leg whose cost is not known is `None` and counted
as unpriced, never 0. A wave's source is "reported" when every leg was billed,
"estimated" when every leg was estimated, "unknown" when no leg had a figure, and
"mixed" otherwise. Estimates are marked `~` wherever they are shown.

Pre-flight estimate per leg: prompt price × ceil(prompt chars / 4) + completion price ×
the output tokens allowed — 4000 assumed for a fanout leg; a council leg passes its stage's
output cap, which it also sends as `max_tokens` (engine/budget.py). Legs on your own hardware
are priced at 0; legs with no catalog price are listed as unpriced and add nothing (the total
is then a floor).

The cost gate refuses a model whose dearer price is above `maxCostPerMtok` USD per
million tokens (default 60); config `noCostGate: true` (or `--no-cost-gate`) turns it off.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from ..errors import BudgetExceeded
from ..vocabulary import ESTIMATED_COST_SOURCES, PRICED_COST_SOURCES, CostSource
from .base import Tokens, Usage
from .catalog import Catalog, Pricing
from .profiles import traits
from .route import Route

if TYPE_CHECKING:
    from ..documents.commands import EstimateFigures
    from ..documents.usage import RollupDoc, TokenCountsDoc
    from ..vocabulary import RolledCostSource

DEFAULT_MAX_COST_PER_MTOK = 60.0
ASSUMED_OUTPUT_TOKENS = 4000
CHARS_PER_TOKEN = 4
FREE = Pricing(prompt=0.0, completion=0.0)
_TOKEN_FIELDS = ("input", "output", "reasoning", "cache_read", "cache_write")


# --------------------------------------------------------------------- rollup


def usage_from_doc(doc: Mapping[str, Any] | None) -> Usage | None:
    """A leg's `usage` document back into a `Usage` (None when there is none)."""
    if not isinstance(doc, Mapping):
        return None
    tokens = _mapping(doc.get("tokens"))
    cost = _mapping(doc.get("cost"))
    raw_amount = cost.get("amount")
    amount = float(raw_amount) if isinstance(raw_amount, (int, float)) and not isinstance(raw_amount, bool) else None
    raw_source = cost.get("source")
    source: CostSource = raw_source if raw_source in PRICED_COST_SOURCES and amount is not None else "unknown"
    return Usage(
        tokens=Tokens(
            input=_int(tokens.get("input")),
            output=_int(tokens.get("output")),
            reasoning=_int(tokens.get("reasoning")),
            cache_read=_int(tokens.get("cacheRead")),
            cache_write=_int(tokens.get("cacheWrite")),
        ),
        cost_amount=amount if source != "unknown" else None,
        cost_source=source,
    )


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def rollup(legs: Iterable[Usage | Mapping[str, Any] | None]) -> RollupDoc:
    """The wave usage block: summed tokens and a cost whose source says how it was known."""
    usages = [leg if isinstance(leg, Usage) or leg is None else usage_from_doc(leg) for leg in legs]
    priced = [u for u in usages if u is not None and u.cost_amount is not None and u.cost_source != "unknown"]
    reported = sum(1 for u in priced if u.cost_source == "reported")
    estimated = len(priced) - reported
    amount = round(sum(u.cost_amount or 0.0 for u in priced), 10) if priced else None
    return {
        "tokens": _sum_tokens(u.tokens for u in usages if u is not None),
        "cost": {
            "amount": amount,
            "currency": "USD",
            "source": _wave_source(reported, estimated, len(usages)),
            "reportedLegs": reported,
            "estimatedLegs": estimated,
            "unpricedLegs": len(usages) - len(priced),
        },
    }


def _wave_source(reported: int, estimated: int, legs: int) -> RolledCostSource:
    if legs and reported == legs:
        return "reported"
    if legs and estimated == legs:
        return "estimated"
    return "unknown" if reported == 0 and estimated == 0 else "mixed"


def _sum_tokens(all_tokens: Iterable[Tokens]) -> TokenCountsDoc:
    """Field-wise sums; a field no leg reported stays None rather than becoming 0."""
    totals: dict[str, int | None] = dict.fromkeys(_TOKEN_FIELDS)
    for tokens in all_tokens:
        for name in _TOKEN_FIELDS:
            value = getattr(tokens, name)
            if value is not None:
                totals[name] = (totals[name] or 0) + value
    return Tokens(**totals).to_doc()


# ------------------------------------------------------------------ pre-flight


class PlannedLeg(NamedTuple):
    model: str  # what to call the leg in messages (alias or id)
    prompt_chars: int
    pricing: Pricing | None  # None: no known price


class CostEstimate(NamedTuple):
    amount: float | None  # None when no leg could be priced
    priced_legs: int
    unpriced: tuple[str, ...]

    def to_doc(self) -> EstimateFigures:
        return {
            "amount": self.amount,
            "currency": "USD",
            "source": "estimated" if self.amount is not None else "unknown",
            "pricedLegs": self.priced_legs,
            "unpricedLegs": list(self.unpriced),
        }

    def describe(self) -> str:
        total = format_cost(self.amount, "estimated" if self.amount is not None else "unknown")
        if not self.unpriced:
            return total
        if self.amount is None:
            return f"{total} (cost unknown for {', '.join(self.unpriced)})"
        # One qualifier: the figure is an estimate of the priced legs, and the rest is unknown.
        return f"{total} for the priced legs; cost unknown for {', '.join(self.unpriced)}"


def prompt_tokens(chars: int) -> int:
    """A prompt's size in tokens, estimated at ~4 characters a token (the one estimate amicus
    uses, for cost and for context windows alike)."""
    return math.ceil(max(0, chars) / CHARS_PER_TOKEN)


def leg_estimate(prompt_chars: int, pricing: Pricing | None, *, output_tokens: int = ASSUMED_OUTPUT_TOKENS) -> float | None:
    """The prompt at ~4 chars a token plus `output_tokens` of completion (a council leg passes
    the cap it sends as `max_tokens`, so the figure is a bound rather than a guess)."""
    if pricing is None:
        return None
    return pricing.prompt * prompt_tokens(prompt_chars) + pricing.completion * output_tokens


def preflight_estimate(legs: Iterable[PlannedLeg]) -> CostEstimate:
    amounts: list[float] = []
    unpriced: list[str] = []
    for leg in legs:
        estimate = leg_estimate(leg.prompt_chars, leg.pricing)
        if estimate is None:
            unpriced.append(leg.model)
        else:
            amounts.append(estimate)
    amount = round(sum(amounts), 10) if amounts else None
    return CostEstimate(amount=amount, priced_legs=len(amounts), unpriced=tuple(unpriced))


def route_pricing(route: Route, catalog: Catalog) -> Pricing | None:
    """Your own hardware is free; anything else is priced by the catalog, when it can be."""
    if traits(route).own_hardware:
        return FREE
    return catalog.price(route.pricing_id) if route.pricing_id else None


def plan_legs(routes: Iterable[Route], prompt_chars: int, catalog: Catalog) -> list[PlannedLeg]:
    return [PlannedLeg(r.alias or r.canonical, prompt_chars, route_pricing(r, catalog)) for r in routes]


# ------------------------------------------------------------------ cost gate


def cost_gate_threshold(cfg: Mapping[str, Any], *, disabled: bool = False) -> float | None:
    """USD per million tokens, or None when the gate is off (flag or config `noCostGate`)."""
    if disabled or cfg.get("noCostGate") is True:
        return None
    value = cfg.get("maxCostPerMtok")
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value > 0:
        return float(value)
    return DEFAULT_MAX_COST_PER_MTOK


def check_cost_gate(model: str, pricing: Pricing | None, *, threshold: float | None) -> None:
    """BudgetExceeded when `model` is priced above `threshold`; unpriced models pass."""
    if threshold is None or pricing is None or pricing.max_per_mtok <= threshold:
        return
    raise BudgetExceeded(
        f"Model '{model}' costs ${pricing.max_per_mtok:,.2f} per million tokens, above the ${threshold:,.2f}/Mtok cost gate",
        hint="pick a cheaper model, raise maxCostPerMtok in config.json, or pass --no-cost-gate",
    )


# ------------------------------------------------------------------ formatting


def format_cost(amount: float | None, source: CostSource | str) -> str:
    """`?` for unknown; four decimals under $1, two above; `~` marks estimates."""
    if amount is None:
        return "?"
    figure = f"${amount:.4f}" if round(amount, 4) < 1 else f"${amount:,.2f}"  # $0.99996 reads "$1.00"
    return f"~{figure}" if source in ESTIMATED_COST_SOURCES else figure
