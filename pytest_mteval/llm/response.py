"""Reading one chat-completions response: what it says (text, usage, model id, cost), or
which fault it is and how long the endpoint asks us to wait.

Endpoints differ in what they include, so every field is optional: a missing usage block is
unknown usage (not zero), a cost is taken only when the endpoint reports one (OpenRouter's
``usage.cost``), and a 200 without a translation is an error that still carries its usage,
because it was billed.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

from pytest_mteval.llm.retry_policy import parse_retry_after
from pytest_mteval.llm.token_usage import TokenUsage
from pytest_mteval.methods.protocol import MethodEntry, MethodResult


@dataclass(frozen=True)
class Completion:
    """One chat completion's outcome: text or error, plus what was reported and measured.

    ``cost_usd`` is the endpoint's reported cost, else the price table's, else None (unknown);
    ``cost_source`` says which, ``cost_note`` why it is unknown.
    """

    text: str | None
    error: str | None
    model_id: str | None = None
    usage: TokenUsage = field(default_factory=TokenUsage)
    reported_cost_usd: float | None = None
    latency_s: float = 0.0
    attempts: int = 0
    finish_reason: str | None = None
    cost_usd: float | None = None
    cost_source: str | None = None
    cost_note: str | None = None

    @property
    def ok(self) -> bool:
        """Whether a translation came back (then ``text`` is set and ``error`` is None)."""
        return self.text is not None

    def as_result(self, entry: MethodEntry) -> MethodResult:
        """This completion as ``entry``'s result: text or error, usage, cost and model id."""
        metadata: dict[str, Any] = {
            "model_id": self.model_id,
            "requests": self.attempts,
            "cost_source": self.cost_source,
            "finish_reason": self.finish_reason,
        }
        if self.cost_note:
            metadata["cost_note"] = self.cost_note
        return {
            "id": entry.get("id", ""),
            "predicted": None if self.text is None else self.text.strip(),
            "raw_predicted": self.text,
            "latency_s": self.latency_s,
            "usage": self.usage.as_dict(),
            "cost_usd": self.cost_usd,
            "error": None if self.text is not None else self.error,
            "tool_calls": [],
            "tool_call_count": 0,
            "metadata": metadata,
        }


@dataclass(frozen=True)
class Attempt:
    """One HTTP exchange: a completion, or an error that may be worth retrying."""

    completion: Completion | None = None
    error: str | None = None
    retryable: bool = False
    retry_after_s: float | None = None


def _unchanged(text: str) -> str:
    return text


def read_response(
    response: httpx.Response, latency_s: float, redact: Callable[[str], str] = _unchanged
) -> Attempt:
    """The attempt's outcome; ``redact`` hides secrets in upstream text BEFORE it is cut
    short (cut first, a key echoed near the limit would survive in part)."""
    status = response.status_code
    if status == 429 or status >= 500:
        retry_after = parse_retry_after(response.headers.get("retry-after"))
        return Attempt(error=f"HTTP {status}", retryable=True, retry_after_s=retry_after)
    if status != 200:
        return Attempt(error=f"HTTP {status}{_error_detail(response, redact)}")
    try:
        body = response.json()
    except ValueError:
        return Attempt(error="malformed JSON in response")
    if not isinstance(body, dict):
        return Attempt(error="malformed JSON in response (not an object)")
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
    return Attempt(
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


def _error_detail(response: httpx.Response, redact: Callable[[str], str] = _unchanged) -> str:
    """The endpoint's own error message, short, for statuses that are not retried."""
    try:
        body = response.json()
    except ValueError:
        return ""
    error = body.get("error") if isinstance(body, dict) else None
    message = error.get("message") if isinstance(error, dict) else error
    return f": {redact(str(message))[:200]}" if message else ""


def parse_usage(raw: Any) -> tuple[TokenUsage, float | None]:
    """Token counts (reasoning and cached from their ``*_details``) and a reported cost.

    An absent usage block gives empty usage: unknown, which is not the same as zero tokens.
    """
    if not isinstance(raw, dict):
        return TokenUsage(), None
    completion_details = raw.get("completion_tokens_details")
    prompt_details = raw.get("prompt_tokens_details")
    usage = TokenUsage(
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
        known=True,
    )
    return usage, _non_negative(raw.get("cost"))


def _non_negative(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return number if math.isfinite(number) and number >= 0 else None


def _count(value: Any) -> int:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0
