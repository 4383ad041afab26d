"""``mteval score HYP REF [--src SRC] [--lang xx-yy]``: score sacrebleu-style plain files.

The lines become a corpus and replay predictions in a scratch folder, scored by the same pytest
session as any run: same metrics, card and signatures. Then sacrebleu's signatures are printed.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Final

from pytest_mteval.api import EvaluateError, card_of, run_session
from pytest_mteval.cards.card_model import RunCard
from pytest_mteval.cli.command import Command
from pytest_mteval.errors import MtevalError
from pytest_mteval.plain_files import corpus_envelope, predictions, read_plain_files

#: The card's signature keys as sacrebleu's command line names the metric.
SACREBLEU_NAMES: Final = (
    ("chrf_plus_plus", "chrF2++"),
    ("bleu", "BLEU"),
    ("ter", "TER"),
)


def _arguments(score: argparse.ArgumentParser) -> None:
    score.add_argument("hypothesis", metavar="HYP", help="the system's output, one line a segment")
    score.add_argument("reference", metavar="REF", help="the reference, line-aligned with HYP")
    score.add_argument("--src", metavar="SRC", help="the source, line-aligned with REF")
    score.add_argument(
        "--lang", metavar="xx-yy", help="source and target language, e.g. en-fr (default: und)"
    )
    score.add_argument(
        "-o",
        "--run-card",
        metavar="PATH",
        help="where to write the run card (default: HYP's name with .card.json, here)",
    )


def _score(args: argparse.Namespace) -> int:
    hypothesis, reference = Path(args.hypothesis), Path(args.reference)
    card_path = Path(args.run_card or f"{hypothesis.stem}.card.json")
    try:
        files = read_plain_files(
            hypothesis, reference, Path(args.src) if args.src else None, args.lang
        )
        with tempfile.TemporaryDirectory(prefix="mteval-score-") as scratch:
            folder = Path(scratch)
            corpus, replayed = folder / "plain-files-corpus.json", folder / "predictions.jsonl"
            corpus.write_text(json.dumps(corpus_envelope(files), ensure_ascii=False), "utf-8")
            rows = (json.dumps(row, ensure_ascii=False) for row in predictions(files))
            replayed.write_text("".join(f"{row}\n" for row in rows), encoding="utf-8")
            before = card_path.stat().st_mtime_ns if card_path.is_file() else None
            session = run_session(
                [
                    f"--mteval-corpus={corpus}",
                    "--mteval-method=replay",
                    f"--mteval-method-arg=predictions={replayed}",
                    f"--mteval-run-card={card_path.absolute()}",
                ],
                folder,
            )
            print(session.output, end="")
            card = card_of(session, card_path, before)
    except EvaluateError as exc:
        print(f"mteval score: {str(exc).removeprefix('evaluate(): ')}", file=sys.stderr)
        return 1
    except MtevalError as exc:
        print(f"mteval score: {exc}", file=sys.stderr)
        return 1
    print("\n".join(signature_lines(card)))
    return session.exit_code


def signature_lines(card: RunCard) -> list[str]:
    """Each sacrebleu metric's score and signature, as sacrebleu's command line names them."""
    signatures, scores = card.signatures or {}, card.scores.model_dump()
    lines = ["sacrebleu signatures (the card's 'signatures')"]
    for key, name in SACREBLEU_NAMES:
        score = scores.get(key)
        if key in signatures and isinstance(score, float | int):
            lines.append(f"  {name:<8} {score:8.4f}  {name}|{signatures[key]}")
    return lines


SCORE = Command(
    "score",
    help="score plain line-aligned files (HYP against REF) as a run, with sacrebleu signatures",
    add_arguments=_arguments,
    run=_score,
    description=__doc__,
)
