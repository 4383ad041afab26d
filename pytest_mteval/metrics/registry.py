"""The built-in metric families of a run, each present only when the run makes it possible
(an analyzer, gold analyses, a glossary, an embedder for the target language...)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Final

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

if TYPE_CHECKING:
    from pytest_mteval.metrics.selection import MetricSelection

Builder = Callable[[MetricContext, "Judge | None"], "Metric | None"]

#: The optional metric families, by their ``Metric.name``, in the order a run builds them: the
#: one list of them (``--mteval-metrics`` and ``--mteval-skip-metric`` read it).
BUILDERS: Final[dict[str, Builder]] = {
    "fst": lambda context, judge: fst.build(context),
    "morphology": lambda context, judge: morphology.build(context),
    "equivalence": lambda context, judge: equivalence.build(context, judge),
    "orthography": lambda context, judge: orthography.build(context),
    "code_switching": lambda context, judge: code_switching.build(context),
    "hallucination": lambda context, judge: hallucination.build(context),
    "terminology": lambda context, judge: terminology.build(context),
    "semantic": lambda context, judge: semantic.build(context),
}
#: Built only when asked for: the semantic score needs the optional extra and its model.
OFF_BY_DEFAULT: Final = frozenset({"semantic"})


def builtin_metrics(
    context: MetricContext,
    judge: Judge | None = None,
    selection: MetricSelection | None = None,
) -> list[Metric]:
    """The selected metrics this run makes possible; a metric not selected is never built
    (the semantic score's model is not even loaded)."""
    wanted = selection.wanted if selection else frozenset(BUILDERS) - OFF_BY_DEFAULT
    candidates = [build(context, judge) for name, build in BUILDERS.items() if name in wanted]
    return [metric for metric in candidates if metric is not None]


def not_computed(
    context: MetricContext, selection: MetricSelection | None, built: list[Metric]
) -> list[str]:
    """The metrics the run asked for by name (those off by default) that it could not build,
    each with why; the default ones are simply absent where the corpus gives them no data."""
    wanted = selection.wanted if selection else frozenset()
    names = {metric.name for metric in built}
    return [
        f"{name}: {semantic.why_unavailable(context)}"
        for name in sorted(OFF_BY_DEFAULT)
        if name in wanted and name not in names
    ]
