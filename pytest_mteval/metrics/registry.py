"""The built-in metric families of a run, each present only when the run makes it possible
(an analyzer, gold analyses, a glossary, an embedder for the target language...)."""

from __future__ import annotations

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


def builtin_metrics(context: MetricContext, judge: Judge | None = None) -> list[Metric]:
    candidates: list[Metric | None] = [
        fst.build(context),
        morphology.build(context),
        equivalence.build(context, judge),
        orthography.build(context),
        leakage.build(context),
        hallucination.build(context),
        terminology.build(context),
        semantic.build(context),
    ]
    return [metric for metric in candidates if metric is not None]
