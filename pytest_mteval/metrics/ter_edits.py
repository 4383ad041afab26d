"""TER's edit count: sacrebleu's ``lib_ter.translation_edit_rate``, the same numbers, faster.

sacrebleu's TER (a port of Tercom) was the largest single cost of a run's scoring: its beam edit
distance builds a tuple of tuples for every cell of the matrix. This is the same algorithm step
for step, so that no score changes: the same beam around the pseudo-diagonal, the same
preference between edit operations when costs tie (hence the same trace, alignment and shifts),
the same candidate shifts in the same order, the same limits (shift size and distance, the
cap on candidates). Only the representation differs: a row is a list of ints (unreachable cells
are infinity, as sacrebleu's ``_INT_INFINITY`` is never improved on), the operations are read
back from the costs only for the one trace a shift round needs, and the reference positions of a
hypothesis word are looked up instead of scanned. A case sacrebleu refuses (a trace through an
unreachable cell) is handed to sacrebleu itself. ``tests/test_ter_edits.py`` compares the two on
every shipped corpus and on random texts.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence

from sacrebleu.metrics.lib_ter import translation_edit_rate as sacrebleu_edit_rate

_INF = math.inf
# Tercom's unit costs (insertion, deletion, substitution: the rows below add 1) and limits as
# sacrebleu 2.x sets them (facts, not its code: sacrebleu's private names are
# read only in ``metrics/sacre.py``; ``tests/test_ter_edits.py`` checks them against the
# installed sacrebleu): the beam around the diagonal, the longest shifted run, how far it may
# move, how many candidate shifts a round tries, and the prefixes the distance cache keeps.
_BEAM = 25
_MAX_SHIFT_SIZE = 10
_MAX_SHIFT_DIST = 50
_MAX_CANDIDATES = 1000
_MAX_CACHE = 10000

Row = list[float]


class _Unreachable(Exception):
    """A trace would cross a cell outside the beam, which sacrebleu refuses in its own way."""


def translation_edit_rate(words_hyp: list[str], words_ref: list[str]) -> tuple[int, int]:
    """(edits, reference length), what sacrebleu's function of the same name returns."""
    if not words_ref:
        return len(words_hyp), 0
    try:
        return _edits(words_hyp, words_ref), len(words_ref)
    except _Unreachable:
        return sacrebleu_edit_rate(words_hyp, words_ref)


def _edits(words_hyp: list[str], words_ref: list[str]) -> int:
    distance = _BeamDistance(words_ref, len(words_hyp))
    shifts = 0
    words = words_hyp
    checked = 0
    while True:
        delta, shifted, checked = _best_shift(words, distance, checked)
        if checked >= _MAX_CANDIDATES or delta <= 0:
            break
        shifts += 1
        words = shifted
    return shifts + distance.cost(words)


