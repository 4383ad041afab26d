"""``mteval verify CARD``: re-check a run card's schema, fingerprint and hash (and, with
``--public-key``, its signature; a validation record's chain to its parent card), and say what
the card tells of the code that ran."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from pytest_mteval.cards.foreign_view import read_verified
from pytest_mteval.cards.signing import load_public_key, verify_signature
from pytest_mteval.cli.command import Command
from pytest_mteval.errors import MtevalError
from pytest_mteval.review.chain import verify_chain


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


def _arguments(verify: argparse.ArgumentParser) -> None:
    verify.add_argument("card", help="path of the run card JSON")
    add_public_key_option(verify)


def _verify(args: argparse.Namespace) -> int:
    path = Path(args.card)
    try:
        view, foreign = read_verified(path)
        card = dict(view.raw)  # its review chain and signature are checked on its JSON
        if foreign is not None:  # the reference harness's card or report, by its own rules
            print(f"OK {path}: {foreign}")
            return 0
        verify_chain(card, path)
        signed = signature_line(card, path, args.public_key)
    except MtevalError as exc:
        print(f"INVALID {exc}")
        return 1
    print(f"OK {path}: schema, fingerprint and run_card_hash verify ({card['run_card_hash'][:12]})")
    print(f"   {signed}")
    print(f"   {_code_line(card)}")
    return 0


def _code_line(card: dict[str, Any]) -> str:
    """What the card says of the code that ran; an old card has no code hash and is valid,
    but no bundle can be tied to it."""
    method = card.get("method") or {}
    code = method.get("code")
    if not isinstance(code, dict):
        return "no code hash (a card from before code hashes, or a method without a folder)"
    if code.get("sha256") is None:
        dist = code.get("distribution") or {}
        return f"code: distribution {dist.get('name')} {dist.get('version')} ({dist.get('sha256')})"
    return f"code sha256 {code['sha256'][:12]} ({code['files']} files, {code['rule']})"


VERIFY = Command(
    "verify",
    help="re-check a run card's schema and hash",
    add_arguments=_arguments,
    run=_verify,
    description=__doc__,
)
