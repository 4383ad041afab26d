"""``mteval reproduce CARD --repeats N``: re-run a card's configuration with the cache off and
report the spread of each headline score against the card (spec §1.3, ``sweep/reproduction.py``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pytest_mteval.cli.command import Command
from pytest_mteval.errors import MtevalError
from pytest_mteval.sweep.reproduction import MaintainerEndpoint, report_lines, reproduce


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("card", type=Path, help="the run card to reproduce")
    parser.add_argument("--repeats", type=int, default=1, help="uncached runs (default 1)")
    parser.add_argument(
        "--output",
        type=Path,
        default=None,
        help="folder for the repeats' cards and logs (default .mteval/reproductions/<run id>)",
    )
    parser.add_argument("--corpus", type=Path, default=None, help="the corpus, if moved")
    parser.add_argument(
        "--base-url",
        default=None,
        help="your endpoint for the method's requests (the card's is shown, never used alone)",
    )
    parser.add_argument(
        "--api-key-env",
        default=None,
        metavar="NAME",
        help="your environment variable holding the key (the card's is never used)",
    )
    parser.add_argument(
        "--use-card-endpoint",
        action="store_true",
        help="send your sources to the endpoint the card names (with your key variable)",
    )
    parser.add_argument(
        "--pytest-arg",
        action="append",
        default=[],
        metavar="ARG",
        help="an option for every pytest run, e.g. --pytest-arg=--mteval-prices=p.json "
        "(repeatable)",
    )


def run_reproduce(args: argparse.Namespace) -> int:
    if args.repeats < 1:
        print("mteval reproduce: --repeats must be at least 1", file=sys.stderr)
        return 2
    extra = list(args.pytest_arg)
    output = args.output or Path(".mteval") / "reproductions" / args.card.stem
    try:
        endpoint = MaintainerEndpoint(args.base_url, args.api_key_env, args.use_card_endpoint)
        result = reproduce(args.card, args.repeats, output, extra, args.corpus, endpoint=endpoint)
    except MtevalError as exc:
        print(f"mteval reproduce: {exc}", file=sys.stderr)
        return 2
    print(f"reproduction of {args.card} ({args.repeats} uncached repeats, cards in {output})")
    for line in report_lines(result):
        print(line)
    return 0 if result.holds else 1


REPRODUCE = Command(
    "reproduce",
    help="re-run a card's configuration, cache off, and check the ±2%% of spec §1.3",
    add_arguments=_arguments,
    run=run_reproduce,
    description="Re-run the card's corpus, method, model, temperature, condition, batch "
    "size, method args and filters with the translation cache off, --repeats times, and "
    "with YOUR endpoint and key variable (--base-url, --api-key-env; a card naming another "
    "endpoint is refused unless --use-card-endpoint), and "
    "report each headline score's mean, spread and largest gap to the card. Exit 0 when "
    "every repeat's composite is within ±2%% of the card's, 1 when not.",
)
