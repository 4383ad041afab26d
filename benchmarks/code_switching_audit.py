"""Issue 15: the code-switching detector's precision on real LLM outputs, by hand audit.

    python benchmarks/code_switching_audit.py RUNS_DIR CORPUS... [--audit TSV]

MQM data with "untranslated text" annotations exists for zh->en only, where no output keeps
any Chinese (the detector never fires; docs/VALIDITY.md). Real outputs that do keep source- or
other-language words are the reference harness's LLM runs (``*_report.json`` in RUNS_DIR, e.g.
../shared/data/upstream-runs) over Tatoeba corpora (CORPUS files or folders, e.g.
../shared/data/tatoeba-curated; a run is scored against the corpus that holds all its entry
ids). The detector is run on every translated entry; every entry it flags must have a verdict
in the audit file (``data/code_switching_audit.tsv``, written by one reader of this project,
not by native speakers: treat it as a documented hand audit, not as expert annotation):

- ``source-language``: a source-language word kept untranslated;
- ``other-language``: a word of a third language (another script) in the output;
- ``false-alarm``: a word the target language accepts, a name, anything a careful reader would
  not call untranslated text.

Printed: per run, entries scored and flagged; then precision (audited true firings over
firings) with its Wilson 95 % interval, separately for the two checks of the detector (leaked
source words, wrong script) and together. A flagged entry without a verdict is listed and the
exit status is 1: the audit must be renewed whenever the detector changes what it flags.
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_mteval.corpus import Corpus, CorpusError, load_corpus
from pytest_mteval.json_files import JsonFileError, read_json
from pytest_mteval.metrics import code_switching
from pytest_mteval.metrics.base import MetricContext

AUDIT = Path(__file__).with_name("data") / "code_switching_audit.tsv"
TRUE = frozenset({"source-language", "other-language"})
VERDICTS = frozenset({*TRUE, "false-alarm"})


@dataclass(frozen=True)
class Firing:
    run_id: str
    entry_id: str
    leaked: tuple[str, ...]
    wrong_script: tuple[str, ...]


def corpora(paths: Sequence[Path]) -> list[Corpus]:
    found: list[Corpus] = []
    for path in paths:
        files = sorted(path.glob("*.json")) if path.is_dir() else [path]
        for file in files:
            try:
                found.append(load_corpus(file))
            except CorpusError:
                continue  # a folder may hold registries and other JSON besides corpora
    return found


def read_report(path: Path) -> dict[str, Any]:
    """A harness report with what the audit reads of it (``run_id``, each entry's ``id``), or
    JsonFileError with one line naming the file, the entry and the field."""
    report = read_json(path, "harness report")
    if not isinstance(report, dict) or not isinstance(report.get("run_id"), str):
        raise JsonFileError(f"{path}: field 'run_id': a report is an object with a run id")
    if not isinstance(report.get("entries"), list):
        raise JsonFileError(f"{path}: field 'entries': a list of entries is required")
    for number, row in enumerate(report["entries"]):
        if not isinstance(row, dict) or not isinstance(row.get("id"), str | int):
            raise JsonFileError(f"{path}: entry {number}: field 'id': required (text or number)")
    return report


def corpus_of(report: dict[str, Any], candidates: Sequence[Corpus]) -> Corpus | None:
    ids = {str(e["id"]) for e in report["entries"]}
    for corpus in candidates:
        if ids <= {e.key for e in corpus.entries}:
            return corpus
    return None


def firings(runs: Path, candidates: Sequence[Corpus]) -> tuple[list[Firing], list[str]]:
    """Every flagged entry of every run, and one line per run (scored, flagged)."""
    out: list[Firing] = []
    lines: list[str] = []
    for path in sorted(runs.glob("*_report.json")):
        try:
            report = read_report(path)
        except JsonFileError as exc:
            lines.append(f"{exc}; skipped")  # the other runs are still scored
            continue
        corpus = corpus_of(report, candidates)
        if corpus is None:
            lines.append(f"{report['run_id']}: no corpus holds its entries; skipped")
            continue
        metric = code_switching.build(MetricContext(corpus=corpus))
        entries = {e.key: e for e in corpus.entries}
        scored = 0
        for row in report["entries"]:
            predicted = row.get("predicted")
            if row.get("error") or not isinstance(predicted, str):
                continue
            scored += 1
            result = metric.score_entry(entries[str(row["id"])], predicted)
            if result["code_switching_detected"]:
                out.append(
                    Firing(
                        report["run_id"],
                        str(row["id"]),
                        tuple(result.get("leaked_tokens") or ()),
                        tuple(result.get("wrong_script_tokens") or ()),
                    )
                )
        flagged = sum(1 for f in out if f.run_id == report["run_id"])
        lines.append(f"{report['run_id']}: {corpus.dataset.id}, {scored} scored, {flagged} flagged")
    return out, lines


def read_audit(path: Path) -> dict[tuple[str, str], str]:
    verdicts: dict[tuple[str, str], str] = {}
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle, delimiter="\t")
        missing = {"run_id", "entry_id", "verdict"} - set(reader.fieldnames or ())
        if missing:
            raise ValueError(f"{path}: line 1: missing column(s) {', '.join(sorted(missing))}")
        for number, row in enumerate(reader, start=2):
            verdict = (row.get("verdict") or "").strip()
            if verdict not in VERDICTS:
                raise ValueError(
                    f"{path}: line {number}: verdict {verdict!r} is not one of "
                    + ", ".join(sorted(VERDICTS))
                )
            verdicts[(row["run_id"], row["entry_id"])] = verdict
    return verdicts


def wilson(hits: int, total: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion (sound for small samples, unlike p +- 2se)."""
    if total == 0:
        return (0.0, 1.0)
    p = hits / total
    centre = (p + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / (1 + z * z / total)
    return (max(0.0, centre - half), min(1.0, centre + half))


def precision_line(
    label: str, fired: Sequence[Firing], verdicts: dict[tuple[str, str], str]
) -> str:
    true = sum(1 for f in fired if verdicts.get((f.run_id, f.entry_id)) in TRUE)
    if not fired:
        return f"{label:<28} fired 0, precision n/a"
    low, high = wilson(true, len(fired))
    return (
        f"{label:<28} fired {len(fired):>3}, true {true:>3}, precision {true / len(fired):.2f} "
        f"(95% CI {low:.2f}-{high:.2f})"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", type=Path, help="folder of reference-harness *_report.json")
    parser.add_argument("corpus", type=Path, nargs="+", help="corpus files or folders")
    parser.add_argument("--audit", type=Path, default=AUDIT, help="hand-audit TSV")
    args = parser.parse_args(argv)
    try:
        verdicts = read_audit(args.audit)
    except (OSError, ValueError) as exc:
        print(f"code_switching_audit: {exc}", file=sys.stderr)
        return 2
    fired, lines = firings(args.runs, corpora(args.corpus))
    print("\n".join(lines), end="\n\n")
    for f in fired:
        verdict = verdicts.get((f.run_id, f.entry_id), "NOT AUDITED")
        print(
            f"{f.run_id[-6:]} {f.entry_id:<18} {verdict:<16} {' '.join(f.leaked + f.wrong_script)}"
        )
    print()
    print(precision_line("leaked source words", [f for f in fired if f.leaked], verdicts))
    print(precision_line("wrong script", [f for f in fired if f.wrong_script], verdicts))
    print(precision_line("code-switching (either)", fired, verdicts))
    missing = [f for f in fired if (f.run_id, f.entry_id) not in verdicts]
    if missing:
        print(f"\n{len(missing)} flagged entries have no verdict in {args.audit}: audit them")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
