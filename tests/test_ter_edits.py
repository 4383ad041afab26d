"""TER's edit count (metrics/ter_edits.py) is sacrebleu's, number for number: on every shipped
corpus, and on random texts, with sacrebleu's limits as shipped and made small enough that
random texts reach them (a narrow beam, short shifts, few candidates)."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator

import hypothesis
import pytest
from hypothesis import strategies as st
from sacrebleu.metrics import lib_ter
from sacrebleu.metrics.ter import TER

from pytest_mteval.metrics import sacre, ter_edits
from pytest_mteval.shipped_corpora import SHIPPED_CORPORA

Words = list[str]


def outcome(function: Callable[[Words, Words], tuple[int, int]], hyp: Words, ref: Words) -> str:
    """The result, its types included, or the exception raised."""
    try:
        edits, length = function(hyp, ref)
    except Exception as exc:  # sacrebleu refuses a trace through an unreachable cell
        return f"raised {type(exc).__name__}: {exc}"
    return f"{type(edits).__name__} {edits!r}, {type(length).__name__} {length!r}"


def same_as_sacrebleu(hyp: Words, ref: Words) -> None:
    expected = outcome(lib_ter.translation_edit_rate, hyp, ref)
    assert outcome(ter_edits.translation_edit_rate, hyp, ref) == expected, (hyp, ref)


def corpus_pairs() -> Iterator[tuple[str, str, str]]:
    """(corpus, hypothesis, reference): each entry's source and its variants against its
    reference, and for every eighth entry the next entry's reference (the same language: many
    common words, many shifts; sacrebleu takes seconds over them all)."""
    corpora = sorted(SHIPPED_CORPORA.glob("*.json"))
    assert len(corpora) >= 5
    for path in corpora:
        entries = json.loads(path.read_text(encoding="utf-8"))["entries"]
        for n, (entry, after) in enumerate(zip(entries, entries[1:] + entries[:1], strict=True)):
            others = [after["reference"]] if n % 8 == 0 else []
            for hyp in [entry["source"], *(entry.get("variants") or []), *others]:
                yield path.stem, hyp, entry["reference"]


def test_every_shipped_corpus_scores_as_sacrebleu_scores_it() -> None:
    metric = TER()
    count = 0
    for _, hyp, ref in corpus_pairs():
        (expected,) = metric._extract_corpus_statistics([hyp], [[ref]])
        assert sacre.family_segment_stats("ter", hyp, ref) == [float(x) for x in expected]
        count += 1
    assert count > 3000


def test_shuffled_references_take_sacrebleus_shifts() -> None:
    """A reference's own words in another order: many shifts, each chosen as sacrebleu does."""
    rng = random.Random(26)
    short = [(h, r) for _, h, r in corpus_pairs() if 5 <= len(r.split()) <= 14]
    for _, ref in rng.sample(short, 150):
        words = ref.lower().split()
        rng.shuffle(words)
        same_as_sacrebleu(words, ref.lower().split())


WORDS = st.lists(st.sampled_from(["a", "b", "c", "d", "e", "A"]), max_size=24)


@hypothesis.settings(max_examples=300, deadline=None, derandomize=True)
@hypothesis.given(hyp=WORDS, ref=WORDS)
def test_random_texts_as_shipped_limits(hyp: Words, ref: Words) -> None:
    same_as_sacrebleu(hyp, ref)


def test_the_limits_and_costs_are_the_installed_sacrebleus() -> None:
    """ter_edits writes Tercom's limits as facts and adds unit costs: a sacrebleu that changes
    them must fail here, not change scores quietly."""
    assert (lib_ter._COST_INS, lib_ter._COST_DEL, lib_ter._COST_SUB) == (1, 1, 1)
    assert (
        ter_edits._BEAM,
        ter_edits._MAX_SHIFT_SIZE,
        ter_edits._MAX_SHIFT_DIST,
        ter_edits._MAX_CANDIDATES,
        ter_edits._MAX_CACHE,
    ) == (
        lib_ter._BEAM_WIDTH,
        lib_ter._MAX_SHIFT_SIZE,
        lib_ter._MAX_SHIFT_DIST,
        lib_ter._MAX_SHIFT_CANDIDATES,
        lib_ter._MAX_CACHE_SIZE,
    )


@pytest.fixture
def small_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    """sacrebleu's limits made small, in both implementations, so that short texts meet them."""
    for ours, theirs, value in [
        ("_BEAM", "_BEAM_WIDTH", 2),
        ("_MAX_SHIFT_SIZE", "_MAX_SHIFT_SIZE", 2),
        ("_MAX_SHIFT_DIST", "_MAX_SHIFT_DIST", 3),
        ("_MAX_CANDIDATES", "_MAX_SHIFT_CANDIDATES", 7),
        ("_MAX_CACHE", "_MAX_CACHE_SIZE", 5),
    ]:
        monkeypatch.setattr(ter_edits, ours, value)
        monkeypatch.setattr(lib_ter, theirs, value)


@hypothesis.settings(
    max_examples=400,
    deadline=None,
    derandomize=True,
    suppress_health_check=[hypothesis.HealthCheck.function_scoped_fixture],
)
@hypothesis.given(hyp=WORDS, ref=st.lists(st.sampled_from(["a", "b", "c", "d"]), max_size=40))
def test_random_texts_at_small_limits(small_limits: None, hyp: Words, ref: Words) -> None:
    same_as_sacrebleu(hyp, ref)


def sacrebleu_alignment(hyp: Words, ref: Words) -> tuple[int, list[int], list[int], list[int]]:
    """sacrebleu's distance and its alignment of the flipped trace, as its ``_shift`` reads them."""
    distance, trace = lib_ter.BeamEditDistance(ref)(hyp)
    align, ref_err, hyp_err = lib_ter.trace_to_alignment(lib_ter._flip_trace(trace))
    assert sorted(align) == list(range(len(ref)))
    return distance, [align[j] for j in range(len(ref))], ref_err, hyp_err


@hypothesis.settings(
    max_examples=400,
    deadline=None,
    derandomize=True,
    suppress_health_check=[hypothesis.HealthCheck.function_scoped_fixture],
)
@hypothesis.given(hyp=WORDS, ref=WORDS, small=st.booleans())
def test_the_trace_breaks_ties_as_sacrebleus_does(
    monkeypatch: pytest.MonkeyPatch, hyp: Words, ref: Words, small: bool
) -> None:
    """Which of several equally cheap edits the trace takes decides the shifts tried next."""
    with monkeypatch.context() as patch:
        if small:
            patch.setattr(ter_edits, "_BEAM", 2)
            patch.setattr(lib_ter, "_BEAM_WIDTH", 2)
        ours = ter_edits._BeamDistance(ref, len(hyp)).alignment(hyp)
        assert ours == sacrebleu_alignment(hyp, ref)


def test_long_and_lopsided_texts() -> None:
    """Past the shift distance (50 words), a widened beam (a reference over 50 times longer),
    and the cap of 1,000 candidate shifts."""
    rng = random.Random(8)
    vocab = ["le", "la", "de", "et", "un", "une"]
    cases = [
        ([rng.choice(vocab) for _ in range(70)], [rng.choice(vocab) for _ in range(75)]),
        (["le", "chat"], [rng.choice(vocab) for _ in range(120)]),
        ([rng.choice(vocab) for _ in range(90)], ["le"]),
        ([], ["un", "deux"]),
        (["un", "deux"], []),
    ]
    for hyp, ref in cases:
        same_as_sacrebleu(hyp, ref)
