"""Line two runs up like with like, and measure each metric's change with a paired bootstrap.

Like with like means: the same entries (those both runs scored, with the same source and
reference), the same metrics (those both runs measured: a composite is recomputed over them
with ONE scoring profile), and the same resamples for both runs (paired bootstrap, as
``sacrebleu --paired-bs``). Point values are recomputed from per-entry statistics over the
common entries, so a run that covered more entries is not compared on a different sample.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from pytest_mteval.metrics.entry_record import EntryRecord
from pytest_mteval.scoring import bootstrap as stats
from pytest_mteval.scoring import composite as scoring
from pytest_mteval.scoring.comparable_run import Comparable, constant_statistic, entry_statistic

COMPOSITE: Final = "composite"
#: The fewest common entries a paired bootstrap may claim a significant change over. Over n
#: entries it sees at most C(2n-1, n) distinct resamples (one entry: one resample, the entry
#: itself, so every change looks significant); under 10, a change is "not testable".
MIN_ENTRIES_FOR_SIGNIFICANCE: Final = 10
#: The row of an entry a run-level-only run does not have (no per-entry statistics).
_NO_ROW: Final[EntryRecord] = {}  # type: ignore[typeddict-item]


@dataclass(frozen=True)
class Measure:
    """One metric, baseline -> now, over the common entries."""

    metric: str
    baseline: float | None
    now: float | None
    delta: float | None
    lower: float | None  # bounds of the delta's confidence interval
    upper: float | None
    p_value: float | None
    held_fixed: bool = False  # no per-entry statistics: not resampled, not tested


@dataclass
class Pairing:
    """Which entries and metrics two runs share, and what had to be left out."""

    common: list[str]
    shared: list[str]
    composite_metrics: list[str]
    profile: str
    notes: list[str] = field(default_factory=list)


def pair(baseline: Comparable, current: Comparable) -> Pairing:
    """The entries and metrics both runs have, with a note for everything left out."""
    notes = list(baseline.notes)
    common: list[str] = []
    changed = 0
    # one dataset sha256: every entry is unchanged, even on a card whose text is withheld
    same_data = bool(baseline.dataset_sha256) and baseline.dataset_sha256 == current.dataset_sha256
    for key, row in current.rows.items():
        theirs = baseline.rows.get(key)
        if theirs is None:
            continue
        if not same_data and (theirs.get("source"), theirs.get("expected")) != (
            row.get("source"),
            row.get("expected"),
        ):
            changed += 1
            continue
        common.append(key)
    if changed:
        notes.append(f"{changed} entries whose source or reference changed are left out")
    if baseline.aggregate_only or current.aggregate_only:
        # a foreign card has no entries: the other run's entries stand for the same data
        common = list((current if baseline.aggregate_only else baseline).rows) if same_data else []
    elif len(common) != len(current.rows) or len(common) != len(baseline.rows):
        notes.append(
            f"compared over the {len(common)} entries both runs scored "
            f"(baseline {len(baseline.rows)}, now {len(current.rows)})"
        )
    theirs_metrics, ours_metrics = baseline.available(), current.available()
    shared = sorted(theirs_metrics & ours_metrics)
    profile = current.profile
    table = scoring.weights(profile)
    composite_metrics = [name for name in table if name in shared]
    if baseline.profile != profile:
        notes.append(
            f"baseline used scoring profile {baseline.profile}, this run {profile}: "
            f"both composites use profile {profile}"
        )
    only_base = sorted(n for n in theirs_metrics - ours_metrics if n in table)
    only_now = sorted(n for n in ours_metrics - theirs_metrics if n in table)
    if only_base or only_now:
        notes.append(
            "composites recomputed over the metrics both runs measured ("
            + ", ".join(composite_metrics)
            + ")"
            + (f"; only the baseline had {', '.join(only_base)}" if only_base else "")
            + (f"; only this run has {', '.join(only_now)}" if only_now else "")
        )
    return Pairing(common, shared, composite_metrics, profile, notes)


def measure(
    baseline: Comparable,
    current: Comparable,
    pairing: Pairing,
    metrics: Sequence[str],
    *,
    test: bool = True,
    n_bootstrap: int = stats.DEFAULT_RESAMPLES,
    seed: int = stats.DEFAULT_SEED,
    confidence: float = stats.DEFAULT_CONFIDENCE,
) -> dict[str, Measure]:
    """Each requested metric (and "composite") over the common entries.

    With ``test`` the delta gets a bootstrap interval and a paired p-value; metrics without
    per-entry statistics are held at their run-level values and left out of the composite
    (both noted in ``pairing.notes``): a held value measured over other entries would shift
    every resampled composite by the same amount and look like a significant change.
    """
    wanted = [m for m in metrics if m != COMPOSITE and m in pairing.shared]
    inputs = [*dict.fromkeys([*wanted, *pairing.composite_metrics])]
    out = {m: Measure(m, None, None, None, None, None, None) for m in metrics}
    if not pairing.common or not inputs:
        return out
    base_rows = [baseline.rows.get(k) or _NO_ROW for k in pairing.common]
    now_rows = [current.rows.get(k) or _NO_ROW for k in pairing.common]
    run_level = baseline.aggregate_only or current.aggregate_only  # nothing to pair or test
    test = test and not run_level
    base_stats, now_stats, fixed = _statistics(inputs, baseline, current, base_rows, now_rows)
    if fixed:
        pairing.notes.append(
            "held at their run-level values, not resampled: " + ", ".join(sorted(fixed))
        )
    left_out = [] if run_level else [m for m in pairing.composite_metrics if m in fixed]
    if left_out:
        pairing.composite_metrics = [m for m in pairing.composite_metrics if m not in fixed]
        pairing.notes.append(
            "composites recomputed without the metrics held fixed ("
            + ", ".join(left_out)
            + "): over "
            + (", ".join(pairing.composite_metrics) or "no metric")
        )
    derived: dict[str, stats.Derived] = {}
    if COMPOSITE in metrics and pairing.composite_metrics:
        derived[COMPOSITE] = _composite(pairing.profile, pairing.composite_metrics)
    if test and len(pairing.common) < MIN_ENTRIES_FOR_SIGNIFICANCE:
        test = False
        pairing.notes.append(
            f"significance not testable over {len(pairing.common)} common entries "
            f"(a paired bootstrap needs at least {MIN_ENTRIES_FOR_SIGNIFICANCE})"
        )
    if test:
        paired = stats.paired_bootstrap(
            base_stats,
            now_stats,
            derived,
            n_bootstrap=n_bootstrap,
            seed=seed,
            confidence=confidence,
        )
        results = {
            name: (r["baseline"], r["candidate"], r["delta_lower"], r["delta_upper"], r["p_value"])
            for name, r in paired.items()
        }
    else:
        b, c = stats.point_values(base_stats, derived), stats.point_values(now_stats, derived)
        results = {name: (b[name], c[name], None, None, None) for name in b}
    for name in metrics:
        if name not in results:
            continue
        before, now, lower, upper, p = results[name]
        held = name in fixed
        delta = None if before is None or now is None else now - before
        if held:
            lower = upper = p = None
        out[name] = Measure(name, before, now, delta, lower, upper, p, held)
    return out


def _statistics(
    names: Sequence[str],
    baseline: Comparable,
    current: Comparable,
    base_rows: Sequence[EntryRecord],
    now_rows: Sequence[EntryRecord],
) -> tuple[dict[str, stats.Statistic], dict[str, stats.Statistic], set[str]]:
    base: dict[str, stats.Statistic] = {}
    now: dict[str, stats.Statistic] = {}
    fixed: set[str] = set()
    for name in names:
        b = (
            None
            if baseline.aggregate_only
            else entry_statistic(name, base_rows, baseline.hallucinated)
        )
        c = (
            None
            if current.aggregate_only
            else entry_statistic(name, now_rows, current.hallucinated)
        )
        if b is None or c is None:
            fixed.add(name)
            b = constant_statistic(_value(baseline, name), len(base_rows))
            c = constant_statistic(_value(current, name), len(now_rows))
        base[name], now[name] = b, c
    return base, now, fixed


def _value(run: Comparable, name: str) -> float:
    value = run.metrics.get(name)
    if value is None:
        raise ValueError(f"{run.path}: metric {name!r} has no value")
    return value


def _composite(profile: str, names: Sequence[str]) -> stats.Derived:
    chosen = frozenset(names)

    def composite(metrics: Mapping[str, float | None]) -> float | None:
        return scoring.composite_over(metrics, profile, chosen)

    return composite
