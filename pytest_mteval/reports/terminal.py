"""The terminal summary: one compact table a person reads at the end of a run."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_mteval.corpus import describe_reference_quality
from pytest_mteval.metrics import catalog
from pytest_mteval.reports.next_steps import legend, next_step


def _label(name: str) -> str:
    found = catalog.get(name)
    return name if found is None else found.label


def _digits(name: str) -> int:
    found = catalog.get(name)
    return 2 if found is not None and found.points else 3


def _num(value: Any, digits: int = 2, suffix: str = "") -> str:
    return "-" if value is None else f"{value:.{digits}f}{suffix}"


def _with_interval(scores: Mapping[str, Any], key: str, digits: int) -> str:
    text = _num(scores.get(key), digits)
    ci = (scores.get("confidence_intervals") or {}).get("composite" if key == "composite" else key)
    if ci and ci.get("lower") is not None:
        text += f"  [{ci['lower']:.{digits}f}, {ci['upper']:.{digits}f}]"
    return text


def _groups(groups: Mapping[str, Mapping[str, Any]]) -> str:
    parts = []
    for name, g in groups.items():
        composite = f" c{g['composite']:.2f}" if g.get("composite") is not None else ""
        chrf = _num(g.get("chrf_plus_plus"), 1)
        parts.append(f"{name}: n{g['count']} chrF {chrf}{composite}")
    return "; ".join(parts)


def _reference_row(dataset: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The corpus's reference and how it was judged, when the corpus says (issue 15)."""
    line = describe_reference_quality(dataset.get("reference_quality"))
    return [] if line is None else [("reference", line)]


def summary_lines(card: Mapping[str, Any], path: str) -> list[str]:
    """The lines of the summary table for a written run card."""
    s = card["scores"]
    d = card["dataset"]
    latency = (
        f"{_num(s['median_latency_seconds'], 3, 's')} / {_num(s['p95_latency_seconds'], 3, 's')}"
    )
    rows = [
        ("corpus", f"{d['id']} ({d['language_pair']}), {d['entry_count']} entries"),
        *_reference_row(d),
        ("method", f"{card['method']['name']}  model {card['model_slug']}"),
        ("errors", str(s["errors"])),
        *((_label(key), _with_interval(s, key, _digits(key))) for key in catalog.shown("always")),
        ("latency p50/p95", latency),
    ]
    for key in catalog.shown("when_measured"):  # each under its definition's label
        if s.get(key) is not None:
            rows.append((_label(key), _with_interval(s, key, _digits(key))))
    if s.get("composite") is not None:
        rows.append((f"composite ({s.get('scoring_profile')})", _with_interval(s, "composite", 3)))
    if s.get("quality_tier"):
        rows.append(("quality tier", str(s["quality_tier"])))
    for key, label in (("by_difficulty", "by difficulty"), ("by_domain", "by domain")):
        if len(s.get(key) or {}) > 1:
            rows.append((label, _groups(s[key])))
    for flag in card.get("flags") or []:
        rows.append(("FLAG", f"{flag['code']}: {flag['message']}"))
    for note in card.get("metrics_not_computed") or []:
        rows.append(("not computed", str(note)))
    total_cost = (card.get("totals") or {}).get("total_cost_usd")
    if total_cost is not None:
        rows.append(("cost", f"${total_cost:.4f}"))
    rows.append(("run card", path))
    meaning = legend(s)
    if meaning is not None:
        rows.append(("legend", meaning))
    rows.append(("next", next_step(card)))
    width = max(len(label) for label, _ in rows)
    return [f"{label:<{width}}  {value}" for label, value in rows]
