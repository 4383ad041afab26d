"""A method's bundled data against a corpus's sources and references (spec §9.2): the
shipped dictionary's overlap with the eng->crk corpus, counted independently; phrases quoted
in prompts and JSON few-shot files; `mteval audit` and `mteval bundle check --corpus`."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import unicodedata

import pytest
from conftest import CORPORA, METHODS, envelope, flores_entries, link_resources
from methods_for_tests import MANIFEST

from pytest_mteval.cards.bundle import make_bundle
from pytest_mteval.cards.data_overlap import overlap
from pytest_mteval.corpus import load_corpus
from pytest_mteval.methods.manifest import load_manifest

pytest_plugins = ["pytester"]

CRK = CORPORA / "eng-crk-morphodict-vocab.json"


def mteval(*args):
    command = [sys.executable, "-m", "pytest_mteval.cli.main", *args]
    return subprocess.run(command, capture_output=True, text=True)


def _fold(text):
    return " ".join(unicodedata.normalize("NFC", text).casefold().split())


def _expected_dictionary_overlap():
    """The entries of the crk corpus whose English source is a word list headword, and those
    whose reference or a variant is one of its Cree words: read here straight from the TSV."""
    english, cree = set(), set()
    tsv = (METHODS / "dictionary" / "eng-crk.tsv").read_text(encoding="utf-8")
    for line in tsv.splitlines():
        if line and not line.startswith("#"):
            left, right = line.split("\t")
            english.add(_fold(left))
            cree.add(_fold(right))
    entries = json.loads(CRK.read_text(encoding="utf-8"))["entries"]
    sources = [str(e["id"]) for e in entries if _fold(e["source"]) in english]
    references = [
        str(e["id"])
        for e in entries
        if any(_fold(t) in cree for t in [e["reference"], *e.get("variants", [])])
    ]
    return sources, references


def test_the_dictionary_overlap_with_the_crk_corpus_is_counted_exactly():
    folder = METHODS / "dictionary"
    report = overlap(folder, load_corpus(CRK), load_manifest(folder / "method.json"))
    sources, references = _expected_dictionary_overlap()
    assert len(references) > 400  # the oracle: most of the corpus
    [tsv] = [f for f in report["files"] if f["file"] == "eng-crk.tsv"]
    assert tsv["references"] == references
    assert tsv["sources"] == sources
    assert report["references"] == references
    assert report["declared"] is True  # oracle_for in its method.json


@pytest.fixture
def prompting(tmp_path):
    """A method folder quoting FLORES entry 1's source in a prompt (inside a longer line),
    entry 2's reference in a JSON few-shot file, and entry 3's reference with one word
    changed or split over two lines; and a corpus of those six entries."""
    entries = flores_entries(6)
    corpus = tmp_path / "flores6.json"
    corpus.write_text(json.dumps(envelope(entries), ensure_ascii=False), encoding="utf-8")
    folder = tmp_path / "prompting"
    folder.mkdir()
    (folder / "method.json").write_text(json.dumps(MANIFEST), encoding="utf-8")
    (folder / "probe.py").write_text(f"# {entries[4]['reference']}\n", encoding="utf-8")
    source = "  ".join(entries[0]["source"].upper().split(" "))  # case and spacing differ
    (folder / "prompt.txt").write_text(f"Example: {source} => ?\n", encoding="utf-8")
    shots = {"examples": [{"en": "x", "fr": entries[1]["reference"]}]}
    (folder / "shots.json").write_text(json.dumps(shots), encoding="utf-8")  # \\u escapes
    words = entries[2]["reference"].split(" ")
    changed = " ".join([*words[:3], "XYZZY", *words[4:]])
    (folder / "near.txt").write_text(changed + "\n", encoding="utf-8")
    # every word 4-gram of entry 4's reference, but on two lines: not the phrase verbatim
    words = entries[3]["reference"].split(" ")
    half = len(words) // 2
    split = " ".join(words[: half + 3]) + "\n" + " ".join(words[half:]) + "\n"
    (folder / "split.txt").write_text(split, encoding="utf-8")
    return folder, corpus, [str(e["id"]) for e in entries]


def test_quoted_phrases_and_json_strings_are_found_and_a_changed_one_is_not(prompting):
    folder, corpus, ids = prompting
    report = overlap(folder, load_corpus(corpus), None)
    by_file = {f["file"]: f for f in report["files"]}
    assert by_file["prompt.txt"] == {"file": "prompt.txt", "sources": [ids[0]], "references": []}
    assert by_file["shots.json"]["references"] == [ids[1]]
    assert "near.txt" not in by_file
    assert "split.txt" not in by_file
    assert "probe.py" not in by_file  # code is not a data file
    assert report["references"] == [ids[1]]
    assert report["declared"] is False


def test_audit_reports_the_overlap_and_strict_wants_it_declared(prompting):
    folder, corpus, ids = prompting
    text = mteval("audit", str(folder), "--corpus", str(corpus))
    assert text.returncode == 0
    assert "1 reference(s), 1 source(s) found; NOT declared" in text.stdout
    assert f"shots.json: 1 reference(s) of entries {ids[1]}" in text.stdout
    assert mteval("audit", str(folder), "--corpus", str(corpus), "--strict").returncode == 1
    dataset = json.loads(corpus.read_text(encoding="utf-8"))["dataset"]["id"]
    exposure = [{"use": "few-shot", "corpus": dataset, "segments": ["development"]}]
    (folder / "method.json").write_text(json.dumps({**MANIFEST, "exposure": exposure}))
    declared = mteval("audit", str(folder), "--corpus", str(corpus), "--strict", "--json")
    assert declared.returncode == 0, declared.stdout
    [report] = json.loads(declared.stdout)["overlap"]
    assert report["declared"] is True
    assert report["references"] == [ids[1]]


def test_audit_of_the_shipped_dictionary_shows_its_oracle_overlap():
    result = mteval("audit", str(METHODS / "dictionary"))
    assert result.returncode == 0
    _, references = _expected_dictionary_overlap()
    assert "overlap with morphodict-eng-crk-vocab 1.0.0 (547 entries" in result.stdout
    assert f"{len(references)} reference(s)" in result.stdout
    assert "eng-crk.tsv:" in result.stdout
    assert "declared in method.json" in result.stdout


def test_bundle_check_reports_the_dictionary_overlap(pytester, tmp_path):
    folder = tmp_path / "dictionary"
    shutil.copytree(METHODS / "dictionary", folder, ignore=shutil.ignore_patterns("__pycache__"))
    data = json.loads(CRK.read_text(encoding="utf-8"))
    data["entries"] = data["entries"][:8]
    data["dataset"]["language_resources"] = link_resources(tmp_path)
    head = tmp_path / "crk-head.json"
    head.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    card = tmp_path / "card.json"
    result = pytester.runpytest(
        f"--mteval-corpus={head}", f"--mteval-method={folder}", f"--mteval-run-card={card}"
    )
    assert card.exists(), result.stdout.str()
    bundle = make_bundle(folder, card, tmp_path / "b.tar.gz", [])
    checked = mteval("bundle", "check", str(bundle), "--corpus", str(CRK))
    assert checked.returncode == 0, checked.stdout
    _, references = _expected_dictionary_overlap()
    assert f"{len(references)} reference(s)" in checked.stdout
    assert "eng-crk.tsv:" in checked.stdout
