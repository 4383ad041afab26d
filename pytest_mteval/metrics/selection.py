"""Which optional metrics a run computes: ``--mteval-metrics`` and ``--mteval-skip-metric``.

chrF++, BLEU, TER and exact match always run (the card's spine). Every other metric can be
left out; the semantic score is off unless asked for, because it needs the optional extra (a
95 MB model) and scoring with it costs several times the rest of the metrics on every run,
which nobody should pay without choosing to.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from pytest_mteval.errors import MtevalError
from pytest_mteval.metrics.registry import FAMILIES, OFF_BY_DEFAULT

#: The optional metrics, by their ``Metric.name`` (the families ``metrics/registry.py`` finds).
OPTIONAL: tuple[str, ...] = tuple(family.name for family in FAMILIES)
DEFAULT = frozenset(OPTIONAL) - OFF_BY_DEFAULT


class MetricSelectionError(MtevalError, ValueError):
    """An unknown metric name; the message lists the known ones."""


@dataclass(frozen=True)
class MetricSelection:
    """The optional metrics to build; ``wanted`` None means the default set."""

    wanted: frozenset[str] = DEFAULT

    @classmethod
    def parse(cls, only: Iterable[str] = (), skip: Iterable[str] = ()) -> MetricSelection:
        """``only`` names metrics (``default`` and ``all`` expand); ``skip`` removes some."""
        chosen: set[str] = set()
        named = [name for item in only for name in item.replace(",", " ").split()]
        for name in named:
            chosen |= _expand(name, "--mteval-metrics")
        wanted = chosen if named else set(DEFAULT)
        for item in skip:
            for name in item.replace(",", " ").split():
                wanted -= _expand(name, "--mteval-skip-metric")
        return cls(frozenset(wanted))

    def wants(self, name: str) -> bool:
        return name in self.wanted


def _expand(name: str, option: str) -> set[str]:
    if name == "all":
        return set(OPTIONAL)
    if name == "default":
        return set(DEFAULT)
    if name not in OPTIONAL:
        known = ", ".join(("default", "all", *OPTIONAL))
        raise MetricSelectionError(f"{option}: unknown metric {name!r} (known: {known})")
    return {name}
