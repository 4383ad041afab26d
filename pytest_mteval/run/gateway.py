"""The LLM gateway (spec §8.6): the sandbox's only way out.

An OpenAI-compatible ``POST /v1/chat/completions`` endpoint on a Unix socket that the harness
serves and bind-mounts into the sandbox. It forwards to the run's upstream ``base_url`` only,
only for the model slugs the method's manifest declares (a ``gateway`` dependency's
``source: provider:slug``; ``provider:<configurable>`` admits the run's ``--mteval-model``),
adds the API key itself (the method never holds one), keeps at most ``concurrency`` requests
upstream and at most ``budget`` in all (the harness's number, never the method's), and appends
every request and answer to a hash-chained audit log (a secret run's: their sizes and sha256,
never their text, ``gateway_digest.py``). Everything else gets a 4xx with the reason.
Against a hostile method:

- the body is parsed strictly and rebuilt from an allow-list (``gateway_request.py``); an
  unknown field or a key written twice is refused naming it, ``max_tokens`` is capped;
- refusals have their own budget (``refusal_budget``), are logged with their first 512 bytes
  (not on a secret run) and their size only, and past it are answered 429, unlogged, counted;
- at most ``connection_limit`` connections are open (the next ones get a 503 and are closed),
  a request must arrive within ``idle_timeout_s`` and an answer be read within it;
- a body over 8 MiB (declared, or chunked) gets a 413 (``gateway_http.py``);
- the key is withheld from answers in any encoding ``gateway_secrets.py`` names.
HTTP/1.1 is parsed by h11 on the method's side; the upstream is reached with httpx
(``upstream.py``).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import h11

from pytest_mteval.methods.manifest import MethodManifest
from pytest_mteval.run import gateway_digest as digest
from pytest_mteval.run.gateway_audit_log import AuditLog
from pytest_mteval.run.gateway_http import (
    MAX_BODY_BYTES,
    Incoming,
    closing,
    discard_rest,
    error,
    framed,
    read_request,
    too_large,
)
from pytest_mteval.run.gateway_request import MAX_TOKENS_CAP, BadRequest, parse_request
from pytest_mteval.run.gateway_secrets import KeyFilter
from pytest_mteval.run.gateway_upstream import Upstream, UpstreamError

__all__ = ["MAX_BODY_BYTES", "Gateway", "GatewayConfig", "allowed_models"]
#: Refused requests logged at most, by default; past them the gateway answers 429 unlogged.
REFUSAL_BUDGET = 32
#: Open connections at most, by default: twice the concurrency, and never fewer than this.
MIN_CONNECTIONS = 16


def allowed_models(manifest: MethodManifest, run_model: str | None) -> list[str]:
    """The slugs a method may ask the gateway for, from its manifest's gateway dependencies."""
    slugs: set[str] = set()
    for dependency in manifest.dependencies:
        if dependency.access != "gateway":
            continue
        slug = dependency.source.partition(":")[2] or dependency.source
        if slug.startswith("<") and slug.endswith(">"):
            if run_model:
                slugs.add(run_model)
        else:
            slugs.add(slug)
    return sorted(slugs)


@dataclass
class GatewayConfig:
    upstream: str
    api_key: str
    models: list[str]
    concurrency: int
    budget: int
    timeout_s: float
    #: the most completion tokens a request may ask for (and asks for when it names none)
    max_tokens: int = MAX_TOKENS_CAP
    #: refused requests answered with the reason and logged; past them: 429, not logged
    refusal_budget: int = REFUSAL_BUDGET
    #: open connections at most (0: twice the concurrency, at least MIN_CONNECTIONS)
    max_connections: int = 0
    #: a request (or the wait for the next one on a kept-alive connection) must arrive within
    idle_timeout_s: float = 60.0
    #: a secret run's: log sizes and hashes of the bodies, never their text (gateway_digest)
    texts_withheld: bool = False

    @property
    def connection_limit(self) -> int:
        return self.max_connections or max(MIN_CONNECTIONS, 2 * self.concurrency)


