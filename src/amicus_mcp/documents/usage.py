"""Usage blocks: what one leg consumed, and what a wave or a run did in all.

Honest figures: an unknown cost is `amount: null` with `source: "unknown"`, never 0, and a
token count nobody reported is null. The figures are computed in providers/cost.py (`rollup`)
and engine/budget.py (`usage_block`); these are their shapes.
"""

from __future__ import annotations

from typing import Annotated, Literal, TypedDict

from pydantic import ConfigDict, Field, model_validator

from ..vocabulary import CostSource, RolledCostSource
from .base import Document, Frozen, WhenSet

Count = Annotated[int, Field(ge=0)]
Number = int | float  # an integral figure stays an int: read and written back, it is the same text


class TokenCounts(Frozen):
    input: Count | None = None
    output: Count | None = None
    reasoning: Count | None = None
    cache_read: Count | None = None
    cache_write: Count | None = None


class LegCost(Frozen):
    # An unknown cost is null, never a figure (the schema states the rule, the model keeps it).
    model_config = ConfigDict(json_schema_extra={"if": {"properties": {"source": {"const": "unknown"}}},
                                                 "then": {"properties": {"amount": {"const": None}}}})

    amount: Number | None
    currency: Literal["USD"]
    source: CostSource

    @model_validator(mode="after")
    def _unknown_is_null(self) -> LegCost:
        if self.source == "unknown" and self.amount is not None:
            raise ValueError("an unknown cost has no amount (null)")
        return self


class LegUsage(Frozen):
    """One leg's `usage`: its tokens and its cost (unknown: null, never 0)."""

    tokens: TokenCounts
    cost: LegCost


class RolledCost(Frozen):
    """The summed cost of many legs, and how it was known."""

    amount: Number | None
    currency: Literal["USD"]
    source: RolledCostSource
    reported_legs: Count
    estimated_legs: Count
    unpriced_legs: Count


class WaveUsage(Document):
    """A wave's `usage`: summed tokens and a rolled-up cost."""

    tokens: WhenSet[TokenCounts] = None
    cost: WhenSet[RolledCost] = None


class RunUsage(Document):
    """run.json `usage`: the rollup over every council leg, and whether it is exact."""

    cost: RolledCost
    tokens: WhenSet[TokenCounts] = None
    unknown_legs: Count
    subtree_unknown_legs: Count
    cost_exact: bool


# The same blocks as plain dicts, as the providers and the budget build them (a usage block
# is made for every leg, and most are only summed: no model instance for each).


class TokenCountsDoc(TypedDict):
    input: int | None
    output: int | None
    reasoning: int | None
    cacheRead: int | None
    cacheWrite: int | None


class LegCostDoc(TypedDict):
    amount: Number | None
    currency: Literal["USD"]
    source: CostSource


class LegUsageDoc(TypedDict):
    """`LegUsage` as a dict."""

    tokens: TokenCountsDoc
    cost: LegCostDoc


class RolledCostDoc(TypedDict):
    amount: Number | None
    currency: Literal["USD"]
    source: RolledCostSource
    reportedLegs: int
    estimatedLegs: int
    unpricedLegs: int


class RollupDoc(TypedDict):
    """`WaveUsage` as a dict: what `providers.cost.rollup` returns."""

    tokens: TokenCountsDoc
    cost: RolledCostDoc


class RunUsageDoc(TypedDict):
    """`RunUsage` as a dict: what `engine.budget.Budget.usage_block` returns."""

    cost: RolledCostDoc
    tokens: TokenCountsDoc
    unknownLegs: int
    subtreeUnknownLegs: int
    costExact: bool
