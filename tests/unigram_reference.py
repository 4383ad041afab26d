"""The unigram tokenizer as it was before segmenting word by word with a cache (commit
75d1b0b, ``pytest_mteval/metrics/unigram.py``), kept unchanged as the reference the faster one
must equal id for id (``tests/test_unigram_tokenizer.py``, ``benchmarks/semantic_speed.py``):
one Viterbi over the whole normalized text, every length up to the longest piece tried at
every position."""

from __future__ import annotations

import re

from pytest_mteval.metrics.packed_model import Vocabulary

#: SentencePiece's word-start marker.
METASPACE = "\u2581"
#: SentencePiece's penalty for an unknown character, below the least likely piece.
UNKNOWN_PENALTY = 10.0
_SPACES = re.compile(" {2,}")


class WholeTextUnigramTokenizer:
    """Text -> piece ids (no <s>/</s>), by Viterbi over the vocabulary's scores."""

    def __init__(self, vocabulary: Vocabulary) -> None:
        self.vocabulary = vocabulary
        scores = vocabulary.scores.tolist()
        specials = {vocabulary.bos, vocabulary.eos, vocabulary.pad, vocabulary.unk}
        #: Piece -> (id, score); the special tokens are never matched inside text.
        self._pieces: dict[str, tuple[int, float]] = {}
        for index, piece in enumerate(vocabulary.pieces):
            if index not in specials and piece and piece not in self._pieces:
                self._pieces[piece] = (index, float(scores[index]))
        self._longest = max(len(piece) for piece in self._pieces)
        self._unknown_score = float(min(scores)) - UNKNOWN_PENALTY
        self._normalize = str.maketrans(vocabulary.normalization)

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
        n = len(chars)
        best = [float("-inf")] * (n + 1)
        best[0] = 0.0
        back: list[tuple[int, int]] = [(0, 0)] * (n + 1)  # (start, piece id) of the last piece
        pieces, longest = self._pieces, self._longest
        for start in range(n):
            here = best[start]
            if here == float("-inf"):
                continue
            for end in range(start + 1, min(n, start + longest) + 1):
                found = pieces.get(chars[start:end])
                if found is not None and here + found[1] > best[end]:
                    best[end] = here + found[1]
                    back[end] = (start, found[0])
            if here + self._unknown_score > best[start + 1]:
                best[start + 1] = here + self._unknown_score
                back[start + 1] = (start, self.vocabulary.unk)
        ids: list[int] = []
        end = n
        while end > 0:
            start, piece = back[end]
            ids.append(piece)
            end = start
        ids.reverse()
        return ids
