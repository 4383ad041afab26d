"""A real chat-completions server on 127.0.0.1, for tests and benchmarks of the LLM client.

The client is tested against real sockets rather than a mocked httpx, so what breaks in
production (a 429 with Retry-After, a 500, a half-written body, a stall, a closed connection)
is reproduced byte for byte. Replies are scripted per request, in arrival order:

    with ChatServer(latency_s=0.05) as server:
        server.script(Reply.error(429, retry_after="1"), Reply.error(429))  # then OK
        server.responder = lambda body: Reply.error(500) if "dog" in str(body) else None
        ... client uses server.url ...
        assert server.max_in_flight <= 8

It speaks just enough HTTP/1.1 (Content-Length bodies, keep-alive) for httpx.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any

Translate = Callable[[list[dict[str, Any]]], str]
#: Picks a reply from the request body (e.g. fail only the entry whose source is "dog");
#: None falls through to the script, then to success.
Responder = Callable[[Any], "Reply | None"]


@dataclass(frozen=True)
class Reply:
    """What the server does with one request."""

    kind: str = "ok"  # ok | status | malformed | empty | stall | close
    status: int = 200
    text: str | None = None
    retry_after: str | None = None
    seconds: float = 0.0
    usage: dict[str, Any] | None = None
    body: str | None = None

    @classmethod
    def ok(cls, text: str | None = None, usage: dict[str, Any] | None = None) -> Reply:
        return cls("ok", text=text, usage=usage)

    @classmethod
    def error(cls, status: int, retry_after: str | None = None, body: str | None = None) -> Reply:
        return cls("status", status=status, retry_after=retry_after, body=body)

    @classmethod
    def malformed(cls) -> Reply:
        return cls("malformed")

    @classmethod
    def empty_choices(cls) -> Reply:
        return cls("empty")

    @classmethod
    def stall(cls, seconds: float = 3600.0) -> Reply:
        return cls("stall", seconds=seconds)

    @classmethod
    def close(cls) -> Reply:
        return cls("close")


@dataclass
class Seen:
    """One request as the server received it."""

    path: str
    headers: dict[str, str]
    raw_body: bytes
    body: Any
    received: float
    reply: Reply = field(default_factory=Reply)


def default_translate(messages: list[dict[str, Any]]) -> str:
    """Deterministic and visibly different from the source: the last user text, tagged."""
    last = next((m["content"] for m in reversed(messages) if m.get("role") == "user"), "")
    return f"<tr>{last}</tr>"


def default_usage(messages: list[dict[str, Any]], text: str) -> dict[str, Any]:
    """Whitespace tokens: easy to recompute in a test, independent of the client."""
    prompt = sum(len(str(m.get("content", "")).split()) for m in messages)
    return {
        "prompt_tokens": prompt,
        "completion_tokens": len(text.split()),
        "total_tokens": prompt + len(text.split()),
    }


class ChatServer:
    """A chat-completions endpoint on a free loopback port, served from a background thread."""

    def __init__(
        self,
        latency_s: float = 0.0,
        translate: Translate = default_translate,
        model_id: str | None = None,
        usage_extra: dict[str, Any] | None = None,
    ) -> None:
        self.latency_s = latency_s
        self.translate = translate
        self.model_id = model_id
        self.usage_extra = usage_extra or {}
        self.responder: Responder | None = None
        self.requests: list[Seen] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._script: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def script(self, *replies: Reply) -> None:
        """Queue replies for the next requests; when the queue is empty, requests succeed."""
        with self._lock:
            self._script.extend(replies)

    def __enter__(self) -> ChatServer:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(10)
        return self

    def __exit__(self, *exc_info: object) -> None:
        asyncio.run_coroutine_threadsafe(self._stop(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()

    async def _start(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0, backlog=2048)
        self.port = self._server.sockets[0].getsockname()[1]

    async def _stop(self) -> None:
        assert self._server is not None
        self._server.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    def _next_reply(self, body: Any) -> Reply:
        chosen = self.responder(body) if self.responder is not None else None
        if chosen is not None:
            return chosen
        with self._lock:
            return self._script.popleft() if self._script else Reply()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            while await self._one_exchange(reader, writer):
                pass
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass
        except asyncio.CancelledError:
            pass  # the server is stopping; asyncio's stream callback would log a cancelled task
        finally:
            self._tasks.discard(task)
            writer.close()

    async def _one_exchange(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> bool:
        """Read one request and answer it; False when the connection should end."""
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except asyncio.IncompleteReadError:
            return False
        lines = head.decode("latin-1").split("\r\n")
        path = lines[0].split(" ")[1]
        headers = {}
        for line in lines[1:]:
            name, sep, value = line.partition(":")
            if sep:
                headers[name.strip().lower()] = value.strip()
        raw = await reader.readexactly(int(headers.get("content-length", "0")))
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        reply = self._next_reply(body)
        with self._lock:
            self.requests.append(Seen(path, headers, raw, body, time.monotonic(), reply))
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            return await self._answer(reply, body, path, writer)
        finally:
            with self._lock:
                self.in_flight -= 1

    async def _answer(
        self, reply: Reply, body: Any, path: str, writer: asyncio.StreamWriter
    ) -> bool:
        if reply.kind == "close":
            return False
        if reply.kind == "stall":
            await asyncio.sleep(reply.seconds)
            return False
        if not path.endswith("/chat/completions") or not isinstance(body, dict):
            await _write(writer, 404, json.dumps({"error": {"message": "not found"}}))
            return True
        if reply.kind == "status":
            default = json.dumps({"error": {"message": HTTPStatus(reply.status).phrase}})
            extra = {"Retry-After": reply.retry_after} if reply.retry_after is not None else {}
            await _write(writer, reply.status, reply.body or default, extra)
            return True
        if self.latency_s:
            await asyncio.sleep(self.latency_s)
        if reply.kind == "malformed":
            await _write(writer, 200, '{"id": "x", "choices": [{"message": ')
            return True
        messages = body.get("messages") or []
        text = "" if reply.kind == "empty" else reply.text or self.translate(messages)
        usage = reply.usage or {**default_usage(messages, text), **self.usage_extra}
        choices = [] if reply.kind == "empty" else [_choice(text)]
        payload = {
            "id": f"chatcmpl-{len(self.requests)}",
            "object": "chat.completion",
            "model": self.model_id or body.get("model"),
            "choices": choices,
            "usage": usage,
        }
        await _write(writer, 200, json.dumps(payload))
        return True


def _choice(text: str) -> dict[str, Any]:
    return {
        "index": 0,
        "message": {"role": "assistant", "content": text},
        "finish_reason": "stop",
    }


async def _write(
    writer: asyncio.StreamWriter, status: int, body: str, extra: dict[str, str] | None = None
) -> None:
    data = body.encode("utf-8")
    head = [
        f"HTTP/1.1 {status} {HTTPStatus(status).phrase}",
        "Content-Type: application/json",
        f"Content-Length: {len(data)}",
        "Connection: keep-alive",
        *(f"{k}: {v}" for k, v in (extra or {}).items()),
    ]
    writer.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + data)
    await writer.drain()


def main() -> None:
    """Serve from a separate process (benchmarks): print the URL, serve until stdin closes."""
    import argparse
    import sys

    parser = argparse.ArgumentParser(description="loopback chat-completions server")
    parser.add_argument("--latency", type=float, default=0.0)
    args = parser.parse_args()
    with ChatServer(latency_s=args.latency) as server:
        print(server.url, flush=True)
        sys.stdin.read()


if __name__ == "__main__":
    main()
