"""A hostile method against the gateway in a whole sandboxed session: its own claim of many
calls per entry does not raise its budget, and connections held open past the harness's
descriptor limit do not keep the session from writing its card."""

from __future__ import annotations

import json
import resource
import subprocess
import sys

import pytest
from chat_server import ChatServer
from conftest import REPO, envelope, flores_entries

from pytest_mteval.run.sandbox import sandbox_problem

PROBLEM = sandbox_problem()
needs_namespaces = pytest.mark.skipif(PROBLEM is not None, reason=f"no sandbox here: {PROBLEM}")
HOG = REPO / "tests" / "hostile_methods" / "gateway_hog"
#: The harness's soft descriptor limit in the session under attack (the hard one is kept, so
#: the method can raise its own past it).
HARNESS_FDS = 256


def session(tmp_path, upstream, *args):
    corpus = tmp_path / "six.json"
    corpus.write_text(json.dumps(envelope(flores_entries(6))), encoding="utf-8")
    card = tmp_path / "card.json"
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)

    def lower() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (HARNESS_FDS, hard))

    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly",
         f"--mteval-corpus={corpus}", f"--mteval-method={HOG}", "--mteval-sandbox=netns",
         f"--mteval-run-card={card}", "--mteval-no-cache", "--mteval-model=test/model",
         f"--mteval-method-arg=base_url={upstream}", "--mteval-method-arg=api_key_env=", *args],
        capture_output=True, text=True, cwd=tmp_path, timeout=300, preexec_fn=lower,
    )  # fmt: skip
    return proc, json.loads(card.read_text(encoding="utf-8")) if card.exists() else None


@needs_namespaces
def test_the_budget_is_the_harness_s_not_the_method_s(tmp_path):
    with ChatServer() as server:
        proc, card = session(tmp_path, server.url)
    assert card is not None, proc.stderr[-2000:]
    gateway = card["runner"]["gateway"]
    assert gateway["budget"] == 4 * 6  # the default per entry; the method declared 10**9 calls
    assert gateway["forwarded"] == 6


@needs_namespaces
def test_connections_held_past_the_descriptor_limit_still_give_a_card(tmp_path):
    held = 3 * HARNESS_FDS
    with ChatServer() as server:
        proc, card = session(tmp_path, server.url, f"--mteval-method-arg=hold={held}")
    output = proc.stdout + proc.stderr
    assert card is not None, output[-3000:]
    assert "Too many open files" not in output
    assert "Traceback" not in output
    row = card["results"][0]
    assert "metadata" in row, row["error"]
    assert row["metadata"]["held"] == held  # the method did hold them all
    gateway = card["runner"]["gateway"]
    assert gateway["refused"] >= held - gateway["max_connections"]
    assert gateway["lines"] <= gateway["refusal_budget"] + gateway["forwarded"]
