"""The terminal summary: one compact table a person reads at the end of a run."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from pytest_mteval.cards.card_view import CardView, DatasetView, ShownScores, view_of
from pytest_mteval.cards.runcard import built
from pytest_mteval.corpus import describe_reference_quality
from pytest_mteval.metrics import catalog
from pytest_mteval.reports.next_steps import legend, next_step
from pytest_mteval.terminal_text import printable


def _label(name: str) -> str:
    found = catalog.get(name)
    return name if found is None else found.label


def _digits(name: str) -> int:
    found = catalog.get(name)
    return 2 if found is not None and found.points else 3


def _num(value: Any, digits: int = 2, suffix: str = "") -> str:
    return "-" if value is None else f"{value:.{digits}f}{suffix}"


def _shown(scores: ShownScores, key: str) -> str:
    """A metric's value, saying so where lower is better (TER, code-switching...)."""
    text = _with_interval(scores, key, _digits(key))
    return f"{text}  (lower is better)" if catalog.lower_is_better(key) else text


def _with_interval(scores: ShownScores, key: str, digits: int) -> str:
    text = _num(scores.value(key), digits)
    ci = scores.interval(key)
    if ci is not None and ci.lower is not None:
        text += f"  [{ci.lower:.{digits}f}, {ci.upper:.{digits}f}]"
    return text


def _groups(groups: Mapping[str, Mapping[str, Any]]) -> str:
    parts = []
    for name, g in groups.items():
        composite = f" c{g['composite']:.2f}" if g.get("composite") is not None else ""
        chrf = _num(g.get("chrf_plus_plus"), 1)
        parts.append(f"{name}: n{g['count']} chrF {chrf}{composite}")
    return "; ".join(parts)


def _reference_row(dataset: DatasetView) -> list[tuple[str, str]]:
    """The corpus's reference and how it was judged, when the corpus says (issue 15)."""
    line = describe_reference_quality(dataset.reference_quality)
    return [] if line is None else [("reference", line)]


def summary_lines(card: Mapping[str, Any], path: str, given: Collection[str] = ()) -> list[str]:
    """The lines of the summary table for the run card just written (its JSON; checked as
    before sealing, so it is the model every other reader reads)."""
    return view_lines(view_of(built(card), card), path, given)


def view_lines(card: CardView, path: str, given: Collection[str] = ()) -> list[str]:
    """The lines of the summary table for a verified run card, ours or foreign; ``given``:
    the run's options its next step leaves out (``next_steps.next_step``)."""
    s = card.scores
    d = card.dataset
    if card.method is None:
        raise KeyError("method")  # as reading a card without one always did
    latency = f"{_num(s.median_latency_seconds, 3, 's')} / {_num(s.p95_latency_seconds, 3, 's')}"
    rows = [
        ("corpus", f"{d.id} ({d.language_pair}), {d.entry_count} entries"),
        *_reference_row(d),
        ("method", f"{card.method.name}  model {card.model_slug}"),
        ("errors", str(s.errors)),
        *((_label(key), _shown(s, key)) for key in catalog.shown("always")),
        ("latency p50/p95", latency),
    ]
    for key in catalog.shown("when_measured"):  # each under its definition's label
        if s.value(key) is not None:
            rows.append((_label(key), _shown(s, key)))
    if s.composite is not None:
        rows.append((f"composite ({s.scoring_profile})", _with_interval(s, "composite", 3)))
    if s.quality_tier:
        rows.append(("quality tier", str(s.quality_tier)))
    for label, groups in (("by difficulty", s.by_difficulty), ("by domain", s.by_domain)):
        if len(groups) > 1:
            rows.append((label, _groups(groups)))
    for flag in card.flags:
        rows.append(("FLAG", f"{flag.code}: {flag.message}"))
    for note in card.metrics_not_computed:
        rows.append(("not computed", note))
    total_cost = card.totals.total_cost_usd
    if total_cost is not None:
        rows.append(("cost", f"${total_cost:.4f}"))
    rows.append(("run card", path))
    meaning = legend(s)
    if meaning is not None:
        rows.append(("legend", meaning))
    rows.append(("next", next_step(card, given)))
    width = max(len(label) for label, _ in rows)
    return [printable(f"{label:<{width}}  {value}", lines=False) for label, value in rows]
