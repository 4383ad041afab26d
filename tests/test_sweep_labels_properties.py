"""Sweep labels over any set of corpus file names (hypothesis): one label each, all different,
all valid; split from test_sweep_labels.py so a bare install (no hypothesis) still collects."""

from __future__ import annotations

import pytest

pytest.importorskip("hypothesis")

from hypothesis import given, settings
from hypothesis import strategies as st
from test_sweep_labels import LABEL

from pytest_mteval.sweep.plan import load_plan


def toml_string(text: str) -> str:
    """A TOML basic string holding ``text`` exactly (controls and quotes escaped)."""
    body = "".join(c if c.isprintable() and c not in '"\\' else f"\\U{ord(c):08x}" for c in text)
    return f'"{body}"'


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.text(st.characters(exclude_characters="/\x00", codec="utf-8"), min_size=1),
        min_size=2,
        max_size=6,
        unique=True,
    )
)
def test_any_corpus_file_names_give_unique_valid_labels(tmp_path_factory, stems):
    """Any set of distinct corpus file names: one label each, all different, all valid
    (the corpora need not exist to plan the sweep)."""
    scratch = tmp_path_factory.getbasetemp() / "sweep-labels"
    scratch.mkdir(exist_ok=True)
    corpora = ", ".join(toml_string(f"{stem}.json") for stem in stems)
    path = scratch / "sweep.toml"
    path.write_text(f'[sweep]\ncorpus = [{corpora}]\nmethod = "identity"\n', encoding="utf-8")
    labels = [c.label for c in load_plan(path, scratch).combinations]
    assert len(labels) == len(set(labels)) == len(stems)
    assert all(LABEL.fullmatch(label) and len(label) <= 120 for label in labels), labels
