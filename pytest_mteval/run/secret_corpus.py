"""Encrypted corpora: a gold-standard or held-out set that is never on disk in the clear.

File format (version 1), byte by byte:

    offset  size  content
    0       8     magic b"MTEVCORP"
    8       1     format version, 0x01
    9       12    nonce (random for every encryption)
    21      n+16  AES-256-GCM ciphertext of the plaintext corpus JSON (n bytes), then the tag

The 9 header bytes are the GCM associated data, so a changed magic or version fails like a
changed ciphertext. The key is 32 random bytes, kept as one line of standard base64 in a key
file or in an environment variable: never on the command line, where ``ps`` and shell
histories show it. The harness decrypts into memory only; the dataset sha256 on the card is
that of the plaintext, so a card of the encrypted corpus compares with one of the same corpus
in the clear.
"""

from __future__ import annotations

import base64
import binascii
import os
from pathlib import Path
from typing import TYPE_CHECKING, Final

from pytest_mteval.corpus import Corpus, CorpusError, FieldNames, load_corpus, parse_corpus

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

MAGIC: Final = b"MTEVCORP"
VERSION: Final = 1
HEADER: Final = MAGIC + bytes([VERSION])
NONCE_SIZE: Final = 12
KEY_SIZE: Final = 32


class CorpusKeyError(CorpusError):
    """A corpus key that cannot be found or read; the message names where it was looked for."""


def _aes_gcm() -> type[AESGCM]:
    """AES-GCM, imported where a corpus is encrypted or decrypted: loading cryptography's
    bindings would cost every run, encrypted corpus or not, some 20 ms at its start."""
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    return AESGCM


def new_key() -> bytes:
    return _aes_gcm().generate_key(bit_length=8 * KEY_SIZE)


def encode_key(key: bytes) -> str:
    return base64.b64encode(key).decode("ascii")


def write_new_key(path: Path) -> bytes:
    """A fresh key written to ``path`` (created, mode 0600; never overwritten)."""
    key = new_key()
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except OSError as exc:
        raise CorpusKeyError(f"{path}: cannot create key file: {exc.strerror or exc}") from None
    with os.fdopen(fd, "w", encoding="ascii") as handle:
        handle.write(encode_key(key) + "\n")
    return key


def read_key(key_file: Path | None = None, key_env: str | None = None) -> bytes:
    """The key from a file or from an environment variable (exactly one of them)."""
    if (key_file is None) == (key_env is None):
        raise CorpusKeyError("give the corpus key as a key file or an environment variable")
    if key_file is not None:
        where = str(key_file)
        try:
            text = key_file.read_text(encoding="ascii")
        except (OSError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) else "not ASCII"
            raise CorpusKeyError(f"{key_file}: cannot read corpus key: {reason}") from None
    else:
        where = f"environment variable {key_env}"
        text = os.environ.get(str(key_env), "")
        if not text:
            raise CorpusKeyError(f"{where} is not set or empty")
    try:
        key = base64.b64decode(text.strip(), validate=True)
    except (binascii.Error, ValueError):
        raise CorpusKeyError(f"{where}: the corpus key is not base64") from None
    if len(key) != KEY_SIZE:
        raise CorpusKeyError(f"{where}: the corpus key has {len(key)} bytes, not {KEY_SIZE}")
    return key


def is_encrypted(data: bytes) -> bool:
    return data.startswith(MAGIC)


def encrypt(plaintext: bytes, key: bytes) -> bytes:
    nonce = os.urandom(NONCE_SIZE)
    return HEADER + nonce + _aes_gcm()(key).encrypt(nonce, plaintext, HEADER)


def decrypt(data: bytes, key: bytes, where: str) -> bytes:
    """The plaintext, or CorpusError saying why not (format, version, key or tampering)."""
    if not is_encrypted(data):
        raise CorpusError(f"{where}: not an encrypted corpus (no {MAGIC.decode()} header)")
    if len(data) < len(HEADER) + NONCE_SIZE + 16:
        raise CorpusError(f"{where}: encrypted corpus is truncated")
    if data[len(MAGIC)] != VERSION:
        raise CorpusError(
            f"{where}: encrypted corpus format version {data[len(MAGIC)]}, expected {VERSION}"
        )
    from cryptography.exceptions import InvalidTag

    nonce = data[len(HEADER) : len(HEADER) + NONCE_SIZE]
    try:
        return _aes_gcm()(key).decrypt(nonce, data[len(HEADER) + NONCE_SIZE :], HEADER)
    except InvalidTag:
        raise CorpusError(f"{where}: cannot decrypt: wrong key, or the file was altered") from None


def open_corpus(
    path: Path,
    key_file: Path | None = None,
    key_env: str | None = None,
    fields: FieldNames | None = None,
) -> Corpus:
    """A corpus in the clear or encrypted; an encrypted one is decrypted in memory only.
    ``fields``: the entry fields read as source and reference (``--mteval-source-field``)."""
    keyed = key_file is not None or key_env is not None
    try:
        with path.open("rb") as handle:
            head = handle.read(len(MAGIC))
    except OSError as exc:
        raise CorpusError(f"{path}: cannot read corpus file: {exc.strerror or exc}") from None
    if not is_encrypted(head):
        if keyed:
            raise CorpusError(
                f"{path}: a corpus key was given but the corpus is not encrypted "
                "(encrypt it with `mteval corpus encrypt`, or drop the key option)"
            )
        return load_corpus(path, fields)
    if not keyed:
        raise CorpusKeyError(
            f"{path}: the corpus is encrypted: give --mteval-corpus-key-file or "
            "--mteval-corpus-key-env"
        )
    key = read_key(key_file, key_env)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise CorpusError(f"{path}: cannot read corpus file: {exc.strerror or exc}") from None
    return parse_corpus(path, decrypt(data, key, str(path)), fields)
