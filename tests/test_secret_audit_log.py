"""A secret run's gateway audit log keeps no text (spec §8.2, "only scores come back").

A class A1 method (a copy of raw-llm) runs sandboxed, with a steward's authorisation, against
the loopback chat server, on an encrypted corpus and on a clear ``gold_standard`` corpus.
The attack: look for every source, reference and prediction, in the encodings a file may
hold them in, in every file the run wrote (the card, the HTML report, ``.mteval``: the audit
log, the cache, anything else) and in the terminal output. The audit log must still verify
against the card, and say per request what a reviewer needs: sizes, hashes, model, status.
A public run's log keeps the bodies, as before."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from chat_server import ChatServer, default_translate
from conftest import METHODS, envelope, flores_entries
from text_forms import texts_found

from pytest_mteval.run.sandbox import sandbox_problem

pytest_plugins = ["pytester"]

PROBLEM = sandbox_problem()
pytestmark = pytest.mark.skipif(PROBLEM is not None, reason=f"no sandbox here: {PROBLEM}")
KEY_ENV = "MTEVAL_TEST_AUDIT_KEY"
COUNT = 6


def mteval(*args: object) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pytest_mteval.cli.main", *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True)


def _authorise(folder: Path, corpus: Path, method: Path, url: str, *extra: object) -> Path:
    out = folder / f"{corpus.stem}.authorisation.json"
    expires = (datetime.now(UTC) + timedelta(days=2)).date().isoformat()
    wrote = mteval(
        "steward", "authorise", "--corpus", corpus, *extra, "--method", method,
        "--key", folder / "steward.key", "--expires", expires, "-o", out,
        "--model", "test/oracle", "--base-url", url,
    )  # fmt: skip
    assert wrote.returncode == 0, wrote.stdout + wrote.stderr
    return out


@pytest.fixture(scope="module")
def provider():
    """The module's loopback provider: an authorisation names its endpoint."""
    with pytest.MonkeyPatch.context() as patch, ChatServer() as running:
        patch.setenv(KEY_ENV, "sk-audit-test")
        yield running


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory, provider: ChatServer) -> dict[str, Any]:
    """Six FLORES entries as a clear dev corpus, an encrypted one and a gold_standard one;
    a copy of raw-llm; the steward's key and an authorisation for each secret corpus."""
    folder = tmp_path_factory.mktemp("secret-audit")
    entries = flores_entries(COUNT)
    clear = folder / "clear.json"
    clear.write_text(json.dumps(envelope(entries), ensure_ascii=False), "utf-8")
    gold = folder / "gold.json"
    gold_entries = [{**e, "segment": "gold_standard"} for e in entries]
    gold.write_text(json.dumps(envelope(gold_entries), ensure_ascii=False), "utf-8")
    sealed, key = folder / "corpus.enc", folder / "corpus.key"
    made = mteval("corpus", "encrypt", clear, sealed, "--key-file", key, "--new-key")
    assert made.returncode == 0, made.stdout + made.stderr
    method = folder / "raw-llm"
    shutil.copytree(METHODS / "raw-llm", method, ignore=shutil.ignore_patterns("__pycache__"))
    assert mteval("keygen", folder / "steward.key").returncode == 0
    return {
        "entries": entries,
        "clear": clear,
        "method": method,
        "pub": folder / "steward.key.pub",
        "encrypted": (
            sealed,
            [f"--mteval-corpus-key-file={key}"],
            _authorise(folder, sealed, method, provider.url, "--corpus-key-file", key),
        ),
        "gold": (gold, [], _authorise(folder, gold, method, provider.url)),
    }


def _session(pytester: pytest.Pytester, corpus: Path, *args: str) -> tuple[Any, dict[str, Any]]:
    card = pytester.path / "card.json"
    result = pytester.runpytest_subprocess(
        "-p", "no:randomly", f"--mteval-corpus={corpus}", "--mteval-sandbox=netns",
        "--mteval-model=test/oracle", f"--mteval-run-card={card}",
        f"--mteval-html={pytester.path / 'report.html'}", *args,
    )  # fmt: skip
    assert card.exists(), result.stdout.str()[-3000:] + result.stderr.str()[-3000:]
    return result, json.loads(card.read_text("utf-8"))


