"""The CI gate (pure): every level against every chair verdict and blocker tier."""

from __future__ import annotations

from typing import Any

import pytest

from amicus_mcp.council.gate import GATE_LEVELS, evaluate_gate
from amicus_mcp.errors import BadArgs
from amicus_mcp.schemas import schema_errors


def verdict(overall: str | None, *findings: tuple[str, str]) -> dict[str, Any]:
    """A verdict document with (severity, tier) findings."""
    rows = [{"id": f"A{i}", "raiser": "gpt", "severity": sev, "tier": tier} for i, (sev, tier) in enumerate(findings, 1)]
    counts = {t: sum(1 for _, tier in findings if tier == t) for t in ("Confirmed", "Contested", "Singleton", "Disputed")}
    return {"schemaVersion": 2, "type": "council-verdict", "overallVerdict": overall, "runId": "r1",
            "findings": rows, "tierCounts": counts}


def code(doc: dict[str, Any], level: str, **kw: Any) -> int:
    result = evaluate_gate(doc, level, **kw)
    assert schema_errors(result, "council-gate") == []
    assert result["passed"] is (result["exitCode"] == 0)
    return int(result["exitCode"])


# (chair verdict) → expected exit per chair level
@pytest.mark.parametrize(("overall", "rethink", "fix"), [
    ("Ship it", 0, 0),
    ("Fix these first", 0, 4),
    ("Fundamental rethink", 4, 4),
])
def test_chair_verdict_levels(overall: str, rethink: int, fix: int) -> None:
    doc = verdict(overall)
    assert (code(doc, "never"), code(doc, "fundamental-rethink"), code(doc, "fix-these-first")) == (0, rethink, fix)


def test_no_chair_verdict_fails_the_verdict_levels_unless_allowed() -> None:
    doc = verdict(None, ("major", "Confirmed"))
    assert code(doc, "fundamental-rethink") == code(doc, "fix-these-first") == 4
    assert "no chair verdict" in evaluate_gate(doc, "fix-these-first")["reason"]
    assert code(doc, "fundamental-rethink", allow_no_verdict=True) == code(doc, "fix-these-first", allow_no_verdict=True) == 0
    # the blocker levels need no chair
    assert code(doc, "confirmed-blocker") == code(doc, "disputed-blocker") == 0
    assert code(doc, "never") == 0


# (blocker tier) → (confirmed-blocker, disputed-blocker)
@pytest.mark.parametrize(("tier", "confirmed", "disputed"), [
    ("Confirmed", 4, 4),
    ("Contested", 0, 4),
    ("Singleton", 0, 4),
    ("Disputed", 0, 4),
])
def test_blocker_levels_by_tier(tier: str, confirmed: int, disputed: int) -> None:
    doc = verdict("Ship it", ("blocker", tier), ("major", "Confirmed"))
    assert (code(doc, "confirmed-blocker"), code(doc, "disputed-blocker")) == (confirmed, disputed)


def test_only_blocker_severity_counts() -> None:
    doc = verdict("Fundamental rethink", ("major", "Confirmed"), ("minor", "Disputed"), ("nit", "Confirmed"))
    assert code(doc, "confirmed-blocker") == code(doc, "disputed-blocker") == 0
    result = evaluate_gate(doc, "disputed-blocker")
    assert result["blockers"] == [] and "no blocker finding in any tier" in result["reason"]


def test_the_reason_is_one_line_naming_the_blockers() -> None:
    result = evaluate_gate(verdict("Ship it", ("blocker", "Confirmed"), ("blocker", "Disputed")), "disputed-blocker")
    assert result["reason"] == "gate fails: 2 blocker finding(s) in any tier: A1 (Confirmed), A2 (Disputed) (--fail-on disputed-blocker)"
    assert "\n" not in result["reason"]
    assert result["blockers"] == [{"id": "A1", "tier": "Confirmed", "raiser": "gpt"}, {"id": "A2", "tier": "Disputed", "raiser": "gpt"}]


def test_every_level_is_covered() -> None:
    assert set(GATE_LEVELS) == {"never", "fundamental-rethink", "fix-these-first", "disputed-blocker", "confirmed-blocker"}


def test_bad_input() -> None:
    with pytest.raises(BadArgs, match="not a gate level"):
        evaluate_gate(verdict("Ship it"), "sometimes")
    with pytest.raises(BadArgs, match="council-verdict"):
        evaluate_gate({"type": "council-tally"}, "never")
    with pytest.raises(BadArgs, match="is not one of"):
        evaluate_gate({**verdict(None), "overallVerdict": "Maybe"}, "never")
