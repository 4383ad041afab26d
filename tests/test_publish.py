"""``mteval publish`` against a real HTTP server on 127.0.0.1 (http.server, real sockets)."""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from leaderboard_cards import copy_cards, load

from pytest_mteval.cards import runcard
from pytest_mteval.cards.publish import METHOD_CONFIG_FIELDS, PublishError, publish
from pytest_mteval.cli.main import main


class Leaderboard(ThreadingHTTPServer):
    """Answers each POST with the next scripted (status, body[, headers]), then 201; records
    requests and when each arrived."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.script: deque[tuple[int, str] | tuple[int, str, dict[str, str]]] = deque()
        self.received: list[tuple[dict, dict]] = []
        self.arrived: list[float] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/api/run-cards"


class Handler(BaseHTTPRequestHandler):
    server: Leaderboard

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.received.append((dict(self.headers), body))
        self.server.arrived.append(time.monotonic())
        status, text, *more = self.server.script.popleft() if self.server.script else (201, "{}")
        data = text.encode()
        self.send_response(status)
        for name, value in (more[0] if more else {}).items():
            self.send_header(name, value)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def server():
    srv = Leaderboard()
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()


@pytest.fixture
def card_path(tmp_path):
    return copy_cards(tmp_path, "gpt55")["gpt55"]


def test_posts_the_card_with_its_method_config(server, card_path, capsys):
    server.script.extend([(503, "busy"), (502, "bad gateway")])
    assert main(["publish", str(card_path), "--url", server.url]) == 0
    assert "HTTP 201" in capsys.readouterr().out
    assert len(server.received) == 3  # two retries, then accepted
    _, body = server.received[-1]
    config = body.pop("method_config")
    assert tuple(config) == METHOD_CONFIG_FIELDS
    card = load(card_path)
    assert body == card
    runcard.verify(body, card_path)  # the card itself arrives intact
    assert config["model"] == card["model_slug"] == "openai/gpt-5.5"
    assert config["temperature"] == card["temperature"]
    assert config["batchSize"] == card["batch_size"]
    assert config["qualityTier"] == card["scores"]["quality_tier"]
    assert config["coachingPrompt"] is False
    assert config["coachingFile"] is None


def test_a_refusal_is_one_clear_line_without_the_token(server, card_path, capsys, monkeypatch):
    monkeypatch.setenv("LB_TOKEN", "s3cret-token")
    server.script.append((401, '{"error": "bad token s3cret-token"}'))
    assert main(["publish", str(card_path), "--url", server.url, "--token-env", "LB_TOKEN"]) == 1
    out = capsys.readouterr().out
    assert out.startswith(f"mteval publish: {server.url}: HTTP 401 after 1 attempt(s)")
    assert "s3cret-token" not in out
    assert "[redacted]" in out
    assert len(server.received) == 1  # a 401 is not retried
    assert server.received[0][0]["Authorization"] == "Bearer s3cret-token"


def test_a_dead_server_fails_after_the_retries(card_path):
    srv = Leaderboard()
    url = srv.url
    srv.server_close()  # nothing listens on that port any more
    with pytest.raises(PublishError, match=r"ConnectError after 3 attempts"):
        publish(load(card_path), url, retries=2, backoff_s=0.01)


def test_a_forged_card_is_not_published(server, card_path, capsys):
    card = load(card_path)
    card["scores"]["composite"] = 0.99
    card_path.write_text(json.dumps(card))
    assert main(["publish", str(card_path), "--url", server.url]) == 1
    assert "run_card_hash does not match" in capsys.readouterr().out
    assert server.received == []


def http_date(seconds_ahead: float) -> str:
    """An RFC 9110 HTTP-date that far ahead (whole seconds: it is at least that minus 1 away)."""
    return format_datetime(datetime.now(UTC) + timedelta(seconds=seconds_ahead), usegmt=True)


@pytest.mark.parametrize(
    ("status", "retry_after", "at_least_s"),
    [(429, "0.3", 0.3), (503, "0.3", 0.3), (429, "date", 0.9), (503, "date", 0.9)],
)
def test_retry_after_is_honoured_in_both_forms(server, card_path, status, retry_after, at_least_s):
    header = http_date(2) if retry_after == "date" else retry_after
    server.script.append((status, "slow down", {"Retry-After": header}))
    response = publish(load(card_path), server.url, backoff_s=0.01)
    assert response.status_code == 201
    first, second = server.arrived
    assert second - first >= at_least_s  # backoff alone would have waited 0.01 s


def test_a_retry_after_beyond_the_cap_waits_the_cap(server, card_path):
    server.script.append((503, "down for the night", {"Retry-After": http_date(3600)}))
    server.script.append((429, "slow down", {"Retry-After": "3600"}))
    response = publish(load(card_path), server.url, backoff_s=0.01, retry_after_max_s=0.05)
    assert response.status_code == 201
    assert len(server.received) == 3


def test_retries_that_run_out_name_the_last_status(server, card_path):
    server.script.extend([(503, "busy", {"Retry-After": "0"})] * 3)
    with pytest.raises(PublishError, match=r"HTTP 503 after 3 attempt\(s\): busy"):
        publish(load(card_path), server.url, retries=2, backoff_s=0.01)
    assert len(server.received) == 3
