"""Retry policy: Retry-After parsing, which errors retry, and the one deadline over all attempts."""

from __future__ import annotations

import random
import time
from datetime import datetime, timedelta, UTC

import anyio
import pytest
from hypothesis import given
from hypothesis import strategies as st

from amicus_mcp.providers.errors import (
    AuthError,
    MalformedReply,
    ModelNotFound,
    OutOfCredits,
    ProviderDown,
    ProviderError,
    ProviderRejected,
    ProviderTimeout,
    RateLimited,
)
from amicus_mcp.providers.retry import (
    RetryPolicy,
    backoff_delay,
    call_with_retries,
    delay_before_retry,
    parse_retry_after,
)

NOW = datetime(2026, 8, 4, 12, 0, 0, tzinfo=UTC)
POLICY = RetryPolicy(max_attempts=3, base_delay_s=0.01, max_delay_s=0.02, retry_after_cap_s=5, min_attempt_s=0.1)


@pytest.mark.parametrize(
    ("header", "seconds"),
    [
        ("7", 7.0),
        (" 2.5 ", 2.5),
        ("-3", 0.0),
        ("Tue, 04 Aug 2026 12:00:30 GMT", 30.0),
        ("Tue, 04 Aug 2026 11:00:00 GMT", 0.0),
        ("soon", None),
        ("", None),
        (None, None),
        ("nan", None),
    ],
)
def test_parse_retry_after(header: str | None, seconds: float | None) -> None:
    assert parse_retry_after(header, now=NOW) == seconds


@pytest.mark.parametrize(
    "error", [AuthError("x"), OutOfCredits("x"), ModelNotFound("x"), ProviderRejected("x"), MalformedReply("x")]
)
def test_final_errors_are_never_retried(error: ProviderError) -> None:
    assert delay_before_retry(error, POLICY, attempt=1) is None


@pytest.mark.parametrize("error", [RateLimited("x"), ProviderDown("x"), ProviderTimeout("x")])
def test_transient_errors_are_retried_until_the_attempt_limit(error: ProviderError) -> None:
    assert delay_before_retry(error, POLICY, attempt=1) is not None
    assert delay_before_retry(error, POLICY, attempt=POLICY.max_attempts) is None


def test_retry_after_is_honoured_exactly_and_capped_by_giving_up() -> None:
    assert delay_before_retry(RateLimited("x", retry_after=3), POLICY, attempt=1) == 3
    assert delay_before_retry(RateLimited("x", retry_after=60), POLICY, attempt=1) is None


@given(attempt=st.integers(min_value=1, max_value=30), seed=st.integers(min_value=0, max_value=2**32))
def test_backoff_stays_within_its_exponential_ceiling(attempt: int, seed: int) -> None:
    policy = RetryPolicy(base_delay_s=0.5, max_delay_s=8)
    delay = backoff_delay(policy, attempt, random.Random(seed))
    assert 0 <= delay <= min(8, 0.5 * 2 ** (attempt - 1))


def test_provider_timeout_is_also_a_builtin_timeout() -> None:
    assert isinstance(ProviderTimeout("late", provider="p"), TimeoutError)
    assert ProviderTimeout("late").leg_status == "timeout" and ProviderDown("x").leg_status == "error"


@pytest.mark.anyio
async def test_a_never_ending_attempt_is_cut_at_the_budget() -> None:
    async def forever(_: float) -> str:
        await anyio.sleep(3600)
        return "never"

    started = time.monotonic()
    with pytest.raises(ProviderTimeout, match="within the 0.5s budget"):
        await call_with_retries(forever, budget_s=0.5, policy=POLICY, provider="p", model="m")
    assert time.monotonic() - started < 0.5 + 2


@pytest.mark.anyio
async def test_attempts_are_bounded_and_the_last_error_surfaces() -> None:
    calls: list[float] = []

    async def down(left: float) -> str:
        calls.append(left)
        raise ProviderDown(f"down #{len(calls)}")

    with pytest.raises(ProviderDown, match="down #3"):
        await call_with_retries(down, budget_s=10, policy=POLICY, provider="p", model="m")
    assert len(calls) == 3
    assert calls == sorted(calls, reverse=True)  # each attempt is told the time left, which only shrinks


@pytest.mark.anyio
async def test_no_retry_when_the_wait_would_leave_too_little_time() -> None:
    calls = 0

    async def limited(_: float) -> str:
        nonlocal calls
        calls += 1
        raise RateLimited("slow down", retry_after=1.0)

    with pytest.raises(RateLimited):
        await call_with_retries(limited, budget_s=1.05, policy=POLICY, provider="p", model="m")
    assert calls == 1


@pytest.mark.anyio
async def test_success_after_a_transient_failure() -> None:
    outcomes: list[ProviderError | str] = [ProviderDown("blip"), "ok"]

    async def flaky(_: float) -> str:
        outcome = outcomes.pop(0)
        if isinstance(outcome, ProviderError):
            raise outcome
        return outcome

    assert await call_with_retries(flaky, budget_s=5, policy=POLICY, provider="p", model="m") == "ok"


def test_retry_after_date_in_the_future_uses_the_real_clock() -> None:
    later = datetime.now(UTC) + timedelta(seconds=120)
    header = later.strftime("%a, %d %b %Y %H:%M:%S GMT")
    seconds = parse_retry_after(header)
    assert seconds is not None and 100 < seconds <= 120
