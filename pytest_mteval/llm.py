"""An async client for OpenAI-compatible chat completions that never raises for a fault.

Paid runs meet rate limits, outages, stalls and garbage; each of those must end as one readable
error on one entry ("HTTP 429 after 4 attempts", "timeout after 30s") while every other entry
goes on. So ``ChatClient.complete`` returns a ``Completion`` with either text or an error, and
records what the endpoint reported (usage, model id, cost) and how long it took. The API key is
read from an environment variable named by configuration and never appears in a repr, an error
or a result.
"""

from __future__ import annotations

import asyncio
import math
import os
import random
import ssl
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from functools import lru_cache
from typing import Any

import httpx

from pytest_mteval.methods.protocol import RunConfig, Usage

DEFAULT_BASE_URL = "https://openrouter.ai/api/v1"
DEFAULT_API_KEY_ENV = "OPENROUTER_API_KEY"

ChatMessage = dict[str, str]


class LLMConfigError(ValueError):
    """A client that cannot be configured (no model, a bad method arg); shown as is."""


@dataclass(frozen=True)
class ChatSettings:
    """Everything the client needs; the key itself is not here, only the name of its variable."""

    model: str
    base_url: str = DEFAULT_BASE_URL
    api_key_env: str = DEFAULT_API_KEY_ENV
    temperature: float = 0.0
    timeout_s: float = 120.0
    concurrency: int = 8
    max_attempts: int = 4
    backoff_base_s: float = 0.5
    backoff_max_s: float = 20.0
    retry_after_max_s: float = 60.0
    max_tokens: int | None = None

    @classmethod
    def from_run_config(cls, config: RunConfig) -> ChatSettings:
        """Model, temperature, concurrency and timeout from the run; the rest from method args.

        Method args: ``base_url``, ``api_key_env`` (empty for endpoints without a key),
        ``max_attempts``, ``request_timeout_s``, ``max_tokens``, ``retry_after_max_s``.
        """
        if not config.model:
            raise LLMConfigError("no model configured: pass --mteval-model=<provider/slug>")
        args = config.method_args
        return cls(
            model=config.model,
            base_url=args.get("base_url", DEFAULT_BASE_URL),
            api_key_env=args.get("api_key_env", DEFAULT_API_KEY_ENV),
            temperature=config.temperature,
            timeout_s=_number(args, "request_timeout_s", config.timeout_s),
            concurrency=max(1, config.concurrency),
            max_attempts=max(1, int(_number(args, "max_attempts", 4))),
            retry_after_max_s=_number(args, "retry_after_max_s", 60.0),
            max_tokens=int(args["max_tokens"]) if args.get("max_tokens") else None,
        )


def _number(args: Mapping[str, str], name: str, default: float) -> float:
    raw = args.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise LLMConfigError(f"method arg {name}={raw!r} is not a number") from None
    if not math.isfinite(value) or value <= 0:
        raise LLMConfigError(f"method arg {name}={raw!r} must be a positive number")
    return value


@dataclass(frozen=True)
class Completion:
    """One chat completion's outcome: text or error, plus what was reported and measured."""

    text: str | None
    error: str | None
    model_id: str | None = None
    usage: Usage = field(default_factory=lambda: Usage())
    reported_cost_usd: float | None = None
    latency_s: float = 0.0
    attempts: int = 0
    finish_reason: str | None = None


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


@dataclass(frozen=True)
class _Attempt:
    """One HTTP exchange: a completion, or an error that may be worth retrying."""

    completion: Completion | None = None
    error: str | None = None
    retryable: bool = False
    retry_after_s: float | None = None


#: Connections per httpx pool. httpcore re-checks every connection of a pool whenever a
#: request starts or ends (encode/httpx#3215), so at concurrency 64 one pool of 64 connections
#: spends several times the CPU of 16 pools of 4; requests go to the least busy pool.
CONNECTIONS_PER_POOL = 4


@lru_cache(maxsize=1)
def _tls_context() -> ssl.SSLContext:
    """httpx's default TLS context, built once per process: loading the CA bundle costs ~25 ms
    of CPU, which each new client would otherwise pay again (several per batch)."""
    return httpx.create_ssl_context()


