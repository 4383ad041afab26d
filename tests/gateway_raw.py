"""Raw HTTP/1.1 against the gateway's Unix socket, for the attack tests: bytes as an attacker
writes them (duplicate keys, pipelining, chunked bodies, half-open connections), answers read
back byte for byte. No client library normalises anything on the way."""

from __future__ import annotations

import contextlib
import json
import socket
from pathlib import Path
from typing import Any

from pytest_mteval.run.gateway import Gateway, GatewayConfig
from pytest_mteval.run.gateway_audit_log import AuditLog

KEY = "sk-gateway-attack-KEY-0123456789abcdef"
MODEL = "allowed/model"


def start(tmp_path: Path, upstream: str, **fields: Any) -> Gateway:
    config = GatewayConfig(upstream, KEY, [MODEL], 4, fields.pop("budget", 100), 10.0)
    for name, value in fields.items():
        setattr(config, name, value)
    return Gateway(config, tmp_path / "gw.sock", AuditLog(tmp_path / "audit.jsonl")).start()


def connect(gateway: Gateway, timeout: float = 10.0) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    sock.connect(str(gateway.socket_path))
    return sock


def request(body: bytes, path: str = "/v1/chat/completions", chunked: bool = False) -> bytes:
    head = f"POST {path} HTTP/1.1\r\nhost: gateway\r\ncontent-type: application/json\r\n"
    if chunked:
        return (head + "transfer-encoding: chunked\r\n\r\n").encode() + body
    return (head + f"content-length: {len(body)}\r\n\r\n").encode() + body


def chat_body(**extra: Any) -> dict[str, Any]:
    return {"model": MODEL, "messages": [{"role": "user", "content": "hello"}], **extra}


class Answer:
    def __init__(self, status: int, headers: dict[str, str], body: bytes) -> None:
        self.status = status
        self.headers = headers
        self.body = body

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")

    def json(self) -> Any:
        return json.loads(self.body)


class Reader:
    """Reads Content-Length framed answers off one socket, in order."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.buffer = b""

    def _fill(self) -> bool:
        data = self.sock.recv(65536)
        self.buffer += data
        return bool(data)

    def answer(self) -> Answer | None:
        """The next answer, or None when the gateway closed the connection first."""
        try:
            while b"\r\n\r\n" not in self.buffer:
                if not self._fill():
                    return None
            head, _, self.buffer = self.buffer.partition(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            status = int(lines[0].split()[1])
            headers = {}
            for line in lines[1:]:
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
            size = int(headers.get("content-length", "0"))
            while len(self.buffer) < size:
                if not self._fill():
                    return None
        except (ConnectionError, OSError):
            return None
        body, self.buffer = self.buffer[:size], self.buffer[size:]
        return Answer(status, headers, body)


def exchange(gateway: Gateway, data: bytes) -> Answer | None:
    with connect(gateway) as sock:
        # the gateway may answer and close before reading it all
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            sock.sendall(data)
        return Reader(sock).answer()


def post(gateway: Gateway, body: dict[str, Any]) -> Answer:
    answer = exchange(gateway, request(json.dumps(body).encode()))
    assert answer is not None
    return answer
