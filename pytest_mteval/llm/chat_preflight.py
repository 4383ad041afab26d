"""The preflight of LLM methods: model set, key present, prices readable, endpoint reachable.

Reachability is checked with a connection (TCP, and TLS for https), not a request: it finds the
common mistakes (a wrong host, nothing listening, a proxy that refuses) without spending tokens
or disturbing an endpoint that counts requests.
"""

from __future__ import annotations

import os
import socket
import ssl
from collections.abc import Mapping
from urllib.parse import urlsplit

from pytest_mteval.errors import MtevalError
from pytest_mteval.llm.chat_settings import ChatSettings
from pytest_mteval.llm.pools import tls_context
from pytest_mteval.llm.pricing import load_prices
from pytest_mteval.methods.protocol import RunConfig

#: Seconds the connection check may take.
CONNECT_TIMEOUT_S = 10.0


class PreflightError(MtevalError, ValueError):
    """A chat method that cannot start; the message never contains the key."""


def check_chat_setup(config: RunConfig, environ: Mapping[str, str] | None = None) -> ChatSettings:
    """The settings a chat method would use, after checking that they can work."""
    settings = ChatSettings.from_run_config(config)  # raises when no model is set
    env = os.environ if environ is None else environ
    if settings.api_key_env and not env.get(settings.api_key_env):
        raise PreflightError(
            f"no API key: environment variable {settings.api_key_env} is unset (method arg "
            "api_key_env names another variable; empty for an endpoint without a key)"
        )
    load_prices(config.method_args.get("prices"))
    check_reachable(settings.base_url)
    return settings


def check_reachable(base_url: str, timeout_s: float = CONNECT_TIMEOUT_S) -> None:
    """Open (and close) one connection to the endpoint's host."""
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise PreflightError(f"method arg base_url={base_url!r} is not an http(s) URL")
    port = parts.port or (443 if parts.scheme == "https" else 80)
    where = f"{parts.scheme}://{parts.hostname}:{port}"
    try:
        with socket.create_connection((parts.hostname, port), timeout=timeout_s) as sock:
            if parts.scheme == "https":
                context: ssl.SSLContext = tls_context()
                with context.wrap_socket(sock, server_hostname=parts.hostname):
                    pass
    except (OSError, ssl.SSLError) as exc:
        reason = exc.strerror or str(exc) or type(exc).__name__
        raise PreflightError(f"endpoint {where} is not reachable: {reason}") from None
