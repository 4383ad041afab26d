"""The LLM gateway (spec §8.6): the sandbox's only way out.

An OpenAI-compatible ``POST /v1/chat/completions`` endpoint on a Unix socket that the harness
serves and bind-mounts into the sandbox. It forwards to the run's upstream ``base_url`` only,
only for the model slugs the method's manifest declares (a ``gateway`` dependency's
``source: provider:slug``; ``provider:<configurable>`` admits the run's ``--mteval-model``),
adds the API key itself (the method never holds one), keeps at most ``concurrency`` requests
upstream and at most ``budget`` in all, and appends every request and answer, refused ones
included, to a hash-chained audit log. Everything else gets a 4xx with the reason.
HTTP/1.1 is parsed by h11, on both sides (``upstream.py``).
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
from pytest_mteval.run.audit_log import AuditLog
from pytest_mteval.run.upstream import Upstream, UpstreamError

#: A request body larger than this is refused (413).
MAX_BODY_BYTES = 8 * 1024 * 1024


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


class Gateway:
    """Serves on ``socket_path`` from a thread of its own; ``close()`` stops it."""

    def __init__(self, config: GatewayConfig, socket_path: Path, log: AuditLog) -> None:
        self.config = config
        self.socket_path = socket_path
        self.log = log
        self.forwarded = 0
        self.refused = 0
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
            self._upstream.close()
            await asyncio.sleep(0)  # let the transports finish closing

    def summary(self) -> dict[str, Any]:
        """What the run card records about the gateway."""
        return {
            "audit_log": str(self.log.path),
            "head_sha256": self.log.head,
            "lines": self.log.count,
            "forwarded": self.forwarded,
            "refused": self.refused,
            "upstream": self.config.upstream,
            "allowed_models": self.config.models,
            "budget": self.config.budget,
        }

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        conn = h11.Connection(h11.SERVER)
        task = asyncio.current_task()
        if task is not None:
            self._clients.add(task)
        try:
            while True:
                request, body = await self._read_request(conn, reader)
                if request is None:
                    break
                status, payload = await self._answer(request, body)
                self._write(conn, writer, status, payload)
                await writer.drain()
                if conn.our_state is not h11.DONE or conn.their_state is not h11.DONE:
                    break
                conn.start_next_cycle()
        except (h11.ProtocolError, ConnectionError, asyncio.IncompleteReadError):
            pass
        except asyncio.CancelledError:
            pass  # the gateway is closing
        finally:
            writer.close()
            if task is not None:
                self._clients.discard(task)

    async def _read_request(
        self, conn: h11.Connection, reader: asyncio.StreamReader
    ) -> tuple[h11.Request | None, bytes]:
        request: h11.Request | None = None
        body = bytearray()
        while True:
            event = conn.next_event()
            if event is h11.NEED_DATA:
                data = await reader.read(65536)
                conn.receive_data(data)
                continue
            if isinstance(event, h11.Request):
                request = event
            elif isinstance(event, h11.Data):
                body += event.data
                if len(body) > MAX_BODY_BYTES:
                    raise h11.ProtocolError("body too large")
            elif isinstance(event, h11.EndOfMessage):
                return request, bytes(body)
            else:  # ConnectionClosed, or a client that hung up
                return None, b""

    def _write(
        self, conn: h11.Connection, writer: asyncio.StreamWriter, status: int, payload: bytes
    ) -> None:
        headers = [("content-type", "application/json"), ("content-length", str(len(payload)))]
        writer.write(conn.send(h11.Response(status_code=status, headers=headers)) or b"")
        writer.write(conn.send(h11.Data(data=payload)) or b"")
        writer.write(conn.send(h11.EndOfMessage()) or b"")

    async def _answer(self, request: h11.Request, body: bytes) -> tuple[int, bytes]:
        started = time.monotonic()
        target = request.target.decode("ascii", "replace")
        refusal, parsed = self._check(request, target, body)
        if refusal is not None:
            self.refused += 1
            status, answer = refusal
        else:
            self.forwarded += 1
            status, answer = await self._forward(body)
        self.log.append(
            {
                "time": dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds"),
                "outcome": "refused" if refusal else "forwarded",
                "request": {"method": request.method.decode(), "path": target, "body": parsed},
                "response": {"status": status, "body": _as_json(answer)},
                "latency_ms": round((time.monotonic() - started) * 1000, 3),
            }
        )
        return status, answer

    def _check(
        self, request: h11.Request, target: str, body: bytes
    ) -> tuple[tuple[int, bytes] | None, Any]:
        parsed = _as_json(body)
        if request.method != b"POST" or not target.rstrip("/").endswith("/chat/completions"):
            return _error(404, "the gateway serves POST /v1/chat/completions only"), parsed
        if not isinstance(parsed, dict):
            return _error(400, "the request body is not a JSON object"), parsed
        if parsed.get("stream"):
            return _error(400, "the gateway does not stream: send stream=false"), parsed
        model = parsed.get("model")
        if model not in self.config.models:
            allowed = ", ".join(self.config.models) or "none"
            reason = (
                f"model {model!r} is not declared in the method's manifest (allowed: {allowed})"
            )
            return _error(403, reason), parsed
        if self.forwarded >= self.config.budget:
            return _error(403, f"the run's request budget of {self.config.budget} is spent"), parsed
        return None, parsed

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
            return _error(502, f"gateway: upstream request failed ({exc})")
        except TimeoutError:
            waited = f"{self.config.timeout_s:g}s"
            return _error(504, f"gateway: upstream did not answer within {waited}")
        key = self.config.api_key.encode()
        if key and key in answer:  # an upstream that echoes the key does not pass it on
            answer = answer.replace(key, b"***")
        return status, answer


def _error(status: int, message: str) -> tuple[int, bytes]:
    body = {"error": {"message": message, "type": "mteval_gateway", "code": status}}
    return status, json.dumps(body).encode()


def _as_json(data: bytes) -> Any:
    try:
        return json.loads(data)
    except (ValueError, RecursionError):
        return data.decode("utf-8", "replace")
