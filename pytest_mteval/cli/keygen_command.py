"""``mteval keygen PATH``: an Ed25519 key pair for signing run cards."""

from __future__ import annotations

import argparse
from pathlib import Path

from pytest_mteval.cards.signing import SigningError, generate_key_pair
from pytest_mteval.cli.command import Command


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", help="where to write the private key")


def run_keygen(args: argparse.Namespace) -> int:
    private = Path(args.path)
    try:
        public = generate_key_pair(private)
    except SigningError as exc:
        print(f"mteval keygen: {exc}")
        return 1
    print(f"private key {private} (mode 600: keep it secret), public key {public}")
    return 0


KEYGEN = Command(
    "keygen",
    help="write an Ed25519 key pair for signing run cards (PATH and PATH.pub)",
    add_arguments=_arguments,
    run=run_keygen,
    description="Write a new Ed25519 private key to PATH (mode 0600) and its public key "
    "to PATH.pub. Neither may exist. Give the private key to the harness that seals "
    "cards (--mteval-sign-key), and the public key to whoever checks them.",
)
