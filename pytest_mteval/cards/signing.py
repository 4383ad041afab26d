"""Ed25519 signatures on sealed run cards: who sealed a card, not only that it is intact.

The run card hash (``runcard.card_hash``) is a plain sha256 anyone can recompute after editing a
card, so it proves integrity only to someone who already trusts where the card came from. A
signature made with a private key the method never sees proves that the key holder sealed
exactly this card.

What is signed, fixed so anyone can re-check a card without this code:

    message = b"pytest-mteval run card signature v1\\n" + canonical(card')

where ``card'`` is the whole sealed card (``run_card_hash`` and ``fingerprint`` included) whose
``signature`` object has its ``value`` set to "" (so ``algorithm`` and
``public_key_sha256`` are signed too), and ``canonical(x)`` is the UTF-8 of
``json.dumps(x, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False)``.
``signature.value`` is the 64-byte Ed25519 signature of ``message``, base64 (standard alphabet,
padded). ``public_key_sha256`` is the sha256 (hex) of the 32 raw bytes of the public key.
The card's ``run_card_hash`` does not cover the ``signature`` key (see ``runcard.card_hash``),
so signing leaves the hash, and every card sealed before signatures existed, verifiable.

Keys are PEM files: the private key PKCS#8 unencrypted (mode 0600), the public key
SubjectPublicKeyInfo.
"""

from __future__ import annotations

import base64
import binascii
import copy
import hashlib
import json
from pathlib import Path
from typing import Any, Final

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from pytest_mteval.cards.key_files import read_private_key, read_public_key, write_key_pair
from pytest_mteval.errors import SigningError as SigningError

ALGORITHM: Final = "ed25519"
DOMAIN: Final = b"pytest-mteval run card signature v1\n"


def canonical(value: Any) -> bytes:
    return json.dumps(
        value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False
    ).encode("utf-8")


def signed_message(card: dict[str, Any], domain: bytes = DOMAIN) -> bytes:
    """The exact bytes a card's signature covers (see the module docstring); another kind of
    signed document (a steward's authorisation) has its own ``domain``, so that no signature
    of one kind is ever valid as the other."""
    unsigned = copy.deepcopy(card)
    block = unsigned.get("signature")
    if isinstance(block, dict):
        block["value"] = ""
    return domain + canonical(unsigned)


def key_fingerprint(public_key: Ed25519PublicKey) -> str:
    raw = public_key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return hashlib.sha256(raw).hexdigest()


def generate_key_pair(private_path: Path) -> Path:
    """Write a new private key to ``private_path`` (0600) and its public key beside it
    (``<name>.pub``); neither file may exist already. Returns the public key's path."""
    return write_key_pair(private_path, Ed25519PrivateKey.generate(), SigningError)


def load_private_key(path: Path) -> Ed25519PrivateKey:
    """The Ed25519 private key in ``path``; refused when others may read the file."""
    key = read_private_key(path, SigningError, "signing key")
    if not isinstance(key, Ed25519PrivateKey):
        raise SigningError(f"{path}: not an Ed25519 key (run `mteval keygen`)")
    return key


def load_public_key(path: Path) -> Ed25519PublicKey:
    key = read_public_key(path, SigningError)
    if not isinstance(key, Ed25519PublicKey):
        raise SigningError(f"{path}: not an Ed25519 public key")
    return key


def sign(card: dict[str, Any], key: Ed25519PrivateKey, domain: bytes = DOMAIN) -> dict[str, Any]:
    """Add the ``signature`` object to a sealed card (after ``runcard.seal``)."""
    card["signature"] = {
        "algorithm": ALGORITHM,
        "public_key_sha256": key_fingerprint(key.public_key()),
        "value": "",
    }
    value = key.sign(signed_message(card, domain))
    card["signature"]["value"] = base64.b64encode(value).decode("ascii")
    return card


def verify_signature(
    card: dict[str, Any], public_key: Ed25519PublicKey, where: str, domain: bytes = DOMAIN
) -> str:
    """Check the card's signature with ``public_key``; the fingerprint on success."""
    block = card.get("signature")
    if not isinstance(block, dict):
        raise SigningError(f"{where}: the card is not signed (no 'signature' object)")
    if block.get("algorithm") != ALGORITHM:
        raise SigningError(f"{where}: signature.algorithm is {block.get('algorithm')!r}")
    expected = key_fingerprint(public_key)
    if block.get("public_key_sha256") != expected:
        raise SigningError(
            f"{where}: signed by key {str(block.get('public_key_sha256'))[:16]}…, "
            f"not by the given key {expected[:16]}…"
        )
    try:
        value = base64.b64decode(str(block.get("value", "")), validate=True)
        public_key.verify(value, signed_message(card, domain))
    except (binascii.Error, ValueError, InvalidSignature):
        raise SigningError(f"{where}: signature does not match the content (edited?)") from None
    return expected
