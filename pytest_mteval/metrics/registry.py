"""The built-in metric families of a run, each present only when the run makes it possible
(an analyzer, gold analyses, a glossary, an embedder for the target language...)."""

from __future__ import annotations

from collections.abc import Callable

from pytest_mteval.metrics import (
    equivalence,
    fst,
    hallucination,
    leakage,
    morphology,
    orthography,
    semantic,
    terminology,
)
from pytest_mteval.metrics.base import Metric, MetricContext
from pytest_mteval.metrics.equivalence import Judge
from pytest_mteval.metrics.selection import MetricSelection


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
        "code_switching": lambda: leakage.build(context),
        "hallucination": lambda: hallucination.build(context),
        "terminology": lambda: terminology.build(context),
        "semantic": lambda: semantic.build(context),
    }
    candidates = [build() for name, build in builders.items() if chosen.wants(name)]
    return [metric for metric in candidates if metric is not None]
