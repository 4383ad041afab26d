"""FST acceptance: the share of predicted words that the target language's analyzer accepts.

A word the analyzer accepts is a real, well-formed word form of the language (benchmark spec
§4.1). The analyzer is an HFST optimized-lookup file (``.hfstol``), loaded once per process and
path; lookups are memoized, so a word costs one lookup per process however often it occurs.
hfst enforces flag diacritics during lookup; they are only stripped from the analyses shown.

Case: the analyzers are written in lower case, while sentences start with a capital and names
carry one. A word is therefore accepted when the analyzer accepts it as written or lower-cased.
Capitals carry no morphology in the orthographies these analyzers cover, and an English word
is rejected by the strict analyzer in either case.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any, Final

from pytest_mteval.corpus import Entry
from pytest_mteval.errors import MtevalError
from pytest_mteval.metrics.base import BuiltinFamily, JSONDict, MetricContext
from pytest_mteval.metrics.definition import MetricDefinition, RatioOfCounts
from pytest_mteval.metrics.entry_record import EntryRecord
from pytest_mteval.metrics.resources import corpus_resources
from pytest_mteval.metrics.text import words

__all__ = [
    "Analyzer",
    "FstAcceptance",
    "FstError",
    "analyzer_for",
    "build",
    "load_analyzer",
    "words",
]

FLAG_DIACRITIC = re.compile(r"@[PNDRCU]\.[^@]*@")
#: Longer "words" are garbage (a run of letters with no spaces); they are rejected unlooked-up.
MAX_WORD_LENGTH = 200


class FstError(MtevalError):
    """An analyzer file that cannot be loaded; the message is meant to be shown as is."""


class Analyzer:
    """A loaded analyzer with memoized lookups. Build it with ``load_analyzer``."""

    def __init__(self, path: Path, transducer: Any, sha256: str) -> None:
        self.path = path
        self.sha256 = sha256
        self._transducer = transducer
        self._lookup = lru_cache(maxsize=200_000)(self._uncached_analyses)

    def analyses(self, word: str) -> list[str]:
        """The analyses of a word (as written, else lower-cased), flag diacritics stripped."""
        found = self._lookup(word)
        if not found and word != word.lower():
            found = self._lookup(word.lower())
        return list(found)

    def accepts(self, word: str) -> bool:
        return bool(self.analyses(word))

    def _uncached_analyses(self, word: str) -> tuple[str, ...]:
        if not word or len(word) > MAX_WORD_LENGTH:
            return ()
        raw = self._transducer.lookup(word)
        return tuple(dict.fromkeys(FLAG_DIACRITIC.sub("", analysis) for analysis, _ in raw))


@lru_cache(maxsize=8)
def _load(path: Path) -> Analyzer:
    import hfst  # imported here so that runs without an analyzer never pay for it

    try:
        data = path.read_bytes()
        stream = hfst.HfstInputStream(str(path))
        transducer = stream.read()
        stream.close()
    except Exception as exc:  # hfst raises its own exception types, none of them exported
        raise FstError(
            f"{path}: cannot load an HFST analyzer: {type(exc).__name__} {exc}"
        ) from None
    if transducer.get_type() not in (
        hfst.ImplementationType.HFST_OL_TYPE,
        hfst.ImplementationType.HFST_OLW_TYPE,
    ):
        transducer.convert(hfst.ImplementationType.HFST_OL_TYPE)  # slow once, fast lookups after
    return Analyzer(path, transducer, hashlib.sha256(data).hexdigest())


def load_analyzer(path: str | Path) -> Analyzer:
    """The analyzer at ``path``, loaded once per process (cached by resolved path)."""
    resolved = Path(path).resolve()
    if not resolved.is_file():
        raise FstError(f"{resolved}: no such analyzer file")
    return _load(resolved)


def analyzer_for(context: MetricContext) -> Analyzer | None:
    """The run's analyzer: ``--mteval-fst`` first, else the corpus's language resources."""
    path = context.fst_path
    if path is None:
        resources = corpus_resources(context.corpus)
        path = resources.fst if resources else None
    return None if path is None else load_analyzer(path)


FST_ACCEPTANCE: Final = MetricDefinition(
    "fst_acceptance_rate",
    "FST acceptance",
    RatioOfCounts("fst_accepted_words", "fst_words"),
    shown_at=1,
    card_keys=("fst_accepted", "fst_words", "fst_version"),
)


class FstAcceptance:
    """Per entry: whether every word is accepted, and which are not; per run: accepted words
    over all words (errored entries add no words)."""

    name = "fst"
    definitions = (FST_ACCEPTANCE,)

    def __init__(self, analyzer: Analyzer) -> None:
        self.analyzer = analyzer

    def score_entry(self, entry: Entry, predicted: str) -> JSONDict:
        found = words(predicted)
        rejected = [w for w in found if not self.analyzer.accepts(w)]
        return {
            "fst_valid": (not rejected) if found else None,
            "fst_words": len(found),
            "fst_accepted_words": len(found) - len(rejected),
            "fst_rejected_words": list(dict.fromkeys(rejected)),
        }

    def aggregate(self, records: Sequence[EntryRecord]) -> JSONDict:
        total = sum(r.get("fst_words") or 0 for r in records)
        return {
            "fst_acceptance_rate": FST_ACCEPTANCE.score(records),
            "fst_accepted": sum(1 for r in records if r.get("fst_valid") is True),
            "fst_words": total,
            "fst_version": self.analyzer.sha256,
        }


def build(context: MetricContext) -> FstAcceptance | None:
    """FST acceptance for this run, or None when no analyzer is configured."""
    analyzer = analyzer_for(context)
    return None if analyzer is None else FstAcceptance(analyzer)


FAMILY: Final = BuiltinFamily(FstAcceptance, build, build_at=1, report_at=2)
