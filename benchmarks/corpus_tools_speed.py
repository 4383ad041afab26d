"""What ``mteval corpus import`` and ``lint`` cost next to loading the same corpus.

FLORES-200 eng->fra devtest repeated (default 10 times, 10,120 entries; each copy's sources
get a copy number so that they stay distinct), written as a CSV and as a corpus JSON. Timed:

- ``load_corpus`` of the JSON (what every pytest run pays): the reference;
- ``import_corpus`` of the CSV (read, map, validate every row, stable ids);
- ``lint`` of the JSON (every entry validated, duplicates, lengths, resources).

Lint and import are linear in the entries (duplicates are grouped by a key, never compared
pairwise), so the ratios should not grow with ``--repeat``.
Usage: ``python benchmarks/corpus_tools_speed.py [--repeat 10]``.
"""

from __future__ import annotations

import argparse
import csv
import json
import tempfile
from pathlib import Path

from timing import best_of

from pytest_mteval.corpus import load_corpus
from pytest_mteval.corpus_tools.importer import ImportOptions, import_corpus, write_document
from pytest_mteval.corpus_tools.lint import lint

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpora" / "eng-fra-flores-devtest.json"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    entries = json.loads(CORPUS.read_text(encoding="utf-8"))["entries"]
    with tempfile.TemporaryDirectory() as tmp:
        sheet = Path(tmp) / "sheet.csv"
        with sheet.open("w", encoding="utf-8", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(["source", "reference", "domain"])
            for copy in range(args.repeat):
                for e in entries:
                    writer.writerow([f"{e['source']} ({copy})", e["reference"], e["domain"] or ""])
        options = ImportOptions(
            inputs=(sheet,),
            envelope={
                "id": "bench",
                "source_language": "en",
                "target_language": "fr",
                "license": "CC-BY-SA-4.0",
            },
            defaults={"provenance": "corpus"},
        )
        corpus = Path(tmp) / "corpus.json"
        write_document(import_corpus(options).document, corpus)
        count = len(load_corpus(corpus).entries)
        load = best_of(args.runs, lambda: load_corpus(corpus))
        imported = best_of(args.runs, lambda: import_corpus(options))
        linted = best_of(args.runs, lambda: lint(corpus))
    print(f"{count} entries; load_corpus {load:.3f} s (reference)")
    print(f"import_corpus (CSV)  {imported:.3f} s  = {imported / load:.2f}x load_corpus")
    print(f"lint                 {linted:.3f} s  = {linted / load:.2f}x load_corpus")


if __name__ == "__main__":
    main()
