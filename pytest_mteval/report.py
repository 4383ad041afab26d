"""The terminal summary: one compact table a person reads at the end of a run."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def _num(value: Any, digits: int = 2, suffix: str = "") -> str:
    return "-" if value is None else f"{value:.{digits}f}{suffix}"


def summary_lines(card: Mapping[str, Any], path: str) -> list[str]:
    """The lines of the summary table for a written run card."""
    s = card["scores"]
    d = card["dataset"]
    rows = [
        ("corpus", f"{d['id']} ({d['language_pair']}), {d['entry_count']} entries"),
        ("method", f"{card['method']['name']}  model {card['model_slug']}"),
        ("errors", str(s["errors"])),
        ("chrF++", _num(s["chrf_plus_plus"])),
        ("BLEU", _num(s["bleu"])),
        ("TER", _num(s["ter"])),
        ("exact match", _num(s["exact_match_rate"], 3)),
        (
            "latency p50/p95",
            _num(s["median_latency_seconds"], 3, "s")
            + " / "
            + _num(s["p95_latency_seconds"], 3, "s"),
        ),
    ]
    for key, label in (
        ("fst_acceptance_rate", "FST acceptance"),
        ("equivalent_match_rate", "equivalent match"),
        ("composite", "composite"),
    ):
        if s.get(key) is not None:
            rows.append((label, _num(s[key], 3)))
    if s.get("quality_tier"):
        rows.append(("quality tier", str(s["quality_tier"])))
    for flag in card.get("flags") or []:
        rows.append(("FLAG", f"{flag['code']}: {flag['message']}"))
    rows.append(("run card", path))
    width = max(len(label) for label, _ in rows)
    return [f"{label:<{width}}  {value}" for label, value in rows]
