"""The sandbox (bubblewrap, new namespaces) and its one way out, the LLM gateway: a hostile
method gets nothing, an A1 method translates through the gateway, and every request is in a
hash-chained audit log. Real namespaces, real processes, a real loopback server."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys

import pytest
from chat_server import ChatServer
from conftest import METHODS, REPO, envelope, flores_entries
from without_bwrap import without_bwrap

from pytest_mteval.cli.main import main as mteval
from pytest_mteval.run.sandbox import sandbox_problem

pytest_plugins = ["pytester"]

PROBLEM = sandbox_problem()
needs_namespaces = pytest.mark.skipif(PROBLEM is not None, reason=f"no sandbox here: {PROBLEM}")
THIEF = REPO / "tests" / "hostile_methods" / "thief"
KEY = "sk-test-0123456789abcdefSECRET"
GATEWAY_DEPENDENCY = {
    "id": "llm-inference", "kind": "model", "license": "proprietary", "access": "gateway",
    "source": "openrouter:<configurable>", "substitutable": True,
    "redistributable": False, "transferable": False,
}  # fmt: skip


@pytest.fixture
def corpus(tmp_path):
    path = tmp_path / "six.json"
    path.write_text(json.dumps(envelope(flores_entries(6))), encoding="utf-8")
    return path


def method_copy(pytester, source, name, **manifest):
    """A copy of a method folder with fields of its method.json replaced."""
    folder = pytester.path / name
    shutil.copytree(source, folder)
    path = folder / "method.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), **manifest}), encoding="utf-8")
    return folder


def run(pytester, corpus, method, *args):
    card_path = pytester.path / "card.json"
    result = pytester.runpytest(
        f"--mteval-corpus={corpus}", f"--mteval-method={method}", "--mteval-sandbox=netns",
        f"--mteval-run-card={card_path}", "--mteval-no-cache", *args,
    )  # fmt: skip
    card = json.loads(card_path.read_text(encoding="utf-8")) if card_path.exists() else None
    return result, card


@needs_namespaces
def test_a_hostile_method_gets_nothing_and_the_card_shows_it(pytester, corpus, monkeypatch):
    monkeypatch.setenv("OPENROUTER_API_KEY", KEY)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    port = listener.getsockname()[1]
    card_path = pytester.path / "card.json"
    # class A1, so that the gateway (which holds the key) serves it: the key must still be
    # nowhere the method can look
    thief = method_copy(
        pytester, THIEF, "thief", dependency_class="A1", dependencies=[GATEWAY_DEPENDENCY]
    )
    # the harness checks the upstream before the run starts (the method cannot, behind the
    # gateway): a real one on loopback, which the method itself never reaches
    with ChatServer() as server:
        result, card = run(
            pytester, corpus, thief, "--mteval-model=test/model",
            f"--mteval-method-arg=base_url={server.url}",
            f"--mteval-method-arg=corpus={corpus}", f"--mteval-method-arg=card={card_path}",
            f"--mteval-method-arg=port={port}", "--mteval-method-arg=dump=1",
        )  # fmt: skip
    assert card is not None
    assert "forged" not in card
    assert card["runner"]["sandbox"] == "netns"
    assert card["runner"]["sandbox_binary"] == "/usr/bin/bwrap"
    assert "gateway" in card["runner"]
    attempts = card["results"][0]["metadata"]["attempts"]
    assert attempts["gc"] == "references found: 0"
    assert attempts["argv"] == "corpus paths found: []"
    for attack in ("corpus_file", "connect", "dns"):
        assert attempts[attack].startswith("denied: "), (attack, attempts[attack])
    # the card's folder may exist in the sandbox's private /tmp, where a write lands harmlessly:
    # the harness's card is the one on disk ("forged" not in card, above)
    assert card["scores"]["exact_match_rate"] == 0.0
    text = card_path.read_text(encoding="utf-8")
    for row in card["results"]:
        assert row["predicted"].startswith("nothing stolen")
    seen = card["results"][0]["metadata"]["seen"]
    assert "PATH" in seen
    assert "proc1" in seen
    assert KEY not in text  # the environment and files the method could see hold no key
    listener.settimeout(0)
    with pytest.raises(BlockingIOError):
        listener.accept()  # nobody connected to the host's loopback
    listener.close()
    assert "Traceback" not in result.stdout.str()


@needs_namespaces
def test_an_a1_method_translates_through_the_gateway(pytester, corpus, monkeypatch):
    monkeypatch.setenv("MTEVAL_TEST_KEY", KEY)
    with ChatServer() as server:
        result, card = run(
            pytester, corpus, METHODS / "raw-llm", "--mteval-model=test/model",
            f"--mteval-method-arg=base_url={server.url}",
            "--mteval-method-arg=api_key_env=MTEVAL_TEST_KEY",
        )  # fmt: skip
        seen = list(server.requests)
    assert card is not None
    sources = {str(e["id"]): e["source"] for e in flores_entries(6)}
    for row in card["results"]:
        assert row["error"] is None
        assert row["predicted"] == f"<tr>{sources[row['entry_id']]}</tr>"
    assert len(seen) == 6
    assert all(r.headers.get("authorization") == f"Bearer {KEY}" for r in seen)  # the gateway's
    gateway = card["runner"]["gateway"]
    assert gateway["forwarded"] == 6
    assert gateway["refused"] == 0
    assert gateway["lines"] == 6
    assert gateway["allowed_models"] == ["test/model"]
    log = pytester.path / gateway["audit_log"]
    lines = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert sorted(line["request"]["body"]["messages"][-1]["content"] for line in lines) == sorted(
        sources.values()
    )
    assert KEY not in log.read_text(encoding="utf-8")
    assert KEY not in json.dumps(card)
    assert (
        mteval(["audit-log", "verify", str(log), "--card", str(pytester.path / "card.json")]) == 0
    )
    edited = log.read_text(encoding="utf-8").replace("<tr>", "<tR>", 1)
    log.write_text(edited, encoding="utf-8")
    assert (
        mteval(["audit-log", "verify", str(log), "--card", str(pytester.path / "card.json")]) == 1
    )
    result.assert_outcomes(passed=6)


@needs_namespaces
def test_a_model_outside_the_manifest_is_refused_with_the_reason(pytester, corpus):
    pinned = dict(GATEWAY_DEPENDENCY, source="openrouter:pinned/model")
    method = method_copy(pytester, METHODS / "raw-llm", "pinned", dependencies=[pinned])
    with ChatServer() as server:
        _result, card = run(
            pytester, corpus, method, "--mteval-model=other/model",
            f"--mteval-method-arg=base_url={server.url}", "--mteval-method-arg=api_key_env=",
        )  # fmt: skip
        assert server.requests == []
    assert card is not None
    for row in card["results"]:
        assert "HTTP 403" in row["error"]
        assert "'other/model' is not declared in the method's manifest" in row["error"]
    gateway = card["runner"]["gateway"]
    assert gateway["refused"] == 6
    assert gateway["forwarded"] == 0


@needs_namespaces
def test_the_gateway_stops_at_the_request_budget(pytester, corpus):
    with ChatServer() as server:
        _result, card = run(
            pytester, corpus, METHODS / "raw-llm", "--mteval-model=test/model",
            f"--mteval-method-arg=base_url={server.url}", "--mteval-method-arg=api_key_env=",
            "--mteval-gateway-requests=2", "--mteval-concurrency=1",
        )  # fmt: skip
        assert len(server.requests) == 2
    assert card is not None
    errors = [row["error"] for row in card["results"] if row["error"]]
    assert len(errors) == 4
    assert all("request budget of 2 is spent" in e for e in errors)


@needs_namespaces
def test_an_x_method_runs_in_the_network_sandbox(pytester, corpus):
    """A closed (X) method's dependencies are files it brings: it runs sandboxed, no network."""
    closed = {"id": "d", "kind": "data", "license": "none", "access": "bundled", "source": "d",
              "redistributable": False, "transferable": False}  # fmt: skip
    method = method_copy(
        pytester, METHODS / "identity", "closed", dependency_class="X", dependencies=[closed]
    )
    result, card = run(pytester, corpus, method)
    assert card is not None, result.stderr.str()
    assert (card["runner"]["sandbox"], card["runner"]["isolated"]) == ("netns", True)


