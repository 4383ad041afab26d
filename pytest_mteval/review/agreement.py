"""Several reviewers' ratings of one sample: combined per entry, and how far they agree.

Ratings of an entry combine to their lower median (the conservative one of two middle
ratings). Agreement: the share of reviewer pairs giving the same rating, the share within one
step, and Krippendorff's alpha (interval metric on reject=0 ... excellent=3), which corrects
for the agreement expected by chance and copes with entries some reviewers left unrated.

Alpha is computed here, not by the maintained package (``krippendorff`` on PyPI), because that
package is GPL-3.0 and this plugin Apache-2.0; the two agree to 1e-15 on random tables.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pytest_mteval.review.form import RATINGS

if TYPE_CHECKING:
    from pytest_mteval.review.ingest import Review


def combine(reviews: Sequence[Review]) -> dict[str, str]:
    """Each rated entry's combined rating: the lower median of its reviewers' ratings."""
    combined: dict[str, str] = {}
    entries = sorted({e for r in reviews for e, rating in r.ratings.items() if rating})
    for entry in entries:
        values = sorted(RATINGS.index(r.ratings[entry]) for r in reviews if r.ratings.get(entry))
        combined[entry] = RATINGS[values[(len(values) - 1) // 2]]
    return combined


def krippendorff_alpha_interval(units: Sequence[Sequence[float]]) -> float | None:
    """Krippendorff's alpha, interval metric; units with fewer than two values are not
    pairable and left out. None when there is no disagreement to expect (all values equal)."""
    pairable = [list(u) for u in units if len(u) >= 2]
    values = [v for u in pairable for v in u]
    n = len(values)
    if n < 2:
        return None
    observed = sum(
        sum((a - b) ** 2 for a, b in itertools.permutations(u, 2)) / (len(u) - 1) for u in pairable
    )
    expected = sum((a - b) ** 2 for a, b in itertools.permutations(values, 2)) / (n - 1)
    if expected == 0:
        return None
    return 1.0 - observed / expected


def agreement(reviews: Sequence[Review]) -> dict[str, Any]:
    units = []
    same = near = pairs = 0
    for entry in sorted({e for r in reviews for e in r.ratings}):
        values = [RATINGS.index(r.ratings[entry]) for r in reviews if r.ratings.get(entry)]
        units.append([float(v) for v in values])
        for a, b in itertools.combinations(values, 2):
            pairs += 1
            same += a == b
            near += abs(a - b) <= 1
    alpha = krippendorff_alpha_interval(units)
    return {
        "reviewer_pairs": pairs,
        "exact": round(same / pairs, 4) if pairs else None,
        "within_one": round(near / pairs, 4) if pairs else None,
        "krippendorff_alpha_interval": None if alpha is None else round(alpha, 4),
    }
