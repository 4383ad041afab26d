"""Issue 3 measurement: how often the hallucination and code-switching checks fire on real,
good outputs (false alarms) and on fluent but unrelated outputs (detections).

    python benchmarks/hallucination_rates.py [RUNS_DIR] [--seed 7] [--show]

RUNS_DIR holds run reports of the reference harness (default: ../shared/data/upstream-runs
when present, else tests/data/upstream-runs). For each report:

- real: the model's own outputs. They are real translations by strong models, so every flag
  is a false alarm unless the listed reason shows a real defect (``--show`` lists them).
- shuffled: each entry answered with another entry's reference (a derangement, seeded; never
  an identical reference). Fluent, target-language, unrelated: every entry should be flagged.
- foreign: the first half of the entries answered with references of the second half, which
  is not part of the run, so only the per-entry checks can see it.
The reference harness's own flag rate on the real outputs is printed beside ours.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pytest_mteval.corpus import Corpus, Dataset, Entry
from pytest_mteval.metrics import code_switching, hallucination
from pytest_mteval.metrics.base import MetricContext
from pytest_mteval.metrics.entry_record import as_records
from pytest_mteval.metrics.match import normalize

REPO = Path(__file__).resolve().parents[1]
DEFAULT_RUNS = [
    REPO.parent / "shared" / "data" / "upstream-runs",
    REPO / "tests" / "data" / "upstream-runs",
]
COLUMNS = ("real", "cs_real", "shuffled", "shuffled_per_entry", "foreign")
CROSS_ENTRY = ("same_output_for_different_sources", "another_entrys_reference")


def corpus_of(entries: Sequence[dict[str, Any]], name: str) -> Corpus:
    """The run's entries as a corpus (source and reference only, which is all they hold)."""
    fields = ("id", "version", "language_pair", "source_language", "target_language")
    dataset = Dataset.model_validate(
        {**dict.fromkeys(fields, "?"), "created": "?", "license": "?", "provenance": []}
    )
    items = tuple(Entry(id=e["id"], source=e["source"], reference=e["expected"]) for e in entries)
    return Corpus(Path(name), dataset, items, "0" * 64)


def evaluate(corpus: Corpus, outputs: Sequence[str]) -> dict[str, Any]:
    """Both metrics over one set of outputs, as the plugin would run them."""
    context = MetricContext(corpus=corpus)
    halluc, switching = hallucination.build(context), code_switching.build(context)
    records = []
    for entry, output in zip(corpus.entries, outputs, strict=True):
        records.append(
            {
                "entry_id": entry.key,
                "source": entry.source,
                "expected": entry.reference,
                "predicted": output,
                **halluc.score_entry(entry, output),
                **switching.score_entry(entry, output),
            }
        )
    return {
        "records": records,
        "hallucination": halluc.aggregate(as_records(records)),
        "code_switching": switching.aggregate(as_records(records)),
    }


def derangement(entries: Sequence[dict[str, Any]], rng: random.Random) -> list[int]:
    """A permutation with no entry answered by itself or by an identical reference."""
    references = [normalize(e["expected"]) for e in entries]
    while True:
        order = list(range(len(entries)))
        rng.shuffle(order)
        if all(references[j] != references[i] for i, j in enumerate(order)):
            return order


def measure(
    report: dict[str, Any], rng: random.Random
) -> tuple[dict[str, tuple[int, int]], dict[str, Any]]:
    """(flagged, entries) per column for one report, and the real outputs' evaluation."""
    entries = report["entries"]
    name = f"{report['config']['model']} {Path(report['config']['corpus_path']).stem}"
    corpus = corpus_of(entries, name)
    real = evaluate(corpus, [e["predicted"] or "" for e in entries])
    shuffled = evaluate(corpus, [entries[j]["expected"] for j in derangement(entries, rng)])
    half = len(entries) // 2
    foreign_outputs = [e["expected"] for e in entries[half : 2 * half]]
    foreign = evaluate(corpus_of(entries[:half], name), foreign_outputs)
    n = len(entries)
    counts = {
        "real": (len(real["hallucination"]["hallucination_entries"]), n),
        "cs_real": (real["code_switching"]["code_switching_entries"], n),
        "shuffled": (len(shuffled["hallucination"]["hallucination_entries"]), n),
        "shuffled_per_entry": (sum(r["hallucination_detected"] for r in shuffled["records"]), n),
        "foreign": (len(foreign["hallucination"]["hallucination_entries"]), half),
    }
    return counts, real


def show_flags(real: dict[str, Any]) -> None:
    for record in real["records"]:
        if record["hallucination_detected"] or record["code_switching_detected"]:
            why = record["hallucination_reasons"] + record["leaked_tokens"]
            why += record["wrong_script_tokens"]
            print(f"    {record['entry_id']}: {why} | {record['source'][:50]}")
            print(f"        -> {record['predicted'][:80]}")
    cross = {k: v for k, v in real["hallucination"].items() if k in CROSS_ENTRY and v}
    if cross:
        print(f"    cross-entry: {cross}")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("runs", nargs="?", type=Path)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--show", action="store_true", help="list every flagged real output")
    args = parser.parse_args()
    folder = args.runs or next(p for p in DEFAULT_RUNS if p.is_dir())
    rng = random.Random(args.seed)
    totals = {column: [0, 0] for column in COLUMNS}
    started = time.perf_counter()
    print(f"runs: {folder}  seed: {args.seed}")
    print(
        f"{'model corpus':46s} {'n':>4s} {'harness':>8s} " + " ".join(f"{c:>18s}" for c in COLUMNS)
    )
    for path in sorted(folder.glob("*_report.json")):
        report = json.loads(path.read_text(encoding="utf-8"))
        counts, real = measure(report, rng)
        harness = report["overall"].get("plugin_metrics", {}).get("hallucination", {})
        pct = harness.get("entries_flagged_hallucination_pct")
        name = f"{report['config']['model']} {Path(report['config']['corpus_path']).stem}"
        cells = " ".join(f"{f / n:18.1%}" for f, n in counts.values())
        theirs = "-" if pct is None else f"{pct:.1%}"
        print(f"{name[:46]:46s} {len(report['entries']):4d} {theirs:>8} {cells}")
        for column, (flagged, count) in counts.items():
            totals[column][0] += flagged
            totals[column][1] += count
        if args.show:
            show_flags(real)
    print("overall (flagged / entries):")
    for column, (flagged, count) in totals.items():
        print(f"  {column:20s} {flagged:5d} / {count:5d} = {flagged / count:6.1%}")
    print(f"elapsed {time.perf_counter() - started:.2f} s")


if __name__ == "__main__":
    main()