def _secret_run(pytester, world, server, which):
    corpus, extra, authorisation = world[which]
    return _session(
        pytester, corpus, *extra, f"--mteval-method={world['method']}",
        f"--mteval-method-arg=base_url={server.url}", f"--mteval-method-arg=api_key_env={KEY_ENV}",
        f"--mteval-steward-authorisation={authorisation}", f"--mteval-steward-key={world['pub']}",
    )  # fmt: skip


def _log_lines(pytester: pytest.Pytester, card: dict[str, Any]) -> list[dict[str, Any]]:
    path = Path(card["runner"]["gateway"]["audit_log"])
    assert pytester.path in path.parents
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()]


@pytest.fixture
def server(provider: ChatServer) -> ChatServer:
    provider.requests.clear()
    return provider


@pytest.mark.parametrize("which", ["encrypted", "gold"])
def test_attack_a_secret_run_writes_no_text_anywhere(pytester, world, server, which):
    result, card = _secret_run(pytester, world, server, which)
    assert result.ret == 0, result.stdout.str()[-3000:]
    assert card["redaction"]["text_withheld"] is True
    assert len(server.requests) == COUNT
    answers = [default_translate(r.body["messages"]) for r in server.requests]
    texts = {
        text.strip()
        for text in [e["source"] for e in world["entries"]]
        + [e["reference"] for e in world["entries"]]
        + answers
        if len(text.strip()) >= 6
    }
    assert len(texts) == 3 * COUNT
    # the search finds them where they are: the clear corpus and the provider's side
    provider_side = json.dumps([[r.body for r in server.requests], answers])
    assert texts_found(texts, world["clear"].read_text("utf-8") + provider_side) == texts
    written = [p for p in pytester.path.rglob("*") if p.is_file()]
    log = Path(card["runner"]["gateway"]["audit_log"])
    assert log in written
    assert pytester.path / "report.html" in written
    for path in written:
        data = path.read_bytes().decode("utf-8", errors="replace")
        assert texts_found(texts, data) == set(), path
    assert texts_found(texts, result.stdout.str() + result.stderr.str()) == set()
    assert not (pytester.path / ".mteval" / "cache").exists()  # no outputs kept on disk


def test_a_secret_run_s_log_verifies_and_tells_sizes_hashes_and_models(pytester, world, server):
    _result, card = _secret_run(pytester, world, server, "encrypted")
    gateway = card["runner"]["gateway"]
    card_path = pytester.path / "card.json"
    checked = mteval("audit-log", "verify", gateway["audit_log"], "--card", card_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert mteval("verify", pytester.path / "card.json").returncode == 0
    lines = _log_lines(pytester, card)
    forwarded = [line for line in lines if line["outcome"] == "forwarded"]
    assert len(forwarded) == COUNT == gateway["forwarded"]
    for line in forwarded:
        request, response = line["request"], line["response"]
        assert "body" not in request
        assert "body" not in response
        assert request["model"] == "test/oracle"
        assert len(request["body_sha256"]) == 64
        assert request["body_bytes"] > 0
        assert response["status"] == 200
        assert len(response["body_sha256"]) == 64
        assert response["body_bytes"] > 0
        assert response["usage"]["completion_tokens"] >= 1
    assert len({line["request"]["body_sha256"] for line in forwarded}) == COUNT


def test_a_public_run_s_log_keeps_the_bodies(pytester, world, server):
    _result, card = _session(
        pytester, world["clear"], f"--mteval-method={world['method']}",
        f"--mteval-method-arg=base_url={server.url}", f"--mteval-method-arg=api_key_env={KEY_ENV}",
    )  # fmt: skip
    assert "redaction" not in card or not card["redaction"].get("text_withheld")
    forwarded = [line for line in _log_lines(pytester, card) if line["outcome"] == "forwarded"]
    assert len(forwarded) == COUNT
    logged = json.dumps([line["request"]["body"] for line in forwarded], ensure_ascii=False)
    sources = [json.dumps(e["source"], ensure_ascii=False)[1:-1] for e in world["entries"]]
    assert all(source in logged for source in sources)
    assert all(line["response"]["body"]["choices"] for line in forwarded)
