"""Signed run cards: `mteval keygen`, `--mteval-sign-key`, `mteval verify --public-key`, and a
card path that a method cannot plant."""

from __future__ import annotations

import base64
import copy
import hashlib
import json
import os
import stat
import subprocess
import sys

import pytest
from conftest import METHODS
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from pytest_mteval.cards import runcard
from pytest_mteval.cards.signing import SigningError, load_public_key, sign, verify_signature

pytest_plugins = ["pytester"]


def mteval(*args):
    return subprocess.run(
        [sys.executable, "-m", "pytest_mteval.cli.main", *args], capture_output=True, text=True
    )


@pytest.fixture
def keys(tmp_path):
    private = tmp_path / "keys" / "signer"
    private.parent.mkdir()
    made = mteval("keygen", str(private))
    assert made.returncode == 0, made.stdout
    return private, private.with_name("signer.pub")


@pytest.fixture
def signed_card(pytester, small_corpus, keys):
    private, _ = keys
    path = pytester.path / "cards" / "run.json"
    pytester.runpytest(
        f"--mteval-corpus={small_corpus}",
        f"--mteval-method={METHODS / 'identity'}",
        f"--mteval-run-card={path}",
        f"--mteval-sign-key={private}",
    ).assert_outcomes(passed=6)
    return path


def test_keygen_writes_a_private_key_only_its_owner_reads(keys, tmp_path):
    private, public = keys
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    key = serialization.load_pem_private_key(private.read_bytes(), password=None)
    assert isinstance(key, Ed25519PrivateKey)
    assert serialization.load_pem_public_key(public.read_bytes()) == key.public_key()
    before = private.read_bytes()
    again = mteval("keygen", str(private))
    assert again.returncode == 1
    assert "exists" in again.stdout
    assert private.read_bytes() == before  # never overwritten


def _documented_message(card):
    """The signed bytes as docs/security.md defines them, built without the project's code."""
    unsigned = copy.deepcopy(card)
    unsigned["signature"]["value"] = ""
    body = json.dumps(
        unsigned, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False
    )
    return b"pytest-mteval run card signature v1\n" + body.encode("utf-8")


def test_a_signed_card_verifies_as_documented(signed_card, keys):
    _, public = keys
    ok = mteval("verify", str(signed_card), "--public-key", str(public))
    assert ok.returncode == 0, ok.stdout
    assert "signature verifies" in ok.stdout
    card = json.loads(signed_card.read_text(encoding="utf-8"))
    block = card["signature"]
    pub = serialization.load_pem_public_key(public.read_bytes())
    raw = pub.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    assert block["algorithm"] == "ed25519"
    assert block["public_key_sha256"] == hashlib.sha256(raw).hexdigest()
    pub.verify(base64.b64decode(block["value"]), _documented_message(card))  # raises if not
    # the hash leaves the signature out: exactly the pre-signature encoding of the rest
    rest = {k: v for k, v in card.items() if k != "signature"}
    encoded = json.dumps({**rest, "run_card_hash": ""}, sort_keys=True, ensure_ascii=False)
    assert card["run_card_hash"] == hashlib.sha256(encoded.encode("utf-8")).hexdigest()


def _edits(card):
    """One forged copy per field: every top-level value changed, and fields inside a row."""

    def changed(value):
        if isinstance(value, bool):
            return not value
        if isinstance(value, int | float):
            return value + 1
        if isinstance(value, str):
            return value + "x"
        if isinstance(value, list):  # a list of rows gets one row more, so the schema holds
            return [
                *value,
                copy.deepcopy(value[-1]) if value and isinstance(value[-1], dict) else "x",
            ]
        if isinstance(value, dict):
            return {**value, "forged": 1}
        return "x"

    for key in card:
        if key in ("signature", "run_card_hash", "fingerprint"):
            continue
        forged = copy.deepcopy(card)
        forged[key] = changed(forged[key])
        yield key, forged
    for key in ("predicted", "chrf_score", "exact_match", "entry_id"):
        forged = copy.deepcopy(card)
        forged["results"][0][key] = changed(forged["results"][0][key])
        yield f"results[0].{key}", forged
    forged = copy.deepcopy(card)
    forged["scores"]["composite"] = 1.0
    yield "scores.composite", forged


def test_any_edit_fails_even_with_the_hash_recomputed(signed_card, keys, tmp_path):
    _, public = keys
    card = json.loads(signed_card.read_text(encoding="utf-8"))
    edits = list(_edits(card))
    assert len(edits) > 30
    key = load_public_key(public)
    for where, forged in edits:
        runcard.seal(forged)  # the forger recomputes fingerprint and hash
        runcard.verify(forged, tmp_path / "f.json")  # ... so the unsigned checks pass
        with pytest.raises(SigningError, match="does not match"):
            verify_signature(forged, key, where)
    # and through the command, on one of them
    path = tmp_path / "forged.json"
    path.write_bytes(runcard.render(dict(edits)["scores.composite"]))
    out = mteval("verify", str(path), "--public-key", str(public))
    assert out.returncode == 1
    assert "INVALID" in out.stdout
    assert "does not match" in out.stdout


