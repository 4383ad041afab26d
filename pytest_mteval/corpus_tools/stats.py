"""``mteval corpus stats CORPUS``: what the corpus holds, by segment, difficulty, register,
domain, context and provenance, and how long its texts are (characters and words)."""

from __future__ import annotations

import json
import statistics
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pytest_mteval.corpus import Corpus, CorpusError, Entry, load_corpus

#: The distributions shown, as (label, the entry's value).
FACETS: tuple[str, ...] = ("segment", "difficulty", "register", "domain", "context", "provenance")
UNSET = "(none)"


def _facet(entry: Entry, name: str) -> str:
    value = entry.register_ if name == "register" else getattr(entry, name)
    return UNSET if value is None else str(value)


def _lengths(values: Sequence[int]) -> dict[str, float]:
    return {
        "min": min(values),
        "median": statistics.median(values),
        "mean": round(statistics.fmean(values), 2),
        "max": max(values),
    }


def corpus_stats(corpus: Corpus) -> dict[str, Any]:
    entries = corpus.entries
    distributions = {
        name: dict(sorted(Counter(_facet(e, name) for e in entries).items())) for name in FACETS
    }
    sides = {"source": [e.source for e in entries], "reference": [e.reference for e in entries]}
    return {
        "corpus": str(corpus.path),
        "dataset": {"id": corpus.dataset.id, "version": corpus.dataset.version},
        "sha256": corpus.sha256,
        "entries": len(entries),
        "distributions": distributions,
        "lengths": {
            side: {
                "characters": _lengths([len(t) for t in texts]),
                "words": _lengths([len(t.split()) for t in texts]),
            }
            for side, texts in sides.items()
        },
        "with": {
            "variants": sum(1 for e in entries if e.variants),
            "variant_class": sum(1 for e in entries if e.variant_class),
            "morphological_analysis": sum(1 for e in entries if e.morphological_analysis),
            "notes": sum(1 for e in entries if e.notes),
            "terms": sum(1 for e in entries if e.terms),
        },
    }


def text_report(stats: dict[str, Any]) -> list[str]:
    total = stats["entries"]
    dataset = stats["dataset"]
    lines = [
        f"{stats['corpus']}: {dataset['id']} {dataset['version']}, {total} entries, "
        f"sha256 {stats['sha256'][:12]}"
    ]
    for name, counts in stats["distributions"].items():
        lines += ["", f"by {name}"]
        width = max(len(k) for k in counts)
        for value, count in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
            bar = "#" * max(1, round(30 * count / total))
            lines.append(f"  {value:<{width}}  {count:>6}  {100 * count / total:5.1f}%  {bar}")
    lines += ["", f"{'lengths':<24}{'min':>5}{'median':>8}{'mean':>8}{'max':>8}"]
    for side, units in stats["lengths"].items():
        for unit, v in units.items():
            name = f"{side} {unit}"
            lines.append(f"  {name:<22}{v['min']:>5}{v['median']:>8g}{v['mean']:>8g}{v['max']:>8}")
    lines += ["", "entries with " + ", ".join(f"{k}: {v}" for k, v in stats["with"].items())]
    return lines


def run_stats(path: Path, fmt: str) -> int:
    try:
        corpus = load_corpus(path)
    except CorpusError as exc:
        print(f"mteval corpus stats: {exc}")
        return 2
    stats = corpus_stats(corpus)
    if fmt == "json":
        print(json.dumps(stats, ensure_ascii=False, indent=2))
    else:
        print("\n".join(text_report(stats)))
    return 0
