"""The API key reaches no file and no output, even from an upstream that echoes it.

The upstream is a real chat-completions server on 127.0.0.1 whose 401 body repeats the key
past the 200 characters an error is cut to, and whose successful replies name a model id that
contains the key. Every file the session leaves (card, junit XML, cache) and its output are
searched for every 5-character piece of the key.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from chat_server import ChatServer, Reply
from conftest import METHODS
from faults import run, write_corpus

pytest_plugins = ["pytester"]

KEY_ENV = "MTEVAL_FAULT_API_KEY"
KEY = "sk-QX7vJ9ZK2mWq4RtYb"  # 20 characters, none of its 5-grams is an English word piece
PIECES = {KEY[i : i + 5] for i in range(len(KEY) - 4)}


def leaks(text: str) -> list[str]:
    return sorted(piece for piece in PIECES if piece in text)


def files_under(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file()]


def echo_key(body: object) -> Reply | None:
    """Refuse the first entry, echoing the key from character 185: cut to 200 characters
    before redaction, 15 of its 20 characters would survive."""
    if "4-month-old mice" not in json.dumps(body):
        return None
    message = "x" * 180 + f" key {KEY} is not valid for this account " + "y" * 40
    return Reply.error(401, body=json.dumps({"error": {"message": message}}))


def test_an_echoed_key_reaches_no_file_and_no_output(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)
    corpus = write_corpus(pytester.path)
    card = pytester.path / "card.json"
    with ChatServer(model_id=f"test/echo-{KEY}") as server:
        server.responder = echo_key
        result = pytester.runpytest(
            f"--mteval-corpus={corpus}",
            f"--mteval-method={METHODS / 'raw-llm'}",
            "--mteval-model=test/oracle",
            f"--mteval-method-arg=base_url={server.url}",
            f"--mteval-method-arg=api_key_env={KEY_ENV}",
            "--mteval-method-arg=max_attempts=1",
            f"--mteval-run-card={card}",
            f"--junitxml={pytester.path / 'junit.xml'}",
            "-v",
        )
        assert server.requests, "the upstream was never called"
        assert all(seen.headers.get("authorization") == f"Bearer {KEY}" for seen in server.requests)
    rows = {r["entry_id"]: r for r in json.loads(card.read_text(encoding="utf-8"))["results"]}
    # the refused entry's error kept the upstream's message, with the key replaced
    assert rows["1"]["error"].startswith("HTTP 401: " + "x" * 180 + " key *** is not")
    assert rows["2"]["error"] is None
    written = files_under(pytester.path)
    assert {card, pytester.path / "junit.xml"} <= set(written)
    assert any(".mteval" in p.parts for p in written)  # the cache was written too
    for path in written:
        assert leaks(path.read_text(encoding="utf-8", errors="replace")) == [], path
    assert leaks(result.stdout.str() + result.stderr.str()) == []


@pytest.mark.parametrize("arg", ["api_key_env={key}", "api_key={key}", "base_url={key}"])
def test_a_key_given_as_a_method_arg_is_refused_without_echoing_it(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, arg: str
) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)
    corpus = write_corpus(pytester.path)
    result = pytester.runpytest(
        f"--mteval-corpus={corpus}",
        f"--mteval-method={METHODS / 'raw-llm'}",
        "--mteval-model=test/oracle",
        f"--mteval-method-arg={arg.format(key=KEY)}",
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: --mteval-method-arg *{KEY_ENV}*credential*"])
    assert leaks(result.stdout.str() + result.stderr.str()) == []
    assert not (pytester.path / ".mteval").exists()


def test_a_declared_secret_arg_stays_out_of_card_and_cache(pytester: pytest.Pytester) -> None:
    secret = "correct-horse-battery-staple"
    _, card_path = run(pytester, "none", f"--mteval-method-arg=secret={secret}")
    card = json.loads(card_path.read_text(encoding="utf-8"))
    assert card["method"]["run_config"]["method_args"]["secret"] == "***"
    for path in files_under(pytester.path):
        assert secret not in path.read_text(encoding="utf-8", errors="replace"), path
