"""Orthographic accuracy: the share of predicted letters that belong to the target orthography.

Only letters count (a letter with the combining marks that follow it is one letter, compared
after NFC): whitespace, digits, punctuation and symbols belong to every orthography and to
none, so they neither help nor hurt. Case is ignored, because the declared character sets
list lower-case letters while sentences start with a capital. A letter that the declared set
lacks (an ``é`` in Cree SRO, a Latin letter in a Syllabics text) counts against the prediction.
The run's figure is letters in the set over all predicted letters.

Text copied from the source is not writing in the target orthography, whatever its letters: the
words of an output that are words of the entry's source (case ignored), or the start of one (a
copy cut short), count neither way, and an output with no other word (a copied, cut or
upper-cased source) has all its letters counted as foreign. Otherwise a copy of an English
source would score by how many of its letters the target alphabet happens to share, and a copy
cut short (fewer ``b``, ``l``, ``u``) could beat the whole copy.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import regex

from pytest_mteval.corpus import Entry
from pytest_mteval.metrics.base import BuiltinFamily, JSONDict, MetricContext
from pytest_mteval.metrics.definition import MetricDefinition, RatioOfCounts
from pytest_mteval.metrics.entry_record import EntryRecord
from pytest_mteval.metrics.resources import Orthography, corpus_resources
from pytest_mteval.metrics.text import nfc

_LETTER = regex.compile(r"\p{L}\p{M}*")
_WORD = regex.compile(r"[\p{L}\p{M}\p{N}'’-]+")
#: Foreign letters listed per entry, at most this many distinct ones.
MAX_LISTED = 20


ORTHOGRAPHY: Final = MetricDefinition(
    "orthographic_accuracy",
    "orthographic accuracy",
    RatioOfCounts("orthography_valid_letters", "orthography_letters"),
    shown="never",
    card_keys=("orthography",),
)


class OrthographicAccuracy:
    name = "orthography"
    definitions = (ORTHOGRAPHY,)

    def __init__(self, orthography: Orthography) -> None:
        self.orthography = orthography

    def score_entry(self, entry: Entry, predicted: str) -> JSONDict:
        written = [w for w in _WORD.findall(nfc(predicted)) if _LETTER.search(w)]
        own = [w for w in written if not copied_from(w, entry.source)]
        letters: list[str] = [c for w in (own or written) for c in _LETTER.findall(w)]
        # nothing but the source's own words: none of it is the target's writing
        foreign = [c for c in letters if c not in self.orthography.characters] if own else letters
        return {
            "orthography_letters": len(letters),
            "orthography_valid_letters": len(letters) - len(foreign),
            "orthographic_accuracy": 1 - len(foreign) / len(letters) if letters else None,
            "orthography_foreign_letters": list(dict.fromkeys(foreign))[:MAX_LISTED],
        }

    def aggregate(self, records: Sequence[EntryRecord]) -> JSONDict:
        return {
            "orthographic_accuracy": ORTHOGRAPHY.score(records),
            "orthography": self.orthography.name,
        }


def copied_from(word: str, source: str) -> bool:
    """Whether ``word`` is a word of ``source`` or the start of one (case ignored)."""
    folded = word.casefold()
    return any(w.casefold().startswith(folded) for w in _WORD.findall(nfc(source)))


def build(context: MetricContext) -> OrthographicAccuracy | None:
    """None when the corpus declares no orthography in its language resources."""
    resources = corpus_resources(context.corpus)
    if resources is None or resources.orthography is None:
        return None
    return OrthographicAccuracy(resources.orthography)


FAMILY: Final = BuiltinFamily(OrthographicAccuracy, build, build_at=4, report_at=8)
