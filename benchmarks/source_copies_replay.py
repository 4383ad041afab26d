"""Issue 22: how often the checks for outputs made of the source fire on real translations.

    python benchmarks/source_copies_replay.py CORPUS... [--runs RUNS_DIR]

CORPUS files or folders (``pytest_mteval/corpora``, ../shared/data/tatoeba-curated): each
human reference is scored as the output of its own entry ("own"), and again with no reference
of its own ("bare": ``…``, as ``code_switching_references.py`` does), which leaves only the
corpus's sources to tell a word of the source from one of the target (a name, a number, "a"
that the translation shares with the source). RUNS_DIR (../shared/data/upstream-runs): every
real LLM output of the reference harness's runs, scored against its entry.

Printed per corpus or run: outputs scored; code-switching firings, and of them those with no
text of its own; hallucination firings, and of them mangled copies (``source_copies``). In the
bare replay only no text of its own and mangled copies are counted (the other checks need a
reference). Each firing of those two is listed with its output, for a reader to judge.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from code_switching_audit import corpora, corpus_of, read_report

from pytest_mteval.corpus import Corpus, Entry
from pytest_mteval.json_files import JsonFileError
from pytest_mteval.metrics import code_switching, hallucination
from pytest_mteval.metrics.base import MetricContext

NO_REFERENCE = "…"
MANGLED = "mangled_copy"


@dataclass
class Tally:
    label: str
    scored: int = 0
    switching: int = 0
    no_own_text: int = 0
    hallucination: int = 0
    mangled: int = 0
    shown: list[str] = field(default_factory=list)

    def line(self) -> str:
        return (
            f"{self.label:<44} {self.scored:>5} scored; code-switching {self.switching:>4} "
            f"(no own text {self.no_own_text:>3}); hallucination {self.hallucination:>4} "
            f"(mangled copy {self.mangled:>3})"
        )


def tally(label: str, corpus: Corpus, pairs: Iterable[tuple[Entry, str]], bare: bool) -> Tally:
    """Score each (entry, output); ``bare``: without the entry's reference."""
    context = MetricContext(corpus=corpus)
    switching, hallucinated = code_switching.build(context), hallucination.build(context)
    found = Tally(label)
    for entry, output in pairs:
        if bare:
            entry = Entry(id=entry.id, source=entry.source, reference=NO_REFERENCE)
        found.scored += 1
        cs = switching.score_entry(entry, output)
        reasons = hallucinated.score_entry(entry, output)["hallucination_reasons"]
        mangled = any(r.startswith(MANGLED) for r in reasons)
        found.switching += bool(cs["code_switching_detected"]) and not bare
        found.no_own_text += bool(cs["no_target_text"])
        found.hallucination += bool(reasons) and not bare
        found.mangled += mangled
        if cs["no_target_text"] or mangled:
            kind = "mangled copy" if mangled else "no own text"
            found.shown.append(f"  {entry.id}: {kind}: {entry.source!r} -> {output!r}")
    return found


def runs(folder: Path, candidates: Sequence[Corpus]) -> list[Tally]:
    found = []
    for path in sorted(folder.glob("*_report.json")):
        try:
            report = read_report(path)
        except JsonFileError as exc:
            print(f"{exc}; skipped", file=sys.stderr)
            continue
        corpus = corpus_of(report, candidates)
        if corpus is None:
            continue
        entries = {e.key: e for e in corpus.entries}
        pairs = [
            (entries[str(row["id"])], row["predicted"])
            for row in report["entries"]
            if not row.get("error") and isinstance(row.get("predicted"), str)
        ]
        label = f"{report['run_id'][-6:]} {corpus.dataset.id}"
        found.append(tally(label, corpus, pairs, bare=False))
    return found


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path, nargs="+", help="corpus files or folders")
    parser.add_argument("--runs", type=Path, help="folder of reference-harness *_report.json")
    args = parser.parse_args(argv)
    candidates = corpora(args.corpus)
    groups: dict[str, list[Tally]] = {"own": [], "bare": [], "runs": []}
    for corpus in candidates:
        pairs = [(e, e.reference) for e in corpus.entries]
        for mode in ("own", "bare"):
            label = f"{corpus.dataset.id} {mode}"
            groups[mode].append(tally(label, corpus, pairs, bare=mode == "bare"))
    if args.runs is not None:
        groups["runs"] = runs(args.runs, candidates)
    for mode, tallies in groups.items():
        total = Tally(f"total, {mode}")
        for found in tallies:
            print(found.line())
            print("\n".join(found.shown[:40]), end="\n" if found.shown else "")
            for name in ("scored", "switching", "no_own_text", "hallucination", "mangled"):
                setattr(total, name, getattr(total, name) + getattr(found, name))
        print(total.line(), end="\n\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
