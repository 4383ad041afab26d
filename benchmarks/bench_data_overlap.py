"""What the data-overlap report (``cards/data_overlap.py``) costs on a FLORES-size corpus,
next to loading that corpus and next to a plain scan.

The method folder holds a few-shot file quoting a third of the FLORES-200 eng->fra devtest
entries (source and reference on one line each, in a prompt format), a TSV of the next third's
references, and shuffled source words (the last third is in no file, as most of a corpus is in
most methods' data). Timed, best of ``--runs``:

- ``load_corpus`` of the corpus (what every run pays): the reference;
- ``overlap``: the report (fields in a set, phrases behind a set of word 4-grams);
- the plain scan it replaces: every entry's normalised source and reference searched with
  ``in`` over every file's normalised text (entries x files x file size).

Both find the same entries (checked). Usage: ``python benchmarks/bench_data_overlap.py
[--repeat 4] [--runs 3]`` (``--repeat`` multiplies the files' size).
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
from pathlib import Path

from timing import best_of

from pytest_mteval.cards.data_overlap import normalized, overlap
from pytest_mteval.corpus import load_corpus

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpora" / "eng-fra-flores-devtest.json"


def _write_method(folder: Path, repeat: int) -> None:
    entries = json.loads(CORPUS.read_text(encoding="utf-8"))["entries"]
    third = len(entries) // 3
    shots = [f"English: {e['source']} French: {e['reference']}" for e in entries[:third]]
    (folder / "shots.txt").write_text("\n".join(shots * repeat) + "\n", encoding="utf-8")
    tsv = [f"{e['id']}\t{e['reference']}" for e in entries[third : 2 * third]]
    (folder / "refs.tsv").write_text("\n".join(tsv * repeat) + "\n", encoding="utf-8")
    words = " ".join(e["source"] for e in entries).split()
    random.Random(7).shuffle(words)
    filler = [" ".join(words[i : i + 20]) for i in range(0, len(words), 20)]
    (folder / "notes.md").write_text("\n".join(filler * repeat) + "\n", encoding="utf-8")
    (folder / "method.json").write_text("{}", encoding="utf-8")


def _plain_scan(folder: Path, corpus_entries: list[tuple[str, str, str]]) -> set[str]:
    texts = [
        "\n".join(normalized(line) for line in path.read_text(encoding="utf-8").splitlines())
        for path in sorted(folder.iterdir())
        if path.name != "method.json"
    ]
    found: set[str] = set()
    for entry_id, source, reference in corpus_entries:
        if any(source in text or reference in text for text in texts):
            found.add(entry_id)
    return found


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=4)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    corpus = load_corpus(CORPUS)
    entries = [(str(e.id), normalized(e.source), normalized(e.reference)) for e in corpus.entries]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        _write_method(folder, args.repeat)
        size = sum(p.stat().st_size for p in folder.iterdir())
        report = overlap(folder, corpus, None)
        plain = _plain_scan(folder, entries)
        assert set(report["sources"]) | set(report["references"]) == plain, "different entries"
        load = best_of(args.runs, lambda: load_corpus(CORPUS))
        indexed = best_of(args.runs, lambda: overlap(folder, corpus, None))
        scan = best_of(args.runs, lambda: _plain_scan(folder, entries))
    print(f"{len(entries)} entries, {size / 1e6:.1f} MB of data files; both find {len(plain)}")
    print(f"load_corpus        {load:8.3f} s  1.00x")
    print(f"overlap (indexed)  {indexed:8.3f} s  {indexed / load:5.2f}x load")
    ratio = scan / indexed
    print(f"plain scan         {scan:8.3f} s  {scan / load:5.2f}x load, {ratio:5.1f}x overlap")


if __name__ == "__main__":
    main()
