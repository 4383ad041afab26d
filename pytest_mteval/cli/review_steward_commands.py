"""``mteval review keygen`` and ``mteval review open``: the steward's side of reviewing a
secret run (``review/sealed_sample.py``)."""

from __future__ import annotations

import argparse
from pathlib import Path

from pytest_mteval.cards import runcard
from pytest_mteval.cli.command import Command
from pytest_mteval.review.sealed_box import (
    SealedBoxError,
    generate_key_pair,
    load_private_key,
)
from pytest_mteval.review.sealed_sample import check_against_card, open_sample
from pytest_mteval.review.sheets import write_sheets

_OPEN_HELP = (
    "decrypt the review sample a secret run sealed to the steward's key and write the same "
    "sheets `mteval review sample` writes (HTML form, CSV template, sample record); rate them "
    "as usual and `mteval review ingest` the gold card. The sheets hold the secret texts: "
    "write them only where the steward keeps the corpus"
)


def _keygen_arguments(keygen: argparse.ArgumentParser) -> None:
    keygen.add_argument("path", type=Path, help="where to write the private key")


def _open_arguments(opener: argparse.ArgumentParser) -> None:
    opener.add_argument("sample", type=Path, help="the review-<id>.sealed file the run wrote")
    opener.add_argument("--key", type=Path, required=True, help="the steward's private key")
    opener.add_argument("--card", type=Path, help="also check the file is the one this card names")
    opener.add_argument(
        "-o", "--output", "--out", dest="out", type=Path,
        help="folder for the sheets (the sample's folder)",
    )  # fmt: skip
    opener.add_argument("--no-reference", action="store_true", help="do not show references")


def _keygen(args: argparse.Namespace) -> int:
    try:
        public = generate_key_pair(args.path)
    except SealedBoxError as exc:
        print(f"mteval review keygen: {exc}")
        return 1
    print(f"private key {args.path} (mode 600: keep it secret), public key {public}")
    return 0


def _open(args: argparse.Namespace) -> int:
    try:
        if args.card is not None:
            card = runcard.load(args.card)
            runcard.verify(card, args.card)
            check_against_card(args.sample, card)
        drawn, title, run_id = open_sample(args.sample, load_private_key(args.key))
    except (SealedBoxError, runcard.RunCardError) as exc:
        print(f"mteval review open: {exc}")
        return 1
    out: Path = args.out or args.sample.parent
    html, template, kept = write_sheets(
        drawn, title, {"run_id": run_id}, out, not args.no_reference
    )
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
