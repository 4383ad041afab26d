"""The secret that authenticates translation cache entries (an HMAC key).

A checksum anyone can recompute let a method rewrite another method's entries. The key lives
in the user's state folder, outside the project, so the sandbox (which hides the home folder
and ``.mteval``) never shows it and no bundle or CI artifact of the project carries it. A
method run without the sandbox has the user's rights and can read it: docs/security.md.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import tempfile
from pathlib import Path
from typing import Final

from pytest_mteval.errors import MtevalError

#: Overrides where the key is kept (a CI job that restores its cache restores this file too).
KEY_FILE_ENV: Final = "MTEVAL_CACHE_KEY_FILE"
_KEY_BYTES: Final = 32


class CacheSecretError(MtevalError):
    """The cache key cannot be read or made; the message names the file."""


def default_key_file() -> Path:
    """``$MTEVAL_CACHE_KEY_FILE``, else ``$XDG_STATE_HOME/pytest-mteval/cache.key`` (by default
    under ``~/.local/state``)."""
    given = os.environ.get(KEY_FILE_ENV)
    if given:
        return Path(given)
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "pytest-mteval" / "cache.key"


def cache_secret(path: Path | None = None) -> bytes:
    """The key in ``path`` (the default file), made there on first use, readable by its
    owner only; xdist workers racing to make it all end with the one that was linked first."""
    target = path or default_key_file()
    try:
        return _read(target)
    except FileNotFoundError:
        pass
    try:
        target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd, tmp = tempfile.mkstemp(prefix=".cache-key-", dir=target.parent)
        try:
            os.write(fd, secrets.token_hex(_KEY_BYTES).encode("ascii"))
            os.close(fd)
            with contextlib.suppress(FileExistsError):  # another process made it first
                os.link(tmp, target)  # atomic, and never over an existing key
        finally:
            Path(tmp).unlink(missing_ok=True)
        return _read(target)
    except OSError as exc:
        raise CacheSecretError(
            f"{target}: cannot make the translation cache's key: {exc.strerror or exc} "
            f"(set {KEY_FILE_ENV}, or run with --mteval-no-cache)"
        ) from None


def _read(path: Path) -> bytes:
    try:
        text = path.read_bytes().strip()
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise CacheSecretError(
            f"{path}: cannot read the translation cache's key: {exc.strerror or exc}"
        ) from None
    if len(text) < 2 * _KEY_BYTES:
        raise CacheSecretError(
            f"{path}: the translation cache's key is shorter than {2 * _KEY_BYTES} hex digits"
        )
    return text
