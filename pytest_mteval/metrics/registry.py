"""The built-in metric families of a run, each present only when the run makes it possible
(an analyzer, gold analyses, a glossary, an embedder for the target language...).

The families are found, not listed: every module of this package that declares a ``FAMILY``
(a :class:`~pytest_mteval.metrics.base.BuiltinFamily`) is one, so adding a built-in metric is
adding its module. The selection (``metrics/selection.py``) and the catalog of definitions
(``metrics/catalog.py``) read them from here.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable
from dataclasses import replace
from types import ModuleType
from typing import TYPE_CHECKING, Final

import pytest_mteval.metrics
from pytest_mteval.metrics.base import BuiltinFamily, Judge, Metric, MetricContext

if TYPE_CHECKING:
    from pytest_mteval.metrics.selection import MetricSelection

#: The modules of this package that read the families (importing them while finding the
#: families would be circular); every other module is looked at.
_READERS: Final = frozenset({"catalog", "registry", "selection"})


def package_modules(package: ModuleType = pytest_mteval.metrics) -> Iterable[ModuleType]:
    """Every module of ``package`` (its ``__path__``, so a directory added to it counts too)."""
    for found in pkgutil.iter_modules(package.__path__):
        if found.name not in _READERS and not found.ispkg:
            yield importlib.import_module(f"{package.__name__}.{found.name}")


def discover(modules: Iterable[ModuleType]) -> tuple[BuiltinFamily, ...]:
    """The ``FAMILY`` of each module that has one, in the order a run builds them; two
    families under one name are an error."""
    families = [m.FAMILY for m in modules if isinstance(getattr(m, "FAMILY", None), BuiltinFamily)]
    families.sort(key=lambda family: (family.build_at, family.name))
    names = [family.name for family in families]
    if len(set(names)) != len(names):
        raise RuntimeError(f"metric families declared twice: {sorted(names)}")
    return tuple(families)


#: The optional metric families in the order a run builds them: ``--mteval-metrics`` and
#: ``--mteval-skip-metric`` choose among them by their ``name``.
FAMILIES: Final = discover(package_modules())
#: Built only when asked for (the semantic score: it needs the optional extra and its model).
OFF_BY_DEFAULT: Final = frozenset(family.name for family in FAMILIES if not family.default)


def builtin_metrics(
    context: MetricContext,
    judge: Judge | None = None,
    selection: MetricSelection | None = None,
) -> list[Metric]:
    """The selected metrics this run makes possible; a metric not selected is never built
    (the semantic score's model is not even loaded). ``judge`` is the equivalence judge."""
    if judge is not None:
        context = replace(context, judge=judge)
    wanted = selection.wanted if selection else {f.name for f in FAMILIES if f.default}
    candidates = [family.build(context) for family in FAMILIES if family.name in wanted]
    return [metric for metric in candidates if metric is not None]


def not_computed(
    context: MetricContext, selection: MetricSelection | None, built: list[Metric]
) -> list[str]:
    """The metrics the run asked for by name (those off by default) that it could not build,
    each with why; the default ones are simply absent where the corpus gives them no data."""
    wanted = selection.wanted if selection else frozenset()
    names = {metric.name for metric in built}
    return [
        f"{family.name}: {family.why_unavailable(context)}"
        for family in sorted(FAMILIES, key=lambda family: family.name)
        if family.why_unavailable is not None
        and not family.default
        and family.name in wanted
        and family.name not in names
    ]
