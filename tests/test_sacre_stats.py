"""Per-segment statistics (metrics/sacre.py): sacrebleu's own numbers, held cheaply."""

from __future__ import annotations

import math

from sacrebleu.metrics.bleu import BLEU
from sacrebleu.metrics.chrf import CHRF
from sacrebleu.metrics.ter import TER

from pytest_mteval.metrics import sacre

PAIRS = [
    ("The cat sat on the mat.", "Le chat était assis sur le tapis."),
    ("Le chat était assis sur le tapis.", "Le chat était assis sur le tapis."),
    ("", "Une phrase."),
]


def test_statistics_are_sacrebleus_segment_statistics() -> None:
    metrics = {"chrf": CHRF(word_order=2), "bleu": BLEU(), "ter": TER()}
    for hyp, ref in PAIRS:
        stats = sacre.segment_stats(hyp, ref)
        for family, metric in metrics.items():
            (expected,) = metric._extract_corpus_statistics([hyp], [[ref]])
            assert stats[family] == [float(x) for x in expected]


def test_equal_values_share_one_float_object_across_segments() -> None:
    """A 100 k-entry run holds 36 statistics per entry: equal counts must not each be a
    float object of their own."""
    first, second = (sacre.segment_stats(hyp, ref) for hyp, ref in PAIRS[:2])
    values = [x for row in (first, second) for family in sacre.FAMILIES for x in row[family]]
    assert len({id(x) for x in values}) == len(set(values))


def test_nan_and_negative_zero_keep_their_own_representation() -> None:
    assert math.copysign(1.0, sacre._shared(0.0)) > 0  # 0.0 is now a shared value
    assert math.copysign(1.0, sacre._shared(-0.0)) < 0  # and -0.0 (== 0.0) is not it
    assert math.isnan(sacre._shared(float("nan")))
