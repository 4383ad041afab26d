"""The one retry policy of the package's HTTP clients (the LLM client, ``mteval publish``).

Both meet the same faults (429, 5xx, dropped connections) and must answer them alike: wait as
long as the server asks in ``Retry-After`` (delta-seconds or an HTTP-date, RFC 9110 §10.2.3),
capped, else back off exponentially; give up after a number of attempts or at a deadline. The
loop is tenacity's; this module only says what is retried and how long to wait. An attempt
returns its outcome as a value (a response, an error it caught), so the caller sees the last
outcome and how many attempts were made, and words its own message.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any, Generic, TypeVar

import tenacity

T = TypeVar("T")


def parse_retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds to wait from a Retry-After header: delta-seconds or an HTTP date (RFC 9110)."""
    if not value or not value.strip():
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        pass
    else:
        return max(0.0, seconds) if math.isfinite(seconds) else None
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


@dataclass(frozen=True)
class Tried(Generic[T]):
    """The last outcome of a retried call and how many attempts it took."""

    outcome: T
    attempts: int


@dataclass(frozen=True)
class RetryPolicy:
    """How often to try and how long to wait between tries.

    The wait before attempt ``n + 1`` is the server's Retry-After when it gave one (at most
    ``retry_after_max_s``), else ``backoff_base_s * 2 ** (n - 1)`` capped at ``backoff_max_s``;
    with ``jitter`` a random point in the upper half of that (so clients spread out).
    """

    max_attempts: int
    backoff_base_s: float
    backoff_max_s: float = math.inf
    retry_after_max_s: float = 60.0
    jitter: bool = True

    def delay(self, attempt: int, retry_after_s: float | None) -> float:
        """The wait after attempt number ``attempt`` (from 1) failed."""
        if retry_after_s is not None:
            return min(retry_after_s, self.retry_after_max_s)
        ceiling = min(self.backoff_max_s, self.backoff_base_s * 2.0 ** (attempt - 1))
        return ceiling / 2 + random.uniform(0, ceiling / 2) if self.jitter else ceiling

    def call(
        self,
        attempt: Callable[[], T],
        retryable: Callable[[T], bool],
        retry_after: Callable[[T], float | None],
    ) -> Tried[T]:
        """``attempt()`` until its outcome is not ``retryable`` or the attempts run out."""
        counter = _Counter(attempt)
        outcome: T = tenacity.Retrying(**self._strategy(retryable, retry_after, None))(counter)
        return Tried(outcome, counter.count)

    async def call_async(
        self,
        attempt: Callable[[], Awaitable[T]],
        retryable: Callable[[T], bool],
        retry_after: Callable[[T], float | None],
        deadline: float | None = None,
    ) -> Tried[T]:
        """As :meth:`call` for a coroutine; no attempt starts, and no wait is begun that would
        end, at or after ``deadline`` (a ``time.monotonic()`` instant)."""
        counter = _AsyncCounter(attempt, deadline)
        retrying = tenacity.AsyncRetrying(**self._strategy(retryable, retry_after, deadline))
        outcome: T = await retrying(counter)
        return Tried(outcome, counter.count)

    def _strategy(
        self,
        retryable: Callable[[T], bool],
        retry_after: Callable[[T], float | None],
        deadline: float | None,
    ) -> dict[str, Any]:
        def wait(state: tenacity.RetryCallState) -> float:
            return self.delay(state.attempt_number, retry_after(_result(state)))

        stop: tenacity.stop.stop_base = tenacity.stop_after_attempt(self.max_attempts)
        if deadline is not None:
            stop = stop | _WaitPastDeadline(deadline)
        return {
            "retry": tenacity.retry_if_result(retryable),
            "wait": wait,
            "stop": stop,
            "retry_error_callback": _result,
        }


def _result(state: tenacity.RetryCallState) -> Any:
    """The last attempt's outcome (attempts return their faults as values, never raise one)."""
    if state.outcome is None:
        raise RuntimeError("no attempt was made")
    return state.outcome.result()


class _WaitPastDeadline(tenacity.stop.stop_base):
    """Stop when the coming wait would end at or after the deadline."""

    def __init__(self, deadline: float) -> None:
        self.deadline = deadline

    def __call__(self, retry_state: tenacity.RetryCallState) -> bool:
        return time.monotonic() + retry_state.upcoming_sleep >= self.deadline


class _Counter(Generic[T]):
    """Counts the attempts really made."""

    def __init__(self, attempt: Callable[[], T]) -> None:
        self.attempt = attempt
        self.count = 0

    def __call__(self) -> T:
        self.count += 1
        return self.attempt()


class _AsyncCounter(Generic[T]):
    """Counts the attempts really made; past the deadline the last outcome stands."""

    def __init__(self, attempt: Callable[[], Awaitable[T]], deadline: float | None) -> None:
        self.attempt = attempt
        self.deadline = deadline
        self.count = 0
        self.last: T | None = None

    async def __call__(self) -> T:
        if self.count and self.deadline is not None and time.monotonic() >= self.deadline:
            return self.last  # type: ignore[return-value]  # no time left: the last one stands
        self.count += 1
        self.last = await self.attempt()
        return self.last
