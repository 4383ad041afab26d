"""The corpus-wide counts that every process computes when a run starts (letters per text,
letters per writing system) against their per-character definitions: the fast forms count each
distinct character once, or count what is not a letter, and must agree exactly."""

from __future__ import annotations

import unicodedata
from collections import Counter

import pytest

# hypothesis comes with the dev extra; a bare `pip install -e .` run must still collect this
pytest.importorskip("hypothesis")

from hypothesis import given
from hypothesis import strategies as st

from pytest_mteval.metrics.text import letters
from pytest_mteval.metrics.writing_systems import (
    dominant_system,
    system_counts,
    system_of_char,
)

#: Latin, Cyrillic, Greek, Arabic, Devanagari, Han, Hangul, Ethiopic, Canadian syllabics,
#: combining marks, digits of several scripts, spaces and punctuation.
MIXED = st.text(
    alphabet=st.sampled_from(
        "aZéß ЖжΩλ عربي नमस्ते 漢字 한국 ሰላም ᓀᐦᐃᔭᐍᐏᐣ \u0301\u0308 0١٣९ .,;!?«»-'’\n\t"
    ),
    max_size=60,
)


def _word_char(char: str) -> bool:
    return unicodedata.category(char)[0] in "LMN"


@given(MIXED)
def test_letters_counts_letters_marks_and_digits(text):
    assert letters(text) == sum(1 for char in text if _word_char(char))


@given(MIXED)
def test_system_counts_classify_every_character(text):
    expected = Counter(s for s in map(system_of_char, text) if s is not None)
    assert system_counts(text) == expected


@given(st.lists(MIXED, max_size=8))
def test_dominant_system_is_the_most_letters_over_all_texts(texts):
    counts = Counter(s for text in texts for s in map(system_of_char, text) if s is not None)
    expected = min(counts, key=lambda s: (-counts[s], s)) if counts else None
    assert dominant_system(texts) == expected
