"""The one retry policy (pytest_mteval/llm/retry_policy.py): its waits and when it gives up.

The clients' tests (test_llm_client.py, test_publish.py) run it against real servers on
127.0.0.1 answering 429/503 with either form of Retry-After; these check its arithmetic.
"""

from __future__ import annotations

import asyncio
import math
import time

import pytest

from pytest_mteval.llm.retry_policy import RetryPolicy


def test_backoff_doubles_up_to_its_ceiling_without_jitter() -> None:
    policy = RetryPolicy(max_attempts=9, backoff_base_s=0.5, backoff_max_s=3.0, jitter=False)
    assert [policy.delay(n, None) for n in range(1, 6)] == [0.5, 1.0, 2.0, 3.0, 3.0]


def test_jitter_stays_in_the_upper_half_of_the_backoff() -> None:
    policy = RetryPolicy(max_attempts=9, backoff_base_s=1.0, backoff_max_s=math.inf)
    waits = [policy.delay(3, None) for _ in range(200)]
    assert all(2.0 <= wait <= 4.0 for wait in waits)
    assert len(set(waits)) > 1


def test_retry_after_replaces_the_backoff_and_is_capped() -> None:
    policy = RetryPolicy(max_attempts=3, backoff_base_s=8.0, retry_after_max_s=30.0)
    assert policy.delay(1, 0.0) == 0.0
    assert policy.delay(1, 2.5) == 2.5
    assert policy.delay(1, 3600.0) == 30.0


def test_stops_at_the_first_outcome_not_worth_retrying() -> None:
    outcomes = iter(["busy", "busy", "done", "busy"])
    policy = RetryPolicy(max_attempts=9, backoff_base_s=0.0)
    tried = policy.call(lambda: next(outcomes), lambda o: o == "busy", lambda o: None)
    assert (tried.outcome, tried.attempts) == ("done", 3)


def test_the_last_outcome_stands_when_the_attempts_run_out() -> None:
    made: list[int] = []

    def attempt() -> str:
        made.append(1)
        return f"busy {len(made)}"

    policy = RetryPolicy(max_attempts=3, backoff_base_s=0.0)
    tried = policy.call(attempt, lambda o: True, lambda o: None)
    assert (tried.outcome, tried.attempts, len(made)) == ("busy 3", 3, 3)


@pytest.mark.parametrize("retry_after", [3600.0, None])
def test_no_wait_begins_that_would_end_after_the_deadline(retry_after: float | None) -> None:
    async def attempt() -> str:
        return "busy"

    policy = RetryPolicy(max_attempts=9, backoff_base_s=3600.0, retry_after_max_s=3600.0)
    deadline = time.monotonic() + 60
    retried = policy.call_async(attempt, lambda o: True, lambda o: retry_after, deadline=deadline)
    tried = asyncio.run(asyncio.wait_for(retried, 30))  # an hour's wait would time out here
    assert (tried.outcome, tried.attempts) == ("busy", 1)


def test_attempts_go_on_while_the_deadline_allows() -> None:
    outcomes = iter(["busy", "busy", "done"])

    async def attempt() -> str:
        return next(outcomes)

    policy = RetryPolicy(max_attempts=9, backoff_base_s=0.0)
    deadline = time.monotonic() + 60
    tried = asyncio.run(
        policy.call_async(attempt, lambda o: o == "busy", lambda o: None, deadline=deadline)
    )
    assert (tried.outcome, tried.attempts) == ("done", 3)
