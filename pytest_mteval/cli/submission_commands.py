"""``mteval bundle`` (make or check a submission bundle) and ``mteval publish``."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from pytest_mteval.cards import runcard
from pytest_mteval.cards.bundle import BundleError, check_bundle, make_bundle
from pytest_mteval.cards.bundle_leaks import MIN_CHARS, corpus_references
from pytest_mteval.cards.data_overlap import overlap_lines
from pytest_mteval.cards.publish import PublishError, publish, verified_card
from pytest_mteval.cards.signing import load_public_key
from pytest_mteval.cli.command import Command
from pytest_mteval.errors import MtevalError


def _bundle_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "args",
        nargs="+",
        metavar="METHOD CARD | check BUNDLE",
        help="the method folder and its run card to pack, or check and the bundle to check",
    )
    parser.add_argument("-o", "--output", type=Path, default=None, help="bundle to write")
    parser.add_argument(
        "--include",
        type=Path,
        action="append",
        default=[],
        metavar="FILE",
        help="a vendored file to ship under vendor/ (e.g. a mirrored FST binary; repeatable)",
    )
    parser.add_argument(
        "--corpus",
        type=Path,
        default=None,
        help="refuse a bundle holding this corpus or any of its references of "
        f"{MIN_CHARS}+ characters and two words",
    )
    parser.add_argument(
        "--corpus-key-file", type=Path, default=None, help="key of an encrypted --corpus"
    )
    parser.add_argument(
        "--public-key",
        type=Path,
        default=None,
        metavar="PUB",
        help="check: the card must be signed with this Ed25519 key (an unsigned card, code "
        "hash included, can be rewritten and sealed again by anyone)",
    )


def run_bundle(args: argparse.Namespace) -> int:
    given: list[str] = args.args
    try:
        corpus = corpus_references(args.corpus, args.corpus_key_file) if args.corpus else None
    except MtevalError as exc:
        print(f"mteval bundle: --corpus: {exc}", file=sys.stderr)
        return 2
    try:
        key = load_public_key(args.public_key) if args.public_key else None
    except MtevalError as exc:
        print(f"mteval bundle: --public-key: {exc}", file=sys.stderr)
        return 2
    if given[0] == "check" and len(given) == 2:
        overlaps: list[dict[str, Any]] = []
        problems = check_bundle(Path(given[1]), corpus, key, overlaps)
        for line in problems:
            print(f"PROBLEM {line}")
        for report in overlaps:
            print("\n".join(overlap_lines(report)))
        if not problems:
            searched = (
                f"; no reference of {args.corpus} ({len(corpus.references)} searched)"
                if corpus
                else ""
            )
            signed = "; signature verifies" if key else ""
            print(
                f"OK {given[1]}: card verifies, code hash matches, manifest valid, "
                f"dependencies, sizes, licences{searched}{signed}"
            )
        return 1 if problems else 0
    if len(given) != 2 or args.output is None:
        print("mteval bundle: expected METHOD CARD -o OUT, or check BUNDLE", file=sys.stderr)
        return 2
    try:
        out = make_bundle(Path(given[0]), Path(given[1]), args.output, args.include, corpus)
    except BundleError as exc:
        print(f"mteval bundle: {exc}", file=sys.stderr)
        return 1
    print(f"bundle written to {out}")
    return 0


def _publish_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("card", type=Path, help="the run card to post")
    parser.add_argument("--url", required=True, help="the leaderboard's submission URL")
    parser.add_argument(
        "--token-env", default=None, metavar="NAME", help="environment variable holding a token"
    )
    parser.add_argument("--retries", type=int, default=3, help="retries of a failed post (3)")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per request")


def run_publish(args: argparse.Namespace) -> int:
    token = None
    if args.token_env:
        token = os.environ.get(args.token_env)
        if not token:
            print(f"mteval publish: environment variable {args.token_env} is not set")
            return 2
    try:
        card = verified_card(args.card)
        response = publish(card, args.url, token, max(0, args.retries), args.timeout)
    except (runcard.RunCardError, PublishError) as exc:
        print(f"mteval publish: {exc}")
        return 1
    print(f"published {args.card} to {args.url}: HTTP {response.status_code}")
    return 0


BUNDLE = Command(
    "bundle",
    help="pack a submission bundle (METHOD CARD -o OUT), or check one (check BUNDLE)",
    add_arguments=_bundle_arguments,
    run=run_bundle,
    description="`mteval bundle METHOD CARD -o bundle.tar.gz` packs the run card, the "
    "method folder (code, manifest, README, bundled dependencies) and a cost report "
    "(spec §9.1). `mteval bundle check BUNDLE` lists every problem of a bundle, the "
    "bundled code's hash against the one the card sealed included. With --corpus, either "
    "refuses a bundle holding the corpus or any of its references.",
)
PUBLISH = Command(
    "publish",
    help="post a verified run card with its method_config block to a leaderboard URL",
    add_arguments=_publish_arguments,
    run=run_publish,
)
