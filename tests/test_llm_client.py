"""The chat-completions client against a real HTTP server on 127.0.0.1 (no mocked httpx)."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest
from chat_server import ChatServer, Reply

from pytest_mteval.llm.client import (
    ChatClient,
    ChatSettings,
    Completion,
    LLMConfigError,
    parse_retry_after,
    parse_usage,
)
from pytest_mteval.methods.protocol import RunConfig

FAKE_KEY = "sk-or-v1-FAKEKEY-7f3a9c1e-do-not-leak"
KEY_ENV = "MTEVAL_TEST_API_KEY"
ENV = {KEY_ENV: FAKE_KEY}
HELLO = [{"role": "user", "content": "good morning friend"}]


@pytest.fixture
def server() -> Iterator[ChatServer]:
    with ChatServer() as running:
        yield running


def settings(server: ChatServer, **changes: object) -> ChatSettings:
    base = ChatSettings(
        model="vendor/model-x",
        base_url=server.url,
        api_key_env=KEY_ENV,
        timeout_s=5.0,
        concurrency=4,
        backoff_base_s=0.01,
        backoff_max_s=0.05,
    )
    return replace(base, **changes)  # type: ignore[arg-type]


async def complete(cfg: ChatSettings, messages: list[dict[str, str]] = HELLO) -> Completion:
    async with ChatClient(cfg, environ=ENV) as client:
        return await asyncio.wait_for(client.complete(messages), 30)


@pytest.mark.asyncio
async def test_success_records_text_usage_model_and_key_header(server: ChatServer) -> None:
    server.model_id = "vendor/model-x-20261001"
    server.usage_extra = {
        "completion_tokens_details": {"reasoning_tokens": 7},
        "prompt_tokens_details": {"cached_tokens": 2},
        "cost": 0.00042,
    }
    result = await complete(settings(server))
    assert result.error is None
    assert result.text == "<tr>good morning friend</tr>"
    assert result.model_id == "vendor/model-x-20261001"
    # The server counts whitespace tokens: 3 prompt words, 3 completion words.
    assert result.usage == {
        "prompt_tokens": 3,
        "completion_tokens": 3,
        "reasoning_tokens": 7,
        "cached_tokens": 2,
    }
    assert result.reported_cost_usd == pytest.approx(0.00042)
    assert result.attempts == 1
    assert result.latency_s > 0
    (seen,) = server.requests
    assert seen.path == "/v1/chat/completions"
    assert seen.headers["authorization"] == f"Bearer {FAKE_KEY}"
    assert seen.body == {"model": "vendor/model-x", "messages": HELLO, "temperature": 0.0}


@pytest.mark.asyncio
async def test_429_is_retried_and_retry_after_is_honoured(server: ChatServer) -> None:
    server.script(Reply.error(429, retry_after="0.3"), Reply.error(429, retry_after="0.3"))
    result = await complete(settings(server))
    assert result.text is not None
    assert result.error is None
    assert result.attempts == 3
    times = [r.received for r in server.requests]
    assert len(times) == 3
    # Backoff alone would wait at most 0.05 s; the header asked for 0.3 s each time.
    assert times[1] - times[0] >= 0.3
    assert times[2] - times[1] >= 0.3


@pytest.mark.asyncio
async def test_retry_after_is_capped(server: ChatServer) -> None:
    server.script(Reply.error(429, retry_after="3600"))
    result = await complete(settings(server, retry_after_max_s=0.05))
    assert result.text is not None
    assert len(server.requests) == 2


def http_date(seconds_ahead: float) -> str:
    """An RFC 9110 HTTP-date that far ahead (whole seconds: it is at least that minus 1 away)."""
    return format_datetime(datetime.now(UTC) + timedelta(seconds=seconds_ahead), usegmt=True)


@pytest.mark.asyncio
async def test_503_with_an_http_date_retry_after_waits_until_that_date(server: ChatServer) -> None:
    server.script(Reply.error(503, retry_after=http_date(2)))
    result = await complete(settings(server))
    assert result.error is None
    assert result.attempts == 2
    first, second = (r.received for r in server.requests)
    # Backoff alone would wait at most 0.05 s; the date was more than 1 s ahead.
    assert second - first >= 0.9


@pytest.mark.asyncio
async def test_an_http_date_retry_after_is_capped_too(server: ChatServer) -> None:
    server.script(Reply.error(429, retry_after=http_date(3600)))
    result = await complete(settings(server, retry_after_max_s=0.05))
    assert result.text is not None
    assert len(server.requests) == 2


@pytest.mark.asyncio
async def test_500_then_success(server: ChatServer) -> None:
    server.script(Reply.error(500))
    result = await complete(settings(server))
    assert result.error is None
    assert result.text == "<tr>good morning friend</tr>"
    assert result.attempts == 2
    assert len(server.requests) == 2


@pytest.mark.asyncio
async def test_persistent_500_names_status_and_attempts(server: ChatServer) -> None:
    server.script(*[Reply.error(500)] * 10)
    result = await complete(settings(server))
    assert result.text is None
    assert result.error == "HTTP 500 after 4 attempts"
    assert len(server.requests) == 4


@pytest.mark.asyncio
async def test_persistent_429_respects_max_attempts(server: ChatServer) -> None:
    server.script(*[Reply.error(429, retry_after="0")] * 10)
    result = await complete(settings(server, max_attempts=2))
    assert result.error == "HTTP 429 after 2 attempts"
    assert len(server.requests) == 2


@pytest.mark.asyncio
async def test_client_errors_are_not_retried(server: ChatServer) -> None:
    server.script(Reply.error(400, body=json.dumps({"error": {"message": "bad model slug"}})))
    result = await complete(settings(server))
    assert result.error == "HTTP 400: bad model slug"
    assert len(server.requests) == 1


@pytest.mark.asyncio
async def test_stall_ends_as_timeout_without_retry(server: ChatServer) -> None:
    server.script(Reply.stall())
    result = await complete(settings(server, timeout_s=0.5))
    assert result.text is None
    assert result.error == "timeout after 0.5s"
    assert len(server.requests) == 1


@pytest.mark.asyncio
async def test_deadline_caps_a_stalled_request(server: ChatServer) -> None:
    server.script(Reply.stall())
    async with ChatClient(settings(server, timeout_s=60.0), environ=ENV) as client:
        deadline = time.monotonic() + 0.4
        result = await asyncio.wait_for(client.complete(HELLO, deadline=deadline), 10)
    assert result.error is not None
    assert result.error.startswith("timeout after 0.")


@pytest.mark.asyncio
async def test_malformed_json(server: ChatServer) -> None:
    server.script(Reply.malformed())
    result = await complete(settings(server))
    assert result.error == "malformed JSON in response"
    assert len(server.requests) == 1


@pytest.mark.asyncio
async def test_empty_choices_keeps_the_billed_usage(server: ChatServer) -> None:
    server.script(Reply.empty_choices())
    result = await complete(settings(server))
    assert result.text is None
    assert result.error == "empty response (no choices)"
    assert result.usage["prompt_tokens"] == 3


@pytest.mark.asyncio
async def test_closed_connection_is_retried(server: ChatServer) -> None:
    server.script(Reply.close())
    result = await complete(settings(server))
    assert result.text is not None
    assert result.attempts == 2


@pytest.mark.asyncio
async def test_persistently_closed_connection(server: ChatServer) -> None:
    server.script(*[Reply.close()] * 10)
    result = await complete(settings(server))
    assert result.error == "connection closed after 4 attempts"


@pytest.mark.asyncio
async def test_refused_connection() -> None:
    with ChatServer() as stopped:
        url = stopped.url
    cfg = ChatSettings(model="m", base_url=url, api_key_env="", backoff_base_s=0.01)
    async with ChatClient(cfg) as client:
        result = await client.complete(HELLO)
    assert result.error == "connection failed (ConnectError) after 4 attempts"


@pytest.mark.asyncio
async def test_concurrency_cap_is_what_the_server_sees() -> None:
    with ChatServer(latency_s=0.05) as server:
        async with ChatClient(settings(server, concurrency=5), environ=ENV) as client:
            prompts = [[{"role": "user", "content": f"sentence {i}"}] for i in range(40)]
            results = await asyncio.gather(*(client.complete(p) for p in prompts))
    assert all(r.error is None for r in results)
    assert [r.text for r in results] == [f"<tr>sentence {i}</tr>" for i in range(40)]
    assert server.max_in_flight == 5


@pytest.mark.asyncio
async def test_missing_key_fails_before_any_request(server: ChatServer) -> None:
    async with ChatClient(settings(server), environ={}) as client:
        result = await client.complete(HELLO)
    assert result.error == f"no API key: environment variable {KEY_ENV} is unset"
    assert server.requests == []


@pytest.mark.asyncio
async def test_keyless_endpoint_gets_no_authorization_header(server: ChatServer) -> None:
    result = await complete(settings(server, api_key_env=""))
    assert result.error is None
    assert "authorization" not in server.requests[0].headers


@pytest.mark.asyncio
async def test_key_never_appears_in_results_errors_or_reprs(
    server: ChatServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    echo = json.dumps({"error": {"message": f"invalid key {FAKE_KEY}"}})
    server.script(
        Reply.error(401, body=echo),
        *[Reply.error(500)] * 4,
        Reply.malformed(),
        *[Reply.close()] * 4,
        Reply.stall(),
    )
    cfg = settings(server, timeout_s=0.5)
    async with ChatClient(cfg, environ=ENV) as client:
        results = [await client.complete(HELLO) for _ in range(6)]
        seen = repr(client) + str(client) + repr(client.__dict__)
    assert results[0].error == "HTTP 401: invalid key ***"
    assert [r.error is None for r in results] == [False] * 5 + [True]
    seen += repr(results) + repr(cfg) + caplog.text
    assert FAKE_KEY not in seen
    assert "FAKEKEY" not in seen


def test_settings_from_run_config() -> None:
    config = RunConfig(
        model="google/gemini-2.5-flash",
        temperature=0.3,
        concurrency=16,
        timeout_s=90,
        method_args={"base_url": "http://x/v1", "api_key_env": "MY_KEY", "max_attempts": "2"},
    )
    cfg = ChatSettings.from_run_config(config)
    assert (cfg.model, cfg.temperature, cfg.concurrency, cfg.timeout_s) == (
        "google/gemini-2.5-flash",
        0.3,
        16,
        90,
    )
    assert (cfg.base_url, cfg.api_key_env, cfg.max_attempts) == ("http://x/v1", "MY_KEY", 2)
    assert ChatSettings.from_run_config(RunConfig(model="m")).base_url == (
        "https://openrouter.ai/api/v1"
    )
    with pytest.raises(LLMConfigError, match="--mteval-model"):
        ChatSettings.from_run_config(RunConfig())
    with pytest.raises(LLMConfigError, match="max_attempts='many'"):
        ChatSettings.from_run_config(RunConfig(model="m", method_args={"max_attempts": "many"}))


def test_retry_after_forms() -> None:
    now = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)
    assert parse_retry_after("7", now) == 7.0
    assert parse_retry_after("1.5", now) == 1.5
    assert parse_retry_after("Mon, 30 Nov 2026 12:00:42 GMT", now) == 42.0
    assert parse_retry_after("Mon, 30 Nov 2026 11:00:00 GMT", now) == 0.0
    assert parse_retry_after("soon", now) is None
    assert parse_retry_after(None, now) is None
    assert parse_retry_after("-3", now) == 0.0


def test_usage_parsing_distinguishes_unknown_from_zero() -> None:
    assert parse_usage(None) == ({}, None)
    usage, cost = parse_usage({"prompt_tokens": 10, "completion_tokens": 4, "cost": True})
    assert usage == {
        "prompt_tokens": 10,
        "completion_tokens": 4,
        "reasoning_tokens": 0,
        "cached_tokens": 0,
    }
    assert cost is None
