"""``mteval review keygen`` and ``mteval review open``: the steward's side of reviewing a
secret run (``review/sealed_sample.py``)."""

from __future__ import annotations

import argparse
from pathlib import Path

from pytest_mteval.cards import runcard
from pytest_mteval.cards.verification_tier import TrustRoots, signer_among
from pytest_mteval.cli.command import Command
from pytest_mteval.errors import MtevalError
from pytest_mteval.review.sample import SampleError
from pytest_mteval.review.sealed_box import (
    SealedBoxError,
    generate_key_pair,
    load_private_key,
)
from pytest_mteval.review.sealed_sample import check_against_card, check_opened, open_sample
from pytest_mteval.review.sheets import write_sheets

_OPEN_HELP = (
    "decrypt the review sample a secret run sealed to the steward's key and write the same "
    "sheets `mteval review sample` writes (HTML form, CSV template, sample record); rate them "
    "as usual and `mteval review ingest` the gold card. The sheets hold the secret texts: "
    "write them only where the steward keeps the corpus. Anyone can seal a file to the "
    "steward's public key: the file is opened only with the card that names it (--card), "
    "signed by a key given with --maintainer-key or --governance-key, and only when it "
    "holds that card's own draw"
)


def _keygen_arguments(keygen: argparse.ArgumentParser) -> None:
    keygen.add_argument("path", type=Path, help="where to write the private key")


def _open_arguments(opener: argparse.ArgumentParser) -> None:
    opener.add_argument("sample", type=Path, help="the review-<id>.sealed file the run wrote")
    opener.add_argument("--key", type=Path, required=True, help="the steward's private key")
    opener.add_argument(
        "--card", type=Path, required=True, help="the secret run's card that names the file"
    )
    add_card_key_options(opener)
    opener.add_argument(
        "-o", "--output", "--out", dest="out", type=Path,
        help="folder for the sheets (the sample's folder)",
    )  # fmt: skip
    opener.add_argument("--no-reference", action="store_true", help="do not show references")


def add_card_key_options(parser: argparse.ArgumentParser) -> None:
    """The keys a secret run's card must be signed by (whoever ran it for the steward)."""
    for role in ("maintainer", "governance"):
        parser.add_argument(
            f"--{role}-key",
            type=Path,
            action="append",
            default=[],
            metavar="PUB",
            help=f"a {role} Ed25519 public key the card may be signed by (repeatable)",
        )


def trusted_card(path: Path, roots: TrustRoots) -> dict[str, object]:
    """The card at ``path``, verified and signed by one of the keys given; RunCardError."""
    card = runcard.load(path)
    runcard.verify(card, path)
    keys = (*roots.maintainer, *roots.governance)
    if not keys:
        raise runcard.RunCardError(
            f"{path}: no --maintainer-key or --governance-key given: a card's own say cannot "
            "vouch for the sample it names"
        )
    if signer_among(card, keys) is None:
        raise runcard.RunCardError(
            f"{path}: not signed by any key given (--maintainer-key, --governance-key): an "
            "unsigned or re-hashed card cannot vouch for the sample it names"
        )
    return card


def _keygen(args: argparse.Namespace) -> int:
    try:
        public = generate_key_pair(args.path)
    except SealedBoxError as exc:
        print(f"mteval review keygen: {exc}")
        return 1
    print(f"private key {args.path} (mode 600: keep it secret), public key {public}")
    return 0


def _open(args: argparse.Namespace) -> int:
    out: Path = args.out or args.sample.parent
    try:
        roots = TrustRoots.from_files(args.maintainer_key, args.governance_key)
        card = trusted_card(args.card, roots)
        check_against_card(args.sample, card)
        drawn, title, run_id = open_sample(args.sample, load_private_key(args.key))
        check_opened(drawn, card, args.sample)
        html, template, kept = write_sheets(
            drawn, title, {"run_id": run_id}, out, not args.no_reference
        )
    except (MtevalError, SampleError) as exc:
        print(f"mteval review open: {exc}")
        return 1
    print(f"sample {drawn.sample_id}: {len(drawn.items)} entries by {drawn.stratified_by}")
    print(f"review form: {html}")
    print(f"CSV template: {template}")
    print(f"sample record (ingest checks ratings against it): {kept}")
    return 0


KEYGEN = Command(
    "keygen",
    help="write the steward's X25519 key pair (PATH and PATH.pub) for sealed samples",
    add_arguments=_keygen_arguments,
    run=_keygen,
    description="Write a new X25519 private key to PATH (mode 0600) and its public key to "
    "PATH.pub. Neither may exist. Give the public key to the harness of secret runs "
    "(--mteval-review-sample-key); keep the private key for `mteval review open`.",
)
OPEN = Command(
    "open",
    help="decrypt a secret run's sealed review sample",
    add_arguments=_open_arguments,
    run=_open,
    description=_OPEN_HELP,
)
