"""``mteval verify CARD``: re-check a run card's schema, fingerprint and hash (and, with
``--public-key``, its signature; with ``--governance-key``, its review record's; with
``--steward-key``, the key its steward authorisation was accepted under), and say what the
card tells of the code that ran. The verdicts are ``verification_tier.py``'s."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from pytest_mteval.cards.foreign_view import read_verified
from pytest_mteval.cards.signing import load_public_key
from pytest_mteval.cards.verification_tier import (
    TrustRoots,
    authorisation_verdict,
    foreign_verdict,
    signature_verdict,
    validation_verdict,
)
from pytest_mteval.cli.command import Command
from pytest_mteval.errors import MtevalError
from pytest_mteval.review.chain import verify_chain


def add_public_key_option(verify: argparse.ArgumentParser) -> None:
    verify.add_argument(
        "--public-key",
        default=None,
        metavar="PUB",
        help="also check the card's Ed25519 signature with this public key (PEM); a file "
        "without a signature (a foreign card or report) then fails",
    )


def _arguments(verify: argparse.ArgumentParser) -> None:
    verify.add_argument("card", help="path of the run card JSON")
    add_public_key_option(verify)
    verify.add_argument(
        "--governance-key",
        type=Path,
        action="append",
        default=[],
        metavar="PUB",
        help="the governance organisation's public key (repeatable): a review record the "
        "card carries must be signed by one",
    )
    verify.add_argument(
        "--steward-key",
        type=Path,
        action="append",
        default=[],
        metavar="PUB",
        help="a steward's Ed25519 public key (repeatable): a steward authorisation the card "
        "records must have been accepted under one",
    )


def _verify(args: argparse.Namespace) -> int:
    path = Path(args.card)
    try:
        key = None if args.public_key is None else load_public_key(Path(args.public_key))
        roots = TrustRoots.from_files(governance=args.governance_key, steward=args.steward_key)
        view, foreign = read_verified(path)
        card = dict(view.raw)  # its review chain and signature are checked on its JSON
        if foreign is not None:  # the reference harness's card or report, by its own rules
            ok, line = foreign_verdict(foreign, key)
            print(f"{'OK' if ok else 'UNSIGNED'} {path}: {line}")
            return 0 if ok else 1
        verify_chain(card, path)
    except MtevalError as exc:
        print(f"INVALID {exc}")
        return 1
    ok, signed = signature_verdict(card, path, key)
    if not ok:
        print(f"INVALID {signed}")
        return 1
    review = validation_verdict(card, path, None, roots)
    if review is not None and not review.honoured and roots.governance:
        print(f"INVALID {review.reason}")
        return 1
    authorised = authorisation_verdict(card, roots.steward)
    if authorised is not None and not authorised[0]:
        print(f"INVALID {path}: {authorised[1]}")
        return 1
    print(f"OK {path}: schema, fingerprint and run_card_hash verify ({card['run_card_hash'][:12]})")
    print(f"   {signed}")
    if review is not None:
        print(f"   review: {review.reason}")
    if authorised is not None:
        print(f"   {authorised[1]}")
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
