"""``mteval keygen`` and the signature half of ``mteval verify --public-key``."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from pytest_mteval.cards.signing import (
    SigningError,
    generate_key_pair,
    load_public_key,
    verify_signature,
)


def add_keygen_command(commands: Any) -> None:
    """Register ``keygen`` on the ``mteval`` subcommand parser."""
    parser: argparse.ArgumentParser = commands.add_parser(
        "keygen",
        help="write an Ed25519 key pair for signing run cards (PATH and PATH.pub)",
        description="Write a new Ed25519 private key to PATH (mode 0600) and its public key "
        "to PATH.pub. Neither may exist. Give the private key to the harness that seals "
        "cards (--mteval-sign-key), and the public key to whoever checks them.",
    )
    parser.add_argument("path", help="where to write the private key")
    parser.set_defaults(run=run_keygen)


def run_keygen(args: argparse.Namespace) -> int:
    private = Path(args.path)
    try:
        public = generate_key_pair(private)
    except SigningError as exc:
        print(f"mteval keygen: {exc}")
        return 1
    print(f"private key {private} (mode 600: keep it secret), public key {public}")
    return 0


def add_public_key_option(verify: argparse.ArgumentParser) -> None:
    verify.add_argument(
        "--public-key",
        default=None,
        metavar="PUB",
        help="also check the card's Ed25519 signature with this public key (PEM)",
    )


def signature_line(card: dict[str, Any], path: Path, public_key: str | None) -> str:
    """What ``verify`` says about the signature; raises SigningError when it does not hold."""
    if public_key is None:
        if isinstance(card.get("signature"), dict):
            return "signature present but not checked (pass --public-key)"
        return "unsigned: the hash proves integrity only to whoever trusts the card's origin"
    fingerprint = verify_signature(card, load_public_key(Path(public_key)), str(path))
    return f"signature verifies with key {fingerprint[:16]}…"
