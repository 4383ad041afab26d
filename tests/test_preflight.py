"""Preflight: a configuration mistake stops the session at start, with one line, no card."""

from __future__ import annotations

import json
import socket

import pytest
from chat_server import ChatServer
from conftest import CORPORA, METHODS, link_resources

pytest_plugins = ["pytester"]

KEY_ENV = "MTEVAL_TEST_PREFLIGHT_KEY"


@pytest.fixture
def crk_head(tmp_path):
    """Four entries of the shipped English->Plains Cree corpus (with its analyzer)."""
    source = CORPORA / "eng-crk-morphodict-vocab.json"
    data = json.loads(source.read_text(encoding="utf-8"))
    data["entries"] = data["entries"][:4]
    data["dataset"]["language_resources"] = link_resources(tmp_path)
    path = tmp_path / "crk-head.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def run(pytester, corpus, method, *args):
    return pytester.runpytest(
        f"--mteval-corpus={corpus}",
        f"--mteval-method={method}",
        f"--mteval-run-card={pytester.path / 'card.json'}",
        # the plain runner: an LLM method's own preflight (key, model, endpoint) runs there;
        # behind the sandbox's gateway it is skipped
        "--mteval-sandbox=none",
        *args,
    )


def assert_stopped(pytester, result, message):
    """Usage error, the message once, no traceback, no entry run, no card."""
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if line.startswith("ERROR")]
    assert len(errors) == 1
    assert message in errors[0]
    text = result.stdout.str() + result.stderr.str()
    assert "Traceback" not in text
    assert "passed" not in text
    assert not (pytester.path / "card.json").exists()


def llm_args(base_url, *extra):
    return (
        f"--mteval-method-arg=base_url={base_url}",
        f"--mteval-method-arg=api_key_env={KEY_ENV}",
        *extra,
    )


@pytest.mark.parametrize("method", ["raw-llm", "coached-llm", "fst-gated"])
def test_no_key_stops_every_llm_method(pytester, crk_head, monkeypatch, method):
    monkeypatch.delenv(KEY_ENV, raising=False)
    with ChatServer() as server:
        args = llm_args(server.url, "--mteval-model=test/x")
        result = run(pytester, crk_head, METHODS / method, *args)
        assert server.requests == []
    assert_stopped(pytester, result, f"environment variable {KEY_ENV} is unset")


def test_no_model_stops_the_run(pytester, small_corpus, monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-x")
    result = run(pytester, small_corpus, METHODS / "raw-llm", *llm_args("http://127.0.0.1:1"))
    assert_stopped(pytester, result, "no model configured")


def test_an_unreachable_endpoint_stops_the_run_under_xdist_too(pytester, small_corpus, monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-x")
    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    args = llm_args(url, "--mteval-model=test/x", "-n", "2")
    result = run(pytester, small_corpus, METHODS / "raw-llm", *args)
    assert_stopped(pytester, result, f"endpoint http://127.0.0.1:{port} is not reachable")


def test_a_reachable_endpoint_costs_no_request(pytester, small_corpus, monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-x")
    with ChatServer() as server:
        args = llm_args(server.url, "--mteval-model=test/x", "--mteval-no-cache")
        result = run(pytester, small_corpus, METHODS / "raw-llm", *args)
        assert result.ret == 0
        assert len(server.requests) == 6  # one per entry: the check only connected
    assert (pytester.path / "card.json").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((), "replay needs --mteval-method-arg predictions=PATH"),
        (("--mteval-method-arg=predictions=nope.jsonl",), "cannot read predictions nope.jsonl"),
    ],
)
def test_replay_checks_its_predictions(pytester, small_corpus, args, message):
    assert_stopped(pytester, run(pytester, small_corpus, METHODS / "replay", *args), message)


def test_dictionary_checks_its_word_list(pytester, crk_head):
    args = ("--mteval-method-arg=wordlist=missing.tsv",)
    result = run(pytester, crk_head, METHODS / "dictionary", *args)
    assert_stopped(pytester, result, "cannot read word list missing.tsv")


def test_a_dry_run_skips_the_preflight(pytester, small_corpus, monkeypatch):
    monkeypatch.delenv(KEY_ENV, raising=False)
    args = llm_args("http://127.0.0.1:1", "--mteval-model=test/x", "--mteval-dry-run")
    result = run(pytester, small_corpus, METHODS / "raw-llm", *args)
    assert result.ret == 0
