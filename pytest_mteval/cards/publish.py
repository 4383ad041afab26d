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

A card whose embedded method card contradicts its method's manifest (a card issued before
the run checked it: ``methods/card_checks.py``) is refused before anything is posted.

Connection failures, timeouts, 429 and 5xx are retried with exponential backoff, or as long
as the server's ``Retry-After`` asks (seconds or an HTTP date, capped), by the package's one
retry policy (``llm/retry_policy.py``); other answers end in one clear line. A token
comes from an environment variable, never the command line, and is never echoed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import httpx

from pytest_mteval.cards import runcard
from pytest_mteval.errors import MtevalError
from pytest_mteval.llm.retry_policy import RetryPolicy, parse_retry_after
from pytest_mteval.methods.card_checks import contradiction

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


def check_method_card(card: Mapping[str, Any]) -> None:
    """Refuse a card whose method card says otherwise than its method.json."""
    public, method = card.get("method_card"), card.get("method")
    manifest = method.get("manifest") if isinstance(method, Mapping) else None
    if not isinstance(public, Mapping) or not isinstance(manifest, Mapping):
        return
    stated = {k: v for k, v in public.items() if v is not None}
    found = contradiction(stated, manifest)
    if found is not None:
        raise PublishError(
            found.message(f"run card {card.get('run_id')}: method_card", "its method.manifest")
            + "; not published"
        )


def publish(
    card: dict[str, Any],
    url: str,
    token: str | None = None,
    retries: int = 3,
    timeout_s: float = 30.0,
    backoff_s: float = 0.5,
    retry_after_max_s: float = MAX_RETRY_AFTER_S,
) -> httpx.Response:
    """POST the card with its method_config; the server's final successful answer."""
    check_method_card(card)
    body = {**card, "method_config": method_config(card)}
    headers = {"User-Agent": "pytest-mteval publish"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    policy = RetryPolicy(
        max_attempts=retries + 1,
        backoff_base_s=backoff_s,
        retry_after_max_s=retry_after_max_s,
        jitter=False,
    )
    with httpx.Client(timeout=timeout_s, headers=headers) as client:

        def attempt() -> httpx.Response | httpx.HTTPError:
            try:
                return client.post(url, json=body)
            except httpx.HTTPError as exc:
                return exc

        tried = policy.call(attempt, retryable=_retryable, retry_after=_retry_after)
    outcome, attempts = tried.outcome, tried.attempts
    if isinstance(outcome, httpx.HTTPError):
        raise PublishError(
            f"{url}: {type(outcome).__name__} after {attempts} attempts: {outcome}"
        ) from None
    if outcome.is_success:
        return outcome
    excerpt = _redacted(outcome.text[:200], token).replace("\n", " ")
    raise PublishError(f"{url}: HTTP {outcome.status_code} after {attempts} attempt(s): {excerpt}")


def verified_card(path: Any) -> dict[str, Any]:
    """The card at ``path``, refused (RunCardError) unless it verifies."""
    card = runcard.load(path)
    runcard.verify(card, path)
    return card


def _retryable(outcome: httpx.Response | httpx.HTTPError) -> bool:
    return isinstance(outcome, httpx.HTTPError) or outcome.status_code in RETRYABLE


def _retry_after(outcome: httpx.Response | httpx.HTTPError) -> float | None:
    if isinstance(outcome, httpx.HTTPError):
        return None
    return parse_retry_after(outcome.headers.get("Retry-After"))


def _redacted(text: str, token: str | None) -> str:
    return text.replace(token, "[redacted]") if token else text
