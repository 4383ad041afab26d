"""Character-trigram overlap: a cheap, language-blind measure of how much two texts share.

Each word is padded with spaces, so trigrams mark word starts and ends; case is folded. The
Dice coefficient of the two multisets is 1 for identical wording and near 0 for texts that
share no stems. It works the same in scripts without spaces between words.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache

from pytest_mteval.metrics.text import ALNUM_RUN, nfc


@lru_cache(maxsize=65536)
def trigrams(text: str) -> Counter[str]:
    """Character trigrams of each word padded with spaces, case-folded (do not mutate)."""
    grams: Counter[str] = Counter()
    for token in ALNUM_RUN.findall(nfc(text).casefold()):
        padded = f" {token} "
        grams.update(padded[i : i + 3] for i in range(len(padded) - 2))
    return grams


def similarity(a: str, b: str) -> float:
    """Dice coefficient of the two texts' character trigrams, 0..1."""
    ga, gb = trigrams(a), trigrams(b)
    total = ga.total() + gb.total()
    return 2 * (ga & gb).total() / total if total else 0.0
