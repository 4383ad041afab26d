"""Issue 42: the wrong-language check on human translations and on real LLM outputs.

    python benchmarks/wrong_language.py [--flores DIR] [--tatoeba DIR] [--runs DIR]

FLORES-200 devtest (one file per language, line n = sentence n): for each target language,
each other language's references are given as the outputs, the target's references being
the corpus; every such run must be flagged. The target's own references as outputs must not
be (each judged against the other entries' references only, so no output passes by matching
its own reference). Tatoeba: each corpus's references as outputs. Upstream runs: the real
LLM outputs of the reference harness's reports, against their corpus. Printed per set: the
share of outputs judged in another language (of those long enough to decide), the share
undecided, and whether the run as a whole is flagged (guards.py's rule).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from pytest_mteval.metrics.entry_record import EntryRecord, new_record
from pytest_mteval.metrics.output_language import LanguageVerdict, wrong_language
from pytest_mteval.scoring.guards import run_flags, wrong_language_rate

SHARED = Path("/work/shared/data")
REPO = Path(__file__).resolve().parents[1]
FLORES_FRA = REPO / "corpora" / "eng-fra-flores-devtest.json"
IDENTITY = REPO / "methods" / "identity"
#: Times the check on a card's records in a fresh process (its imports excluded, as a run
#: has them already): what the run's end pays for it.
_TIME_CHECK = """
import json, sys, time
from pytest_mteval.metrics.entry_record import as_records
from pytest_mteval.scoring.guards import output_languages
card = json.load(open(sys.argv[1], encoding="utf-8"))
records = as_records(card["results"])
start = time.perf_counter()
output_languages(records, card["dataset"].get("target_language") or "fr")
print(time.perf_counter() - start)
"""
FLORES_LANGUAGES = ("eng_Latn", "fra_Latn", "deu_Latn", "spa_Latn", "quy_Latn")


def judged(
    outputs: Sequence[str | None], references: Sequence[Sequence[str]], target: str
) -> tuple[list[LanguageVerdict], bool]:
    """The verdicts, and whether guards.py flags the run."""
    verdicts = wrong_language(outputs, references, target)
    records: list[EntryRecord] = [
        new_record(str(i), "", refs[0], output, None if output is not None else "no output")
        for i, (output, refs) in enumerate(zip(outputs, references, strict=True))
    ]
    flags = run_flags(records, languages=verdicts, target_language=target)
    return verdicts, any(f["code"] == "wrong_language" for f in flags)


def row(name: str, verdicts: Sequence[LanguageVerdict], flagged: bool) -> str:
    rate = wrong_language_rate(verdicts)
    undecided = sum(not v.decided for v in verdicts) / len(verdicts)
    wrong = sum(v.wrong for v in verdicts)
    shown = "-" if rate is None else f"{rate:.3f}"
    return (
        f"{name:<44} {len(verdicts):>5} {wrong:>5} {shown:>7} {undecided:>9.3f} "
        f"{'FLAGGED' if flagged else 'no':>8}"
    )


HEADER = f"{'set':<44} {'n':>5} {'wrong':>5} {'rate':>7} {'undecided':>9} {'run':>8}"


def flores(folder: Path) -> None:
    texts = {
        language: (folder / f"{language}.devtest").read_text(encoding="utf-8").splitlines()
        for language in FLORES_LANGUAGES
    }
    print("FLORES-200 devtest: the other languages' references as output (must be flagged)")
    print(HEADER)
    for target in FLORES_LANGUAGES:
        references = [[t] for t in texts[target]]
        for other in FLORES_LANGUAGES:
            if other != target:
                verdicts, flagged = judged(texts[other], references, target[:3])
                print(row(f"{other[:3]} as {target[:3]}", verdicts, flagged))
    print()
    print("FLORES-200 devtest: the target's own references as output (must not be flagged)")
    print(HEADER)
    for target in FLORES_LANGUAGES:
        references = [[t] for t in texts[target]]
        verdicts, flagged = judged(texts[target], references, target[:3])
        print(row(f"{target[:3]} as {target[:3]}", verdicts, flagged))
    print()


def tatoeba(folder: Path) -> None:
    print("Tatoeba corpora: their references as output (false alarms)")
    print(HEADER)
    for path in sorted(folder.glob("*-dev-v1.json")):
        corpus = json.loads(path.read_text(encoding="utf-8"))
        entries = corpus["entries"]
        references = [[e["reference"], *(e.get("variants") or [])] for e in entries]
        target = corpus["language_pair"]["target"]
        verdicts, flagged = judged([e["reference"] for e in entries], references, target)
        print(row(path.stem, verdicts, flagged))
    print()


def upstream(folder: Path, corpora: Path) -> None:
    print("Upstream LLM runs: their outputs against their corpus (false alarms)")
    print(HEADER)
    for path in sorted(folder.glob("*_report.json")):
        report = json.loads(path.read_text(encoding="utf-8"))
        corpus_name = Path(report["config"]["corpus_path"]).name
        corpus_path = corpora / corpus_name
        # a corpus not in the folder: the report's own references, its name's target
        corpus = json.loads(corpus_path.read_text(encoding="utf-8")) if corpus_path.exists() else {}
        variants = {str(e["id"]): e.get("variants") or [] for e in corpus.get("entries", [])}
        entries = report["entries"]
        outputs = [None if e.get("error") else e.get("predicted") for e in entries]
        references = [[e["expected"], *variants.get(str(e["id"]), [])] for e in entries]
        target = corpus["language_pair"]["target"] if corpus else corpus_name.split("-")[1]
        verdicts, flagged = judged(outputs, references, target)
        model = report["config"].get("model", "?")
        print(row(f"{corpus_name[:-12]} {model}"[:44], verdicts, flagged))
        for entry, verdict in zip(entries, verdicts, strict=True):
            if verdict.wrong:
                print(f"    {entry['id']}: reads as {verdict.reads_as}: {entry.get('predicted')!r}")
    print()


def speed(rounds: int) -> None:
    """The identity method's whole FLORES eng->fra run, and the check's share of it."""
    print("Speed: identity method, 1,012 FLORES entries eng->fra (wall seconds)")
    for round_ in range(rounds):
        with tempfile.TemporaryDirectory() as scratch:
            card = Path(scratch) / "card.json"
            start = time.perf_counter()
            subprocess.run(
                [
                    *(sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"),
                    f"--mteval-corpus={FLORES_FRA}",
                    f"--mteval-method={IDENTITY}",
                    f"--mteval-run-card={card}",
                ],
                cwd=scratch,
                capture_output=True,
                check=True,
            )
            run = time.perf_counter() - start
            checked = subprocess.run(
                [sys.executable, "-c", _TIME_CHECK, str(card)],
                capture_output=True,
                text=True,
                check=True,
            )
            check = float(checked.stdout.strip())
            print(
                f"round {round_ + 1}: run {run:.2f} s, of which the check {check:.2f} s: "
                f"ratio with / without the check {run / (run - check):.3f}"
            )
    print()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flores", type=Path, default=SHARED / "flores200-devtest")
    parser.add_argument("--tatoeba", type=Path, default=SHARED / "tatoeba-curated")
    parser.add_argument("--runs", type=Path, default=SHARED / "upstream-runs")
    parser.add_argument("--speed", type=int, default=3, metavar="ROUNDS", help="0: skip it")
    args = parser.parse_args(argv)
    if args.speed:
        speed(args.speed)
    flores(args.flores)
    tatoeba(args.tatoeba)
    upstream(args.runs, args.tatoeba)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
