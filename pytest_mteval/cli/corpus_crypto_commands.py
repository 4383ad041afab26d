"""``mteval corpus encrypt`` and ``mteval corpus decrypt`` (format: ``run/secret_corpus.py``).

The key comes from ``--key-file`` or ``--key-env`` (the name of an environment variable),
never from the command line itself.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from pytest_mteval.cli.command import Command
from pytest_mteval.corpus import CorpusError, parse_corpus
from pytest_mteval.run.secret_corpus import decrypt, encrypt, read_key, write_new_key


def _encrypt_arguments(enc: argparse.ArgumentParser) -> None:
    enc.add_argument("input", help="corpus JSON in the clear")
    enc.add_argument("output", help="encrypted corpus to create (e.g. corpus.json.enc)")
    _key_options(enc)
    enc.add_argument(
        "--new-key",
        action="store_true",
        help="create --key-file with a fresh random key (mode 0600) before encrypting",
    )


def _decrypt_arguments(dec: argparse.ArgumentParser) -> None:
    dec.add_argument("input", help="encrypted corpus")
    dec.add_argument("output", help="plaintext file to create, or - for standard output")
    _key_options(dec)


def _key_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--key-file", default=None, help="file holding the base64 key")
    parser.add_argument("--key-env", default=None, help="environment variable holding the key")


def run_encrypt(args: argparse.Namespace) -> int:
    source, target = Path(args.input), Path(args.output)
    try:
        if args.new_key:
            if args.key_file is None or args.key_env is not None:
                raise CorpusError("--new-key writes the key to --key-file (and only there)")
            key_file = Path(args.key_file)
            plaintext = _read(source)
            parse_corpus(source, plaintext)  # never encrypt what could not be evaluated
            key = write_new_key(key_file)
            print(f"new key written to {key_file} (mode 600)")
        else:
            key = read_key(_path(args.key_file), args.key_env)
            plaintext = _read(source)
            parse_corpus(source, plaintext)
        _create(target, encrypt(plaintext, key))
    except CorpusError as exc:
        print(f"mteval corpus encrypt: {exc}")
        return 1
    print(f"encrypted {source} -> {target}")
    return 0


def run_decrypt(args: argparse.Namespace) -> int:
    source = Path(args.input)
    try:
        key = read_key(_path(args.key_file), args.key_env)
        plaintext = decrypt(_read(source), key, str(source))
        if args.output == "-":
            sys.stdout.buffer.write(plaintext)
            sys.stdout.flush()
            return 0
        _create(Path(args.output), plaintext)
    except CorpusError as exc:
        print(f"mteval corpus decrypt: {exc}")
        return 1
    print(f"decrypted {source} -> {args.output}")
    return 0


def _path(raw: str | None) -> Path | None:
    return None if raw is None else Path(raw)


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise CorpusError(f"{path}: cannot read: {exc.strerror or exc}") from None


def _create(path: Path, data: bytes) -> None:
    """Write a new file (0600): never over an existing one, never through a symlink."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except OSError as exc:
        raise CorpusError(f"{path}: cannot create: {exc.strerror or exc}") from None
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)


ENCRYPT = Command(
    "encrypt",
    help="encrypt a corpus (AES-256-GCM) so that only key holders can run or read it",
    add_arguments=_encrypt_arguments,
    run=run_encrypt,
    description=__doc__,
)
DECRYPT = Command(
    "decrypt",
    help="decrypt an encrypted corpus",
    add_arguments=_decrypt_arguments,
    run=run_decrypt,
    description=__doc__,
)
