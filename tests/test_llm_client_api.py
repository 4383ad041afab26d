"""The method author's ChatClient API against a real chat server on 127.0.0.1: a client from
the run, typed usage, a cost from the endpoint or the price table, and a result per entry."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from chat_server import ChatServer, Reply, default_translate, default_usage

from pytest_mteval.llm.chat_preflight import PreflightError
from pytest_mteval.llm.client import ChatClient, LLMConfigError, TokenUsage
from pytest_mteval.methods.protocol import RunConfig

#: USD per million tokens, so the expected cost is computed here by hand.
INPUT_RATE, OUTPUT_RATE = 2.0, 8.0


@pytest.fixture
def server() -> Iterator[ChatServer]:
    with ChatServer() as running:
        yield running


def run_config(server: ChatServer, prices: Path | None = None, **args: str) -> RunConfig:
    method_args = {"base_url": server.url, "api_key_env": "", **args}
    if prices is not None:
        method_args["prices"] = str(prices)
    return RunConfig(model="test/model", timeout_s=20.0, method_args=method_args)


def price_file(tmp_path: Path) -> Path:
    path = tmp_path / "prices.json"
    row = {"input": INPUT_RATE, "output": OUTPUT_RATE, "source": "test"}
    path.write_text(json.dumps({"models": {"test/model": row}}), encoding="utf-8")
    return path


@pytest.mark.asyncio
async def test_a_string_is_one_user_message_with_typed_usage_and_a_priced_cost(
    server: ChatServer, tmp_path: Path
) -> None:
    async with ChatClient.for_run(run_config(server, price_file(tmp_path))) as chat:
        reply = await asyncio.wait_for(chat.complete("good morning friend"), 30)
    sent = [{"role": "user", "content": "good morning friend"}]
    assert server.requests[0].body["messages"] == sent
    assert reply.ok
    assert reply.text == default_translate(sent)
    usage = default_usage(sent, default_translate(sent))
    assert isinstance(reply.usage, TokenUsage)
    assert reply.usage.prompt_tokens == usage["prompt_tokens"]
    assert reply.usage.completion_tokens == usage["completion_tokens"]
    assert reply.usage.total_tokens == usage["total_tokens"]
    assert reply.usage["prompt_tokens"] == usage["prompt_tokens"]  # and reads as the card's dict
    expected = (
        usage["prompt_tokens"] * INPUT_RATE + usage["completion_tokens"] * OUTPUT_RATE
    ) / 1e6
    assert reply.cost_usd == pytest.approx(expected)
    assert reply.cost_source == "price_table"


@pytest.mark.asyncio
async def test_the_endpoint_s_reported_cost_wins_over_the_table(
    server: ChatServer, tmp_path: Path
) -> None:
    server.usage_extra = {"cost": 0.25}
    async with ChatClient.for_run(run_config(server, price_file(tmp_path))) as chat:
        reply = await asyncio.wait_for(chat.complete("hello"), 30)
    assert reply.cost_usd == 0.25
    assert reply.cost_source == "endpoint"


@pytest.mark.asyncio
async def test_a_model_without_a_price_has_no_cost_and_says_why(server: ChatServer) -> None:
    async with ChatClient.for_run(run_config(server)) as chat:
        reply = await asyncio.wait_for(chat.complete("hello"), 30)
    assert reply.ok
    assert reply.cost_usd is None
    assert reply.cost_note is not None
    assert "test/model" in reply.cost_note
    result = reply.as_result({"id": "e1", "source": "hello"})
    assert result["cost_usd"] is None
    assert result["metadata"]["cost_note"] == reply.cost_note


@pytest.mark.asyncio
async def test_one_refused_request_is_one_entry_s_error_not_the_batch_s(
    server: ChatServer,
) -> None:
    server.responder = lambda body: Reply.error(400) if "bad" in json.dumps(body) else None
    entries = [{"id": "a", "source": "fine"}, {"id": "b", "source": "bad"}]
    async with ChatClient.for_run(run_config(server)) as chat:
        replies = await asyncio.gather(*(chat.complete(e["source"]) for e in entries))
    results = [reply.as_result(e) for e, reply in zip(entries, replies, strict=True)]  # type: ignore[arg-type]
    assert results[0]["predicted"] == default_translate([{"role": "user", "content": "fine"}])
    assert results[0]["error"] is None
    assert results[0]["usage"]["completion_tokens"] > 0
    assert results[1]["predicted"] is None
    assert results[1]["error"].startswith("HTTP 400")
    assert results[1]["usage"] == {}
    assert not replies[1].usage.known


def test_a_run_without_a_model_is_one_line() -> None:
    with pytest.raises(LLMConfigError, match="no model configured: pass --mteval-model"):
        ChatClient.for_run(RunConfig(model=None))


def test_unknown_usage_is_empty_not_zero() -> None:
    assert dict(TokenUsage()) == {}
    assert not TokenUsage()
    known = TokenUsage.of({"prompt_tokens": 0, "completion_tokens": 0})
    assert known
    assert dict(known)["prompt_tokens"] == 0


def test_the_setup_check_finds_a_missing_key_and_an_endpoint_that_is_not_there(
    server: ChatServer,
) -> None:
    ChatClient.check_setup(run_config(server))  # model set, no key needed, listening
    keyed = run_config(server, api_key_env="MTEVAL_TEST_KEY_UNSET")
    with pytest.raises(PreflightError, match="MTEVAL_TEST_KEY_UNSET is unset"):
        ChatClient.check_setup(keyed, environ={})
    with ChatServer() as closed:
        port = closed.port  # nothing listens there once it has closed
    gone = RunConfig(model="m/x", method_args={"base_url": f"http://127.0.0.1:{port}/v1",
                                               "api_key_env": ""})  # fmt: skip
    with pytest.raises(PreflightError, match="is not reachable"):
        ChatClient.check_setup(gone)
