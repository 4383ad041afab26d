"""How a chat client is configured: from the run and the method's args, never the key itself.

Kept apart from the client so that preflight checks and the sandbox's gateway can read the
same settings without pulling in the client's retry loop.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from pytest_mteval.errors import MtevalError
from pytest_mteval.methods.protocol import RunConfig
from pytest_mteval.option_catalog import float_default, int_default

DEFAULT_BASE_URL = "https://openrouter.ai/api/v1"
DEFAULT_API_KEY_ENV = "OPENROUTER_API_KEY"

ChatMessage = dict[str, str]


class LLMConfigError(MtevalError, ValueError):
    """A client that cannot be configured (no model, a bad method arg); shown as is."""


@dataclass(frozen=True)
class ChatSettings:
    """Everything the client needs; the key itself is not here, only the name of its variable."""

    model: str
    base_url: str = DEFAULT_BASE_URL
    api_key_env: str = DEFAULT_API_KEY_ENV
    temperature: float = float_default("temperature")
    timeout_s: float = 120.0
    concurrency: int = int_default("concurrency")
    max_attempts: int = 4
    backoff_base_s: float = 0.5
    backoff_max_s: float = 20.0
    retry_after_max_s: float = 60.0
    max_tokens: int | None = None
    uds: str | None = None  # a Unix socket to connect through: the sandbox's LLM gateway

    @classmethod
    def from_run_config(cls, config: RunConfig) -> ChatSettings:
        """Model, temperature, concurrency and timeout from the run; the rest from method args.

        Method args: ``base_url``, ``api_key_env`` (empty for endpoints without a key),
        ``max_attempts``, ``request_timeout_s``, ``max_tokens``, ``retry_after_max_s``,
        ``gateway_socket`` (set by the harness in the sandbox).
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
            uds=args.get("gateway_socket") or None,
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