class Gateway:
    """Serves on ``socket_path`` from a thread of its own; ``close()`` stops it."""

    def __init__(self, config: GatewayConfig, socket_path: Path, log: AuditLog) -> None:
        self.config = config
        self.socket_path = socket_path
        self.log = log
        self.forwarded = 0
        self.refused = 0
        self.unlogged = 0
        self._keys = KeyFilter(config.api_key)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._server: asyncio.Server | None = None
        self._limit: asyncio.Semaphore | None = None
        self._upstream: Upstream | None = None
        self._clients: set[asyncio.Task[None]] = set()

    def start(self) -> Gateway:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(30)
        return self

    async def _start(self) -> None:
        self._limit = asyncio.Semaphore(self.config.concurrency)
        self._upstream = Upstream(self.config.upstream, self.config.timeout_s)
        self._server = await asyncio.start_unix_server(self._serve, str(self.socket_path))
        self.socket_path.chmod(0o666)  # the sandbox's user may differ; the folder is private

    def close(self) -> None:
        if not self._thread.is_alive():
            return
        asyncio.run_coroutine_threadsafe(self._stop(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()
        self.log.close()

    async def _stop(self) -> None:
        if self._server is not None:
            self._server.close()
        for task in list(self._clients):
            task.cancel()
        await asyncio.gather(*self._clients, return_exceptions=True)
        if self._server is not None:
            await self._server.wait_closed()
        if self._upstream is not None:
            await self._upstream.aclose()

    def summary(self) -> dict[str, Any]:
        """What the run card records about the gateway."""
        return {
            "audit_log": str(self.log.path),
            "head_sha256": self.log.head,
            "lines": self.log.count,
            "forwarded": self.forwarded,
            "refused": self.refused,
            "refused_unlogged": self.unlogged,
            "upstream": self.config.upstream,
            "allowed_models": self.config.models,
            "budget": self.config.budget,
            "refusal_budget": self.config.refusal_budget,
            "max_connections": self.config.connection_limit,
            "max_tokens_cap": self.config.max_tokens,
            "bodies_logged": "sha256 and size only" if self.config.texts_withheld else "in full",
        }

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        try:
            if len(self._clients) >= self.config.connection_limit:
                limit = self.config.connection_limit
                refusal = error(503, f"the gateway's {limit} connections are all open")
                await self._send(writer, closing(*self._refuse(Incoming(), refusal)))
                return
            if task is not None:
                self._clients.add(task)
            await self._requests(reader, writer)
        except (ConnectionError, TimeoutError):
            pass
        except asyncio.CancelledError:
            pass  # the gateway is closing
        finally:
            writer.close()
            if task is not None:
                self._clients.discard(task)

    async def _requests(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Answers the requests of one connection in order (pipelined ones too)."""
        conn = h11.Connection(h11.SERVER, max_incomplete_event_size=16384)
        while True:
            incoming = await read_request(conn, reader, self.config.idle_timeout_s)
            if incoming is None:
                return
            if incoming.refusal is not None:
                await self._send(writer, closing(*self._refuse(incoming, incoming.refusal)))
                if too_large(incoming.refusal):  # the client may still be sending its body
                    await discard_rest(reader, self.config.idle_timeout_s)
                return
            status, payload = await self._answer(incoming)
            if status == 429:
                await self._send(writer, closing(status, payload))
                return
            await self._send(writer, framed(conn, status, payload))
            if conn.our_state is not h11.DONE or conn.their_state is not h11.DONE:
                return
            conn.start_next_cycle()

    async def _send(self, writer: asyncio.StreamWriter, data: bytes) -> None:
        """Write an answer; a client that does not read it is dropped after the timeout."""
        writer.write(data)
        async with asyncio.timeout(self.config.idle_timeout_s):
            await writer.drain()

    def _refuse(self, incoming: Incoming, refusal: tuple[int, bytes]) -> tuple[int, bytes]:
        """Count a refusal; log it (truncated) while the refusal budget lasts, then 429."""
        self.refused += 1
        if self.refused > self.config.refusal_budget:
            self.unlogged += 1
            budget = self.config.refusal_budget
            return error(429, f"more than {budget} requests refused: the gateway stops answering")
        status, answer = refusal
        if self.config.texts_withheld:
            head = digest.request_head(incoming.method, incoming.target)
            request = {**head, "body_bytes": incoming.size}
        else:
            request = incoming.logged()
        self._log("refused", request, status, answer, time.monotonic())
        return status, answer

    async def _answer(self, incoming: Incoming) -> tuple[int, bytes]:
        started = time.monotonic()
        config = self.config
        if incoming.method != "POST" or not incoming.target.endswith("/chat/completions"):
            return self._refuse(
                incoming, error(404, "the gateway serves POST /v1/chat/completions only")
            )
        try:
            chat = parse_request(incoming.body, config.models, config.max_tokens)
        except BadRequest as exc:
            return self._refuse(incoming, error(exc.status, str(exc)))
        if self.forwarded >= config.budget:
            reason = (
                f"the run's request budget of {config.budget} is spent; a method that makes "
                "more requests per entry needs a larger --mteval-gateway-requests"
            )
            return self._refuse(incoming, error(403, reason))
        self.forwarded += 1
        sent = chat.body()
        status, answer = await self._forward(sent)
        if config.texts_withheld:
            request = digest.forwarded_request(incoming.method, incoming.target, sent, chat.model)
        else:
            request = {**_head(incoming), "body": chat.logged()}
        self._log("forwarded", request, status, answer, started)
        return status, answer

    def _log(
        self, outcome: str, request: dict[str, Any], status: int, answer: bytes, started: float
    ) -> None:
        self.log.append(
            {
                "time": dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds"),
                "outcome": outcome,
                "request": request,
                "response": (
                    digest.answer(status, answer)
                    if self.config.texts_withheld
                    else {"status": status, "body": _as_json(answer)}
                ),
                "latency_ms": round((time.monotonic() - started) * 1000, 3),
            }
        )

    async def _forward(self, body: bytes) -> tuple[int, bytes]:
        assert self._upstream is not None
        assert self._limit is not None
        headers = {"content-type": "application/json"}
        if self.config.api_key:
            headers["authorization"] = f"Bearer {self.config.api_key}"
        try:
            async with self._limit:
                status, answer = await self._upstream.post("chat/completions", body, headers)
        except UpstreamError as exc:
            return error(502, f"gateway: upstream request failed ({exc})")
        except TimeoutError:
            waited = f"{self.config.timeout_s:g}s"
            return error(504, f"gateway: upstream did not answer within {waited}")
        return status, self._keys.scrub(answer)  # an upstream that echoes the key


def _head(incoming: Incoming) -> dict[str, Any]:
    return {"method": incoming.method, "path": incoming.target}


def _as_json(data: bytes) -> Any:
    try:
        return json.loads(data)
    except (ValueError, RecursionError):
        return data.decode("utf-8", "replace")
