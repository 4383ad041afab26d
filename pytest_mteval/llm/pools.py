"""Connection pools for the chat client: a few small httpx clients instead of one big one."""

from __future__ import annotations

import math
import ssl
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache

import httpx

from pytest_mteval.llm.chat_settings import ChatSettings

#: Connections per httpx pool. httpcore re-checks every connection of a pool whenever a
#: request starts or ends (encode/httpx#3215), so at concurrency 64 one pool of 64 connections
#: spends several times the CPU of 16 pools of 4; requests go to the least busy pool.
CONNECTIONS_PER_POOL = 4


@lru_cache(maxsize=1)
def tls_context() -> ssl.SSLContext:
    """httpx's default TLS context, built once per process: loading the CA bundle costs ~25 ms
    of CPU, which each new client would otherwise pay again (several per batch)."""
    return httpx.create_ssl_context()


def _transport(settings: ChatSettings, limits: httpx.Limits) -> httpx.AsyncHTTPTransport | None:
    """Through the gateway's Unix socket when one is set, else httpx's default transport."""
    if not settings.uds:
        return None
    return httpx.AsyncHTTPTransport(uds=settings.uds, limits=limits)


class Pools:
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
                verify=tls_context(),
                transport=_transport(settings, limits),
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
