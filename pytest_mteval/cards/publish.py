"""``mteval publish``: post a verified run card to a leaderboard, with the spec's
``method_config`` block (benchmark spec §3.2, "Run Cards Publicados Incluem method_config").

The body is the sealed card plus ``method_config``; the card's hash covers the card without
that block, so a server re-checks it by removing ``method_config`` first. The eight camelCase
fields record what the developer intended, read from the card:

- ``model``, ``temperature``, ``batchSize``: the card's model_slug, temperature, batch_size;
- ``register``: the method argument ``register`` (null when not given);
- ``coachingFile``: the method argument ``coaching``, else the source of a bundled dependency
  whose id starts with "coaching" when the run recorded coaching data (null otherwise);
- ``coachingPrompt``: whether coaching data went into the prompt (``coaching_data_sha256``);
- ``promptContext``: the method argument ``prompt_context`` (null when not given);
- ``qualityTier``: the card's quality tier.

Connection failures, timeouts, 429 and 5xx are retried with exponential backoff (a
``Retry-After`` in seconds is honoured, capped); other answers end in one clear line. A token
comes from an environment variable, never the command line, and is never echoed.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any, Final

import httpx

from pytest_mteval.cards import runcard
from pytest_mteval.errors import MtevalError

METHOD_CONFIG_FIELDS: Final = (
    "model",
    "temperature",
    "batchSize",
    "register",
    "coachingFile",
    "coachingPrompt",
    "promptContext",
    "qualityTier",
)
RETRYABLE: Final = frozenset({408, 425, 429, 500, 502, 503, 504})
MAX_RETRY_AFTER_S: Final = 30.0


class PublishError(MtevalError):
    """A card that could not be published; the message is one line."""


def method_config(card: Mapping[str, Any]) -> dict[str, Any]:
    """The 8-field MethodConfig of a card (see the module docstring for each field)."""
    method: Mapping[str, Any] = card.get("method") or {}
    args: Mapping[str, Any] = (method.get("run_config") or {}).get("method_args") or {}
    coached = card.get("coaching_data_sha256") is not None
    coaching_file = args.get("coaching")
    if coaching_file is None and coached:
        for dep in (method.get("manifest") or {}).get("dependencies") or []:
            if str(dep.get("id", "")).startswith("coaching") and dep.get("access") == "bundled":
                coaching_file = dep.get("source")
                break
    return {
        "model": card["model_slug"],
        "temperature": card["temperature"],
        "batchSize": card.get("batch_size"),
        "register": args.get("register"),
        "coachingFile": coaching_file,
        "coachingPrompt": coached,
        "promptContext": args.get("prompt_context"),
        "qualityTier": (card.get("scores") or {}).get("quality_tier"),
    }


def publish(
    card: dict[str, Any],
    url: str,
    token: str | None = None,
    retries: int = 3,
    timeout_s: float = 30.0,
    backoff_s: float = 0.5,
) -> httpx.Response:
    """POST the card with its method_config; the server's final successful answer."""
    body = {**card, "method_config": method_config(card)}
    headers = {"User-Agent": "pytest-mteval publish"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    attempt = 0
    with httpx.Client(timeout=timeout_s, headers=headers) as client:
        while True:
            attempt += 1
            try:
                response = client.post(url, json=body)
            except httpx.HTTPError as exc:
                if attempt > retries:
                    raise PublishError(
                        f"{url}: {type(exc).__name__} after {attempt} attempts: {exc}"
                    ) from None
                time.sleep(backoff_s * 2 ** (attempt - 1))
                continue
            if response.is_success:
                return response
            if response.status_code in RETRYABLE and attempt <= retries:
                time.sleep(_wait(response, backoff_s * 2 ** (attempt - 1)))
                continue
            excerpt = _redacted(response.text[:200], token).replace("\n", " ")
            raise PublishError(
                f"{url}: HTTP {response.status_code} after {attempt} attempt(s): {excerpt}"
            )


def verified_card(path: Any) -> dict[str, Any]:
    """The card at ``path``, refused (RunCardError) unless it verifies."""
    card = runcard.load(path)
    runcard.verify(card, path)
    return card


def _wait(response: httpx.Response, default: float) -> float:
    raw = response.headers.get("Retry-After")
    try:
        return min(max(float(raw), 0.0), MAX_RETRY_AFTER_S) if raw else default
    except ValueError:
        return default


def _redacted(text: str, token: str | None) -> str:
    return text.replace(token, "[redacted]") if token else text
