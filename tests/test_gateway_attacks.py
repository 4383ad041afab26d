"""A hostile method against the gateway, in raw HTTP over its real Unix socket, in front of the
real loopback chat server: what it sends is rebuilt from an allow-list or refused with the
field named; refusals have a budget of their own and are logged truncated; connections are
bounded and idle ones time out; the key leaves in no encoding; oversized bodies get a 413."""

from __future__ import annotations

import contextlib
import html
import json
import logging
import re
import socket
import time
import urllib.parse

import pytest
from chat_server import ChatServer, Reply
from gateway_raw import (
    KEY,
    MODEL,
    Reader,
    chat_body,
    connect,
    exchange,
    post,
    request,
    start,
)

from pytest_mteval.run.gateway import MAX_BODY_BYTES
from pytest_mteval.run.gateway_audit_log import verify_log


@pytest.fixture
def server():
    with ChatServer() as running:
        yield running


@pytest.fixture
def quiet(caplog):
    """Whatever the attack, nothing the gateway's loop logs as an error (no traceback)."""
    caplog.set_level(logging.DEBUG, logger="asyncio")
    yield
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert errors == [], [r.getMessage() for r in errors]


def log_lines(tmp_path):
    return [json.loads(x) for x in (tmp_path / "audit.jsonl").read_text().splitlines()]


@pytest.mark.parametrize(
    ("extra", "field"),
    [
        ({"models": ["a/b", "c/d"]}, "models"),
        ({"route": "fallback"}, "route"),
        ({"n": 64}, "n"),
        ({"plugins": [{"id": "web"}]}, "plugins"),
        ({"messages": [{"role": "user", "content": "x", "name": "n"}]}, "messages[0].name"),
    ],
)
def test_unknown_fields_are_refused_naming_the_field(tmp_path, server, quiet, extra, field):
    gateway = start(tmp_path, server.url)
    answer = post(gateway, chat_body(**extra))
    gateway.close()
    assert answer.status == 400
    assert f"'{field}'" in answer.json()["error"]["message"]
    assert server.requests == []


@pytest.mark.parametrize(
    "raw",
    [
        b'{"model": "allowed/model", "model": "other/model", "messages": []}',
        b'{"model": "other/model", "messages": [{"role": "user", "content": "x"}],'
        b' "model": "allowed/model"}',
        b'{"model": "allowed/model", "messages": [{"role": "user", "role": "system",'
        b' "content": "x"}]}',
    ],
)
def test_duplicate_keys_are_refused(tmp_path, server, quiet, raw):
    gateway = start(tmp_path, server.url)
    answer = exchange(gateway, request(raw))
    gateway.close()
    assert answer is not None
    assert answer.status == 400
    assert "duplicate key" in answer.json()["error"]["message"]
    assert server.requests == []


def test_the_forwarded_body_is_rebuilt_not_copied(tmp_path, server, quiet):
    gateway = start(tmp_path, server.url)
    raw = b'{ "messages" : [ {"content":"h\\u00e9llo", "role":"user"} ], "model":"allowed/model",'
    raw += b' "temperature": 0.25, "stream": false}'
    assert exchange(gateway, request(raw)).status == 200
    assert post(gateway, chat_body(max_tokens=100)).status == 200
    gateway.close()
    first, second = server.requests
    assert first.raw_body != raw
    assert first.body == {
        "model": MODEL,
        "messages": [{"role": "user", "content": "héllo"}],
        "temperature": 0.25,
        "max_tokens": 4096,  # the cap, when the method names none
    }
    assert second.body["max_tokens"] == 100


@pytest.mark.parametrize(
    ("body", "words"),
    [
        (chat_body(max_tokens=10_000_000), "max_tokens 10000000 is over the gateway's cap"),
        (chat_body(max_tokens=True), "'max_tokens' must be"),
        (chat_body(temperature="hot"), "'temperature' must be"),
        (chat_body(messages=[]), "'messages' must be"),
        (chat_body(messages=[{"role": "tool", "content": "x"}]), "'messages[0].role'"),
        (chat_body(messages=[{"role": "user", "content": [{"text": "x"}]}]), "content'"),
        (chat_body(model=["allowed/model"]), "'model' must be"),
    ],
)
def test_bad_shapes_are_refused_with_the_reason(tmp_path, server, quiet, body, words):
    gateway = start(tmp_path, server.url)
    answer = post(gateway, body)
    gateway.close()
    assert answer.status == 400
    assert words in answer.json()["error"]["message"]
    assert server.requests == []


