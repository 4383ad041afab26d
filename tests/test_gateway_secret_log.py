"""A secret run's gateway logs no text: a hostile method that hides a source in a refused
body, an unknown field, the URL path or the HTTP method, and an upstream error that quotes
the prompt, leave only sizes and hashes in the log, and the hashes are those of the bytes
that went over the wire (checked against what the chat server received and the client got)."""

from __future__ import annotations

import hashlib
import json
import socket

import httpx
import pytest
from chat_server import ChatServer, Reply

from pytest_mteval.run.gateway import Gateway, GatewayConfig
from pytest_mteval.run.gateway_audit_log import AuditLog, verify_log

SECRET = "Le dossier confidentiel de Mme Tremblay"


@pytest.fixture
def server():
    with ChatServer() as running:
        yield running


def _start(tmp_path, upstream, withheld):
    config = GatewayConfig(upstream, "", ["allowed/model"], 2, 10, 10.0, texts_withheld=withheld)
    log = AuditLog(tmp_path / "audit.jsonl")
    gateway = Gateway(config, tmp_path / "gw.sock", log).start()
    transport = httpx.HTTPTransport(uds=str(tmp_path / "gw.sock"))
    return gateway, httpx.Client(base_url="http://gateway/v1/", transport=transport)


def _raw(tmp_path, data: bytes) -> None:
    with socket.socket(socket.AF_UNIX) as sock:
        sock.connect(str(tmp_path / "gw.sock"))
        sock.sendall(data)
        sock.recv(65536)


def _exchange(tmp_path, server, withheld):
    server.script(Reply.ok(), Reply.error(500, body=json.dumps({"error": f"bad: {SECRET}"})))
    gateway, client = _start(tmp_path, server.url, withheld)
    body = {"model": "allowed/model", "messages": [{"role": "user", "content": SECRET}]}
    with client:
        ok = client.post("chat/completions", json=body)
        failed = client.post("chat/completions", json=body)
        client.post("chat/completions", json={**body, SECRET.replace(" ", "_"): 1})
        client.post(f"{SECRET.replace(' ', '-')}/chat/completions", content=b"{}")
    _raw(tmp_path, f"TRANSLATE{SECRET[:3]} / HTTP/1.1\r\nhost: x\r\n\r\n".encode())
    gateway.close()
    return gateway, ok, failed


def test_a_secret_gateway_logs_hashes_of_the_wire_bytes_and_no_text(tmp_path, server):
    gateway, ok, failed = _exchange(tmp_path, server, withheld=True)
    text = (tmp_path / "audit.jsonl").read_text("utf-8")
    for form in (SECRET, json.dumps(SECRET)[1:-1], SECRET.replace(" ", "_"), "Tremblay"):
        assert form not in text
    lines = [json.loads(line) for line in text.splitlines()]
    assert [line["outcome"] for line in lines] == ["forwarded"] * 2 + ["refused"] * 3
    sent = [hashlib.sha256(seen.raw_body).hexdigest() for seen in server.requests]
    assert [line["request"]["body_sha256"] for line in lines[:2]] == sent
    assert lines[0]["request"]["model"] == "allowed/model"
    assert lines[0]["request"]["path"] == "/v1/chat/completions"
    first, second = lines[0]["response"], lines[1]["response"]
    assert first["body_sha256"] == hashlib.sha256(ok.content).hexdigest()
    assert first["body_bytes"] == len(ok.content)
    assert first["usage"] == ok.json()["usage"]
    assert first["finish_reasons"] == [ok.json()["choices"][0]["finish_reason"]]
    assert second == {"status": 500, **_sized(failed.content)}
    assert "path" not in lines[3]["request"]
    assert len(lines[3]["request"]["path_sha256"]) == 64
    assert "method" not in lines[4]["request"]
    assert "method_sha256" in lines[4]["request"]
    assert gateway.summary()["bodies_logged"] == "sha256 and size only"
    assert verify_log(tmp_path / "audit.jsonl", gateway.log.head, 5).problems == []


def test_a_public_gateway_logs_the_bodies(tmp_path, server):
    gateway, _ok, _failed = _exchange(tmp_path, server, withheld=False)
    lines = [json.loads(line) for line in (tmp_path / "audit.jsonl").read_text().splitlines()]
    assert lines[0]["request"]["body"]["messages"][0]["content"] == SECRET
    assert SECRET in json.dumps(lines[1]["response"]["body"], ensure_ascii=False)
    assert SECRET.replace(" ", "_") in lines[2]["request"]["body_head"]
    assert gateway.summary()["bodies_logged"] == "in full"


def _sized(data: bytes) -> dict[str, object]:
    return {"body_bytes": len(data), "body_sha256": hashlib.sha256(data).hexdigest()}
