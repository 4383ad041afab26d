"""What the gates allow, as a user states it (``--mteval-max-drop``, ``--mteval-gate``,
``--mteval-entry-max-drop`` ... and their ini keys): the options, checked when given, so that a
wrong one stops the run before any translation. The session gate is ``cards/gate.py``; the
per-entry gate is ``cards/regressions.py``. Here, below ``run/``, so the run's settings can hold
them."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Final

from pytest_mteval.errors import MtevalError
from pytest_mteval.metrics import catalog
from pytest_mteval.option_catalog import float_default
from pytest_mteval.scoring import bootstrap as stats
from pytest_mteval.scoring.paired_comparison import COMPOSITE

DEFAULT_SIGNIFICANCE: Final = float_default("significance")


class GateOptionError(MtevalError, ValueError):
    """An unusable gate option; the message names it."""


@dataclass(frozen=True)
class GateOptions:
    """What the gate allows. Drops are in each metric's own units (chrF++ 0-100, rates and
    the composite 0-1); ``max_drop`` None leaves the composite ungated against the baseline."""

    max_drop: float | None = float_default("max-drop")
    fail_under: float | None = None
    metric_gates: Mapping[str, float] = field(default_factory=dict)
    significance: float = DEFAULT_SIGNIFICANCE
    n_bootstrap: int = stats.DEFAULT_RESAMPLES
    seed: int = stats.DEFAULT_SEED
    confidence: float = stats.DEFAULT_CONFIDENCE

    def __post_init__(self) -> None:
        if not 0.0 <= self.significance < 1.0:
            raise GateOptionError(f"significance must be in [0, 1), got {self.significance!r}")
        for name, value in (("max drop", self.max_drop), ("fail under", self.fail_under)):
            if value is not None and not math.isfinite(value):
                raise GateOptionError(f"{name} must be a finite number, got {value!r}")
            if value is not None and not 0.0 <= value <= 1.0:
                raise GateOptionError(
                    f"{name} of the composite is on its 0-1 scale, got {value:g} "
                    "(a drop of 5 chrF++ points is --mteval-gate chrf_plus_plus:5)"
                )
        for metric, drop in self.metric_gates.items():
            check_metric_gate(metric, drop)

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "metric_gates": dict(self.metric_gates)}


def check_metric_gate(metric: str, drop: float) -> None:
    definition = catalog.get(metric)
    if metric != COMPOSITE and definition is None:
        known = ", ".join(sorted({COMPOSITE, *catalog.names()}))
        raise GateOptionError(f"unknown metric {metric!r} in a gate; known: {known}")
    if not math.isfinite(drop) or drop < 0:
        raise GateOptionError(f"max drop of {metric} must be a number >= 0, got {drop!r}")
    scale = 1.0 if definition is None else definition.scale
    if drop > scale:
        raise GateOptionError(
            f"max drop of {metric} is in its own units (0-{scale:g}), got {drop:g}"
        )


def parse_metric_gate(text: str) -> tuple[str, float]:
    """``"chrf_plus_plus:1.0"`` -> ``("chrf_plus_plus", 1.0)``, GateOptionError otherwise."""
    metric, drop = split_metric_gate(text)
    check_metric_gate(metric, drop)
    return metric, drop


def split_metric_gate(text: str) -> tuple[str, float]:
    """``METRIC:MAX_DROP`` read, its metric not yet looked up: a plugin's metric is known only
    once the plugin has registered it, after the options are read."""
    metric, sep, raw = text.rpartition(":")
    try:
        drop = float(raw)
    except ValueError:
        drop = math.nan
    if not sep or not metric.strip() or math.isnan(drop):
        raise GateOptionError(f"--mteval-gate expects METRIC:MAX_DROP, got {text!r}")
    return metric.strip(), drop


#: An entry fails when its chrF++ drops by more than this (sentence chrF++ is noisy).
DEFAULT_ENTRY_MAX_DROP: Final = float_default("entry-max-drop")


@dataclass(frozen=True)
class EntryGateOptions:
    """What the per-entry gate allows: a chrF++ drop against the baseline, a floor without one."""

    entry_max_drop: float = DEFAULT_ENTRY_MAX_DROP
    entry_min_chrf: float | None = None
