"""``mteval review sample`` and ``mteval review ingest``: the human-validation round trip."""

from __future__ import annotations

import argparse
import datetime
from pathlib import Path
from typing import Any

from pytest_mteval.cards import runcard
from pytest_mteval.review import chain, form, ingest, sample


def add_review_command(commands: Any) -> None:
    """``mteval review {sample,ingest}`` (``commands`` is the parser's subparsers action)."""
    review = commands.add_parser("review", help="human validation of a run (spec §7.3)")
    steps = review.add_subparsers(dest="step", required=True)
    draw = steps.add_parser("sample", help="draw a review sample and write the review sheets")
    draw.add_argument("card", type=Path, help="the run card to validate")
    draw.add_argument("-n", type=int, default=sample.DEFAULT_SIZE, help="entries (50)")
    draw.add_argument("--seed", type=int, default=sample.DEFAULT_SEED, help="seed (12345)")
    draw.add_argument("--out", type=Path, help="folder for the sheets (the card's folder)")
    draw.add_argument("--no-reference", action="store_true", help="do not show references")
    draw.set_defaults(run=_sample)
    take = steps.add_parser("ingest", help="check ratings and write a validated card")
    take.add_argument("card", type=Path, help="the run card the sample was drawn from")
    take.add_argument("ratings", type=Path, nargs="+", help="one CSV per reviewer")
    take.add_argument("--out", type=Path, help="the new card (default <card>.validated.json)")
    default = chain.DEFAULT_THRESHOLD
    take.add_argument("--min-reviewers", type=int, default=default.min_reviewers)
    take.add_argument("--min-entries", type=int, default=default.min_entries)
    take.add_argument("--min-usable", type=float, default=default.min_usable)
    take.set_defaults(run=_ingest)


def _sample(args: argparse.Namespace) -> int:
    try:
        card = runcard.load(args.card)
        runcard.verify(card, args.card)
        drawn = sample.draw(card, args.n, args.seed)
    except (runcard.RunCardError, sample.SampleError) as exc:
        print(f"mteval review: {exc}")
        return 1
    out: Path = args.out or args.card.parent
    out.mkdir(parents=True, exist_ok=True)
    with_reference = not args.no_reference
    stem = f"review-{drawn.sample_id}"
    title = f"Review of {card.get('model_slug', '?')} on {card['dataset'].get('id', '?')}"
    html = out / f"{stem}.html"
    template = out / f"{stem}.csv"
    html.write_text(form.html_form(drawn, title, with_reference), encoding="utf-8")
    template.write_text(form.csv_template(drawn, with_reference), encoding="utf-8")
    strata = ", ".join(f"{k} {v['drawn']}/{v['population']}" for k, v in drawn.strata.items())
    print(
        f"sample {drawn.sample_id}: {len(drawn.items)} entries by {drawn.stratified_by} ({strata})"
    )
    print(f"review form: {html}")
    print(f"CSV template: {template}")
    return 0


def _ingest(args: argparse.Namespace) -> int:
    threshold = chain.Threshold(args.min_reviewers, args.min_entries, args.min_usable)
    today = datetime.datetime.now(datetime.UTC).date().isoformat()
    try:
        card = ingest.ingest(args.card, args.ratings, threshold, today)
        out = args.out or args.card.with_name(f"{args.card.stem}.validated.json")
        written = runcard.write_new(card, out)
    except (runcard.RunCardError, ingest.ReviewError) as exc:
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
    return 0
