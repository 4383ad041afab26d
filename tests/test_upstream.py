"""The gateway's client to its upstream (run/gateway_upstream.py), against loopback servers."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from chat_server import ChatServer, Reply

from pytest_mteval.run import gateway_upstream
from pytest_mteval.run.gateway_upstream import Upstream, UpstreamError

BODY = json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]}).encode()
HEADERS = {"content-type": "application/json", "authorization": "Bearer sk-gateway"}


@pytest.fixture
def server() -> Iterator[ChatServer]:
    with ChatServer() as running:
        yield running


def post(base_url: str, timeout_s: float = 10.0) -> tuple[int, bytes]:
    async def once() -> tuple[int, bytes]:
        client = Upstream(base_url, timeout_s)
        try:
            return await client.post("chat/completions", BODY, HEADERS)
        finally:
            await client.aclose()

    return asyncio.run(once())


def test_only_the_gateways_headers_go_out_whatever_the_environment(
    server: ChatServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    dead = "http://127.0.0.1:9"
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "all_proxy"):
        monkeypatch.setenv(name, dead)
    netrc = tmp_path / "netrc"
    netrc.write_text("machine 127.0.0.1 login someone password netrc-secret\n")
    monkeypatch.setenv("NETRC", str(netrc))
    status, answer = post(server.url.replace("://", "://user:url-secret@"))
    assert status == 200
    assert json.loads(answer)["choices"][0]["message"]["content"] == "<tr>hi</tr>"
    (seen,) = server.requests
    assert seen.path == "/v1/chat/completions"
    assert set(seen.headers) == {"host", "content-length", "content-type", "authorization"}
    assert seen.headers["authorization"] == "Bearer sk-gateway"  # not the URL's nor netrc's
    assert seen.headers["host"] == f"127.0.0.1:{server.port}"
    assert seen.raw_body == BODY


def test_an_answer_past_the_limit_is_an_error(
    server: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(gateway_upstream, "MAX_RESPONSE_BYTES", 100)
    server.script(Reply.error(500, body="x" * 101))
    with pytest.raises(UpstreamError, match="response too large"):
        post(server.url)
    server.script(Reply.error(500, body="x" * 100))
    assert post(server.url) == (500, b"x" * 100)


def test_a_connection_closed_without_an_answer_is_not_sent_again(server: ChatServer) -> None:
    server.script(Reply.close())
    with pytest.raises(UpstreamError, match="connection closed"):
        post(server.url)
    assert len(server.requests) == 1  # the upstream may bill it: never twice


def test_the_whole_exchange_is_bounded_by_the_timeout(server: ChatServer) -> None:
    server.script(Reply.stall())
    with pytest.raises(TimeoutError):
        post(server.url, timeout_s=0.3)


def test_a_down_upstream_is_a_connect_failure() -> None:
    with ChatServer() as gone:
        url = gone.url
    with pytest.raises(UpstreamError, match=r"connect failed \(ConnectError\)"):
        post(url)


def test_not_an_http_url_is_refused() -> None:
    with pytest.raises(UpstreamError, match="not an http"):
        Upstream("ftp://example.invalid/v1", 1.0)


class ClosingUpstream:
    """Answers each request, keep-alive promised, then closes the connection (as an upstream
    closing idle connections does); counts connections and requests."""

    def __init__(self) -> None:
        self.connections = 0
        self.requests = 0
        self.closed = asyncio.Event()

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        head = await reader.readuntil(b"\r\n\r\n")
        length = next(
            int(line.split(b":")[1])
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length:")
        )
        await reader.readexactly(length)
        self.requests += 1
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok")
        await writer.drain()
        writer.close()
        await writer.wait_closed()
        self.closed.set()


def test_a_kept_alive_connection_the_upstream_closed_is_replaced_not_reused() -> None:
    async def scenario() -> tuple[list[tuple[int, bytes]], ClosingUpstream]:
        closing = ClosingUpstream()
        server = await asyncio.start_server(closing.serve, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        client = Upstream(f"http://127.0.0.1:{port}/v1", 10.0)
        answers = []
        for _ in range(3):
            closing.closed.clear()
            answers.append(await client.post("chat/completions", BODY, HEADERS))
            await closing.closed.wait()
            await asyncio.sleep(0.05)  # the close reaches the client's socket
        await client.aclose()
        server.close()
        await server.wait_closed()
        return answers, closing

    answers, closing = asyncio.run(scenario())
    assert answers == [(200, b"ok")] * 3
    assert (closing.connections, closing.requests) == (3, 3)