class _Pools:
    """A few small httpx clients standing in for one big one (see CONNECTIONS_PER_POOL)."""

    def __init__(self, settings: ChatSettings) -> None:
        count = max(1, math.ceil(settings.concurrency / CONNECTIONS_PER_POOL))
        # With at most `concurrency` requests in flight and the least busy pool chosen, no
        # pool ever needs more than this many connections (pigeonhole).
        size = math.ceil(settings.concurrency / count)
        limits = httpx.Limits(max_connections=size, max_keepalive_connections=size)
        self.clients = [
            httpx.AsyncClient(
                base_url=settings.base_url.rstrip("/") + "/",
                timeout=httpx.Timeout(settings.timeout_s),
                limits=limits,
                verify=_tls_context(),
            )
            for _ in range(count)
        ]
        self.busy = [0] * count

    @contextmanager
    def lease(self) -> Iterator[httpx.AsyncClient]:
        index = min(range(len(self.busy)), key=self.busy.__getitem__)
        self.busy[index] += 1
        try:
            yield self.clients[index]
        finally:
            self.busy[index] -= 1

    async def aclose(self) -> None:
        for client in self.clients:
            await client.aclose()


class ChatClient:
    """Chat completions against one endpoint, at most ``concurrency`` requests in flight.

    Use as ``async with ChatClient(settings) as client: await client.complete(messages)``.
    The semaphore is held only while a request is on the wire, not during backoff sleeps.
    """

    def __init__(self, settings: ChatSettings, environ: Mapping[str, str] | None = None) -> None:
        self.settings = settings
        env = os.environ if environ is None else environ
        self._key = _Secret(env.get(settings.api_key_env, "") if settings.api_key_env else "")
        self._limit = asyncio.Semaphore(settings.concurrency)
        self._pools: _Pools | None = None

    def __repr__(self) -> str:
        s = self.settings
        return f"ChatClient(base_url={s.base_url!r}, model={s.model!r}, key_env={s.api_key_env!r})"

    async def __aenter__(self) -> ChatClient:
        self._pools = _Pools(self.settings)
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        if self._pools is not None:
            await self._pools.aclose()
            self._pools = None

    async def complete(
        self, messages: list[ChatMessage], deadline: float | None = None
    ) -> Completion:
        """One completion, retried on 429, 5xx and connection errors; never raises for faults.

        ``deadline`` (a ``time.monotonic()`` instant) stops new attempts and caps the request
        timeout, so a batch that the harness will abandon at a deadline returns in time.
        """
        started = time.monotonic()
        if self.settings.api_key_env and not self._key.reveal():
            return _failure(
                f"no API key: environment variable {self.settings.api_key_env} is unset"
            )
        last: _Attempt | None = None
        attempt = 0
        while attempt < self.settings.max_attempts:
            timeout = self._remaining(deadline)
            if timeout <= 0:
                break
            attempt += 1
            last = await self._attempt(messages, timeout)
            if last.completion is not None:
                return _with_timing(last.completion, started, attempt)
            if not last.retryable or attempt >= self.settings.max_attempts:
                break
            delay = self._delay(attempt, last.retry_after_s)
            if deadline is not None and time.monotonic() + delay >= deadline:
                break
            await asyncio.sleep(delay)
        if last is None:
            return _failure("deadline reached before the first attempt", started)
        message = last.error or "unknown error"
        if last.retryable:
            message = f"{message} after {attempt} attempt{'s' if attempt != 1 else ''}"
        return _failure(self._redact(message), started, attempt)

    def _remaining(self, deadline: float | None) -> float:
        if deadline is None:
            return self.settings.timeout_s
        return min(self.settings.timeout_s, deadline - time.monotonic())

    def _delay(self, attempt: int, retry_after_s: float | None) -> float:
        """Retry-After when the endpoint gave one (capped), else exponential with jitter."""
        if retry_after_s is not None:
            return min(retry_after_s, self.settings.retry_after_max_s)
        ceiling = min(
            self.settings.backoff_max_s, self.settings.backoff_base_s * 2.0 ** (attempt - 1)
        )
        return ceiling / 2 + random.uniform(0, ceiling / 2)

    def _payload(self, messages: list[ChatMessage]) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "model": self.settings.model,
            "messages": messages,
            "temperature": self.settings.temperature,
        }
        if self.settings.max_tokens:
            payload["max_tokens"] = self.settings.max_tokens
        return payload

    async def _attempt(self, messages: list[ChatMessage], timeout: float) -> _Attempt:
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
            return _Attempt(error=f"timeout after {timeout:g}s")
        except httpx.ConnectTimeout:
            return _Attempt(error="connect timeout", retryable=True)
        except httpx.RemoteProtocolError:
            return _Attempt(error="connection closed", retryable=True)
        except httpx.TransportError as exc:
            return _Attempt(error=f"connection failed ({type(exc).__name__})", retryable=True)
        return _read_response(response, time.monotonic() - started)

    def _redact(self, text: str) -> str:
        key = self._key.reveal()
        return text.replace(key, "***") if key else text


