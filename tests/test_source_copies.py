"""Outputs made of the source (``metrics/source_copies.py``), judged on cases worked out by
hand: which words each output shares with its source and its reference."""

from __future__ import annotations

import pytest

from pytest_mteval.corpus import Entry
from pytest_mteval.metrics.hallucination import CorpusFacts, Hallucination
from pytest_mteval.metrics.source_copies import mangled_copy, no_text_of_its_own
from pytest_mteval.metrics.text import words

#: Source "The dog sleeps." into Shona, "Imbwa inorara."; no word shared.
DOG = Entry(id="1", source="The dog sleeps.", reference="Imbwa inorara.")


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ("The dog sleeps.", False),  # the whole copy: untranslated, not mangled
        ("THE DOG SLEEPS", False),  # the whole copy, upper-cased
        ("The dog sl", True),  # cut inside "sleeps"
        ("Th", True),  # cut inside the first word
        ("The", True),  # the first word
        ("THE", True),  # the first word, upper-cased
        ("The dog", True),  # cut between words
        ("The dog sleeps. The dog sleeps.", True),  # repeated
        ("dog dog dog", True),  # one of its words, repeated
        ("", False),  # empty: hallucination's empty_output, not this
        ("The cat", False),  # "cat" is no word of this source
        ("Imbwa", False),  # the translation
        ("The imbwa", False),  # a word of its own
    ],
)
def test_a_mangled_copy_is_part_or_a_repetition_of_its_own_source(output, expected):
    assert mangled_copy(words(output), DOG) is expected


def test_a_word_the_reference_uses_is_text_of_its_own_even_cut_from_a_source_word():
    # Tatoeba rus->uzb: "Мен" ("I") is the whole human translation of "Они обманули меня.",
    # and also the first three letters of "меня": the reference decides.
    entry = Entry(id="1", source="Они обманули меня.", reference="Мен")
    vocabulary = frozenset({"они", "обманули", "меня"})
    assert not no_text_of_its_own(["Мен"], entry, vocabulary)
    assert not mangled_copy(["Мен"], entry)
    bare = Entry(id="1", source="Они обманули меня.", reference="Мени алдашди.")
    assert no_text_of_its_own(["Мен"], bare, vocabulary)
    assert mangled_copy(["Мен"], bare)


def test_a_name_the_reference_keeps_is_text_of_its_own_unless_the_copy_repeats():
    entry = Entry(id="1", source="Tom sleeps.", reference="Tom anorara.")
    assert not mangled_copy(["Tom"], entry)
    assert mangled_copy(["sleeps"], entry)
    assert mangled_copy(words("Tom sleeps. Tom sleeps."), entry)
    assert mangled_copy(words("TOM TOM TOM"), entry)
    assert not mangled_copy(words("Tom sleeps Tom"), entry)  # no repetition back to back
    assert not mangled_copy(words("Tom anorara. Tom anorara."), entry)  # translated twice


def test_a_repetition_is_no_copy_where_the_reference_repeats_or_the_source_does():
    assert not mangled_copy(words("No, no."), Entry(id="1", source="No.", reference="No, no."))
    assert mangled_copy(words("No, no."), Entry(id="1", source="No.", reference="Non."))
    echo = Entry(id="1", source="Go, go!", reference="Famba!")
    assert not mangled_copy(words("Go, go!"), echo)  # the whole source
    assert mangled_copy(words("Go go go go"), echo)


def test_a_word_of_another_source_is_left_to_the_checks_across_entries():
    # "a" is a word of other English sources, and of Galician ("A luz é vida.").
    entry = Entry(id="1", source="Luz é vida.", reference="…")
    assert no_text_of_its_own(words("A luz é vida."), entry, frozenset({"a", "luz", "é", "vida"}))
    assert not mangled_copy(words("A luz é vida."), entry)


def test_hallucination_counts_a_mangled_copy_and_not_a_whole_one():
    check = Hallucination(CorpusFacts(1.0, lower_case_vocabulary=frozenset(), check_names=False))
    entry = Entry(id="1", source="and", reference="êkwa")  # the vocabulary corpus's entry

    def reasons(output: str) -> list[str]:
        return [r.split(":")[0] for r in check.reasons(entry, output)]

    assert reasons("a") == ["mangled_copy"]
    assert reasons("AN") == ["mangled_copy"]
    assert reasons("and and") == ["mangled_copy"]
    assert reasons("and") == []
    assert reasons("AND") == []
    assert reasons("êkwa") == []


#: The sources' words of a two-entry corpus: DOG's and "She invited him."
SHE = Entry(id="2", source="She invited him.", reference="Akamukoka.")
CORPUS_WORDS = frozenset({"the", "dog", "sleeps", "she", "invited", "him"})


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ("She inv", True),  # another entry's source cut inside "invited", after a word of it
        ("She invited", True),  # another entry's source cut between words
        ("The do", True),  # its own source cut
        ("do", True),  # a fragment alone, of its own source's "dog"
        ("inv", False),  # a fragment alone, of another source's word: not evidence
        ("She Imbwa", False),  # a word of its own
        ("Imbwa inorara.", False),  # the translation
    ],
)
def test_no_text_of_its_own_takes_a_cut_word_of_any_source_only_after_copied_words(
    output, expected
):
    assert no_text_of_its_own(words(output), DOG, CORPUS_WORDS) is expected
