"""What reading every run-level score through its definition costs, against plain summation.

FLORES-200 eng->fra devtest (1012 entries, the English source as each "translation"), its
records repeated to ``--entries`` (default 10,000) with the per-segment statistics the workers
compute. Timed on the controller's side, in the same run:

- reference: the sums the run-level scores were computed with before one definition per
  metric (Python column sums of each family's statistics, ``sacre.corpus_score``, exact
  matches counted);
- definitions: ``scoring.aggregate.quality_scores`` (chrF++, BLEU, TER and exact match, each
  read, summed and finalised by its ``MetricDefinition``), and the card's interval inputs
  (``headline.statistics_of``).

Prints each ratio to the reference and checks that both give the same values.
Usage: ``python benchmarks/definition_scores.py [--entries 10000]``.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from timing import best_of

from pytest_mteval.metrics import sacre
from pytest_mteval.metrics.entry_record import as_records
from pytest_mteval.metrics.match import exact_match
from pytest_mteval.scoring.aggregate import quality_scores
from pytest_mteval.scoring.run_judgement import statistics_of

CORPUS = Path(__file__).resolve().parent.parent / "corpora" / "eng-fra-flores-devtest.json"


def records(count: int) -> list[dict[str, Any]]:
    entries = json.loads(CORPUS.read_text(encoding="utf-8"))["entries"]
    base = []
    for entry in entries:
        predicted, reference = entry["source"], entry["reference"]
        base.append(
            {
                "entry_id": str(entry["id"]),
                "predicted": predicted,
                "expected": reference,
                "error": None,
                "exact_match": exact_match(predicted, reference),
                "length_ratio": len(predicted) / len(reference),
                "stats": sacre.segment_stats(predicted, reference),
            }
        )
    return [dict(base[i % len(base)], entry_id=str(i)) for i in range(count)]


def reference(rows: Sequence[Mapping[str, Any]]) -> dict[str, float | None]:
    out: dict[str, float | None] = {}
    for family in sacre.FAMILIES:
        columns = zip(*(row["stats"][family] for row in rows), strict=True)
        out[family] = sacre.corpus_score(family, [sum(column) for column in columns])
    out["exact"] = sum(1 for row in rows if row["exact_match"]) / len(rows)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--entries", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    rows = as_records(records(args.entries))
    plain, defined = reference(rows), quality_scores(rows)
    pairs = (
        ("chrf", "chrf_plus_plus"),
        ("bleu", "bleu"),
        ("ter", "ter"),
        ("exact", "exact_match_rate"),
    )
    assert all(plain[a] == defined[b] for a, b in pairs), (plain, defined)
    base = best_of(args.runs, lambda: reference(rows))
    scored = best_of(args.runs, lambda: quality_scores(rows))
    resampled = best_of(args.runs, lambda: statistics_of(rows, defined, "B"))
    print(f"entries: {len(rows)}; reference (plain sums): {base * 1000:.1f} ms")
    print(f"quality_scores through definitions: {scored / base:.2f}x the reference")
    print(f"interval inputs (statistics_of):    {resampled / base:.2f}x the reference")


if __name__ == "__main__":
    main()
