"""The summary's last words for a newcomer: what its abbreviations mean, and what to run next.

``composite (B)`` and ``c0.20`` are compact once known and opaque before; one legend line
says what they are, and one line names the command a person most likely wants after this run.
"""

from __future__ import annotations

from pytest_mteval.cards.card_view import CardView, ShownScores


def legend(scores: ShownScores) -> str | None:
    """What the composite's profile letter and the ``by ...`` rows' fields mean."""
    profile = scores.scoring_profile
    if scores.composite is None:
        return None
    which = {
        "A": "profile A: the target language has a morphological analyzer (FST)",
        "B": "profile B: no morphological analyzer (FST) for the target language",
    }.get(str(profile), f"profile {profile}")
    return (
        f"composite: 0-1, higher is better, a weighted mean of the metrics ({which}; "
        "weights in docs/SCORING.md); in 'by' rows n = entries, chrF = chrF++, c = composite"
    )


def next_step(card: CardView) -> str:
    """The command most likely wanted after this run."""
    errors = int(card.scores.errors or 0)
    if errors:
        return (
            f"{errors} entries failed: their reports are above; rerun only them with --lf "
            "(translations that worked come from the cache)"
        )
    if card.gate is None or card.gate.baseline is None:
        return (
            "keep this run as the baseline to gate later runs against: "
            "--mteval-baseline=.mteval/baseline.json --mteval-update-baseline; "
            "a page of this run: --mteval-html=report.html"
        )
    return "compare in detail: mteval compare <baseline> latest; a page: --mteval-html=report.html"
