"""The registry of run-level metrics: name -> :class:`MetricDefinition`.

The built-in definitions are the card's spine, declared here, and those of the metric families
(each declared in its family's module, found by ``metrics/registry.py``), in the order the
HTML report shows them (the terminal summary orders them by their ``shown_at``), each with the
card keys written with it, from which the score keys no plugin may take (``RESERVED``) are
derived. A metric family registered through ``pytest_mteval_metrics`` may contribute
definitions of its own (its ``definitions`` attribute, see ``metrics/base.py``): registered at
the start of a run, they are scored, resampled, gated and compared like the built-ins.
Registering the same definition twice is harmless (the controller and every xdist worker
register it); a different definition under a taken name is an error.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Final

from pytest_mteval.errors import MtevalError
from pytest_mteval.metrics.definition import MetricDefinition, SacreFamily, ShareOfAll, Shown
from pytest_mteval.metrics.registry import FAMILIES

CHRF_PLUS_PLUS: Final = MetricDefinition(
    "chrf_plus_plus",
    "chrF++",
    SacreFamily("chrf"),
    scale=100.0,
    interval=True,
    shown="always",
    shown_at=1,
)
BLEU: Final = MetricDefinition(
    "bleu", "BLEU", SacreFamily("bleu"), scale=100.0, interval=True, shown="always", shown_at=2
)
TER: Final = MetricDefinition(
    "ter",
    "TER",
    SacreFamily("ter"),
    scale=100.0,
    higher_is_better=False,
    shown="always",
    shown_at=3,
)
EXACT_MATCH: Final = MetricDefinition(
    "exact_match_rate",
    "exact match",
    ShareOfAll("exact_match"),
    interval=True,
    shown="always",
    shown_at=4,
    card_keys=("exact_matches",),
)
#: The card's spine, scored on every run (per entry by ``metrics/entry_record.py``).
SPINE: Final = (CHRF_PLUS_PLUS, BLEU, TER, EXACT_MATCH)
#: Every built-in definition: the spine, then each family's (``metrics/registry.py``) by its
#: ``report_at``.
BUILTIN: Final[tuple[MetricDefinition, ...]] = (
    *SPINE,
    *(d for f in sorted(FAMILIES, key=lambda f: (f.report_at, f.name)) for d in f.definitions),
)

#: The run-level keys of the card's ``scores`` that belong to no metric: counts and speed of
#: the whole run, the composite and what it was judged by, the breakdowns, the plugins' part.
RUN_LEVEL: Final = frozenset(
    {
        *("total", "errors", "length_ratio", "tokens_per_second", "entries_per_minute"),
        *("avg_latency_seconds", "median_latency_seconds", "p95_latency_seconds"),
        *("composite", "composite_metrics", "scoring_profile", "confidence_intervals"),
        *("cost_adjusted", "quality_tier", "quality_tier_uncapped", "plugin_metrics"),
        "wrong_language_rate",
        *("by_difficulty", "by_provenance", "by_domain", "by_segment"),
    }
)
#: Keys of the card's ``scores`` that are not metric definitions: a plugin may not take them.
RESERVED: Final = RUN_LEVEL | {key for d in BUILTIN for key in d.card_keys}
_NAME: Final = re.compile(r"[a-z][a-z0-9_]{0,63}")

_registry: dict[str, MetricDefinition] = {d.name: d for d in BUILTIN}
_BUILTIN_NAMES: Final = frozenset(_registry)


class MetricDefinitionError(MtevalError):
    """A metric definition that cannot be registered; the message names it."""


def definitions() -> Mapping[str, MetricDefinition]:
    """Every registered definition by name, built-ins first, in report order (read-only)."""
    return MappingProxyType(_registry)


def shown(how: Shown) -> tuple[str, ...]:
    """The metrics the terminal summary shows ``how``, in its order: the built-ins by their
    ``shown_at``, then the plugins' by theirs (equal places keep the order of registration)."""
    chosen = [d for d in _registry.values() if d.shown == how]
    chosen.sort(key=lambda d: (d.name not in _BUILTIN_NAMES, d.shown_at))
    return tuple(d.name for d in chosen)


def get(name: str) -> MetricDefinition | None:
    return _registry.get(name)


def names() -> frozenset[str]:
    """Every metric a gate may name (besides "composite")."""
    return frozenset(_registry)


def lower_is_better(name: str) -> bool:
    found = _registry.get(name)
    return found is not None and not found.higher_is_better


def register(definition: MetricDefinition, by: str = "a plugin") -> None:
    """Add ``definition`` to the registry; ``by`` names the registering family in errors."""
    if not isinstance(definition, MetricDefinition):
        raise MetricDefinitionError(
            f"{by}: a metric definition must be a MetricDefinition, got {type(definition).__name__}"
        )
    name = definition.name
    if not isinstance(name, str) or not _NAME.fullmatch(name) or name in RESERVED:
        raise MetricDefinitionError(
            f"{by}: metric name {name!r} must be lower_snake_case (at most 64 characters) "
            "and not a reserved score key"
        )
    taken = _registry.get(name)
    if taken is None and definition.card_keys:  # (a built-in registered again keeps its own)
        raise MetricDefinitionError(
            f"{by}: metric {name!r} declares card_keys: a plugin family's aggregate is kept "
            "under the card's scores.plugin_metrics, so it takes no other score key"
        )
    # equal, or equal-looking: a conftest imported again (an in-process session) makes new
    # classes of the same statistics
    if taken is not None and taken != definition and repr(taken) != repr(definition):
        raise MetricDefinitionError(f"{by}: metric {name!r} is already defined otherwise")
    _registry[name] = definition


def family_definitions(family: object) -> tuple[MetricDefinition, ...]:
    """The definitions a metric family contributes (its optional ``definitions``)."""
    found = getattr(family, "definitions", ())
    name = getattr(family, "name", type(family).__name__)
    if isinstance(found, MetricDefinition) or not isinstance(found, Iterable):
        raise MetricDefinitionError(f"metric {name!r}: definitions must be a sequence")
    return tuple(found)


def register_families(families: Iterable[object]) -> None:
    """Register every definition the metric families contribute."""
    for family in families:
        for definition in family_definitions(family):
            register(definition, by=f"metric {getattr(family, 'name', '?')!r}")


def unregister(name: str) -> None:
    """Forget a plugin's definition (tests); built-ins stay."""
    if name not in _BUILTIN_NAMES:
        _registry.pop(name, None)
