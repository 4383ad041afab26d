"""Custom per-entry checks, run once per corpus entry beside pytest-mteval's own entry items.

Copy next to conftest.py (any test module works). Each function below is parametrized over the
corpus by pytest-mteval; a failure names the entry, so ``-k``, ``--lf`` and ``--junitxml`` work
as for any test. Keep the rules ones the references themselves obey.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import pytest

from pytest_mteval.corpus import Entry

NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def test_numbers_are_carried_over(mteval_entry: Entry, translated: str) -> None:
    """Numbers in the source that the reference keeps must survive translation."""
    kept = [n for n in NUMBER.findall(mteval_entry.source) if n in mteval_entry.reference]
    lost = [n for n in kept if n not in translated]
    assert not lost, f"numbers lost: {lost} in {translated!r}"


def test_the_source_is_not_copied_through(mteval_entry: Entry, translated: str) -> None:
    if mteval_entry.source.strip() == mteval_entry.reference.strip():
        pytest.skip("this reference is the source itself")
    assert translated.strip() != mteval_entry.source.strip(), "the source was copied through"


def test_one_line_in_one_line_out(mteval_entry: Entry, translated: str) -> None:
    assert translated.strip().count("\n") == mteval_entry.source.strip().count("\n")


def test_glossary_terms_are_used(mteval_entry: Entry, translated: str) -> None:
    """Terms the corpus fixes for this entry (``terms``: source term -> required target)."""
    missing = [
        target
        for term, target in mteval_entry.terms.items()
        if term.lower() in mteval_entry.source.lower() and target.lower() not in translated.lower()
    ]
    assert not missing, f"required terms missing: {missing}"


def test_no_entry_collapses(mteval_result: Mapping[str, Any]) -> None:
    """A sentence chrF++ under 5 is almost always an empty, truncated or wrong-language output."""
    if mteval_result["chrf_score"] is None:
        pytest.skip("no translation")
    assert mteval_result["chrf_score"] >= 5, mteval_result["predicted"]
