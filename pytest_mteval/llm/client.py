"""An async client for OpenAI-compatible chat completions that never raises for a fault.

The public way for a method to reach its model (docs/methods.md, "Writing an LLM method"):
``ChatClient.for_run(config)`` goes through the sandbox's gateway when the harness gives one,
and passes the method audit, which plain httpx does not.

Paid runs meet rate limits, outages, stalls and garbage; each of those must end as one readable
error on one entry ("HTTP 429 after 4 attempts", "timeout after 30s") while every other entry
goes on. So ``ChatClient.complete`` returns a ``Completion`` with either text or an error, and
records what the endpoint reported (usage, model id, cost) and how long it took. The API key is
read from an environment variable named by configuration and never appears in a repr, an error
or a result.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import time
from collections.abc import Mapping
from typing import Any

import httpx

from pytest_mteval.llm.chat_preflight import check_chat_setup
from pytest_mteval.llm.chat_settings import (
    DEFAULT_API_KEY_ENV,
    DEFAULT_BASE_URL,
    ChatMessage,
    ChatSettings,
    LLMConfigError,
)
from pytest_mteval.llm.cost import Call, entry_cost
from pytest_mteval.llm.pools import Pools
from pytest_mteval.llm.pricing import PriceTable, load_prices
from pytest_mteval.llm.response import Attempt, Completion, parse_usage, read_response
from pytest_mteval.llm.retry_policy import RetryPolicy, parse_retry_after
from pytest_mteval.llm.token_usage import TokenUsage
from pytest_mteval.methods.protocol import RunConfig

__all__ = [
    "DEFAULT_API_KEY_ENV",
    "DEFAULT_BASE_URL",
    "ChatClient",
    "ChatMessage",
    "ChatSettings",
    "Completion",
    "LLMConfigError",
    "TokenUsage",
    "batch_deadline",
    "parse_retry_after",
    "parse_usage",
]


class _Secret:
    """Holds the key so that no repr, str or f-string of an object around it can show it."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "<secret>" if self._value else "<no key>"

    __str__ = __repr__


