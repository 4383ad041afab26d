"""The summary's last words for a newcomer: what its abbreviations mean, and what to run next.

``composite (B)`` and ``c0.20`` are compact once known and opaque before; one legend line
says what they are, and one line names the command a person most likely wants after this run.
"""

from __future__ import annotations

from collections.abc import Collection

from pytest_mteval.cards.card_view import CardView, ShownScores
from pytest_mteval.metrics import catalog
from pytest_mteval.scoring.composite import weights


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
        f"weights {_weights(str(profile))}); in 'by' rows n = entries, chrF = chrF++, "
        "c = composite"
    )


def _weights(profile: str) -> str:
    """The profile's weights in the terminal's labels: a pip install has no docs folder."""
    try:
        table = weights(profile)
    except (KeyError, ValueError):
        return "as the card's scoring profile says"
    shown = []
    for name, weight in table.items():
        definition = catalog.get(name)
        shown.append(f"{definition.label if definition else name} {weight:g}")
    return ", ".join(shown)


def next_step(card: CardView, given: Collection[str] = ()) -> str:
    """The command most likely wanted after this run, leaving out the options it had
    (``given``: ``html``, ``update_baseline``)."""
    errors = int(card.scores.errors or 0)
    if errors == 1:
        return (
            "1 entry failed: its report is above; rerun only it with --lf "
            "(translations that worked come from the cache)"
        )
    if errors:
        return (
            f"{errors} entries failed: their reports are above; rerun only them with --lf "
            "(translations that worked come from the cache)"
        )
    page = [] if "html" in given else ["a page of this run: --mteval-html=report.html"]
    if card.gate is None or card.gate.baseline is None:
        if "update_baseline" in given:
            kept = "gate later runs against the baseline this run kept: --mteval-baseline=PATH"
            return "; ".join([kept, *page])
        keep = (
            "keep this run as the baseline to gate later runs against: "
            "--mteval-baseline=.mteval/baseline.json --mteval-update-baseline"
        )
        return "; ".join([keep, *page])
    return "; ".join(["compare in detail: mteval compare <baseline> latest", *page])
