"""Untranslated acronyms (issue 22): an all-capitals word of the source that the target
language's data does not use is untranslated text, although it is short and written like a
name. Checked on a frequency table written by hand and on the genuine WMT23 en->de outputs of
tests/data (segment 12), against the experts' own marks."""

from __future__ import annotations

import csv
import io
import re
import tarfile
from collections import defaultdict

import pytest
from conftest import DATA

from pytest_mteval.corpus import Entry
from pytest_mteval.metrics import code_switching
from pytest_mteval.metrics.text import folded_words
from pytest_mteval.metrics.word_data import WordData, acronym_parts, is_acronym, word_data

SXS = (
    DATA / "wmt23-sxs-mqm-ende-excerpt" / "sxs_mqm_generalMT2023_ende.3ratingsPerSegment.tsv.tar.gz"
)
#: Zipf frequencies by hand (not wordfreq's): (word, language) -> value.
TABLE = {
    ("doj", "de"): 1.8,
    ("doj", "en"): 3.3,
    ("usa", "de"): 5.3,
    ("usa", "en"): 4.8,
    ("dr", "de"): 4.0,
    ("dr", "en"): 5.5,
    ("wyx", "en"): 0.2,
}


def by_hand(word: str, language: str) -> float:
    return TABLE.get((word.casefold(), language), 0.0)


def test_an_acronym_is_two_or_more_letters_all_capitals():
    for word in ("NJ", "DOJ", "U.S"):
        assert is_acronym(word), word
    for word in ("I", "Dr", "McCain"):
        assert not is_acronym(word), word


def test_an_acronym_the_target_does_not_use_is_unknown_one_it_borrowed_is_not():
    data = WordData(by_hand, "en", "de")
    assert data.unknown_acronym("DOJ")  # 1.8 < 3.3 - 1
    assert not data.unknown_acronym("USA")  # German uses it more than English
    assert not data.unknown_acronym("Dr")  # not an acronym: the short-word rule keeps it
    assert not data.unknown_acronym("WYX")  # the source's data hardly knows it either


def excerpt() -> tuple[dict[str, str], dict[str, dict[str, str]], set[tuple[str, str]]]:
    """Sources, outputs (system -> segment -> text) and the (system, segment) pairs some rater
    marked "Source language fragment" on the span "NJ", read straight from the TSV."""
    with tarfile.open(SXS) as archive:
        member = next(m for m in archive.getmembers() if m.isfile())
        extracted = archive.extractfile(member)
        assert extracted is not None
        text = extracted.read().decode("utf-8")
    sources: dict[str, str] = {}
    outputs: dict[str, dict[str, str]] = defaultdict(dict)
    marked_nj = set()
    for row in csv.DictReader(io.StringIO(text), delimiter="\t", quoting=csv.QUOTE_NONE):
        seg = row["globalSegId"]
        sources[seg] = re.sub("</?v>", "", row["source"])
        outputs[row["system"]][seg] = re.sub("</?v>", "", row["target"])
        spans = re.findall(r"<v>(.*?)</v>", row["target"])
        if row["category"] == "Accuracy/Source language fragment" and "NJ" in spans:
            marked_nj.add((row["system"], seg))
    return sources, outputs, marked_nj


def test_the_experts_nj_marks_on_genuine_wmt23_outputs():
    pytest.importorskip("wordfreq")
    sources, outputs, marked_nj = excerpt()
    references = outputs.pop("refA")
    entries = [Entry(id=s, source=sources[s], reference=references[s]) for s in sources]
    metric = code_switching.CodeSwitching(
        None,
        frozenset().union(*(folded_words(e.reference) for e in entries)),
        code_switching.source_names(e.source for e in entries),
        word_data=word_data("en", "de"),
    )
    twelve = next(e for e in entries if e.id == "12")
    # "Dad says daughter took her own life after being bullied at NJ school": by hand, four
    # of the nine systems keep "NJ" (German writes "New Jersey"), and the raters marked it as
    # a source-language fragment on each of those four and nowhere else.
    keeps = {system for system, texts in outputs.items() if re.search(r"\bNJ\b", texts["12"])}
    assert keeps == {"GPT4-5shot_with_ONLINE-W", "GPT4-5shot_with_refA", "Lan-BridgeMT", "ONLINE-M"}
    assert {system for system, _ in marked_nj} == keeps
    # ONLINE-G writes "New Jersey School": "School" is blamed by the word rule (no reference
    # of the excerpt uses it), and a rater marked "New Jersey School" there too.
    expected = {system: ["NJ"] for system in keeps} | {"ONLINE-G": ["School"]}
    for system, texts in outputs.items():
        leaked = metric.leaked(code_switching.words(texts["12"]), twelve)
        assert leaked == expected.get(system, []), system


def test_an_acronym_the_corpus_translators_kept_is_the_targets():
    data = WordData(by_hand, "en", "de")
    entry = Entry(id="1", source="The DOJ said so.", reference="Das Ministerium sagte das.")
    output = code_switching.words("Das DOJ sagte das.")
    alone = code_switching.CodeSwitching(None, frozenset(), frozenset(), word_data=data)
    kept = code_switching.CodeSwitching(None, frozenset({"doj"}), frozenset(), word_data=data)
    without_data = code_switching.CodeSwitching(None, frozenset(), frozenset())
    assert alone.leaked(output, entry) == ["DOJ"]  # capitalized and short, yet untranslated
    assert kept.leaked(output, entry) == []
    assert without_data.leaked(output, entry) == []  # no word data: the corpus rules decide


def test_the_acronyms_that_hyphens_join_to_words():
    words = ["GOP-Kontrolle", "US-Justizministerium", "Fast-Food", "E-Mail", "DOJ", "x-NJ-y"]
    assert acronym_parts(words) == ["GOP", "US", "NJ"]


def test_an_acronym_joined_by_a_hyphen_is_still_that_acronym():
    pytest.importorskip("wordfreq")
    # WMT23 en->de segment 71, the source's second sentence and GPT4-5shot_with_refA's; a
    # rater marked "GOP-Kontrolle" as a source-language fragment there.
    source = (
        "While Biden and his fellow Democrats can't do much in the way of passing laws with "
        "the GOP in control of the House, they can still spend the next two years setting an "
        "example."
    )
    output = (
        "Obwohl Biden und seine demokratischen Kollegen mit der GOP-Kontrolle des "
        "Repräsentantenhauses nicht viel in Bezug auf Gesetzesverabschiedungen tun können, "
        "können sie dennoch die nächsten zwei Jahre nutzen, um ein Beispiel zu setzen."
    )
    entry = Entry(id="71", source=source, reference="Obwohl Biden ...")
    metric = code_switching.CodeSwitching(
        None, frozenset(), frozenset(), word_data=word_data("en", "de")
    )
    assert metric.leaked(code_switching.words(output), entry) == ["GOP"]
    # "US" joined the same way is an acronym German uses as its own
    us = Entry(id="2", source="The US-led coalition met.", reference="Sie trafen sich.")
    assert metric.leaked(code_switching.words("Die US-geführte Koalition traf sich."), us) == []
    # and an acronym joined to a word in the source is that acronym of the source
    led = Entry(id="3", source="The DOJ-led inquiry ended.", reference="Sie endete.")
    assert metric.leaked(
        code_switching.words("Die vom DOJ geführte Untersuchung endete."), led
    ) == ["DOJ"]
