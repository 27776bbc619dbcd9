"""Bounded retries under one deadline.

A leg has one time budget (`CompletionRequest.timeout_s`). Every attempt, and every
wait between attempts, comes out of that budget, so retrying can never make a leg run
longer than its timeout plus scheduling noise. Within the budget:

- only errors marked `retryable` are tried again (429, 408, 5xx, connection failures,
  connect timeouts) — never 400/401/402/403/404 or a malformed reply;
- at most `max_attempts` attempts are made;
- a `Retry-After` from the server is honoured exactly; one longer than
  `retry_after_cap_s`, or longer than the budget left, ends the call instead of waiting
  (the server has told us the next attempt would fail too);
- otherwise the wait is exponential backoff with full jitter.
"""

from __future__ import annotations

import email.utils
import logging
import math
import random
from collections.abc import Awaitable, Callable
from datetime import datetime, UTC
from typing import NamedTuple, TypeVar

import anyio

from .errors import ProviderError, ProviderTimeout

log = logging.getLogger(__name__)

T = TypeVar("T")


class RetryPolicy(NamedTuple):
    max_attempts: int = 3
    base_delay_s: float = 1.0
    max_delay_s: float = 20.0
    retry_after_cap_s: float = 60.0
    # Starting an attempt with less time than this left only produces a timeout.
    min_attempt_s: float = 1.0


def parse_retry_after(value: str | None, *, now: datetime | None = None) -> float | None:
    """Seconds to wait from a Retry-After header (delta-seconds or an HTTP date)."""
    if value is None or not value.strip():
        return None
    text = value.strip()
    try:
        seconds = float(text)
    except ValueError:
        return _seconds_until_http_date(text, now)
    if math.isnan(seconds) or math.isinf(seconds):
        return None
    return max(0.0, seconds)


def _seconds_until_http_date(text: str, now: datetime | None) -> float | None:
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    current = now or datetime.now(UTC)
    return max(0.0, (when - current).total_seconds())


def backoff_delay(policy: RetryPolicy, attempt: int, rng: random.Random | None = None) -> float:
    """Full-jitter exponential backoff before attempt number `attempt + 1` (1-based)."""
    ceiling = min(policy.max_delay_s, policy.base_delay_s * (2 ** (attempt - 1)))
    return (rng or random).uniform(0.0, ceiling)


def delay_before_retry(
    error: ProviderError, policy: RetryPolicy, attempt: int, rng: random.Random | None = None
) -> float | None:
    """How long to wait before trying again after `error`, or None to give up."""
    if not error.retryable or attempt >= policy.max_attempts:
        return None
    if error.retry_after is not None:
        return error.retry_after if error.retry_after <= policy.retry_after_cap_s else None
    return backoff_delay(policy, attempt, rng)


async def call_with_retries(
    attempt: Callable[[float], Awaitable[T]],
    *,
    budget_s: float,
    policy: RetryPolicy,
    provider: str,
    model: str,
    rng: random.Random | None = None,
) -> T:
    """Run `attempt(seconds_left)` until it succeeds, gives a final error, or time runs out."""
    deadline = anyio.current_time() + budget_s
    for number in range(1, policy.max_attempts + 1):
        left = deadline - anyio.current_time()
        with anyio.move_on_after(left) as scope:
            try:
                return await attempt(left)
            except ProviderError as exc:
                wait = delay_before_retry(exc, policy, number, rng)
                left_after_wait = deadline - anyio.current_time() - (wait or 0.0)
                if wait is None or left_after_wait < policy.min_attempt_s:
                    raise
                log.info(
                    "%s %s: %s; retrying in %.1fs (attempt %d of %d)",
                    provider,
                    model,
                    exc.code,
                    wait,
                    number + 1,
                    policy.max_attempts,
                )
                await anyio.sleep(wait)
        if scope.cancelled_caught:
            break
    raise ProviderTimeout(
        f"{provider}: no complete reply from '{model}' within the {budget_s:g}s budget",
        provider=provider,
        model=model,
    )
