"""The linguist's workflow end to end: a spreadsheet of 120 real sentence pairs is imported,
linted, fixed where lint says, evaluated with pytest, and rotated into a new version that a
gate refuses to compare with the old one."""

from __future__ import annotations

import csv
import json

from conftest import DATA, METHODS
from corpus_sheets import GUJ

from pytest_mteval.cli.main import main
from pytest_mteval.corpus import load_corpus

pytest_plugins = ["pytester"]

IMPORT = [
    "corpus",
    "import",
    "--source-column=English",
    "--reference-column=Gujarati",
    "--id=eng-guj-community",
    "--source-language=en",
    "--target-language=gu",
    "--license=LicenseRef-CC-BY-2.0-FR",
    "--provenance=corpus",
    "--consent=tests/data/corpus-tools/SOURCE.md (fixture)",
    "--force",
]


def mteval(capsys, *args):
    code = main([str(a) for a in args])
    return code, capsys.readouterr().out


def test_import_lint_fix_evaluate_rotate(pytester, capsys):
    corpus = pytester.path / "eng-guj.json"
    code, out = mteval(capsys, *IMPORT, GUJ, "-o", corpus)
    assert code == 0, out

    # Lint names the contamination: a gold_standard sentence also in a public segment.
    code, out = mteval(capsys, "corpus", "lint", corpus, "--format", "json")
    assert code == 1
    report = json.loads(out)
    named = [f for f in report["findings"] if f["severity"] == "error"]
    assert {f["code"] for f in named} == {"contamination"}
    ids = {i for f in named for i in f["entry_ids"]}
    sources = {e.source for e in load_corpus(corpus).entries if e.key in ids}

    # The fix is made where the linguist works, in the sheet: those rows go to gold_standard.
    with GUJ.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle))
    for row in rows[1:]:
        if row[0] in sources:
            row[2] = "gold_standard"
    fixed = pytester.path / "fixed.csv"
    with fixed.open("w", encoding="utf-8", newline="") as handle:
        csv.writer(handle).writerows(rows)
    code, out = mteval(capsys, *IMPORT, fixed, "-o", corpus)
    assert code == 0, out
    code, out = mteval(capsys, "corpus", "lint", corpus)
    assert code == 0, out

    # Evaluate a method on it, as any corpus.
    card = pytester.path / "card.json"
    result = pytester.runpytest(
        f"--mteval-corpus={corpus}",
        f"--mteval-method={METHODS / 'identity'}",
        f"--mteval-run-card={card}",
        "-p",
        "no:randomly",
    )
    entries = load_corpus(corpus).entries
    result.assert_outcomes(passed=len(entries))  # one item per entry; no threshold set
    written = json.loads(card.read_text(encoding="utf-8"))
    assert written["dataset"]["sha256"] == load_corpus(corpus).sha256
    assert sorted(str(r["entry_id"]) for r in written["results"]) == sorted(e.key for e in entries)
    assert written["dataset"]["version"] == "1.0.0"

    # Rotate: a new version, which a gate on the old card refuses to compare with.
    rotated = pytester.path / "eng-guj-rot.json"
    code, out = mteval(capsys, "corpus", "rotate", corpus, "--seed", 11, "--move", 5, "-o", rotated)
    assert code == 0, out
    again = pytester.runpytest(
        f"--mteval-corpus={rotated}",
        f"--mteval-method={METHODS / 'identity'}",
        f"--mteval-baseline={card}",
        "-p",
        "no:randomly",
    )
    assert again.ret != 0
    again.stderr.fnmatch_lines([f"*baseline {card} was not made on this dataset: dataset sha256*"])


CREE_IMPORT = [
    "corpus",
    "import",
    DATA / "corpus-tools" / "morphodict-sample-head40.csv",
    "--source-column=Query",
    "--reference-column=Nêhiyawêwin 1",
    "--column=variants=Nêhiyawêwin 2",
    "--column=variants=Nêhiyawêwin 3",
    "--allow-short-rows",
    "--id=crk-head",
    "--source-language=en",
    "--target-language=crk",
    "--license=Apache-2.0",
    "--provenance=dictionary",
]


def test_the_variant_guard_judges_an_imported_corpus_with_variants(pytester, capsys):
    """Spec §9.3.1 at run time is the existing guard: a method that always answers the exact
    reference on entries with acceptable variants is flagged on the card; one that answers
    with a variant (as right, per the corpus) is not."""
    corpus = pytester.path / "crk.json"
    code, out = mteval(capsys, *CREE_IMPORT, "-o", corpus)
    assert code == 0, out
    code, out = mteval(capsys, "corpus", "lint", corpus, "--format", "json")
    resources = {r["name"]: r for r in json.loads(out)["resources"]}
    entries = load_corpus(corpus).entries
    with_variants = [e for e in entries if e.variants]
    assert len(with_variants) >= 10
    assert resources["variants / variant classes"]["found"]

    def run(name, answer):
        predictions = pytester.path / f"{name}.jsonl"
        predictions.write_text(
            "".join(json.dumps({"id": e.id, "predicted": answer(e)}) + "\n" for e in entries),
            encoding="utf-8",
        )
        card = pytester.path / f"{name}-card.json"
        pytester.runpytest(
            f"--mteval-corpus={corpus}",
            f"--mteval-method={METHODS / 'replay'}",
            f"--mteval-method-arg=predictions={predictions}",
            f"--mteval-run-card={card}",
            "-p",
            "no:randomly",
        )
        written = json.loads(card.read_text(encoding="utf-8"))
        return {flag["code"]: flag for flag in written["flags"]}, written

    flags, card = run("references", lambda e: e.reference)
    assert sorted(flags["suspiciously_perfect_variants"]["entry_ids"]) == sorted(
        e.key for e in with_variants
    )
    # Every reference reproduced: the uncapped tier is the top one, the flag caps it.
    assert card["scores"]["quality_tier_uncapped"] != "emerging"
    assert card["scores"]["quality_tier"] == "emerging"
    flags, _ = run("variants", lambda e: e.variants[0] if e.variants else e.reference)
    assert "suspiciously_perfect_variants" not in flags
