"""The gateway's client to its one upstream: HTTP/1.1 over kept-alive asyncio connections,
framed by h11, each request written in one piece.

httpx (used everywhere else) writes a request's head and body separately and costs about a
millisecond of CPU per request more; the gateway sits on every request of a sandboxed run, so
it speaks to its single upstream with this small client instead.
"""

from __future__ import annotations

import asyncio
import ssl
from dataclasses import dataclass
from urllib.parse import urlsplit

import h11

#: An upstream answer larger than this is cut off as an error.
MAX_RESPONSE_BYTES = 32 * 1024 * 1024


class UpstreamError(Exception):
    """The upstream could not be reached or answered something that is not HTTP."""


@dataclass
class _Connection:
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter


class Upstream:
    """POSTs to ``base_url`` + path over reused idle connections."""

    def __init__(self, base_url: str, timeout_s: float) -> None:
        parts = urlsplit(base_url.rstrip("/"))
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise UpstreamError(f"not an http(s) URL: {base_url!r}")
        self.host = parts.hostname
        self.port = parts.port or (443 if parts.scheme == "https" else 80)
        self.prefix = parts.path
        self.authority = parts.netloc.rpartition("@")[2]
        self.tls = ssl.create_default_context() if parts.scheme == "https" else None
        self.timeout_s = timeout_s
        self._idle: list[_Connection] = []

    async def post(self, path: str, body: bytes, headers: dict[str, str]) -> tuple[int, bytes]:
        """One request, never sent twice (the upstream may bill it): a kept-alive connection
        the upstream has closed is noticed before use, as httpcore does."""
        async with asyncio.timeout(self.timeout_s):
            connection = self._reusable() or await self._connect()
            try:
                return await self._exchange(connection, path, body, headers)
            except (OSError, asyncio.IncompleteReadError) as exc:
                connection.writer.close()
                raise UpstreamError(type(exc).__name__) from None
            except UpstreamError:
                connection.writer.close()
                raise

    def _reusable(self) -> _Connection | None:
        while self._idle:
            connection = self._idle.pop()
            if not connection.reader.at_eof() and not connection.writer.is_closing():
                return connection
            connection.writer.close()
        return None

    async def _connect(self) -> _Connection:
        try:
            reader, writer = await asyncio.open_connection(
                self.host, self.port, ssl=self.tls, server_hostname=self.host if self.tls else None
            )
        except OSError as exc:
            raise UpstreamError(f"connect failed ({type(exc).__name__})") from None
        return _Connection(reader, writer)

    async def _exchange(
        self, connection: _Connection, path: str, body: bytes, headers: dict[str, str]
    ) -> tuple[int, bytes]:
        conn = h11.Connection(h11.CLIENT)
        fields = [("host", self.authority), ("content-length", str(len(body)))]
        fields += list(headers.items())
        target = (self.prefix + "/" + path.lstrip("/")).encode()
        data = conn.send(h11.Request(method="POST", target=target, headers=fields)) or b""
        data += (conn.send(h11.Data(data=body)) or b"") + (conn.send(h11.EndOfMessage()) or b"")
        connection.writer.write(data)
        await connection.writer.drain()
        status = 0
        answer = bytearray()
        while True:
            event = conn.next_event()
            if event is h11.NEED_DATA:
                chunk = await connection.reader.read(65536)
                if not chunk and conn.their_state is h11.SEND_RESPONSE:
                    raise UpstreamError("connection closed before a response")
                conn.receive_data(chunk)
            elif isinstance(event, h11.Response):
                status = event.status_code
            elif isinstance(event, h11.Data):
                answer += event.data
                if len(answer) > MAX_RESPONSE_BYTES:
                    raise UpstreamError("response too large")
            elif isinstance(event, h11.EndOfMessage):
                break
            elif isinstance(event, h11.ConnectionClosed):
                raise UpstreamError("connection closed mid-response")
        if conn.our_state is h11.DONE and conn.their_state is h11.DONE:
            self._idle.append(connection)
        else:
            connection.writer.close()
        return status, bytes(answer)

    def close(self) -> None:
        for connection in self._idle:
            connection.writer.close()
        self._idle.clear()
