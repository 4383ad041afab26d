"""The built-in metric families of a run, each present only when the run makes it possible
(an analyzer, gold analyses, a glossary, an embedder for the target language...)."""

from __future__ import annotations

from collections.abc import Callable

from pytest_mteval.metrics import (
    code_switching,
    equivalence,
    fst,
    hallucination,
    morphology,
    orthography,
    semantic,
    terminology,
)
from pytest_mteval.metrics.base import Metric, MetricContext
from pytest_mteval.metrics.equivalence import Judge
from pytest_mteval.metrics.selection import OFF_BY_DEFAULT, MetricSelection


def builtin_metrics(
    context: MetricContext,
    judge: Judge | None = None,
    selection: MetricSelection | None = None,
) -> list[Metric]:
    """The selected metrics this run makes possible; a metric not selected is never built
    (the semantic score's model is not even loaded)."""
    chosen = selection or MetricSelection()
    builders: dict[str, Callable[[], Metric | None]] = {
        "fst": lambda: fst.build(context),
        "morphology": lambda: morphology.build(context),
        "equivalence": lambda: equivalence.build(context, judge),
        "orthography": lambda: orthography.build(context),
        "code_switching": lambda: code_switching.build(context),
        "hallucination": lambda: hallucination.build(context),
        "terminology": lambda: terminology.build(context),
        "semantic": lambda: semantic.build(context),
    }
    candidates = [build() for name, build in builders.items() if chosen.wants(name)]
    return [metric for metric in candidates if metric is not None]


def not_computed(
    context: MetricContext, selection: MetricSelection | None, built: list[Metric]
) -> list[str]:
    """The metrics the run asked for by name (those off by default) that it could not build,
    each with why; the default ones are simply absent where the corpus gives them no data."""
    chosen = selection or MetricSelection()
    names = {metric.name for metric in built}
    return [
        f"{name}: {semantic.why_unavailable(context)}"
        for name in sorted(OFF_BY_DEFAULT)
        if chosen.wants(name) and name not in names
    ]