@needs_namespaces
def test_an_x_method_with_an_llm_reaches_it_through_the_gateway(pytester, corpus, monkeypatch):
    """Bundled data without rights makes an LLM method class X: it still gets the sandbox and
    the gateway, which holds the key (it once got the plain runner and the key itself)."""
    monkeypatch.setenv("MTEVAL_TEST_KEY", KEY)
    closed = {"id": "d", "kind": "data", "license": "none", "access": "bundled", "source": "d",
              "redistributable": False, "transferable": False}  # fmt: skip
    method = method_copy(
        pytester, METHODS / "raw-llm", "closed-llm", dependency_class="X",
        dependencies=[GATEWAY_DEPENDENCY, closed],
    )  # fmt: skip
    with ChatServer() as server:
        _result, card = run(
            pytester, corpus, method, "--mteval-model=test/model",
            f"--mteval-method-arg=base_url={server.url}",
            "--mteval-method-arg=api_key_env=MTEVAL_TEST_KEY",
        )  # fmt: skip
        seen = list(server.requests)
    assert card is not None
    assert (card["runner"]["sandbox"], card["runner"]["gateway"]["forwarded"]) == ("netns", 6)
    assert all(r.headers.get("authorization") == f"Bearer {KEY}" for r in seen)
    assert all(row["error"] is None for row in card["results"])


