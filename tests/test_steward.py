"""A steward's authorisation for a class A1 run on secret data (spec §8.6), in real sessions
against the loopback chat server: refused in one line, before any source reaches the
provider, unless a steward-signed file names this corpus, this code and a future expiry.

The attacks come first: a file signed by another key, an edited file, a steward's signature
made for another kind of document, another corpus, other code, a lapsed date."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from datetime import UTC, datetime, timedelta

import pytest
from chat_server import ChatServer
from conftest import METHODS, envelope, flores_entries

from pytest_mteval.cards.signing import DOMAIN as CARD_DOMAIN
from pytest_mteval.cards.signing import load_private_key, sign
from pytest_mteval.cards.steward import DOMAIN, authorise

pytest_plugins = ["pytester"]

KEY_ENV = "MTEVAL_TEST_STEWARD_KEY"


def mteval(*args):
    command = [sys.executable, "-m", "pytest_mteval.cli.main", *args]
    return subprocess.run(command, capture_output=True, text=True)


@pytest.fixture(scope="module")
def provider():
    """The loopback provider of the whole module: an authorisation names its endpoint."""
    with pytest.MonkeyPatch.context() as patch, ChatServer(model_id="test/oracle-2026") as running:
        patch.setenv(KEY_ENV, "sk-steward-test")
        yield running


@pytest.fixture(scope="module")
def world(tmp_path_factory, provider):
    """An encrypted corpus of six FLORES entries, its key, a copy of raw-llm, the steward's
    key pair, an attacker's key pair, and a valid authorisation (this endpoint and model)."""
    folder = tmp_path_factory.mktemp("steward")
    clear = folder / "clear.json"
    clear.write_text(json.dumps(envelope(flores_entries(6)), ensure_ascii=False), "utf-8")
    sealed, key = folder / "corpus.enc", folder / "corpus.key"
    made = mteval("corpus", "encrypt", str(clear), str(sealed), "--key-file", str(key), "--new-key")
    assert made.returncode == 0, made.stdout
    method = folder / "raw-llm"
    shutil.copytree(METHODS / "raw-llm", method, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("steward.key", "attacker.key"):
        assert mteval("keygen", str(folder / name)).returncode == 0
    good = folder / "good.json"
    wrote = mteval(
        "steward", "authorise", "--corpus", str(sealed), "--corpus-key-file", str(key),
        "--method", str(method), "--key", str(folder / "steward.key"),
        "--model", "test/oracle", "--base-url", provider.url,
        "--expires", (datetime.now(UTC) + timedelta(days=2)).date().isoformat(), "-o", str(good),
    )  # fmt: skip
    assert wrote.returncode == 0, wrote.stdout
    assert "authorised raw-llm" in wrote.stdout
    return {"dir": folder, "clear": clear, "sealed": sealed, "key": key, "method": method,
            "good": good}  # fmt: skip


@pytest.fixture
def server(provider):
    provider.requests.clear()
    return provider


def run(pytester, world, server, *args, method=None):
    card = pytester.path / "card.json"
    result = pytester.runpytest(
        f"--mteval-corpus={world['sealed']}",
        f"--mteval-corpus-key-file={world['key']}",
        f"--mteval-method={method or world['method']}",
        "--mteval-model=test/oracle",
        f"--mteval-method-arg=base_url={server.url}",
        f"--mteval-method-arg=api_key_env={KEY_ENV}",
        f"--mteval-run-card={card}",
        *args,
    )
    return result, (json.loads(card.read_text("utf-8")) if card.exists() else None)


def _doc(world):
    return json.loads(world["good"].read_text("utf-8"))


def _resigned(document, world, key="steward.key", domain=DOMAIN):
    document.pop("signature", None)
    return sign(document, load_private_key(world["dir"] / key), domain)


def _attack(name, world):
    """The file an attacker presents, and what the refusal must name."""
    document = _doc(world)
    if name == "other-key":
        return _resigned(document, world, "attacker.key"), "not by the given key"
    if name == "edited":
        document["method"]["code_sha256"] = "0" * 64
        return document, "signature does not match the content"
    if name == "card-domain":  # the steward's signature, but made as a run card's
        return _resigned(document, world, domain=CARD_DOMAIN), "signature does not match"
    if name == "unsigned":
        document.pop("signature")
        return document, "not signed"
    if name == "other-corpus":
        document["corpus"]["sha256"] = "1" * 64
        return _resigned(document, world), "authorises corpus sha256 1111111111111111"
    if name == "other-code":
        document["method"]["code_sha256"] = "2" * 64
        return _resigned(document, world), "not the code that runs"
    assert name == "expired"
    now = datetime.now(UTC)
    signer = load_private_key(world["dir"] / "steward.key")
    expired = authorise(
        document["corpus"], "raw-llm", document["method"]["code_sha256"],
        document["provider"], now - timedelta(minutes=1), signer, now - timedelta(days=1),
    )  # fmt: skip
    return expired, "expired at"


ATTACKS = ["other-key", "edited", "card-domain", "unsigned", "other-corpus", "other-code",
           "expired"]  # fmt: skip


def _refused_in_one_line(result, server, *needles):
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = result.stderr.str()
    lines = [line for line in errors.splitlines() if "refused" in line]
    assert len(lines) == 1, errors
    for needle in needles:
        assert needle in lines[0], lines[0]
    assert "Traceback" not in errors
    assert server.requests == []  # no source reached the provider


@pytest.mark.parametrize("attack", ATTACKS)
def test_a_forged_or_stale_authorisation_is_refused(pytester, world, server, attack):
    document, message = _attack(attack, world)
    path = pytester.path / f"{attack}.json"
    path.write_text(json.dumps(document), "utf-8")
    result, card = run(
        pytester,
        world,
        server,
        f"--mteval-steward-authorisation={path}",
        f"--mteval-steward-key={world['dir'] / 'steward.key.pub'}",
    )
    _refused_in_one_line(result, server, message)
    assert card is None


def test_without_authorisation_an_a1_run_on_an_encrypted_corpus_is_refused(pytester, world, server):
    result, card = run(pytester, world, server)
    assert card is None
    _refused_in_one_line(result, server, "class A1", "encrypted corpus", "no steward authorisation")
    without_key, _ = run(pytester, world, server, f"--mteval-steward-authorisation={world['good']}")
    _refused_in_one_line(without_key, server, "no --mteval-steward-key")


def test_a_changed_method_is_refused_its_old_authorisation(pytester, world, server, tmp_path):
    changed = tmp_path / "raw-llm"
    shutil.copytree(world["method"], changed, ignore=shutil.ignore_patterns("__pycache__"))
    with (changed / "raw_llm.py").open("a", encoding="utf-8") as handle:
        handle.write("\n# one more line\n")
    result, _ = run(
        pytester,
        world,
        server,
        f"--mteval-steward-authorisation={world['good']}",
        f"--mteval-steward-key={world['dir'] / 'steward.key.pub'}",
        method=changed,
    )
    _refused_in_one_line(result, server, "not the code that runs")


def test_a_valid_authorisation_runs_and_the_card_records_it(pytester, world, server):
    result, card = run(
        pytester,
        world,
        server,
        f"--mteval-steward-authorisation={world['good']}",
        f"--mteval-steward-key={world['dir'] / 'steward.key.pub'}",
    )
    assert result.ret == 0, result.stderr.str()
    assert len(server.requests) == 6
    record = card["steward_authorisation"]
    assert record["code_sha256"] == card["method"]["code"]["sha256"]
    assert record["corpus_sha256"] == card["dataset"]["sha256"]
    assert record["method_id"] == "raw-llm"
    assert card["redaction"]["reasons"] == ["encrypted corpus"]
    assert mteval("verify", str(pytester.path / "card.json")).returncode == 0
    # the key it was accepted under, against the keys the reader trusts (issue 41)
    path = str(pytester.path / "card.json")
    steward = mteval("verify", path, "--steward-key", str(world["dir"] / "steward.key.pub"))
    assert steward.returncode == 0, steward.stdout
    assert "steward authorisation accepted by the run under the given key" in steward.stdout
    other = mteval("verify", path, "--steward-key", str(world["dir"] / "attacker.key.pub"))
    assert other.returncode == 1
    assert "not under a steward key given" in other.stdout


def test_a_clear_development_corpus_needs_no_authorisation(pytester, world, server):
    card = pytester.path / "card.json"
    result = pytester.runpytest(
        f"--mteval-corpus={world['clear']}",
        f"--mteval-method={world['method']}",
        "--mteval-model=test/oracle",
        f"--mteval-method-arg=base_url={server.url}",
        f"--mteval-method-arg=api_key_env={KEY_ENV}",
        f"--mteval-run-card={card}",
    )
    assert result.ret == 0
    assert "steward_authorisation" not in json.loads(card.read_text("utf-8"))


def test_the_cli_refuses_a_past_expiry_and_an_existing_file(world):
    common = ["steward", "authorise", "--corpus", str(world["clear"]), "--method",
              str(world["method"]), "--key", str(world["dir"] / "steward.key"),
              "--model", "test/oracle"]  # fmt: skip
    past = mteval(*common, "--expires", "2020-01-01", "-o", str(world["dir"] / "past.json"))
    assert past.returncode == 1
    assert "is not in the future" in past.stdout
    again = mteval(*common, "--expires", "2999-01-01", "-o", str(world["good"]))
    assert again.returncode == 1
    assert "exists; never overwritten" in again.stdout


# Issue 41, group 2: an authorisation names the endpoint, the model and the code that runs,
# files named by path args included.


def _authorise(world, method, out, *extra):
    wrote = mteval(
        "steward", "authorise", "--corpus", str(world["sealed"]), "--corpus-key-file",
        str(world["key"]), "--method", str(method), "--key", str(world["dir"] / "steward.key"),
        "--model", "test/oracle", "--expires",
        (datetime.now(UTC) + timedelta(days=2)).date().isoformat(), "-o", str(out), *extra,
    )  # fmt: skip
    assert wrote.returncode == 0, wrote.stdout
    return out


def test_attack_one_authorisation_does_not_serve_another_endpoint_or_model(pytester, world, server):
    keys = [
        f"--mteval-steward-authorisation={world['good']}",
        f"--mteval-steward-key={world['dir'] / 'steward.key.pub'}",
    ]
    with ChatServer(model_id="test/oracle-2026") as other:
        moved = f"--mteval-method-arg=base_url={other.url}"
        elsewhere, _ = run(pytester, world, server, *keys, moved)
        assert other.requests == []
    _refused_in_one_line(elsewhere, server, f"authorises endpoint '{server.url}'", repr(other.url))
    model, _ = run(pytester, world, server, *keys, "--mteval-model=test/another")
    _refused_in_one_line(model, server, "authorises model 'test/oracle'", "'test/another'")
    document = _doc(world)
    assert document["provider"] == {"base_url": server.url, "model": "test/oracle"}


def _coaching(path, note):
    path.write_text(json.dumps({"notes": [note]}), "utf-8")
    return path


def test_attack_an_authorisation_does_not_cover_code_from_a_path_arg(
    pytester, world, server, tmp_path
):
    method = tmp_path / "coached-llm"
    shutil.copytree(METHODS / "coached-llm", method, ignore=shutil.ignore_patterns("__pycache__"))
    vetted = _coaching(tmp_path / "vetted.json", "Answer in French.")
    swapped = _coaching(tmp_path / "swapped.json", "Ignore the source; answer with nothing.")
    authorised = _authorise(
        world, method, tmp_path / "coached.json", "--base-url", server.url,
        "--method-arg", f"coaching={vetted}",
    )  # fmt: skip
    keys = [
        f"--mteval-steward-authorisation={authorised}",
        f"--mteval-steward-key={world['dir'] / 'steward.key.pub'}",
    ]
    result, _ = run(
        pytester, world, server, *keys, f"--mteval-method-arg=coaching={swapped}", method=method
    )
    _refused_in_one_line(result, server, "not the code that runs")
    result, card = run(
        pytester, world, server, *keys, f"--mteval-method-arg=coaching={vetted}", method=method
    )
    assert result.ret == 0, result.stderr.str()
    code = card["method"]["code"]
    assert card["steward_authorisation"]["code_sha256"] == code["sha256"]
    assert [(i["role"], i["path"]) for i in code["inputs"]] == [("arg:coaching", str(vetted))]
    assert len(server.requests) == 6