class ChatClient:
    """Chat completions against one endpoint, at most ``concurrency`` requests in flight.

    In a method: ``async with ChatClient.for_run(config) as chat: await chat.complete(messages)``.
    The semaphore is held only while a request is on the wire, not during backoff sleeps.
    """

    def __init__(
        self,
        settings: ChatSettings,
        environ: Mapping[str, str] | None = None,
        prices: PriceTable | None = None,
        deadline: float | None = None,
    ) -> None:
        self.settings = settings
        env = os.environ if environ is None else environ
        self._key = _Secret(env.get(settings.api_key_env, "") if settings.api_key_env else "")
        self._limit = asyncio.Semaphore(settings.concurrency)
        self._pools: Pools | None = None
        self._prices = prices
        self._deadline = deadline

    @classmethod
    def for_run(cls, config: RunConfig, environ: Mapping[str, str] | None = None) -> ChatClient:
        """The client a method's ``translate`` uses: the run's model, endpoint or gateway,
        price table (method arg ``prices``), and a deadline inside the batch's timeout.

        Raises LLMConfigError (no model, a bad method arg) and PriceError (a bad price file).
        """
        settings = ChatSettings.from_run_config(config)
        prices = load_prices(config.method_args.get("prices"))
        return cls(settings, environ, prices=prices, deadline=batch_deadline(config))

    @staticmethod
    def check_setup(config: RunConfig, environ: Mapping[str, str] | None = None) -> None:
        """What the shipped LLM methods check before any entry: model, key, price table and a
        connection to the endpoint (no request). Call it from a method's ``preflight``."""
        check_chat_setup(config, environ)

    def __repr__(self) -> str:
        s = self.settings
        return f"ChatClient(base_url={s.base_url!r}, model={s.model!r}, key_env={s.api_key_env!r})"

    async def __aenter__(self) -> ChatClient:
        self._pools = Pools(self.settings)
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        if self._pools is not None:
            await self._pools.aclose()
            self._pools = None

    async def complete(
        self,
        messages: list[ChatMessage] | str,
        deadline: float | None = None,
        *,
        system: str | None = None,
    ) -> Completion:
        """One completion, retried on 429, 5xx and connection errors; never raises for faults.

        ``messages`` is a chat (``{"role": ..., "content": ...}`` dicts) or one user message;
        ``system`` goes first as a system message. ``deadline`` (a ``time.monotonic()``
        instant; default: the client's) stops new attempts and caps the request timeout.
        """
        chat = [{"role": "user", "content": messages}] if isinstance(messages, str) else messages
        if system is not None:
            chat = [{"role": "system", "content": system}, *chat]
        return self._costed(await self._complete(chat, deadline or self._deadline))

    async def _complete(self, messages: list[ChatMessage], deadline: float | None) -> Completion:
        started = time.monotonic()
        if self.settings.api_key_env and not self._key.reveal():
            return _failure(
                f"no API key: environment variable {self.settings.api_key_env} is unset"
            )
        if self._remaining(deadline) <= 0:
            return _failure("deadline reached before the first attempt", started)
        tried = await self._policy().call_async(
            lambda: self._attempt(messages, self._remaining(deadline)),
            retryable=lambda attempt: attempt.completion is None and attempt.retryable,
            retry_after=lambda attempt: attempt.retry_after_s,
            deadline=deadline,
        )
        last, attempts = tried.outcome, tried.attempts
        if last.completion is not None:
            return self._redacted(_with_timing(last.completion, started, attempts))
        message = last.error or "unknown error"
        if last.retryable:
            message = f"{message} after {attempts} attempt{'s' if attempts != 1 else ''}"
        return _failure(self._redact(message), started, attempts)

    def _costed(self, completion: Completion) -> Completion:
        """The completion with its cost: reported, else priced, else None with a note."""
        paid = completion.usage or completion.text is not None or completion.reported_cost_usd
        if not paid:
            return completion
        prices = self._prices if self._prices is not None else load_prices()
        call = Call(completion.usage.as_dict(), completion.reported_cost_usd, completion.model_id)
        cost = entry_cost([call], prices, self.settings.model)
        return dataclasses.replace(
            completion, cost_usd=cost.cost_usd, cost_source=cost.source, cost_note=cost.note
        )

    def _remaining(self, deadline: float | None) -> float:
        if deadline is None:
            return self.settings.timeout_s
        return min(self.settings.timeout_s, deadline - time.monotonic())

    def _policy(self) -> RetryPolicy:
        """Retry-After when the endpoint gave one (capped), else exponential with jitter."""
        return RetryPolicy(
            max_attempts=self.settings.max_attempts,
            backoff_base_s=self.settings.backoff_base_s,
            backoff_max_s=self.settings.backoff_max_s,
            retry_after_max_s=self.settings.retry_after_max_s,
        )

    def _payload(self, messages: list[ChatMessage]) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "model": self.settings.model,
            "messages": messages,
            "temperature": self.settings.temperature,
        }
        if self.settings.max_tokens:
            payload["max_tokens"] = self.settings.max_tokens
        return payload

    async def _attempt(self, messages: list[ChatMessage], timeout: float) -> Attempt:
        if self._pools is None:
            raise RuntimeError("ChatClient used outside 'async with'")
        headers = {"Authorization": f"Bearer {self._key.reveal()}"} if self._key.reveal() else {}
        started = time.monotonic()
        try:
            async with self._limit, asyncio.timeout(timeout):
                with self._pools.lease() as http:
                    response = await http.post(
                        "chat/completions", json=self._payload(messages), headers=headers
                    )
        except (TimeoutError, httpx.ReadTimeout, httpx.WriteTimeout, httpx.PoolTimeout):
            # Not retried: the endpoint may still be generating (and billing) this request.
            return Attempt(error=f"timeout after {timeout:g}s")
        except httpx.ConnectTimeout:
            return Attempt(error="connect timeout", retryable=True)
        except httpx.RemoteProtocolError:
            return Attempt(error="connection closed", retryable=True)
        except httpx.TransportError as exc:
            return Attempt(error=f"connection failed ({type(exc).__name__})", retryable=True)
        return read_response(response, time.monotonic() - started, self._redact)

    def _redact(self, text: str) -> str:
        key = self._key.reveal()
        return text.replace(key, "***") if key else text

    def _redacted(self, completion: Completion) -> Completion:
        """Every upstream text of a completion with the key hidden (an echoing endpoint)."""
        if not self._key.reveal():
            return completion
        return dataclasses.replace(
            completion,
            text=None if completion.text is None else self._redact(completion.text),
            error=None if completion.error is None else self._redact(completion.error),
            model_id=None if completion.model_id is None else self._redact(completion.model_id),
            finish_reason=(
                None if completion.finish_reason is None else self._redact(completion.finish_reason)
            ),
        )


def batch_deadline(config: RunConfig) -> float:
    """A ``time.monotonic()`` instant just inside the harness's batch timeout, so that paid
    results come back before the harness gives the batch up."""
    return time.monotonic() + config.timeout_s - min(5.0, 0.1 * config.timeout_s)


def _with_timing(completion: Completion, started: float, attempts: int) -> Completion:
    return dataclasses.replace(completion, latency_s=time.monotonic() - started, attempts=attempts)


def _failure(message: str, started: float | None = None, attempts: int = 0) -> Completion:
    latency = 0.0 if started is None else time.monotonic() - started
    return Completion(text=None, error=message, latency_s=latency, attempts=attempts)
