"""chrF++, BLEU and TER through sacrebleu, by sufficient statistics.

Each segment's statistics are computed once (on the worker that translated it); corpus scores
are computed from their sums, which is exactly how sacrebleu's own ``corpus_score`` works. The
same sums make bootstrap resampling cheap: a resample is a sum over resampled indexes.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any, Final

from sacrebleu.metrics.bleu import BLEU
from sacrebleu.metrics.chrf import CHRF
from sacrebleu.metrics.ter import TER

from pytest_mteval.metrics import ter_edits


@cache
def chrf_pp() -> CHRF:
    """chrF++: character 6-grams plus word bigrams (sacrebleu's plain chrF has word_order 0)."""
    return CHRF(word_order=2)


@cache
def bleu_corpus() -> BLEU:
    return BLEU()


@cache
def bleu_sentence() -> BLEU:
    """Sentence BLEU needs effective order, or any missing 4-gram makes it zero."""
    return BLEU(effective_order=True)


@cache
def ter() -> TER:
    return TER()


#: The corpus metric of each family scored from statistics (``SacreFamily`` names them).
_CORPUS_METRIC: Final[dict[str, Callable[[], Any]]] = {
    "chrf": chrf_pp,
    "bleu": bleu_corpus,
    "ter": ter,
}
#: Families scored from statistics, in the order a record holds them.
FAMILIES: tuple[str, ...] = tuple(_CORPUS_METRIC)


def _metric(family: str) -> Any:
    return _CORPUS_METRIC[family]()


#: One float object per value seen in statistics: they are small counts, so a run's records
#: share a few hundred floats instead of holding 36 of their own each (memory at 100 k entries).
_SHARED: dict[float, float] = {}


def segment_stats(hypothesis: str, reference: str) -> dict[str, list[float]]:
    """The sufficient statistics of one segment for every family, as JSON-ready lists."""
    return {
        family: [_shared(x) for x in family_segment_stats(family, hypothesis, reference)]
        for family in FAMILIES
    }


def family_segment_stats(family: str, hypothesis: str, reference: str) -> list[float]:
    """One family's sufficient statistics of one segment. sacrebleu has no public API for
    statistics, so its private ``_extract_corpus_statistics`` and ``_compute_score_from_stats``
    (what its own ``corpus_score`` and paired bootstrap use) are called here and nowhere else."""
    if family == "ter":
        return _ter_stats(hypothesis, reference)
    (row,) = _metric(family)._extract_corpus_statistics([hypothesis], [[reference]])
    return [float(x) for x in row]


def _ter_stats(hypothesis: str, reference: str) -> list[float]:
    """What ``TER()._extract_corpus_statistics([hypothesis], [[reference]])`` returns, its
    tokenization sacrebleu's own (the reference preprocessed twice, as its reference cache
    does), its edit count the same algorithm's, made faster (``ter_edits.py``)."""
    metric = ter()
    words_ref = metric._preprocess_segment(metric._preprocess_segment(reference)).split()
    words_hyp = metric._preprocess_segment(hypothesis).split()
    edits, ref_length = ter_edits.translation_edit_rate(words_hyp, words_ref)
    return [float(edits), float(ref_length / 1)]


def shared_stats(stats: dict[str, list[float]]) -> dict[str, list[float]]:
    """Statistics made in another process (unpickled: floats of their own) made to share this
    process's float objects, as statistics made here do."""
    return {family: [_shared(x) for x in row] for family, row in stats.items()}


def _shared(value: float) -> float:
    """The one float object for ``value``; NaN and negatives (-0.0 included) keep their own,
    so that no value changes its representation."""
    if value != value or math.copysign(1.0, value) < 0 or len(_SHARED) > 100_000:
        return value
    return _SHARED.setdefault(value, value)


def sentence_scores(stats: dict[str, list[float]]) -> dict[str, float]:
    """Sentence chrF++, BLEU (effective order) and TER from one segment's statistics."""
    return {
        "chrf": float(chrf_pp()._compute_score_from_stats(_as_ints(stats["chrf"])).score),
        "bleu": float(bleu_sentence()._compute_score_from_stats(_as_ints(stats["bleu"])).score),
        "ter": float(ter()._compute_score_from_stats(stats["ter"]).score),
    }


def corpus_score(family: str, summed: Sequence[float]) -> float:
    """A corpus score from statistics already summed over its segments (the finalisation of
    the chrF++, BLEU and TER definitions in ``metrics/catalog.py``)."""
    row = list(summed) if family == "ter" else _as_ints(summed)
    return float(_metric(family)._compute_score_from_stats(row).score)


def signatures() -> dict[str, str]:
    """sacrebleu's own signatures, recorded so a score can be reproduced with its CLI."""
    named = {
        "chrf_plus_plus": chrf_pp(),
        "bleu": bleu_corpus(),
        "sentence_bleu": bleu_sentence(),
        "ter": ter(),
    }
    out = {}
    for name, metric in named.items():
        metric.corpus_score(["a"], [["a"]])  # sacrebleu learns nrefs only by scoring once
        out[name] = str(metric.get_signature())
    return out


def _as_ints(row: Sequence[float]) -> list[int]:
    return [int(x) for x in row]