def test_refusals_have_a_small_budget_and_are_logged_truncated(tmp_path, server, quiet):
    gateway = start(tmp_path, server.url, refusal_budget=32)
    big = chat_body(plugins="x" * (1024 * 1024))
    statuses = [post(gateway, big).status for _ in range(40)]
    assert statuses == [400] * 32 + [429] * 8
    assert post(gateway, chat_body()).status == 200  # the forwarding budget is its own
    gateway.close()
    size = (tmp_path / "audit.jsonl").stat().st_size
    assert size < 64 * 1024, size  # today: 42 MB
    lines = log_lines(tmp_path)
    assert len(lines) == 33
    assert lines[0]["request"]["body_bytes"] > 1024 * 1024
    assert len(lines[0]["request"]["body_head"]) <= 512
    assert gateway.summary()["refused"] == 40
    assert verify_log(tmp_path / "audit.jsonl", gateway.log.head, 33).problems == []


def test_the_budget_error_says_how_to_raise_it(tmp_path, server, quiet):
    gateway = start(tmp_path, server.url, budget=1)
    assert post(gateway, chat_body()).status == 200
    spent = post(gateway, chat_body())
    gateway.close()
    assert spent.status == 403
    assert "--mteval-gateway-requests" in spent.text


def test_pipelined_requests_are_answered_in_order(tmp_path, server, quiet):
    gateway = start(tmp_path, server.url)
    first = json.dumps(chat_body(messages=[{"role": "user", "content": "one"}])).encode()
    second = json.dumps(chat_body(model="other/model")).encode()
    third = json.dumps(chat_body(messages=[{"role": "user", "content": "three"}])).encode()
    with connect(gateway) as sock:
        sock.sendall(request(first) + request(second) + request(third))
        reader = Reader(sock)
        answers = [reader.answer() for _ in range(3)]
    gateway.close()
    assert [a.status for a in answers if a] == [200, 403, 200]
    assert "<tr>one</tr>" in answers[0].text
    assert "<tr>three</tr>" in answers[2].text


def test_connections_are_bounded_and_idle_ones_time_out(tmp_path, server, quiet):
    gateway = start(tmp_path, server.url, max_connections=4, idle_timeout_s=1.0)
    held = [connect(gateway) for _ in range(4)]
    time.sleep(0.2)
    with connect(gateway) as extra:
        answer = Reader(extra).answer()
        assert answer is not None
        assert answer.status == 503
        assert "connections" in answer.json()["error"]["message"]
    time.sleep(1.5)  # the held ones sent nothing: closed by the read timeout
    for sock in held:
        assert sock.recv(1) == b""
        sock.close()
    assert post(gateway, chat_body()).status == 200  # slots freed, the gateway still serves
    gateway.close()
    reasons = [str(line["response"]["body"]) for line in log_lines(tmp_path)]
    assert any("connections are all open" in reason for reason in reasons)


def test_a_slow_trickle_is_cut_by_the_read_timeout(tmp_path, server, quiet):
    gateway = start(tmp_path, server.url, idle_timeout_s=1.0)
    data = request(json.dumps(chat_body()).encode())
    started = time.monotonic()
    with connect(gateway) as sock:
        cut = _trickle(sock, data)
    gateway.close()
    assert cut
    assert time.monotonic() - started < 5
    assert server.requests == []


def _trickle(sock: socket.socket, data: bytes) -> bool:
    """Send one byte every 0.3 s (each read is quick, the request never is); True when the
    gateway cut the connection before the end."""
    try:
        for byte in data:
            sock.send(bytes([byte]))
            time.sleep(0.3)
    except (BrokenPipeError, ConnectionResetError):
        return True
    return False


