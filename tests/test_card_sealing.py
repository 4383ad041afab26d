"""Sealing, writing, reading, verifying and signing a run card, at the unit level.

The session tests (test_runcard.py, test_signing.py) prove the same on cards a real run wrote,
but cost seconds each; these run in milliseconds, so mutation testing can judge the sealing
code with them. Expected hashes and signatures are recomputed here from the encodings the
module docstrings document, with hashlib, json and cryptography directly.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest
from conftest import documented_fingerprint
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ec import SECP256R1, generate_private_key
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from pytest_mteval.cards import runcard, signing
from pytest_mteval.cards.runcard import RunCardError
from pytest_mteval.cards.signing import SigningError

DOMAIN = b"pytest-mteval run card signature v1\n"


def _card(**changes: Any) -> dict[str, Any]:
    """A schema-valid, unsealed card with two result rows (non-ASCII text on purpose)."""
    row = {
        "entry_id": "e1",
        "source": "the dog",
        "expected": "atim",
        "predicted": "atim",
        "exact_match": True,
        "chrf_score": 100.0,
        "bleu_score": 100.0,
        "error": None,
    }
    card: dict[str, Any] = {
        "run_id": "0123456789abcdef",
        "harness_version": "1.2.3",
        "timestamp": "2026-12-01T00:00:00Z",
        "elapsed_seconds": 1.5,
        "model_slug": "method:identity",
        "condition": "naive",
        "temperature": 0.0,
        "system_prompt_sha256": hashlib.sha256(b"").hexdigest(),
        "system_prompt_used": "",
        "tools_enabled": ["lookup", "fst"],
        "batch_size": 4,
        "dataset": {
            "id": "eng-crk",
            "version": "1",
            "language_pair": "eng-crk",
            "sha256": "a" * 64,
            "entry_count": 2,
        },
        "scores": {
            "total": 2,
            "errors": 0,
            "exact_matches": 1,
            "exact_match_rate": 0.5,
            "chrf_plus_plus": 61.0,
        },
        "totals": {},
        "results": [row, {**row, "entry_id": "e2", "predicted": "mîna", "exact_match": False}],
        "fingerprint": "",
        "run_card_hash": "",
    }
    card.update(changes)
    return card


def _documented_hash(card: dict[str, Any]) -> str:
    unsealed = {k: v for k, v in card.items() if k != "signature"}
    unsealed["run_card_hash"] = ""
    encoded = json.dumps(unsealed, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(encoded.encode("utf-8")).hexdigest()


# -- sealing -----------------------------------------------------------------------------------


def test_seal_sets_the_documented_fingerprint_and_hash():
    card = runcard.seal(_card(model_slug="nêhiyawêwin-mt"))
    assert card["fingerprint"] == documented_fingerprint(card)
    assert card["run_card_hash"] == _documented_hash(card)
    runcard.verify(card, Path("card.json"))


def test_tools_in_another_order_give_the_same_fingerprint_and_a_missing_list_is_empty():
    one = runcard.fingerprint(_card(tools_enabled=["fst", "lookup"]))
    assert one == runcard.fingerprint(_card(tools_enabled=["lookup", "fst"]))
    assert runcard.fingerprint(_card(tools_enabled=[])) == documented_fingerprint(
        _card(tools_enabled=[])
    )
    without = _card()
    del without["tools_enabled"]
    assert runcard.fingerprint(without) == runcard.fingerprint(_card(tools_enabled=[]))


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("model_slug", "method:other"),
        ("condition", "floor"),
        ("system_prompt_sha256", "b" * 64),
        ("temperature", 0.3),
        ("harness_version", "1.2.4"),
        ("batch_size", 5),
        ("tools_enabled", ["lookup"]),
    ],
)
def test_each_identity_component_changes_the_fingerprint(field, value):
    assert runcard.fingerprint(_card(**{field: value})) != runcard.fingerprint(_card())


def test_the_hash_ignores_the_signature_and_the_old_hash_but_covers_everything_else():
    sealed = runcard.seal(_card())
    signed = {**sealed, "signature": {"algorithm": "ed25519", "value": "x"}}
    assert runcard.card_hash(signed) == sealed["run_card_hash"]
    assert runcard.card_hash({**sealed, "run_card_hash": "f" * 64}) == sealed["run_card_hash"]
    assert runcard.card_hash({**sealed, "elapsed_seconds": 2.0}) != sealed["run_card_hash"]
    assert "signature" in signed  # hashing did not strip the caller's card


# -- verification ------------------------------------------------------------------------------


def test_verify_names_the_first_invalid_field():
    card = runcard.seal(_card())
    del card["scores"]
    with pytest.raises(RunCardError) as error:
        runcard.verify(card, Path("cards/run.json"))
    assert str(error.value) == "cards/run.json: schema: field 'scores': Field required"
    nested = runcard.seal(_card())
    nested["results"][1]["chrf_score"] = "high"
    with pytest.raises(
        RunCardError, match=r"^cards/run.json: schema: field 'results\.1\.chrf_score'"
    ):
        runcard.verify(nested, Path("cards/run.json"))


def test_an_edit_fails_on_the_hash_and_a_recomputed_hash_fails_on_the_fingerprint():
    card = runcard.seal(_card())
    card["results"][0]["predicted"] = "kahkiyaw"
    with pytest.raises(RunCardError) as error:
        runcard.verify(card, Path("run.json"))
    assert str(error.value) == "run.json: run_card_hash does not match the content (edited?)"
    forged = runcard.seal(_card())
    forged["condition"] = "floor"  # an identity field edited, the hash recomputed to match
    forged["run_card_hash"] = _documented_hash(forged)
    with pytest.raises(RunCardError) as error:
        runcard.verify(forged, Path("run.json"))
    assert str(error.value) == "run.json: fingerprint does not match its eight components"


def test_a_card_without_batch_size_is_refused_in_one_line():
    card = _card()
    del card["batch_size"]  # optional in the schema, but a fingerprint component
    card["fingerprint"] = "c" * 64
    card["run_card_hash"] = _documented_hash(card)
    with pytest.raises(RunCardError) as error:
        runcard.verify(card, Path("run.json"))
    assert str(error.value) == "run.json: fingerprint component missing: 'batch_size'"


def test_load_refuses_json_that_is_not_an_object(tmp_path):
    path = tmp_path / "card.json"
    path.write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(RunCardError) as error:
        runcard.load(path)
    assert str(error.value) == f"{path}: a run card is a JSON object"
    path.write_text('{"run_id": "x"}', encoding="utf-8")
    assert runcard.load(path) == {"run_id": "x"}


# -- writing -----------------------------------------------------------------------------------


def test_render_is_the_card_with_one_key_and_one_result_row_per_line():
    card = runcard.seal(_card(model_slug="nêhiyawêwin"))
    data = runcard.render(card)
    assert json.loads(data.decode("utf-8")) == card
    lines = data.decode("utf-8").splitlines()
    assert lines[0] == "{"
    assert lines[-1] == "}"
    assert data.endswith(b"}\n")
    assert '  "model_slug": "nêhiyawêwin",' in lines  # UTF-8, not \\u escapes
    assert '  "results": [' in lines
    rows = [line for line in lines if line.startswith('    {"entry_id"')]
    assert [json.loads(r.rstrip(","))["entry_id"] for r in rows] == ["e1", "e2"]
    assert lines.count("  ],") == 1
    # keys in the card's own order, one per line
    keys = [json.loads("{" + line.rstrip(",") + "}") for line in lines[1:3]]
    assert [next(iter(k)) for k in keys] == ["run_id", "harness_version"]


def test_render_keeps_an_empty_results_list_on_one_line_and_refuses_nan():
    card = _card(results=[])
    assert '  "results": [],' in runcard.render(card).decode("utf-8").splitlines()
    with pytest.raises(ValueError, match="Out of range float values are not JSON compliant"):
        runcard.render(_card(elapsed_seconds=float("nan")))


def test_a_card_is_never_overwritten_but_written_beside_under_its_run_id(tmp_path):
    path = tmp_path / "cards" / "run.json"
    first = runcard.seal(_card(run_id="aaaaaaaa11111111"))
    assert runcard.write_new(first, path) == path
    assert json.loads(path.read_text(encoding="utf-8")) == first
    second = runcard.seal(_card(run_id="bbbbbbbb22222222"))
    beside = runcard.write_new(second, path)
    assert beside == tmp_path / "cards" / "run-bbbbbbbb.json"
    assert json.loads(path.read_text(encoding="utf-8")) == first
    assert json.loads(beside.read_text(encoding="utf-8")) == second
    with pytest.raises(RunCardError) as error:
        runcard.write_new(second, path)
    assert str(error.value) == f"{path}: exists, and so does the fallback name; card not written"
    assert sorted(p.name for p in path.parent.iterdir()) == ["run-bbbbbbbb.json", "run.json"]


def test_replace_overwrites_on_purpose_and_leaves_no_temporary_file(tmp_path):
    path = tmp_path / "baseline.json"
    path.write_bytes(b"old")
    card = runcard.seal(_card())
    runcard.replace(card, path)
    assert path.read_bytes() == runcard.render(card)
    assert [p.name for p in tmp_path.iterdir()] == ["baseline.json"]


# -- signing -----------------------------------------------------------------------------------


def _documented_message(card: dict[str, Any]) -> bytes:
    blanked = json.loads(json.dumps(card))
    blanked["signature"]["value"] = ""
    canonical = json.dumps(
        blanked, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False
    )
    return DOMAIN + canonical.encode("utf-8")


def _raw_sha256(key: Ed25519PrivateKey) -> str:
    raw = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return hashlib.sha256(raw).hexdigest()


def test_a_signature_is_the_documented_ed25519_signature_and_leaves_the_hash_valid():
    key = Ed25519PrivateKey.generate()
    card = signing.sign(runcard.seal(_card(model_slug="nêhiyawêwin")), key)
    block = card["signature"]
    assert set(block) == {"algorithm", "public_key_sha256", "value"}
    assert block["algorithm"] == "ed25519"
    assert block["public_key_sha256"] == _raw_sha256(key)
    value = base64.b64decode(block["value"], validate=True)
    key.public_key().verify(value, _documented_message(card))  # raises if not
    runcard.verify(card, Path("run.json"))
    assert signing.verify_signature(card, key.public_key(), "run.json") == _raw_sha256(key)


def test_any_edit_to_a_signed_card_fails_its_signature():
    key = Ed25519PrivateKey.generate()
    card = signing.sign(runcard.seal(_card()), key)
    for edit in (
        lambda c: c["results"][1].update(predicted="atim"),
        lambda c: c.update(run_card_hash=_documented_hash(c)),
        lambda c: c["signature"].update(extra="x"),
    ):
        edited = json.loads(json.dumps(card))
        edit(edited)
        if edited == card:
            continue
        with pytest.raises(SigningError) as error:
            signing.verify_signature(edited, key.public_key(), "run.json")
        assert str(error.value) == "run.json: signature does not match the content (edited?)"


def test_a_signature_that_is_not_base64_or_missing_fails_in_one_line():
    key = Ed25519PrivateKey.generate()
    card = signing.sign(runcard.seal(_card()), key)
    for value in ("not base64!", None):
        broken = json.loads(json.dumps(card))
        if value is None:
            del broken["signature"]["value"]
        else:
            broken["signature"]["value"] = value
        with pytest.raises(SigningError) as error:
            signing.verify_signature(broken, key.public_key(), "run.json")
        assert str(error.value) == "run.json: signature does not match the content (edited?)"


def test_unsigned_wrong_algorithm_and_wrong_key_are_told_apart():
    key, other = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    card = signing.sign(runcard.seal(_card()), key)
    with pytest.raises(SigningError) as error:
        signing.verify_signature(runcard.seal(_card()), key.public_key(), "a.json")
    assert str(error.value) == "a.json: the card is not signed (no 'signature' object)"
    with pytest.raises(SigningError, match=r"^a\.json: the card is not signed"):
        signing.verify_signature({**card, "signature": "sig"}, key.public_key(), "a.json")
    rsa = {**card, "signature": {**card["signature"], "algorithm": "rsa"}}
    with pytest.raises(SigningError) as error:
        signing.verify_signature(rsa, key.public_key(), "a.json")
    assert str(error.value) == "a.json: signature.algorithm is 'rsa'"
    with pytest.raises(SigningError) as error:
        signing.verify_signature(card, other.public_key(), "a.json")
    assert str(error.value) == (
        f"a.json: signed by key {_raw_sha256(key)[:16]}…, not by the given key "
        f"{_raw_sha256(other)[:16]}…"
    )


def test_a_card_re_signed_by_another_key_verifies_only_with_that_key():
    key, other = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    card = signing.sign(signing.sign(runcard.seal(_card()), key), other)
    assert signing.verify_signature(card, other.public_key(), "a") == _raw_sha256(other)
    with pytest.raises(SigningError, match="not by the given key"):
        signing.verify_signature(card, key.public_key(), "a")


def test_keygen_writes_a_0600_private_key_and_its_public_key_and_never_overwrites(tmp_path):
    private = tmp_path / "signer"
    old = os.umask(0)
    try:
        public = signing.generate_key_pair(private)
    finally:
        os.umask(old)
    assert public == tmp_path / "signer.pub"
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    assert stat.S_IMODE(public.stat().st_mode) == 0o644
    key = serialization.load_pem_private_key(private.read_bytes(), password=None)
    assert isinstance(key, Ed25519PrivateKey)
    assert private.read_bytes().startswith(b"-----BEGIN PRIVATE KEY-----")
    assert public.read_bytes().startswith(b"-----BEGIN PUBLIC KEY-----")
    loaded = signing.load_private_key(private)
    assert _raw_sha256(loaded) == _raw_sha256(key)
    assert signing.key_fingerprint(signing.load_public_key(public)) == _raw_sha256(key)
    before = private.read_bytes(), public.read_bytes()
    with pytest.raises(SigningError) as error:
        signing.generate_key_pair(private)
    assert str(error.value) == f"{private}: exists; a key is never overwritten"
    public.unlink()
    with pytest.raises(SigningError) as error:  # the private key alone blocks too
        signing.generate_key_pair(private)
    assert str(error.value) == f"{private}: exists; a key is never overwritten"
    assert private.read_bytes() == before[0]
    private.unlink()
    public.write_bytes(b"someone else's")
    with pytest.raises(SigningError) as error:
        signing.generate_key_pair(private)
    assert str(error.value) == f"{public}: exists; a key is never overwritten"
    assert not private.exists()


def test_keygen_into_a_missing_folder_is_one_line(tmp_path):
    private = tmp_path / "missing" / "signer"
    with pytest.raises(SigningError) as error:
        signing.generate_key_pair(private)
    assert str(error.value) == f"{private}: cannot create: No such file or directory"


def test_keygen_through_a_planted_link_is_refused(tmp_path):
    target = tmp_path / "elsewhere"
    private = tmp_path / "signer"
    private.symlink_to(target)  # dangling: exists() is False, O_NOFOLLOW must refuse it
    with pytest.raises(SigningError, match=rf"^{private}: cannot create: "):
        signing.generate_key_pair(private)
    assert not target.exists()


def test_a_private_key_others_may_read_is_refused(tmp_path):
    private = tmp_path / "signer"
    signing.generate_key_pair(private)
    for mode in (0o640, 0o604, 0o610):
        private.chmod(mode)
        with pytest.raises(SigningError) as error:
            signing.load_private_key(private)
        assert str(error.value) == (
            f"{private}: signing key is readable by others (mode {mode:o}); chmod 600 it"
        )
    private.chmod(0o400)
    assert isinstance(signing.load_private_key(private), Ed25519PrivateKey)


def test_unusable_key_files_are_one_line_each(tmp_path):
    missing = tmp_path / "none"
    with pytest.raises(SigningError, match=rf"^{missing}: cannot read signing key: No such file"):
        signing.load_private_key(missing)
    with pytest.raises(SigningError, match=rf"^{missing}: cannot read public key: No such file"):
        signing.load_public_key(missing)
    garbage = tmp_path / "garbage"
    garbage.write_bytes(b"not a key")
    garbage.chmod(0o600)
    with pytest.raises(SigningError, match=rf"^{garbage}: not an unencrypted PEM private key \("):
        signing.load_private_key(garbage)
    with pytest.raises(SigningError, match=rf"^{garbage}: not a PEM public key \("):
        signing.load_public_key(garbage)
    ec = generate_private_key(SECP256R1())
    ec_private = tmp_path / "ec"
    ec_private.write_bytes(
        ec.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    ec_private.chmod(0o600)
    with pytest.raises(SigningError) as error:
        signing.load_private_key(ec_private)
    assert str(error.value) == f"{ec_private}: not an Ed25519 key (run `mteval keygen`)"
    ec_public = tmp_path / "ec.pub"
    ec_public.write_bytes(
        ec.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
    )
    with pytest.raises(SigningError) as error:
        signing.load_public_key(ec_public)
    assert str(error.value) == f"{ec_public}: not an Ed25519 public key"


def test_verifying_leaves_the_card_as_it_was():
    key = Ed25519PrivateKey.generate()
    card = signing.sign(runcard.seal(_card()), key)
    before = json.loads(json.dumps(card))
    signing.verify_signature(card, key.public_key(), "run.json")
    assert card == before
    signing.verify_signature(card, key.public_key(), "run.json")  # still verifies


def test_a_signature_value_with_characters_outside_base64_is_refused():
    # base64 decoders that skip stray characters would accept an edited value; this one not.
    key = Ed25519PrivateKey.generate()
    card = signing.sign(runcard.seal(_card()), key)
    value = card["signature"]["value"]
    for junk in (value[:8] + "!" + value[8:], value + "*", value[:10] + "\n" + value[10:]):
        edited = {**card, "signature": {**card["signature"], "value": junk}}
        with pytest.raises(SigningError) as error:
            signing.verify_signature(edited, key.public_key(), "run.json")
        assert str(error.value) == "run.json: signature does not match the content (edited?)"


def test_a_card_holding_nan_cannot_be_signed():
    # NaN is not JSON: the signed bytes must be JSON anyone can re-check (allow_nan=False)
    with pytest.raises(ValueError, match="Out of range float values are not JSON compliant"):
        signing.sign(_card(temperature=float("nan")), Ed25519PrivateKey.generate())