class _BeamDistance:
    """The beam edit distance from one reference to hypotheses of one length (shifts keep the
    length), with sacrebleu's cache: a trie of hypothesis prefixes holding their rows."""

    def __init__(self, ref: list[str], n_hyp: int) -> None:
        self.ref = ref
        self.n_ref = n_ref = len(ref)
        self.n_hyp = n_hyp
        ratio = n_ref / n_hyp if n_hyp else 1
        beam = math.ceil(ratio / 2 + _BEAM) if ratio / 2 > _BEAM else _BEAM
        self.bounds = [(0, n_ref + 1)]
        for i in range(1, n_hyp + 1):
            diagonal = math.floor(i * ratio)
            high = n_ref + 1 if i == n_hyp else min(n_ref + 1, diagonal + beam)
            self.bounds.append((max(0, diagonal - beam), high))
        self.initial: Row = list(range(n_ref + 1))
        self.trie: dict[str, tuple[dict, Row]] = {}  # type: ignore[type-arg]
        self.trie_size = 0
        self.positions: dict[str, list[int]] = {}
        for j, word in enumerate(ref):
            self.positions.setdefault(word, []).append(j)

    def cost(self, words: Sequence[str]) -> int:
        value = self.rows(words)[-1][-1]
        if value == _INF:
            raise _Unreachable
        return int(value)

    def rows(self, words: Sequence[str]) -> list[Row]:
        """Every row of the matrix for ``words``, the cached prefix's rows reused."""
        node = self.trie
        rows = [self.initial]
        for word in words:
            hit = node.get(word)
            if hit is None:
                break
            node, row = hit
            rows.append(row)
        cached = len(rows) - 1
        ref, n_ref, bounds = self.ref, self.n_ref, self.bounds
        for i in range(cached + 1, self.n_hyp + 1):
            prev = rows[-1]
            low, high = bounds[i]
            word = words[i - 1]
            if low == 0:
                left = prev[0] + 1
                row = [left]
                low = 1
            else:
                left = _INF
                row = [_INF] * low
            for diag, up, ref_word in zip(
                prev[low - 1 : high - 1], prev[low:high], ref[low - 1 : high - 1], strict=True
            ):
                cost = diag if word == ref_word else diag + 1
                up += 1
                if up < cost:
                    cost = up
                left += 1
                if left < cost:
                    cost = left
                row.append(cost)
                left = cost
            row.extend([_INF] * (n_ref + 1 - high))
            rows.append(row)
        if self.trie_size < _MAX_CACHE:
            for word, row in zip(words[cached:], rows[cached + 1 :], strict=True):
                if word not in node:
                    node[word] = ({}, row)
                    self.trie_size += 1
                node = node[word][0]
        return rows

    def alignment(self, words: Sequence[str]) -> tuple[int, list[int], list[int], list[int]]:
        """The distance, and sacrebleu's ``trace_to_alignment`` of the flipped trace: for each
        reference word the
        hypothesis position it aligns to, and the error flags of reference and hypothesis.
        The trace's operations are read back from the costs, in sacrebleu's order of
        preference (substitution or match, then deletion, then insertion)."""
        rows = self.rows(words)
        ref, bounds = self.ref, self.bounds
        i, j = self.n_hyp, self.n_ref
        if rows[i][j] == _INF:
            raise _Unreachable
        distance = int(rows[i][j])
        ops: list[str] = []  # backwards; "h" consumes a hypothesis word, "r" a reference word
        while i > 0 or j > 0:
            if i == 0:
                ops.append("r")
                j -= 1
                continue
            low, high = bounds[i]
            here = rows[i][j]
            if not low <= j < high or here == _INF:
                raise _Unreachable
            if j == 0:
                ops.append("h")
                i -= 1
                continue
            matched = words[i - 1] == ref[j - 1]
            if rows[i - 1][j - 1] + (not matched) == here:
                ops.append(" " if matched else "s")
                i -= 1
                j -= 1
            elif rows[i - 1][j] + 1 == here:
                ops.append("h")
                i -= 1
            else:
                ops.append("r")
                j -= 1
        align: list[int] = []
        ref_err: list[int] = []
        hyp_err: list[int] = []
        pos_hyp = -1
        for op in reversed(ops):
            if op == "h":
                pos_hyp += 1
                hyp_err.append(1)
            elif op == "r":
                align.append(pos_hyp)
                ref_err.append(1)
            else:
                pos_hyp += 1
                align.append(pos_hyp)
                error = 0 if op == " " else 1
                hyp_err.append(error)
                ref_err.append(error)
        return distance, align, ref_err, hyp_err


def _best_shift(
    words: list[str], distance: _BeamDistance, checked: int
) -> tuple[float, list[str], int]:
    """sacrebleu's ``_shift``: the shift that lowers the edit distance most, by Tercom's
    ranking (gain, then length, then earliest start, then earliest target)."""
    pre_score, align, ref_err, hyp_err = distance.alignment(words)
    n_ref = distance.n_ref
    best: tuple[float, int, int, int, list[str]] | None = None
    for start_h, start_r, length in _shifted_pairs(words, distance.ref, distance.positions):
        if not any(hyp_err[start_h : start_h + length]):
            continue
        if not any(ref_err[start_r : start_r + length]):
            continue
        if start_h <= align[start_r] < start_h + length:
            continue
        prev_idx = -1
        for offset in range(-1, length):
            at = start_r + offset
            if at == -1:
                idx = 0
            elif at < n_ref:
                idx = align[at] + 1
            else:
                break
            if idx == prev_idx:
                continue
            prev_idx = idx
            shifted = _perform_shift(words, start_h, length, idx)
            candidate = (pre_score - distance.cost(shifted), length, -start_h, -idx, shifted)
            checked += 1
            if not best or candidate > best:
                best = candidate
        if checked >= _MAX_CANDIDATES:
            break
    if not best:
        return 0, words, checked
    return best[0], best[4], checked


def _shifted_pairs(
    words_h: list[str], words_r: list[str], positions: dict[str, list[int]]
) -> Iterator[tuple[int, int, int]]:
    """(hypothesis start, reference start, length) of every run the two texts share, each
    prefix of a run in turn, starts within the shift distance, in Tercom's order (hypothesis
    start, then reference start, then length); the reference starts of a word are looked up."""
    n_h, n_r = len(words_h), len(words_r)
    for start_h, word in enumerate(words_h):
        for start_r in positions.get(word, ()):
            if abs(start_r - start_h) > _MAX_SHIFT_DIST:
                continue
            longest = min(_MAX_SHIFT_SIZE, n_h - start_h, n_r - start_r)
            length = 0
            while length < longest and words_h[start_h + length] == words_r[start_r + length]:
                length += 1
                yield start_h, start_r, length


def _perform_shift(words: list[str], start: int, length: int, target: int) -> list[str]:
    """``length`` words from ``start`` moved before the word at ``target`` (Tercom's shift; a
    target past the run counts positions of the words as they were)."""
    run = words[start : start + length]
    rest = words[:start] + words[start + length :]
    at = target - length if target > start + length else target
    return rest[:at] + run + rest[at:]