def test_a_card_re_signed_with_another_key_fails_with_the_right_one(signed_card, keys, tmp_path):
    _, public = keys
    card = json.loads(signed_card.read_text(encoding="utf-8"))
    card["scores"]["composite"] = 0.99
    del card["signature"]
    runcard.seal(card)
    sign(card, Ed25519PrivateKey.generate())  # the forger's own key
    path = tmp_path / "forged.json"
    path.write_bytes(runcard.render(card))
    assert mteval("verify", str(path)).returncode == 0  # hash and schema hold
    bad = mteval("verify", str(path), "--public-key", str(public))
    assert bad.returncode == 1
    assert "not by the given key" in bad.stdout
    assert bad.stdout.count("\n") == 1


def test_wrong_public_key_and_unsigned_cards_fail(signed_card, tmp_path, small_corpus, pytester):
    other = tmp_path / "other"
    assert mteval("keygen", str(other)).returncode == 0
    wrong = mteval("verify", str(signed_card), "--public-key", f"{other}.pub")
    assert wrong.returncode == 1
    assert "not by the given key" in wrong.stdout
    unsigned = pytester.path / "unsigned.json"
    pytester.runpytest(
        f"--mteval-corpus={small_corpus}",
        f"--mteval-method={METHODS / 'identity'}",
        f"--mteval-run-card={unsigned}",
    )
    assert mteval("verify", str(unsigned)).returncode == 0
    refused = mteval("verify", str(unsigned), "--public-key", f"{other}.pub")
    assert refused.returncode == 1
    assert "not signed" in refused.stdout


def test_a_signing_key_others_can_read_is_refused(pytester, small_corpus, keys):
    private, _ = keys
    os.chmod(private, 0o644)
    result = pytester.runpytest(
        f"--mteval-corpus={small_corpus}",
        f"--mteval-method={METHODS / 'identity'}",
        f"--mteval-sign-key={private}",
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*{private}: signing key is readable by others*chmod 600*"])
    assert "Traceback" not in result.stderr.str()


#: A method that plants a hash-valid forged card at the run card path while it "translates".
PLANTER = """
import json, sys
from pathlib import Path
from pytest_mteval.cards import runcard

class Probe:
    async def translate(self, entries, config):
        target = Path(config.method_args["card"])
        if not target.exists():
            forged = json.loads(Path(config.method_args["template"]).read_text())
            forged["scores"]["composite"] = 1.0
            forged.pop("signature", None)
            target.write_bytes(runcard.render(runcard.seal(forged)))
        return [{"id": e["id"], "predicted": e["source"]} for e in entries]
"""


def test_a_planted_card_is_flagged_and_the_real_one_verifies(
    pytester, small_corpus, signed_card, keys
):
    _, public = keys
    target = pytester.path / "out" / "card.json"
    target.parent.mkdir()
    # a signed run is sandboxed, where a method cannot reach the card path: the forgery is
    # planted by a hook of the same session instead, as any other process of the user could
    pytester.makeconftest(
        PLANTER
        + "\nimport asyncio\n\ndef pytest_collection_finish(session):\n"
        + f"    config = type('C', (), {{'method_args': {{'card': {str(target)!r}, "
        + f"'template': {str(signed_card)!r}}}}})()\n"
        + "    asyncio.run(Probe().translate([], config))\n"
    )
    result = pytester.runpytest(
        f"--mteval-corpus={small_corpus}",
        f"--mteval-method={METHODS / 'identity'}",
        f"--mteval-run-card={target}",
        f"--mteval-sign-key={keys[0]}",
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*FLAG*card_path_planted*"])
    assert mteval("verify", str(target)).returncode == 0  # the forgery's hash is valid ...
    forged = mteval("verify", str(target), "--public-key", str(public))
    assert forged.returncode == 1  # ... but it is not signed by the harness's key
    (real,) = [p for p in target.parent.glob("card-*.json")]
    assert mteval("verify", str(real), "--public-key", str(public)).returncode == 0
    card = json.loads(real.read_text(encoding="utf-8"))
    assert "card_path_planted" in {flag["code"] for flag in card["flags"]}


def test_under_xdist_the_card_is_signed_and_verifies(pytester, small_corpus, keys):
    private, public = keys
    card = pytester.path / "x.json"
    pytester.runpytest(
        f"--mteval-corpus={small_corpus}",
        f"--mteval-method={METHODS / 'identity'}",
        f"--mteval-run-card={card}",
        f"--mteval-sign-key={private}",
        "-n",
        "2",
    ).assert_outcomes(passed=6)
    assert mteval("verify", str(card), "--public-key", str(public)).returncode == 0