def _read_response(response: httpx.Response, latency_s: float) -> _Attempt:
    status = response.status_code
    if status == 429 or status >= 500:
        retry_after = parse_retry_after(response.headers.get("retry-after"))
        return _Attempt(error=f"HTTP {status}", retryable=True, retry_after_s=retry_after)
    if status != 200:
        return _Attempt(error=f"HTTP {status}{_error_detail(response)}")
    try:
        body = response.json()
    except ValueError:
        return _Attempt(error="malformed JSON in response")
    if not isinstance(body, dict):
        return _Attempt(error="malformed JSON in response (not an object)")
    usage, cost = parse_usage(body.get("usage"))
    model_id = body.get("model") if isinstance(body.get("model"), str) else None
    choices = body.get("choices")
    first = choices[0] if isinstance(choices, list) and choices else None
    message = first.get("message") if isinstance(first, dict) else None
    text = message.get("content") if isinstance(message, dict) else None
    finish = first.get("finish_reason") if isinstance(first, dict) else None
    error = None
    if first is None:
        error = "empty response (no choices)"
    elif not isinstance(text, str) or not text.strip():
        error = "empty response (no content)"
    return _Attempt(
        completion=Completion(
            text=text if error is None else None,
            error=error,
            model_id=model_id,
            usage=usage,
            reported_cost_usd=cost,
            latency_s=latency_s,
            finish_reason=finish if isinstance(finish, str) else None,
        )
    )


def _error_detail(response: httpx.Response) -> str:
    """The endpoint's own error message, short, for statuses that are not retried."""
    try:
        body = response.json()
    except ValueError:
        return ""
    error = body.get("error") if isinstance(body, dict) else None
    message = error.get("message") if isinstance(error, dict) else error
    return f": {str(message)[:200]}" if message else ""


def parse_usage(raw: Any) -> tuple[Usage, float | None]:
    """Token counts (reasoning and cached from their ``*_details``) and a reported cost.

    An absent usage block gives empty usage: unknown, which is not the same as zero tokens.
    """
    if not isinstance(raw, dict):
        return Usage(), None
    completion_details = raw.get("completion_tokens_details")
    prompt_details = raw.get("prompt_tokens_details")
    usage = Usage(
        prompt_tokens=_count(raw.get("prompt_tokens")),
        completion_tokens=_count(raw.get("completion_tokens")),
        reasoning_tokens=_count(
            completion_details.get("reasoning_tokens")
            if isinstance(completion_details, dict)
            else 0
        ),
        cached_tokens=_count(
            prompt_details.get("cached_tokens") if isinstance(prompt_details, dict) else 0
        ),
    )
    return usage, _non_negative(raw.get("cost"))


def _non_negative(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return number if math.isfinite(number) and number >= 0 else None


def _count(value: Any) -> int:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0


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


def _with_timing(completion: Completion, started: float, attempts: int) -> Completion:
    return Completion(
        text=completion.text,
        error=completion.error,
        model_id=completion.model_id,
        usage=completion.usage,
        reported_cost_usd=completion.reported_cost_usd,
        latency_s=time.monotonic() - started,
        attempts=attempts,
        finish_reason=completion.finish_reason,
    )


def _failure(message: str, started: float | None = None, attempts: int = 0) -> Completion:
    latency = 0.0 if started is None else time.monotonic() - started
    return Completion(text=None, error=message, latency_s=latency, attempts=attempts)
