"""Issue 22: the code-switching detector's false alarms on human translations.

    python benchmarks/code_switching_references.py FOLDER SOURCE-TARGET...

FOLDER holds one file per language, line n of each being sentence n (FLORES-200's
``eng_Latn.devtest`` layout, e.g. ../shared/data/flores200-devtest); each pair names two of
them without the extension (``eng_Latn-deu_Latn``). The first half of the lines is the corpus
(its references give the target vocabulary, its sources the names); each human translation
of the second half is then scored as the output of its source, with no reference of its own.
A professional translation holds no untranslated text that a rater would mark, so every
entry flagged is a false alarm or a word the translator chose to keep: each is printed with
its words, for a reader to judge. This is no MQM figure, but it is data the detector was
never built on.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Sequence
from datetime import date
from pathlib import Path

from pytest_mteval.corpus import Entry, load_corpus
from pytest_mteval.languages import canonical
from pytest_mteval.metrics import code_switching
from pytest_mteval.metrics.base import MetricContext

EXTENSION = ".devtest"
#: A reference without words (an entry needs one): the output's own words are not excused.
NO_REFERENCE = "…"


def lines(folder: Path, language: str) -> list[str]:
    return (folder / f"{language}{EXTENSION}").read_text(encoding="utf-8").splitlines()


def flagged(folder: Path, source: str, target: str) -> tuple[int, list[tuple[int, list[str]]]]:
    """(outputs scored, [(line number, blamed words)]) for one pair."""
    sources, targets = lines(folder, source), lines(folder, target)
    half = len(sources) // 2
    corpus = {
        "dataset": {
            "id": f"references-{source}-{target}",
            "version": "1",
            "language_pair": f"{source}→{target}",
            "source_language": canonical(source),
            "target_language": canonical(target),
            "created": date.today().isoformat(),  # when this corpus file was made
            "license": "unknown",
            "provenance": [str(folder)],
        },
        "entries": [
            {"id": str(n), "source": s, "reference": t}
            for n, (s, t) in enumerate(zip(sources[:half], targets[:half], strict=True))
        ],
    }
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "corpus.json"
        path.write_text(json.dumps(corpus, ensure_ascii=False), encoding="utf-8")
        metric = code_switching.build(MetricContext(corpus=load_corpus(path)))
    found = []
    for n in range(half, len(sources)):
        row = metric.score_entry(
            Entry(id=str(n), source=sources[n], reference=NO_REFERENCE), targets[n]
        )
        if row["code_switching_detected"]:
            blamed = [*row["leaked_tokens"], *row["wrong_script_tokens"]]
            found.append((n + 1, blamed or ["(no text of its own)"]))
    return len(sources) - half, found


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("pairs", nargs="+", metavar="SOURCE-TARGET")
    args = parser.parse_args(argv)
    for pair in args.pairs:
        source, _, target = pair.partition("-")
        scored, found = flagged(args.folder, source, target)
        print(f"{source} -> {target}: {len(found)} of {scored} human translations flagged")
        for line, blamed in found:
            print(f"  line {line}: {' '.join(blamed)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
