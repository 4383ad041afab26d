"""SentencePiece unigram tokenization (Kudo, ACL 2018), as XLM-RoBERTa's tokenizer does it: the
most probable segmentation of the normalized text into vocabulary pieces.

Why here: the multilingual model of the semantic score reads XLM-R pieces, and the packed
model file ships the vocabulary (pieces and log-probabilities) and a per-character
normalization map, but no tokenizer library. Steps: map each character through the
normalization map, collapse runs of spaces, mark word starts with U+2581 (one before the
text unless it begins with a space), then Viterbi: the segmentation that maximizes the sum of
the pieces' scores, a character no piece covers being one <unk> whose score is the lowest
piece score minus 10 (SentencePiece's penalty).

Why per word, and cached: no piece holds U+2581 after its first character (checked when the
vocabulary is loaded), so every piece boundary falls before each U+2581 and the best
segmentation of the text is the best segmentations of its words, each a U+2581 and what
follows up to the next one. The scores are float32 values, so their sums in float64 are
exact (no rounding that would depend on where a word starts), and a word's segmentation is
the same wherever it stands: it is computed once per word and kept (words repeat across a
corpus). A vocabulary that breaks the rule is segmented whole, as before.
"""

from __future__ import annotations

import re
from functools import lru_cache

from pytest_mteval.metrics.packed_model import Vocabulary

#: SentencePiece's word-start marker.
METASPACE = "\u2581"
#: SentencePiece's penalty for an unknown character, below the least likely piece.
UNKNOWN_PENALTY = 10.0
#: Words whose segmentation is kept (a FLORES devtest side has about 10,000 distinct words).
CACHED_WORDS = 1 << 16
_SPACES = re.compile(" {2,}")


class UnigramTokenizer:
    """Text -> piece ids (no <s>/</s>), by Viterbi over the vocabulary's scores."""

    def __init__(self, vocabulary: Vocabulary) -> None:
        self.vocabulary = vocabulary
        scores = vocabulary.scores.tolist()
        specials = {vocabulary.bos, vocabulary.eos, vocabulary.pad, vocabulary.unk}
        #: Piece -> (id, score); the special tokens are never matched inside text.
        self._pieces: dict[str, tuple[int, float]] = {}
        #: First character -> length of the longest piece it starts (no lookups beyond it).
        self._reach: dict[str, int] = {}
        for index, piece in enumerate(vocabulary.pieces):
            if index not in specials and piece and piece not in self._pieces:
                self._pieces[piece] = (index, float(scores[index]))
                if len(piece) > self._reach.get(piece[0], 0):
                    self._reach[piece[0]] = len(piece)
        self._unknown_score = float(min(scores)) - UNKNOWN_PENALTY
        self._normalize = str.maketrans(vocabulary.normalization)
        #: Whether segmenting word by word gives the whole text's segmentation (see above).
        self.per_word = not any(METASPACE in piece[1:] for piece in self._pieces)
        self._word = lru_cache(maxsize=CACHED_WORDS)(self._segment)

    def normalized(self, text: str) -> str:
        """The text as the pieces spell it: normalized, spaces collapsed, word starts marked."""
        text = _SPACES.sub(" ", text.translate(self._normalize))
        if not text.startswith(" "):
            text = " " + text
        return text.replace(" ", METASPACE)

    def pieces(self, text: str) -> list[int]:
        """The ids of the most probable segmentation of ``text`` (none for a blank text, as
        SentencePiece gives: not a lone word-start marker that would match other texts)."""
        chars = self.normalized(text)
        if not chars.strip(METASPACE):
            return []
        if not self.per_word:
            return list(self._segment(chars))
        ids: list[int] = []
        word = self._word
        for rest in chars[1:].split(METASPACE):  # chars begins with the marker
            ids += word(METASPACE + rest)
        return ids

    def _segment(self, chars: str) -> tuple[int, ...]:
        """Viterbi over ``chars``: at each start, the pieces it begins in order of length,
        then an unknown character; a later candidate replaces an earlier only if better."""
        n = len(chars)
        best = [0.0] + [float("-inf")] * n
        back_start = [0] * (n + 1)  # where the last piece of the best path to here starts
        back_id = [0] * (n + 1)  # and its id
        get, reach = self._pieces.get, self._reach.get
        unknown, unknown_score = self.vocabulary.unk, self._unknown_score
        for start in range(n):
            here = best[start]
            for end in range(start + 1, min(n, start + reach(chars[start], 0)) + 1):
                found = get(chars[start:end])
                if found is not None and here + found[1] > best[end]:
                    best[end] = here + found[1]
                    back_start[end] = start
                    back_id[end] = found[0]
            if here + unknown_score > best[start + 1]:
                best[start + 1] = here + unknown_score
                back_start[start + 1] = start
                back_id[start + 1] = unknown
        ids: list[int] = []
        end = n
        while end > 0:
            ids.append(back_id[end])
            end = back_start[end]
        ids.reverse()
        return tuple(ids)
