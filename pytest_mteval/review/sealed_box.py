"""A sealed box to the steward's X25519 key: what a secret run's review sample travels in.

The harness holds only the steward's PUBLIC key, so nothing it writes can be read back by the
developer who runs it. File format (version 1), byte by byte:

    offset  size  content
    0       8     magic b"MTEVRSMP"
    8       1     format version, 0x01
    9       32    sha256 of the recipient's raw public key (names the key it is sealed to)
    41      32    a fresh ephemeral X25519 public key
    73      12    nonce (random)
    85      n+16  ChaCha20-Poly1305 ciphertext of the plaintext (n bytes), then the tag

The key is HKDF-SHA256 (no salt, info = b"mteval review sample v1" + ephemeral public key +
recipient public key) of the X25519 shared secret; the 73 header bytes are the associated
data, so a changed byte anywhere fails authentication. Keys are PEM files (PKCS8 private key,
mode 0600; SubjectPublicKeyInfo public key), written by ``mteval review keygen``.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Final

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from pytest_mteval.cards import key_files
from pytest_mteval.cards.key_files import read_private_key, read_public_key, write_key_pair
from pytest_mteval.errors import MtevalError

MAGIC: Final = b"MTEVRSMP"
VERSION: Final = 1
SCHEME: Final = "X25519-HKDF-SHA256-ChaCha20-Poly1305"
_INFO: Final = b"mteval review sample v1"
_HEADER: Final = len(MAGIC) + 1 + 32 + 32
_NONCE: Final = 12


class SealedBoxError(MtevalError):
    """A key or sealed file that cannot be used; the message is one line."""


def raw(key: X25519PublicKey) -> bytes:
    return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def key_id(key: X25519PublicKey) -> str:
    """sha256 of the raw public key, as the header and the card name it."""
    return hashlib.sha256(raw(key)).hexdigest()


def _derive(shared: bytes, ephemeral: bytes, recipient: bytes) -> bytes:
    kdf = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=_INFO + ephemeral + recipient)
    return kdf.derive(shared)


def seal(plaintext: bytes, recipient: X25519PublicKey) -> bytes:
    ephemeral = X25519PrivateKey.generate()
    ephemeral_raw = raw(ephemeral.public_key())
    header = MAGIC + bytes([VERSION]) + bytes.fromhex(key_id(recipient)) + ephemeral_raw
    key = _derive(ephemeral.exchange(recipient), ephemeral_raw, raw(recipient))
    nonce = os.urandom(_NONCE)
    return header + nonce + ChaCha20Poly1305(key).encrypt(nonce, plaintext, header)


def open_box(data: bytes, private: X25519PrivateKey, where: str) -> bytes:
    """The plaintext, or SealedBoxError saying why not (format, key or tampering)."""
    if not data.startswith(MAGIC):
        raise SealedBoxError(f"{where}: not a sealed review sample (no {MAGIC.decode()} header)")
    if len(data) < _HEADER + _NONCE + 16:
        raise SealedBoxError(f"{where}: sealed review sample is truncated")
    if data[len(MAGIC)] != VERSION:
        raise SealedBoxError(f"{where}: format version {data[len(MAGIC)]}, expected {VERSION}")
    header = data[:_HEADER]
    mine = key_id(private.public_key())
    sealed_to = header[len(MAGIC) + 1 : len(MAGIC) + 33].hex()
    if sealed_to != mine:
        raise SealedBoxError(
            f"{where}: sealed to key {sealed_to[:16]}…, not to the given key {mine[:16]}…"
        )
    ephemeral_raw = header[len(MAGIC) + 33 :]
    try:
        shared = private.exchange(X25519PublicKey.from_public_bytes(ephemeral_raw))
    except ValueError:
        raise SealedBoxError(f"{where}: cannot decrypt: the file was altered") from None
    key = _derive(shared, ephemeral_raw, raw(private.public_key()))
    nonce = data[_HEADER : _HEADER + _NONCE]
    try:
        return ChaCha20Poly1305(key).decrypt(nonce, data[_HEADER + _NONCE :], header)
    except InvalidTag:
        raise SealedBoxError(f"{where}: cannot decrypt: the file was altered") from None


def generate_key_pair(private_path: Path) -> Path:
    """A new private key in ``private_path`` (0600) and its public key in ``<name>.pub``;
    neither may exist. Returns the public key's path."""
    return write_key_pair(private_path, X25519PrivateKey.generate(), SealedBoxError)


def write_exclusive(path: Path, data: bytes, mode: int) -> None:
    """Create ``path`` with ``data``: never over an existing file, never through a symlink."""
    key_files.write_exclusive(path, data, mode, SealedBoxError)


def load_public_key(path: Path) -> X25519PublicKey:
    key = read_public_key(path, SealedBoxError)
    if not isinstance(key, X25519PublicKey):
        raise SealedBoxError(f"{path}: not an X25519 public key (run `mteval review keygen`)")
    return key


def load_private_key(path: Path) -> X25519PrivateKey:
    """The X25519 private key in ``path``; refused when others may read the file."""
    key = read_private_key(path, SealedBoxError, "private key")
    if not isinstance(key, X25519PrivateKey):
        raise SealedBoxError(f"{path}: not an X25519 private key (run `mteval review keygen`)")
    return key
