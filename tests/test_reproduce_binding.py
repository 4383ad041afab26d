"""Issue 41, groups 2 and 4: a reproduction counts only over the card's own code, and a
maintainer's tools never take a stranger's card's endpoint or key variable. Attacks first, in
real sessions against two loopback chat servers (the maintainer's and the submitter's)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest
from chat_server import ChatServer
from conftest import METHODS
from sampling_model import SamplingModel, sna_head_and_prices, submitter_and_maintainer_keys
from test_reproduction import reasons_by_run

from pytest_mteval.cards import runcard
from pytest_mteval.cli.main import main

SUBMITTER_KEY_ENV = "MTEVAL_TEST_SUBMITTER_KEY"
MAINTAINER_KEY_ENV = "MTEVAL_TEST_MAINTAINER_KEY"
#: A maintainer's token the submitter's card names as its key variable.
TOKEN_ENV = "MTEVAL_TEST_MAINTAINER_GITHUB_TOKEN"
TOKEN = "ghp_maintainers0wnT0kenNeverToBeSent"
ENTRIES = 6


@pytest.fixture
def world(tmp_path, monkeypatch):
    corpus, prices = sna_head_and_prices(tmp_path, ENTRIES)
    keys = submitter_and_maintainer_keys(tmp_path)
    monkeypatch.setenv(SUBMITTER_KEY_ENV, "sk-submitter")
    monkeypatch.setenv(MAINTAINER_KEY_ENV, "sk-maintainer")
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    monkeypatch.chdir(tmp_path)
    method = tmp_path / "raw-llm"
    shutil.copytree(METHODS / "raw-llm", method, ignore=shutil.ignore_patterns("__pycache__"))
    with (
        ChatServer(model_id="test/sampler-1") as mine,
        ChatServer(model_id="test/sampler-1") as theirs,
    ):
        mine.responder = theirs.responder = SamplingModel(corpus)
        yield {"dir": tmp_path, "corpus": corpus, "prices": prices, "keys": keys,
               "method": method, "mine": mine, "theirs": theirs}  # fmt: skip


def session(world, server, key_env, card, *extra):
    done = subprocess.run(
        [
            sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
            f"--mteval-corpus={world['corpus']}", f"--mteval-method={world['method']}",
            "--mteval-model=test/sampler", f"--mteval-prices={world['prices']}",
            f"--mteval-method-arg=base_url={server.url}",
            f"--mteval-method-arg=api_key_env={key_env}", f"--mteval-run-card={card}", *extra,
        ],
        cwd=world["dir"], capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert card.is_file(), done.stdout + done.stderr
    return json.loads(card.read_text(encoding="utf-8"))


def _reproduce(world, card, *options):
    return main(
        ["reproduce", str(card), "--output", str(world["dir"] / "repro"),
         f"--pytest-arg=--mteval-prices={world['prices']}", *options]
    )  # fmt: skip


def test_attack_a_card_naming_the_submitter_s_endpoint_and_a_maintainer_s_variable(world, capsys):
    theirs, mine = world["theirs"], world["mine"]
    card_path = world["dir"] / "submitted.json"
    session(world, theirs, SUBMITTER_KEY_ENV, card_path)
    card = runcard.load(card_path)
    card["method"]["run_config"]["method_args"]["api_key_env"] = TOKEN_ENV
    card_path.write_bytes(runcard.render(runcard.seal(card)))  # re-hashed: it verifies
    runcard.verify(runcard.load(card_path), card_path)
    served = len(theirs.requests)
    capsys.readouterr()
    mine_flags = [f"--base-url={mine.url}", f"--api-key-env={MAINTAINER_KEY_ENV}"]
    for options in (mine_flags, [], [f"--api-key-env={MAINTAINER_KEY_ENV}"]):
        assert _reproduce(world, card_path, *options) == 2
        captured = capsys.readouterr()
        lines = captured.err.strip().splitlines()
        assert len(lines) == 1, captured.err
        assert "field 'method.run_config.method_args.base_url'" in lines[0]
        assert repr(theirs.url) in lines[0]
        assert "--use-card-endpoint" in lines[0]
        assert f"api_key_env='{TOKEN_ENV}'" in captured.out  # what the card asks, shown
        assert f"with method args prices='{world['prices']}'" in captured.out
    assert len(theirs.requests) == served  # nothing reached the submitter's server
    assert mine.requests == []
    # told to, the maintainer sends the sources there, with the maintainer's key variable
    assert _reproduce(world, card_path, "--use-card-endpoint", *mine_flags[1:]) == 0
    sent = theirs.requests[served:]
    assert len(sent) == ENTRIES
    headers = json.dumps([request.headers for request in sent])
    assert TOKEN not in headers
    assert all(r.headers.get("authorization") == "Bearer sk-maintainer" for r in sent), headers


def test_attack_a_reproduction_of_other_code_does_not_hold(world, capsys):
    mine = world["mine"]
    card_path = world["dir"] / "original.json"
    original = session(world, mine, MAINTAINER_KEY_ENV, card_path)
    with (world["method"] / "raw_llm.py").open("a", encoding="utf-8") as handle:
        handle.write("\n# other code under the same folder name\n")
    capsys.readouterr()
    flags = [f"--base-url={mine.url}", f"--api-key-env={MAINTAINER_KEY_ENV}"]
    assert _reproduce(world, card_path, *flags) == 1
    out = capsys.readouterr().out
    repeat = json.loads((world["dir"] / "repro" / "repeat-1.json").read_text("utf-8"))
    assert repeat["fingerprint"] == original["fingerprint"]
    assert repeat["scores"]["composite"] == original["scores"]["composite"]  # t = 0
    own, other = original["method"]["code"]["sha256"], repeat["method"]["code"]["sha256"]
    problem = f"it ran other code (code sha256 {other[:12]}, the card's {own[:12]})"
    assert f"PROBLEM repeat 1: {problem}" in out
    assert "does NOT hold" in out


def test_attack_a_maintainer_signed_run_of_other_code_does_not_verify_a_card(world, capsys):
    mine, keys = world["mine"], world["keys"]
    board = world["dir"] / "board"
    board.mkdir()
    sub = f"--mteval-sign-key={keys['submitter']}"
    maint = f"--mteval-sign-key={keys['maintainer']}"
    original = session(world, mine, MAINTAINER_KEY_ENV, board / "original.json", sub)
    with (world["method"] / "raw_llm.py").open("a", encoding="utf-8") as handle:
        handle.write("\n# other code under the same folder name\n")
    other = session(
        world, mine, MAINTAINER_KEY_ENV, board / "other.json", maint, "--mteval-no-cache"
    )
    assert other["fingerprint"] == original["fingerprint"]
    assert other["scores"]["composite"] == original["scores"]["composite"]
    assert other["method"]["code"]["sha256"] != original["method"]["code"]["sha256"]
    tiers = reasons_by_run(board, keys)
    assert tiers[original["run_id"]].startswith("self-benchmarked"), tiers
    # the same maintainer run of the card's own code verifies it (the rule can pass)
    shutil.rmtree(world["method"])
    ignored = shutil.ignore_patterns("__pycache__")
    shutil.copytree(METHODS / "raw-llm", world["method"], ignore=ignored)
    same = session(world, mine, MAINTAINER_KEY_ENV, board / "same.json", maint, "--mteval-no-cache")
    assert same["method"]["code"]["sha256"] == original["method"]["code"]["sha256"]
    tiers = reasons_by_run(board, keys)
    assert tiers[original["run_id"]].startswith("maintainer-verified"), tiers
    assert f"maintainer run {same['run_id'][:8]}" in tiers[original["run_id"]]
    assert other["run_id"][:8] not in tiers[original["run_id"]]
