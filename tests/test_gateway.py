"""The LLM gateway on its own: a real Unix socket in front of the real loopback chat server."""

from __future__ import annotations

import json
import socket

import httpx
import pytest
from chat_server import ChatServer, Reply

from pytest_mteval.run.gateway import Gateway, GatewayConfig
from pytest_mteval.run.gateway_audit_log import AuditLog, verify_log

KEY = "sk-gateway-test-KEY-0123456789"


@pytest.fixture(autouse=True)
def clients():
    """Every client start() opens, closed at the end of the test."""
    yield OPENED
    while OPENED:
        OPENED.pop().close()


@pytest.fixture
def server():
    with ChatServer() as running:
        yield running


OPENED: list[httpx.Client] = []


def start(tmp_path, upstream, budget=100, models=("allowed/model",)):
    config = GatewayConfig(upstream, KEY, list(models), 4, budget, 10.0)
    gateway = Gateway(config, tmp_path / "gw.sock", AuditLog(tmp_path / "audit.jsonl")).start()
    client = httpx.Client(
        base_url="http://gateway/v1/", transport=httpx.HTTPTransport(uds=str(tmp_path / "gw.sock"))
    )
    OPENED.append(client)
    return gateway, client


def chat(client, model="allowed/model", **extra):
    body = {"model": model, "messages": [{"role": "user", "content": "hello"}], **extra}
    return client.post("chat/completions", json=body, headers={"authorization": "Bearer mine"})


def test_forwards_with_its_own_key_and_logs_the_exchange(tmp_path, server):
    gateway, client = start(tmp_path, server.url)
    answer = chat(client)
    assert answer.status_code == 200
    assert answer.json()["choices"][0]["message"]["content"] == "<tr>hello</tr>"
    (seen,) = server.requests
    assert seen.headers["authorization"] == f"Bearer {KEY}"  # not the method's "mine"
    gateway.close()
    (line,) = [json.loads(x) for x in (tmp_path / "audit.jsonl").read_text().splitlines()]
    assert line["outcome"] == "forwarded"
    assert line["request"]["body"]["messages"][0]["content"] == "hello"
    assert line["response"]["body"]["choices"][0]["message"]["content"] == "<tr>hello</tr>"
    assert verify_log(tmp_path / "audit.jsonl", gateway.log.head, 1).problems == []


def test_refuses_what_it_must_with_the_reason(tmp_path, server):
    gateway, client = start(tmp_path, server.url, budget=1)
    refused = chat(client, model="other/model")
    assert refused.status_code == 403
    assert "'other/model' is not declared in the method's manifest" in refused.text
    assert client.get("models").status_code == 404
    assert chat(client, stream=True).status_code == 400
    assert chat(client).status_code == 200
    spent = chat(client)
    assert spent.status_code == 403
    assert "request budget of 1 is spent" in spent.text
    assert len(server.requests) == 1
    gateway.close()
    log = (tmp_path / "audit.jsonl").read_text().splitlines()
    outcomes = [json.loads(line)["outcome"] for line in log]
    assert outcomes == ["refused", "refused", "refused", "forwarded", "refused"]
    assert (gateway.forwarded, gateway.refused) == (1, 4)


def test_an_upstream_echoing_the_key_does_not_pass_it_on(tmp_path, server):
    gateway, client = start(tmp_path, server.url)
    echo = json.dumps({"error": {"message": "x" * 300 + f" bad key {KEY}"}})
    server.script(Reply.error(401, body=echo))
    answer = chat(client)
    gateway.close()
    assert answer.status_code == 401
    assert KEY not in answer.text
    assert "bad key ***" in answer.text
    assert KEY not in (tmp_path / "audit.jsonl").read_text()


def test_an_upstream_that_closes_or_is_down_is_a_502(tmp_path, server):
    gateway, client = start(tmp_path, server.url)
    assert chat(client).status_code == 200
    server.script(Reply.close())  # drops the kept-alive connection mid-request
    assert chat(client).status_code == 502
    assert chat(client).status_code == 200  # a fresh connection next time
    gateway.close()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # nothing listens there once closed
    gateway, client = start(tmp_path / "down", f"http://127.0.0.1:{port}/v1")
    down = chat(client)
    gateway.close()
    assert down.status_code == 502
    assert "upstream request failed" in down.text
