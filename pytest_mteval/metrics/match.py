"""Exact and equivalent match after Unicode NFC and whitespace normalization."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable


def normalize(text: str) -> str:
    """NFC, with runs of whitespace collapsed to one space and the ends stripped."""
    return " ".join(unicodedata.normalize("NFC", text).split())


def output_key(text: str | None) -> str:
    """Texts that differ only in case and spacing are the same output (None is empty)."""
    return normalize(text or "").casefold()


def exact_match(predicted: str, reference: str) -> bool:
    return normalize(predicted) == normalize(reference)


def equivalent_match(predicted: str, reference: str, variants: Iterable[str]) -> bool:
    """True when the prediction equals the reference or any acceptable variant."""
    norm = normalize(predicted)
    return norm == normalize(reference) or any(norm == normalize(v) for v in variants)
