"""``mteval review sample`` and ``mteval review ingest``: the human-validation round trip
(a secret run's sealed sample: ``review keygen`` and ``review open``, in
``review_steward_commands.py``)."""

from __future__ import annotations

import argparse
import datetime
from pathlib import Path

from pytest_mteval.cards import runcard
from pytest_mteval.cards.signing import load_private_key
from pytest_mteval.cards.verification_tier import TrustRoots
from pytest_mteval.cli.command import Command
from pytest_mteval.cli.review_steward_commands import KEYGEN, OPEN, add_card_key_options
from pytest_mteval.errors import MtevalError
from pytest_mteval.review import chain, ingest, sample
from pytest_mteval.review.sealed_sample import title_of
from pytest_mteval.review.sheets import write_sheets

_SAMPLE_HELP = (
    "draw a review sample; write the review form (HTML), the CSV template and the sample "
    "record that ingest checks ratings against. Spreadsheet safety: a cell that starts with "
    "=, +, -, @, a tab or a carriage return (a formula to a spreadsheet) is written with a "
    "leading single quote, as is one that starts with a quote; the form's Export CSV does "
    "the same, and ingest removes that quote again"
)
_INGEST_HELP = (
    "check ratings against the sample record and write a validated card; reviewer names are "
    "compared after NFKC, case folding, removing invisible characters and folding look-alike "
    "letters, so one person cannot count as two"
)


def _sample_arguments(draw: argparse.ArgumentParser) -> None:
    draw.add_argument("card", type=Path, help="the run card to validate")
    draw.add_argument(
        "-n",
        type=int,
        default=sample.DEFAULT_SIZE,
        help="entries (50; at least 30, or every answered entry of a smaller run)",
    )
    draw.add_argument(
        "--seed",
        default=None,
        help="refused: the seed is derived from the card's hash, so nobody can choose it",
    )
    draw.add_argument(
        "-o", "--output", "--out", dest="out", type=Path,
        help="folder for the sheets (the card's folder)",
    )  # fmt: skip
    draw.add_argument("--no-reference", action="store_true", help="do not show references")


def _ingest_arguments(take: argparse.ArgumentParser) -> None:
    take.add_argument("card", type=Path, help="the run card the sample was drawn from")
    take.add_argument("ratings", type=Path, nargs="+", help="one CSV per reviewer")
    take.add_argument(
        "--sample",
        type=Path,
        help="the sample record review sample wrote (default: the one in the card's folder)",
    )
    take.add_argument(
        "-o", "--output", "--out", dest="out", type=Path,
        help="the new card (default <card>.validated.json)",
    )  # fmt: skip
    take.add_argument(
        "--sign-key",
        type=Path,
        required=True,
        metavar="KEY",
        help="the governance organisation's Ed25519 private key (mteval keygen): it signs the "
        "review record; an unsigned record earns nothing",
    )
    add_card_key_options(take)
    default = chain.DEFAULT_THRESHOLD
    take.add_argument(
        "--min-reviewers", default=str(default.min_reviewers), help="reviewers needed (2, or more)"
    )
    take.add_argument(
        "--min-entries", default=str(default.min_entries), help="rated entries needed (30, or more)"
    )
    take.add_argument(
        "--min-usable",
        default=str(default.min_usable),
        help="share of rated entries rated acceptable or better (0.8 to 1)",
    )


def _sample(args: argparse.Namespace) -> int:
    try:
        if args.seed is not None:
            raise sample.SampleError(
                f"--seed {args.seed}: a review sample's seed is derived from the card's hash "
                "and cannot be chosen (trying seeds could pick a flattering sample)"
            )
        card = runcard.load(args.card)
        model = runcard.verify(card, args.card)
        if (model.extra("redaction") or {}).get("text_withheld"):
            raise sample.SampleError(
                "the card withholds its texts (a secret run): the steward reviews the sample "
                "sealed to their key with `mteval review open`"
            )
        needed = chain.minimum_size(card)
        if args.n < needed:
            raise sample.SampleError(
                f"-n {args.n}: a review sample needs at least {needed} entries to validate "
                f"the card (the threshold's {chain.DEFAULT_THRESHOLD.min_entries}, or every "
                f"answered entry of a smaller run)"
            )
        drawn = sample.draw(card, args.n)
        out: Path = args.out or args.card.parent
        html, template, kept = write_sheets(drawn, title_of(card), card, out, not args.no_reference)
    except (runcard.RunCardError, sample.SampleError) as exc:
        print(f"mteval review: {exc}")
        return 1
    strata = ", ".join(f"{k} {v['drawn']}/{v['population']}" for k, v in drawn.strata.items())
    print(
        f"sample {drawn.sample_id}: {len(drawn.items)} entries by {drawn.stratified_by} ({strata})"
    )
    print(f"review form: {html}")
    print(f"CSV template: {template}")
    print(f"sample record (ingest checks ratings against it): {kept}")
    return 0


def _ingest(args: argparse.Namespace) -> int:
    today = datetime.datetime.now(datetime.UTC).date().isoformat()
    try:
        threshold = ingest.parse_threshold(
            *(_typed(v) for v in (args.min_reviewers, args.min_entries, args.min_usable))
        )
        key = load_private_key(args.sign_key)
        roots = TrustRoots.from_files(args.maintainer_key, args.governance_key)
        signer = ingest.Signer(key, roots)
        card = ingest.ingest(args.card, args.ratings, threshold, today, args.sample, signer)
        out = args.out or args.card.with_name(f"{args.card.stem}.validated.json")
        written = runcard.write_new(card, out)
    except MtevalError as exc:
        print(f"mteval review: {exc}")
        return 1
    block = card["human_validation"]
    agreement = block["agreement"]
    ratings = ", ".join(f"{k} {v}" for k, v in block["ratings"].items())
    print(
        f"{len(block['reviewers'])} reviewer(s), {block['rated_entries']} entries rated: "
        f"{ratings}; usable {block['usable_share']:.0%}"
    )
    print(
        f"agreement: exact {agreement['exact']}, within one {agreement['within_one']}, "
        f"Krippendorff alpha {agreement['krippendorff_alpha_interval']}"
    )
    verdict = "meets" if block["meets_threshold"] else "does not meet"
    print(f"{verdict} the threshold; tier: {card['scores']['quality_tier']}")
    print(f"validated card: {written} (extends {block['extends']['run_card_hash'][:12]})")
    print(f"review record signed by governance key {block['signature']['public_key_sha256'][:16]}…")
    return 0


def _typed(value: object) -> str:
    """What the user typed: argparse hands ``--min-entries=--`` over as an empty list (its
    handling of ``--``), which would otherwise crash the threshold's one-line check."""
    return value if isinstance(value, str) else "--"


REVIEW = Command(
    "review",
    help="human validation of a run (spec §7.3)",
    subcommands=(
        Command(
            "sample",
            help="draw a review sample and write the review sheets",
            add_arguments=_sample_arguments,
            run=_sample,
            description=_SAMPLE_HELP,
        ),
        Command(
            "ingest",
            help="check ratings and write a validated card",
            add_arguments=_ingest_arguments,
            run=_ingest,
            description=_INGEST_HELP,
        ),
        KEYGEN,
        OPEN,
    ),
)
