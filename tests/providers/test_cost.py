"""Wave cost rollup, pre-flight estimate, the cost gate and human formatting."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from amicus_mcp.errors import BudgetExceeded
from amicus_mcp.providers.base import Tokens, Usage
from amicus_mcp.providers.catalog import Catalog, ModelInfo, Pricing
from amicus_mcp.providers.cost import (
    ASSUMED_OUTPUT_TOKENS,
    DEFAULT_MAX_COST_PER_MTOK,
    FREE,
    PlannedLeg,
    check_cost_gate,
    cost_gate_threshold,
    format_cost,
    leg_estimate,
    plan_legs,
    preflight_estimate,
    rollup,
    usage_from_doc,
)
from amicus_mcp.providers.routing import resolve_model


def reported(amount: float, tokens: Tokens | None = None) -> Usage:
    return Usage(tokens=tokens or Tokens(input=10, output=5), cost_amount=amount, cost_source="reported")


def estimated(amount: float) -> Usage:
    return Usage(tokens=Tokens(input=10, output=5), cost_amount=amount, cost_source="estimated")


UNKNOWN = Usage(tokens=Tokens(input=10, output=5))


@pytest.mark.parametrize(
    ("legs", "amount", "source", "counts"),
    [
        ([reported(0.01), reported(0.02)], 0.03, "reported", (2, 0, 0)),
        ([estimated(0.01), estimated(0.0)], 0.01, "estimated", (0, 2, 0)),
        ([reported(0.01), estimated(0.02)], 0.03, "mixed", (1, 1, 0)),
        ([reported(0.01), UNKNOWN], 0.01, "mixed", (1, 0, 1)),
        ([reported(0.01), None], 0.01, "mixed", (1, 0, 1)),
        ([UNKNOWN, None], None, "unknown", (0, 0, 2)),
        ([], None, "unknown", (0, 0, 0)),
        ([reported(0.0)], 0.0, "reported", (1, 0, 0)),
    ],
    ids=[
        "all-reported",
        "all-estimated",
        "mixed",
        "reported+unknown",
        "reported+missing",
        "all-unknown",
        "empty",
        "reported-zero",
    ],
)
def test_rollup_sources(
    legs: list[Usage | None], amount: float | None, source: str, counts: tuple[int, int, int]
) -> None:
    cost = rollup(legs)["cost"]
    assert cost["amount"] == (pytest.approx(amount) if amount is not None else None)
    assert cost["source"] == source and cost["currency"] == "USD"
    assert (cost["reportedLegs"], cost["estimatedLegs"], cost["unpricedLegs"]) == counts


def test_rollup_sums_tokens_and_keeps_unreported_fields_unknown() -> None:
    legs = [
        reported(0.01, Tokens(input=100, output=20, reasoning=5)),
        reported(0.02, Tokens(input=50, output=None)),
        None,
    ]
    assert rollup(legs)["tokens"] == {"input": 150, "output": 20, "reasoning": 5, "cacheRead": None, "cacheWrite": None}


def test_rollup_accepts_leg_usage_documents() -> None:
    docs: list[dict[str, Any] | None] = [
        reported(0.25).to_doc(),
        {"tokens": {"input": 3}, "cost": {"amount": None, "source": "unknown"}},
        None,
    ]
    cost = rollup(docs)["cost"]
    assert (cost["amount"], cost["source"], cost["unpricedLegs"]) == (0.25, "mixed", 2)


def test_usage_from_doc_refuses_a_number_without_a_source() -> None:
    usage = usage_from_doc({"cost": {"amount": 0, "source": "unknown"}})
    assert usage is not None and usage.cost_amount is None and usage.cost_source == "unknown"
    assert usage_from_doc(None) is None


@given(st.lists(st.one_of(st.none(), st.floats(min_value=0, max_value=100, allow_nan=False)), max_size=12))
def test_rollup_invariants(amounts: list[float | None]) -> None:
    legs = [reported(a) if a is not None else UNKNOWN for a in amounts]
    cost = rollup(legs)["cost"]
    assert cost["reportedLegs"] + cost["estimatedLegs"] + cost["unpricedLegs"] == len(legs)
    known = [a for a in amounts if a is not None]
    assert (cost["amount"] is None) == (not known)  # unknown is never 0
    if known:
        assert math.isclose(cost["amount"], sum(known), rel_tol=1e-9, abs_tol=1e-9)


def test_leg_estimate_formula() -> None:
    pricing = Pricing(prompt=0.000002, completion=0.00001)
    assert leg_estimate(10_001, pricing) == pytest.approx(0.000002 * 2501 + 0.00001 * ASSUMED_OUTPUT_TOKENS)
    assert leg_estimate(0, FREE) == 0.0
    assert leg_estimate(100, None) is None


def test_preflight_lists_unpriced_legs_and_never_says_zero_for_them() -> None:
    legs = [
        PlannedLeg("gpt", 4000, Pricing(0.000002, 0.00001)),
        PlannedLeg("mystery/model", 4000, None),
        PlannedLeg("ollama/llama3", 4000, FREE),
    ]
    estimate = preflight_estimate(legs)
    assert estimate.amount == pytest.approx(0.000002 * 1000 + 0.00001 * 4000)
    assert (estimate.priced_legs, estimate.unpriced) == (2, ("mystery/model",))
    # One qualifier (issue 27 item 20): an estimate of the priced legs, the rest unknown — not "~$X at least".
    assert estimate.describe() == "~$0.0420 for the priced legs; cost unknown for mystery/model"
    assert estimate.to_doc()["unpricedLegs"] == ["mystery/model"]
    nothing = preflight_estimate([PlannedLeg("a/b", 10, None)])
    assert nothing.amount is None and nothing.to_doc()["source"] == "unknown"
    assert nothing.describe() == "? (cost unknown for a/b)"


def test_plan_legs_prices_each_route_the_way_it_is_served(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-direct")
    cfg = {"providers": {"ollama": {"baseUrl": "http://localhost:11434/v1"}}}
    catalog = Catalog(
        models={"openai/gpt-5.6-terra": ModelInfo("openai/gpt-5.6-terra", "GPT", None, Pricing(1e-6, 2e-6))},
        state="cached",
    )
    routes = [resolve_model(s, cfg=cfg) for s in ("gpt", "ollama/llama3", "local", "kimi")]
    legs = plan_legs(routes, 400, catalog)
    assert [(leg.model, leg.pricing) for leg in legs] == [
        ("gpt", Pricing(1e-6, 2e-6)),  # direct route, priced by its canonical id
        ("ollama/llama3", FREE),
        ("local", FREE),
        ("kimi", None),  # not in the catalog: unpriced
    ]


def test_cost_gate_threshold_from_config() -> None:
    assert cost_gate_threshold({}) == DEFAULT_MAX_COST_PER_MTOK == 60
    assert cost_gate_threshold({"maxCostPerMtok": 100}) == 100
    assert cost_gate_threshold({"maxCostPerMtok": "cheap"}) == 60
    assert cost_gate_threshold({"maxCostPerMtok": 0}) == 60
    assert cost_gate_threshold({"noCostGate": True}) is None
    assert cost_gate_threshold({}, disabled=True) is None


def test_cost_gate_refuses_a_model_above_the_threshold() -> None:
    pricey = Pricing(prompt=0.000015, completion=0.000075)  # $75/Mtok output
    with pytest.raises(BudgetExceeded) as info:
        check_cost_gate("opus", pricey, threshold=60)
    assert info.value.code == "BUDGET_EXCEEDED"
    assert "'opus' costs $75.00 per million tokens, above the $60.00/Mtok cost gate" in info.value.message
    assert info.value.hint and "--no-cost-gate" in info.value.hint and "maxCostPerMtok" in info.value.hint


@pytest.mark.parametrize(
    ("pricing", "threshold"),
    [(Pricing(0.000015, 0.000075), None), (Pricing(0.00006, 0.00006), 60), (None, 60), (FREE, 60)],
)
def test_cost_gate_passes(pricing: Pricing | None, threshold: float | None) -> None:
    check_cost_gate("m", pricing, threshold=threshold)


@pytest.mark.parametrize(
    ("amount", "source", "shown"),
    [
        (None, "unknown", "?"),
        (None, "mixed", "?"),
        (0.0, "reported", "$0.0000"),
        (0.0381, "reported", "$0.0381"),
        (0.0381, "estimated", "~$0.0381"),
        (0.99996, "reported", "$1.00"),
        (0.99994, "reported", "$0.9999"),
        (1.0, "mixed", "~$1.00"),
        (1234.5, "reported", "$1,234.50"),
    ],
)
def test_format_cost(amount: float | None, source: str, shown: str) -> None:
    assert format_cost(amount, source) == shown
