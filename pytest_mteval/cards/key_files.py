"""PEM key files, as the card signer and the review sample's sealed box both keep them.

A private key is written once (never over a file, never through a symlink) with mode 0600 and
is refused when others may read it; a public key sits beside it as ``<name>.pub``. Each user
passes its own error type and key type, so its messages keep naming its own command.
"""

from __future__ import annotations

import os
from pathlib import Path

from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.types import PrivateKeyTypes, PublicKeyTypes
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from pytest_mteval.errors import MtevalError


def write_key_pair(
    private_path: Path, key: Ed25519PrivateKey | X25519PrivateKey, error: type[MtevalError]
) -> Path:
    """``key`` in ``private_path`` (0600) and its public key in ``<name>.pub``; neither file
    may exist already. Returns the public key's path."""
    public_path = private_path.with_name(private_path.name + ".pub")
    for path in (private_path, public_path):
        if path.exists():
            raise error(f"{path}: exists; a key is never overwritten")
    private_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    public_pem = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    write_exclusive(private_path, private_pem, 0o600, error)
    write_exclusive(public_path, public_pem, 0o644, error)
    return public_path


def write_exclusive(path: Path, data: bytes, mode: int, error: type[MtevalError]) -> None:
    """Create ``path`` with ``data``: never over an existing file, never through a symlink."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)
    except OSError as exc:
        raise error(f"{path}: cannot create: {exc.strerror or exc}") from None
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    os.chmod(path, mode)  # the umask may have taken bits away; never added any


def read_private_key(path: Path, error: type[MtevalError], what: str) -> PrivateKeyTypes:
    """The private key in ``path`` (``what`` names it in messages), of whatever type: the
    caller checks it; refused when others may read the file."""
    try:
        mode = path.stat().st_mode
        data = path.read_bytes()
    except OSError as exc:
        raise error(f"{path}: cannot read {what}: {exc.strerror or exc}") from None
    if mode & 0o077:
        raise error(f"{path}: {what} is readable by others (mode {mode & 0o777:o}); chmod 600 it")
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError, UnsupportedAlgorithm) as exc:
        raise error(f"{path}: not an unencrypted PEM private key ({exc})") from None
    return key


def read_public_key(path: Path, error: type[MtevalError]) -> PublicKeyTypes:
    """The public key in ``path``, of whatever type: the caller checks it."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise error(f"{path}: cannot read public key: {exc.strerror or exc}") from None
    try:
        key = serialization.load_pem_public_key(data)
    except (ValueError, UnsupportedAlgorithm) as exc:
        raise error(f"{path}: not a PEM public key ({exc})") from None
    return key