@needs_namespaces
def test_an_a2_method_is_refused_in_the_network_sandbox(pytester, corpus):
    dependency = dict(GATEWAY_DEPENDENCY, access="external-api", source="https://x.example")
    method = method_copy(
        pytester, METHODS / "identity", "closed", dependency_class="A2", dependencies=[dependency]
    )
    result, card = run(pytester, corpus, method)
    assert card is None
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*is class A2: it reaches a dependency over the network*"])
    assert "Traceback" not in result.stderr.str()


@needs_namespaces
def test_a_corpus_the_sandbox_would_show_is_refused(pytester):
    method = method_copy(pytester, METHODS / "identity", "with-corpus")
    inside = method / "data.json"
    inside.write_text(json.dumps(envelope(flores_entries(2))), encoding="utf-8")
    result, card = run(pytester, inside, method)
    assert card is None
    result.stderr.fnmatch_lines(["*data.json is inside*which the sandbox shows to the method*"])


def test_without_namespaces_the_sandbox_is_refused_with_one_line(pytester, corpus):
    """No bubblewrap stands for a kernel that refuses: never a silent downgrade."""
    plugin, env = without_bwrap(pytester.path)
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *plugin,
         f"--mteval-corpus={corpus}", f"--mteval-method={METHODS / 'identity'}",
         "--mteval-sandbox=netns"],
        capture_output=True, text=True, cwd=pytester.path, env=env, timeout=120,
    )  # fmt: skip
    assert proc.returncode == pytest.ExitCode.USAGE_ERROR
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, lines
    assert lines[0].startswith("ERROR: --mteval-sandbox=netns: bubblewrap is not installed at ")
    assert lines[0].endswith("not-installed/bwrap: apt-get install bubblewrap")


@needs_namespaces
def test_xdist_workers_share_the_controllers_gateway(pytester, corpus):
    """Each worker drives its own sandboxed runner; all of them go through one gateway, so the
    run has one audit log, one budget and one concurrency limit."""
    with ChatServer() as server:
        result, card = run(
            pytester, corpus, METHODS / "raw-llm", "--mteval-model=test/model",
            f"--mteval-method-arg=base_url={server.url}", "--mteval-method-arg=api_key_env=",
            "--mteval-batch-size=2", "-n", "2",
        )  # fmt: skip
        assert len(server.requests) == 6
    result.assert_outcomes(passed=6)
    assert card is not None
    assert card["runner"]["gateway"]["forwarded"] == 6
    assert card["runner"]["gateway"]["lines"] == 6
    assert list((pytester.path / ".mteval" / "audit").iterdir()) == [
        pytester.path / card["runner"]["gateway"]["audit_log"]
    ]


@needs_namespaces
def test_a_shipped_corpus_is_hidden_from_the_sandboxed_method(pytester, monkeypatch):
    """Installed from a wheel, the shipped corpora lie inside the package, whose code the
    runner must see: the sandbox shows their folder empty instead of refusing the run. Here a
    folder inside the (shown) method folder stands for it."""
    from pytest_mteval.run import sandbox

    thief = method_copy(pytester, THIEF, "thief")
    shipped = thief / "corpora"
    shipped.mkdir()
    corpus = shipped / "six.json"
    corpus.write_text(json.dumps(envelope(flores_entries(6))), encoding="utf-8")
    monkeypatch.setattr(sandbox, "SHIPPED_CORPORA", shipped)
    result, card = run(pytester, corpus, thief, f"--mteval-method-arg=corpus={corpus}")
    assert card is not None, result.stderr.str()
    attempts = card["results"][0]["metadata"]["attempts"]
    assert attempts["corpus_file"].startswith("denied: "), attempts["corpus_file"]
    assert card["scores"]["exact_match_rate"] == 0.0