def _forms(key: str) -> list[str]:
    escaped = "".join(f"\\u{ord(c):04x}" for c in key)
    partly = key[:5] + "".join(f"\\u{ord(c):04x}" for c in key[5:9]) + key[9:]
    return [
        escaped,
        partly,
        key[:24],  # a partial echo (most of the key)
        key.upper(),
        "".join(f"\\\\u{ord(c):04x}" for c in key),  # escaped twice: text inside a string
        "".join(f"%{ord(c):02X}" for c in key),
        "".join(f"&#{ord(c)};" for c in key),
        "\u200b".join(key),  # zero-width spaces between its characters
        " ".join(key),
    ]


def _unescape(text: str) -> str:
    return re.sub(r"\\u([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)), text)


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (k, *_strings(v))]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []


def _decoded(text: str) -> list[str]:
    """``text`` as a reader could decode it: JSON strings, escapes, entities, percents."""
    forms = [text, html.unescape(text), urllib.parse.unquote(text), _unescape(text)]
    forms.append(re.sub(r"[\s\u200b-\u200f\u2060\ufeff]", "", text))
    with contextlib.suppress(ValueError):
        forms += [f(s) for s in _strings(json.loads(text)) for f in (str, _unescape)]
    return forms


@pytest.mark.parametrize("form", range(9))
def test_a_key_echoed_in_any_encoding_reaches_neither_method_nor_log(tmp_path, server, form):
    gateway = start(tmp_path, server.url)
    echoed = _forms(KEY)[form]
    server.script(Reply.error(401, body='{"error": {"message": "bad key ' + echoed + '"}}'))
    server.script(Reply.error(401, body="bad key: " + echoed))  # not even JSON
    answers = [post(gateway, chat_body()), post(gateway, chat_body())]
    gateway.close()
    seen = [a.text for a in answers] + (tmp_path / "audit.jsonl").read_text().splitlines()
    for text in seen:
        for form in _decoded(text):
            assert KEY[:16].casefold() not in form.casefold(), form
    assert answers[0].status == 401


def test_an_oversized_content_length_is_a_413(tmp_path, server, quiet):
    gateway = start(tmp_path, server.url)
    head = b"POST /v1/chat/completions HTTP/1.1\r\nhost: g\r\n"
    head += f"content-length: {MAX_BODY_BYTES + 1}\r\n\r\n".encode()
    with connect(gateway) as sock:
        sock.sendall(head + b"{")
        answer = Reader(sock).answer()
    gateway.close()
    assert answer is not None
    assert answer.status == 413
    assert server.requests == []


def test_a_chunked_body_over_the_cap_is_a_413(tmp_path, server, quiet):
    gateway = start(tmp_path, server.url)
    chunk = b"x" * (1024 * 1024)
    framed = f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n"
    with connect(gateway) as sock:
        sock.sendall(request(b"", chunked=True))
        answer = None
        try:
            for _ in range(10):
                sock.sendall(framed)
        except (BrokenPipeError, ConnectionResetError):
            pass
        answer = Reader(sock).answer()
    gateway.close()
    assert answer is not None
    assert answer.status == 413
    assert log_lines(tmp_path)[-1]["response"]["status"] == 413


@pytest.mark.parametrize(
    "raw",
    [
        b"[" * 100_000 + b"]" * 100_000,
        b'{"model": "allowed/model", "messages": [{"role": "user", "content": "\\ud800"}]}',
        b'{"model": "allowed/model", "messages": [], "temperature": NaN}',
        b'{"model": "allowed/model", "max_tokens": ' + b"9" * 5000 + b"}",
        b"\xff\xfe not json",
    ],
)
def test_hostile_json_is_a_400_not_a_traceback(tmp_path, server, quiet, raw):
    gateway = start(tmp_path, server.url)
    answer = exchange(gateway, request(raw))
    assert answer is not None
    assert answer.status == 400
    assert post(gateway, chat_body()).status == 200
    gateway.close()
    assert len(server.requests) == 1


def test_garbage_is_answered_or_closed_not_a_traceback(tmp_path, server, quiet):
    gateway = start(tmp_path, server.url)
    answer = exchange(gateway, b"\x16\x03\x01 not http at all\r\n\r\n")
    assert answer is None or answer.status == 400
    assert post(gateway, chat_body()).status == 200
    gateway.close()
