"""THE weight table and the composite score built on it (SCORING.md), with no I/O.

Users gate merges on the composite, so every number lives here once; ``docs/SCORING.md`` holds
the one human-readable copy and a test fails when the two drift apart.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from types import MappingProxyType
from typing import Final

from pytest_mteval.metrics import catalog

#: Profile A: the target language has a morphological FST.
PROFILE_A: Final = "A"
#: Profile B: no FST.
PROFILE_B: Final = "B"

WEIGHTS: Final[Mapping[str, Mapping[str, float]]] = MappingProxyType(
    {
        PROFILE_A: MappingProxyType(
            {
                "fst_acceptance_rate": 0.25,
                "morphological_accuracy": 0.15,
                "chrf_plus_plus": 0.15,
                "semantic_score": 0.15,
                "equivalent_match_rate": 0.10,
                "code_switching_rate": 0.05,
                "terminology_adherence": 0.05,
                "hallucination_rate": 0.05,
                "exact_match_rate": 0.05,
            }
        ),
        PROFILE_B: MappingProxyType(
            {
                "semantic_score": 0.25,
                "chrf_plus_plus": 0.25,
                "equivalent_match_rate": 0.15,
                "exact_match_rate": 0.10,
                "code_switching_rate": 0.10,
                "terminology_adherence": 0.05,
                "hallucination_rate": 0.05,
                "orthographic_accuracy": 0.05,
            }
        ),
    }
)

_WEIGHED: Final = frozenset(name for table in WEIGHTS.values() for name in table)
#: Weighed metrics on a 0..100 scale (divided by 100 before weighting), by their definitions.
PERCENT_SCALE: Final = frozenset(n for n in _WEIGHED if (d := catalog.get(n)) and d.points)
#: Weighed metrics where lower is better (used as ``1 - value``), by their definitions.
LOWER_IS_BETTER: Final = frozenset(n for n in _WEIGHED if catalog.lower_is_better(n))

#: Quality tiers, evaluated top-down: the first threshold the composite reaches names it.
TIERS: Final[tuple[tuple[float, str], ...]] = (
    (0.85, "fluent"),
    (0.70, "deployable"),
    (0.50, "functional"),
    (0.30, "emerging"),
    (0.00, "baseline"),
)
UNSCORED: Final = "unscored"
#: Tiers that need a human-validation record before they may be claimed (spec §7).
NEEDS_HUMAN_VALIDATION: Final = frozenset({"fluent", "deployable"})
CANDIDATE_LABEL: Final = "deployable (candidate, needs community review)"


def profile_for(has_fst: bool) -> str:
    """Profile A when the target language's FST is configured, else B."""
    return PROFILE_A if has_fst else PROFILE_B


def weights(profile: str) -> Mapping[str, float]:
    """The weight table of one profile; an unknown profile is an error, not a silent default."""
    try:
        return WEIGHTS[profile]
    except KeyError:
        raise ValueError(f"unknown scoring profile {profile!r}; expected 'A' or 'B'") from None


def normalize(name: str, value: float) -> float:
    """One metric on 0..1, higher is better, clamped, by its definition's scale and
    direction; a non-finite value is an error."""
    number = float(value)
    if not math.isfinite(number):
        raise ValueError(f"metric {name!r} is not finite: {value!r}")
    definition = catalog.get(name)
    if definition is not None:
        number = definition.normalized(number)
    return min(1.0, max(0.0, number))


def available_metrics(metrics: Mapping[str, float | None], profile: str) -> list[str]:
    """The profile's metrics that have a value, in weight-table order."""
    return [name for name in weights(profile) if metrics.get(name) is not None]


def composite(metrics: Mapping[str, float | None], profile: str) -> float | None:
    """Σ w·v / Σ w over the available metrics; None when none is available.

    Keys outside the profile's table (BLEU, TER, length ratio...) are ignored: they are
    reported beside the composite, never in it.
    """
    return composite_over(metrics, profile, weights(profile))


def composite_over(
    metrics: Mapping[str, float | None], profile: str, names: Collection[str]
) -> float | None:
    """The composite restricted to ``names``, so two runs can be compared like with like.

    A gate recomputes both runs over the metrics both had available; names outside the
    profile's table are ignored.
    """
    table = weights(profile)
    total_weight = 0.0
    total = 0.0
    for name, weight in table.items():
        value = metrics.get(name)
        if name not in names or value is None:
            continue
        total += weight * normalize(name, value)
        total_weight += weight
    if total_weight == 0.0:
        return None
    return min(1.0, max(0.0, total / total_weight))


def quality_tier(composite: float | None) -> str:
    """The tier of a composite: fluent, deployable, functional, emerging, baseline or unscored."""
    if composite is None:
        return UNSCORED
    if not math.isfinite(composite) or not 0.0 <= composite <= 1.0:
        raise ValueError(f"composite must be a number in [0, 1], got {composite!r}")
    # Rounded so that float noise (every metric at 0.85 sums to 0.8499999999999996) cannot
    # drop a run below a boundary it reaches exactly.
    value = round(composite, 9)
    for threshold, name in TIERS:
        if value >= threshold:
            return name
    raise AssertionError("unreachable: the lowest tier starts at 0")  # pragma: no cover


def labelled_tier(tier: str, *, human_validated: bool) -> str:
    """The label a run may claim: deployable or fluent only with a human-validation record."""
    if tier in NEEDS_HUMAN_VALIDATION and not human_validated:
        return CANDIDATE_LABEL
    return tier


def cost_adjusted(composite: float | None, cost_per_entry_usd: float | None) -> float | None:
    """composite / max(1, log2(1 + cost × 1000)); unknown or zero cost leaves it unchanged.

    The floor stops a tiny cost (below $0.001 an entry) from multiplying the composite.
    """
    if composite is None:
        return None
    if cost_per_entry_usd is None or cost_per_entry_usd == 0:
        return composite
    cost = float(cost_per_entry_usd)
    if not math.isfinite(cost) or cost < 0:
        raise ValueError(f"cost per entry must be a finite non-negative number, got {cost!r}")
    return composite / max(1.0, math.log2(1.0 + cost * 1000.0))
