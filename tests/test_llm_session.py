"""LLM methods in real sessions against a real chat-completions server on 127.0.0.1."""

from __future__ import annotations

import json
import os

import pytest
from chat_server import ChatServer, Reply
from conftest import CORPORA, METHODS, link_resources

pytest_plugins = ["pytester"]

KEY_ENV = "MTEVAL_TEST_SESSION_KEY"
KEY = "sk-session-secret-7f3a9c"
CRK = CORPORA / "eng-crk-morphodict-vocab.json"


@pytest.fixture
def corpus(tmp_path):
    """The first eight real entries of the shipped English->Plains Cree corpus."""
    data = json.loads(CRK.read_text(encoding="utf-8"))
    data["entries"] = data["entries"][:8]
    path = tmp_path / "crk-head.json"
    data["dataset"]["language_resources"] = link_resources(tmp_path)
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


@pytest.fixture
def prices(tmp_path):
    path = tmp_path / "prices.json"
    path.write_text(json.dumps({"models": {"test/oracle": {"input": 2.0, "output": 10.0}}}))
    return path


@pytest.fixture
def server(monkeypatch):
    monkeypatch.setenv(KEY_ENV, KEY)
    with ChatServer(model_id="test/oracle-2026") as running:
        yield running


def evaluate(pytester, server, prices, corpus, method, *args):
    card = pytester.path / f"card-{method}-{len(list(pytester.path.glob('card-*')))}.json"
    result = pytester.runpytest(
        f"--mteval-corpus={corpus}",
        f"--mteval-method={METHODS / method}",
        "--mteval-model=test/oracle",
        f"--mteval-prices={prices}",
        f"--mteval-method-arg=base_url={server.url}",
        f"--mteval-method-arg=api_key_env={KEY_ENV}",
        "--mteval-method-arg=max_attempts=2",
        "--mteval-no-cache",
        f"--mteval-run-card={card}",
        *args,
    )
    return result, (json.loads(card.read_text(encoding="utf-8")) if card.exists() else None)


def test_raw_llm_run_card_has_usage_cost_and_model(pytester, server, prices, corpus):
    result, card = evaluate(pytester, server, prices, corpus, "raw-llm")
    assert result.ret == 0
    totals = card["totals"]
    n = card["dataset"]["entry_count"]
    assert n == len(server.requests)  # one request per entry, nothing else
    assert totals["prompt_tokens"] > 0
    assert totals["completion_tokens"] > 0
    expected = (totals["prompt_tokens"] * 2.0 + totals["completion_tokens"] * 10.0) / 1e6
    assert totals["total_cost_usd"] == pytest.approx(expected)
    assert totals["cost_per_entry_usd"] == pytest.approx(expected / n)
    assert card["model_id"] == "test/oracle-2026"
    assert card["system_prompt_used"]
    assert card["method"]["dependency_class"] == "A1"
    text = json.dumps(card) + result.stdout.str()
    assert KEY not in text


def test_persistent_server_errors_fail_only_their_entries(pytester, server, prices, corpus):
    entries = json.loads(corpus.read_text(encoding="utf-8"))["entries"]
    doomed = entries[3]["source"]
    server.responder = lambda body: Reply.error(500) if doomed in json.dumps(body) else None
    result, card = evaluate(pytester, server, prices, corpus, "raw-llm")
    errors = {r["entry_id"]: r["error"] for r in card["results"] if r["error"]}
    assert list(errors) == [str(entries[3]["id"])]
    assert "HTTP 500" in next(iter(errors.values()))
    assert card["scores"]["errors"] == 1
    result.assert_outcomes(passed=len(entries) - 1, failed=1)


def test_dry_run_calls_nothing_and_prints_the_estimate(pytester, server, prices, corpus):
    result, card = evaluate(pytester, server, prices, corpus, "coached-llm", "--mteval-dry-run")
    assert card is None
    assert server.requests == []
    result.stdout.fnmatch_lines(["*mteval dry run*", "*estimated cost*$*"])


def test_fst_gated_uses_the_corpus_analyzer_and_records_tool_calls(
    pytester, server, prices, corpus
):
    server.translate = lambda messages: "dog" if len(messages) <= 2 else "atim"
    _, card = evaluate(pytester, server, prices, corpus, "fst-gated")
    rows = card["results"]
    assert rows
    assert all(r["predicted"] == "atim" for r in rows)
    assert all(r["tool_call_count"] >= 2 for r in rows)
    assert card["scores"]["fst_acceptance_rate"] == 1.0
    assert card["fst_version"] == card["scores"]["fst_version"]
    assert "fst_check" in json.dumps(card["results"][0]["tool_calls"])


@pytest.mark.skipif(os.name != "posix", reason="loopback server")
def test_rate_limit_with_retry_after_is_survived(pytester, server, prices, corpus):
    server.script(Reply.error(429, retry_after="0"), Reply.error(429, retry_after="0"))
    result, card = evaluate(
        pytester, server, prices, corpus, "raw-llm", "--mteval-method-arg=max_attempts=4"
    )
    assert len(server.requests) == 8 + 2  # two refused requests, retried
    assert result.ret == 0
    assert card["scores"]["errors"] == 0
