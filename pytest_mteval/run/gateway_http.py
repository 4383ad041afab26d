"""The gateway's side of HTTP/1.1 on one connection: reading a request within its bounds (a
read deadline, a body cap checked against Content-Length before reading and while reading a
chunked body) and writing answers. Every way a request can be bad ends as a status and a
one-line reason, never as an exception out of the connection's task."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from http import HTTPStatus

import h11

#: A request body larger than this is refused (413).
MAX_BODY_BYTES = 8 * 1024 * 1024
#: What the audit log keeps of a refused request's body.
LOGGED_HEAD_BYTES = 512
#: After a 413, what is read and thrown away so that a client still sending its body can
#: finish and read the answer (a close with unread data would reset the connection).
MAX_DISCARDED_BYTES = 8 * MAX_BODY_BYTES


@dataclass
class Incoming:
    """One request read off a connection; ``refusal`` set when it cannot be served at all
    (the connection is closed after answering it)."""

    method: str = ""
    target: str = ""
    body: bytes = b""
    size: int = 0
    refusal: tuple[int, bytes] | None = None

    def logged(self) -> dict[str, object]:
        """The request as a refusal is logged: its first bytes and its size."""
        head = self.body[:LOGGED_HEAD_BYTES].decode("utf-8", "replace")
        where = {"method": self.method, "path": self.target}
        return {**where, "body_head": head, "body_bytes": self.size}


def error(status: int, message: str) -> tuple[int, bytes]:
    body = {"error": {"message": message, "type": "mteval_gateway", "code": status}}
    return status, json.dumps(body).encode()


async def read_request(
    conn: h11.Connection, reader: asyncio.StreamReader, timeout_s: float
) -> Incoming | None:
    """The next request, None when the client hung up or stayed silent past the deadline
    before sending anything."""
    incoming = Incoming()
    body = bytearray()
    started = False
    try:
        async with asyncio.timeout(timeout_s):
            while True:
                event = conn.next_event()
                if event is h11.NEED_DATA:
                    data = await reader.read(65536)
                    started = started or bool(data)
                    conn.receive_data(data)
                elif isinstance(event, h11.Request):
                    incoming.method = event.method.decode("ascii", "replace")
                    incoming.target = event.target.decode("ascii", "replace")
                    declared = _content_length(event)
                    if declared is not None and declared > MAX_BODY_BYTES:
                        incoming.size = declared
                        incoming.refusal = _too_large(f"Content-Length {declared}")
                        return incoming
                elif isinstance(event, h11.Data):
                    body += event.data
                    incoming.size = len(body)
                    if len(body) > MAX_BODY_BYTES:
                        incoming.body = bytes(body[:LOGGED_HEAD_BYTES])
                        incoming.refusal = _too_large(f"more than {len(body)} bytes")
                        return incoming
                elif isinstance(event, h11.EndOfMessage):
                    incoming.body = bytes(body)
                    return incoming
                else:  # ConnectionClosed
                    return None
    except TimeoutError:
        if not started and not body:
            return None
        incoming.refusal = error(408, f"the request was not received within {timeout_s:g}s")
    except h11.RemoteProtocolError as exc:
        status = exc.error_status_hint
        incoming.refusal = error(status, f"not an HTTP/1.1 request the gateway reads ({exc})")
    except (ConnectionError, asyncio.IncompleteReadError):
        return None
    incoming.body = bytes(body[:LOGGED_HEAD_BYTES])
    incoming.size = incoming.size or len(body)
    return incoming


async def discard_rest(reader: asyncio.StreamReader, timeout_s: float) -> None:
    """Read and drop what the client still sends, up to a bound, until it stops or closes:
    a lingering close, so the answer already written reaches a client still writing."""
    left = MAX_DISCARDED_BYTES
    try:
        async with asyncio.timeout(timeout_s):
            while left > 0:
                data = await reader.read(min(65536, left))
                if not data:
                    return
                left -= len(data)
    except (TimeoutError, ConnectionError):
        return


def too_large(refusal: tuple[int, bytes]) -> bool:
    return refusal[0] == 413


def _content_length(request: h11.Request) -> int | None:
    for name, value in request.headers:
        if name == b"content-length":
            return int(value)  # h11 has checked it is digits
    return None


def _too_large(what: str) -> tuple[int, bytes]:
    return error(413, f"request body of {what} is over the gateway's {MAX_BODY_BYTES} bytes")


def framed(conn: h11.Connection, status: int, payload: bytes) -> bytes:
    """An answer framed by h11, keeping the connection usable for the next request."""
    headers = [("content-type", "application/json"), ("content-length", str(len(payload)))]
    data = conn.send(h11.Response(status_code=status, headers=headers)) or b""
    data += conn.send(h11.Data(data=payload)) or b""
    return data + (conn.send(h11.EndOfMessage()) or b"")


def closing(status: int, payload: bytes) -> bytes:
    """An answer written whatever state the request's parsing reached; the connection is
    closed after it."""
    reason = HTTPStatus(status).phrase if status in HTTPStatus._value2member_map_ else ""
    head = (
        f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\n"
        f"content-length: {len(payload)}\r\nconnection: close\r\n\r\n"
    )
    return head.encode("ascii") + payload
