"""Code-switching: source-language text left in the output, and words in the wrong script.

A predicted word is *leaked* (MQM: untranslated text) when it is a word of this entry's
source and nothing explains it:

- it is a name: capitalized inside a sentence of this source, or capitalized everywhere in
  the corpus's sources; or the target language accepts it through the language resources'
  lexicon (a word list or a Hunspell dictionary, inflected forms included, see
  ``in_lexicon``) or the glossary's target terms;
- where the target language has word data (``word_data``: wordfreq's lists, 40 languages),
  the target uses it at least a tenth as often as the source language (a loanword, an
  internationalism, a name both use), or the source language's data hardly knows it (a
  scientific name, a coinage), or it has fewer than 4 letters (short strings coincide);
  but an acronym ("DOJ", "GOP" alone or in "GOP-Kontrolle") is leaked, name or not, when
  neither the word data nor the corpus's translators use it (``untranslated_acronym``);
- without word data (Plains Cree, Northern Sami...), the corpus stands in for it: the word is
  in any reference or variant of the corpus, spells like a word of the reference (similarity
  >= 0.75 without accents and case), or the target's analyzer accepts it (without one, it is
  shorter than 4 letters);
- it is written capitalized in this entry's source (a sentence's first word too) and the
  target's word data writes it at least once per 3 million words (``NAME_ZIPF``): a name
  the target shares ("Ottawa" opening a sentence), however much more the source writes it;
- it is a mention (``quoted_mentions``): a short quotation of the source, quoted again.

An output with *no text of its own* (``source_copies``) is untranslated as a whole (MQM:
non-translation): no word, or only words of the corpus's sources that the reference does not
use, the last one perhaps cut short (a copied, cut or upper-cased source, its first word,
another entry's source; without this, a first-word method beat the identity floor, issue 22).

A predicted word is in the *wrong script* when its writing system is neither the target's
(the dominant one of the corpus's references) nor one that this entry's reference uses, unless
it is a name taken from the source. An entry is flagged when it has any of the three.
``code_switching_rate`` is the share of translated entries flagged (errors are not counted).
Numbers are never words here (``text.words`` drops tokens with digits).

Precision and recall against expert MQM judgments (both shared sets) and false alarms on
FLORES-200's human translations, before and after each rule: ``docs/VALIDITY.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from pytest_mteval.corpus import Corpus, Entry
from pytest_mteval.metrics.base import BuiltinFamily, JSONDict, MetricContext
from pytest_mteval.metrics.definition import MeanOfScored, MetricDefinition
from pytest_mteval.metrics.entry_record import EntryRecord
from pytest_mteval.metrics.fst import analyzer_for
from pytest_mteval.metrics.invented_names import capitalized_inside_sentences, plain
from pytest_mteval.metrics.quoted_mentions import kept_mentions
from pytest_mteval.metrics.source_copies import no_text_of_its_own
from pytest_mteval.metrics.spelling import by_length, similar_to_any_of
from pytest_mteval.metrics.target_lexicon import MIN_LETTERS, in_lexicon, target_lexicon
from pytest_mteval.metrics.text import folded_words, words
from pytest_mteval.metrics.word_data import WordData, acronym_parts, word_data
from pytest_mteval.metrics.writing_systems import dominant_system, system_of_word

#: Distinct words whose entry-independent facts one run keeps (a few MB at most).
_MAX_MEMO = 1 << 18


def source_names(sources: Iterable[str]) -> frozenset[str]:
    """Words written capitalized in the sources and never in lower case (case-folded)."""
    capitalized: set[str] = set()
    lower: set[str] = set()
    for source in sources:
        for word in words(source):
            (capitalized if word[0].isupper() else lower).add(word.casefold())
    return frozenset(capitalized - lower)


CODE_SWITCHING: Final = MetricDefinition(
    "code_switching_rate",
    "code-switching",
    MeanOfScored("code_switching_detected"),
    higher_is_better=False,
    shown_at=3,
    card_keys=("code_switching_entries", "target_script"),
)


@dataclass(frozen=True)
class CorpusWords:
    """The corpus's words the per-entry checks compare an output's words with."""

    #: Every word of every reference and variant, case-folded.
    target_vocabulary: frozenset[str]
    #: Words the sources write capitalized and never in lower case, case-folded.
    names: frozenset[str]
    #: Every word of every source, case-folded.
    source_vocabulary: frozenset[str]

    @classmethod
    def of(cls, corpus: Corpus) -> CorpusWords:
        return cls(
            target_vocabulary=corpus_vocabulary(corpus),
            names=source_names(e.source for e in corpus.entries),
            source_vocabulary=frozenset().union(*(folded_words(e.source) for e in corpus.entries)),
        )


class CodeSwitching:
    name = "code_switching"
    definitions = (CODE_SWITCHING,)

    def __init__(
        self,
        target_system: str | None,
        target_vocabulary: frozenset[str] = frozenset(),
        names: frozenset[str] = frozenset(),
        is_target_word: Callable[[str], bool] | None = None,
        lexicon: frozenset[str] = frozenset(),
        word_data: WordData | None = None,
        source_vocabulary: frozenset[str] = frozenset(),
    ) -> None:
        self.lexicon = lexicon
        self.word_data = word_data
        self.target_system = target_system
        self._words: CorpusWords | Corpus = CorpusWords(target_vocabulary, names, source_vocabulary)
        self.is_target_word = is_target_word
        self._facts: dict[str, tuple[bool, bool, bool | None]] = {}

    def learning_from(self, corpus: Corpus) -> CodeSwitching:
        """This metric, its corpus words learnt from ``corpus`` before the first entry is
        scored (``prepare``) instead: a process that only aggregates, as an xdist
        controller, never reads the whole corpus for them."""
        self._words = corpus
        return self

    @property
    def corpus_words(self) -> CorpusWords:
        if not isinstance(self._words, CorpusWords):
            self._words = CorpusWords.of(self._words)
        return self._words

    @property
    def target_vocabulary(self) -> frozenset[str]:
        return self.corpus_words.target_vocabulary

    @property
    def names(self) -> frozenset[str]:
        return self.corpus_words.names

    @property
    def source_vocabulary(self) -> frozenset[str]:
        return self.corpus_words.source_vocabulary

    def leaked(self, predicted_words: list[str], entry: Entry, predicted: str = "") -> list[str]:
        source = folded_words(entry.source) | {
            w.casefold() for w in acronym_parts(words(entry.source))
        }
        source -= kept_mentions(entry.source, predicted)  # kept as cited, not untranslated
        names = self.names | {w.casefold() for w in capitalized_inside_sentences(entry.source)}
        capitalized = {w.casefold() for w in words(entry.source) if w[0].isupper()}
        found = []
        for word in [*predicted_words, *acronym_parts(predicted_words)]:
            folded = word.casefold()
            if folded not in source:
                continue
            lexical, acronym, accepted = self._word_facts(word)
            if lexical:
                continue
            if acronym or (
                folded not in names
                and not (folded in capitalized and self._shared_name(word))
                and not (self.target_accepts(word, entry) if accepted is None else accepted)
            ):
                found.append(word)
        return list(dict.fromkeys(found))

    def _word_facts(self, word: str) -> tuple[bool, bool, bool | None]:
        """What ``leaked`` asks of a word that no entry changes, memoized (a corpus repeats its
        words): in the lexicon, an untranslated acronym, and whether the target accepts it
        (None without word data, where the entry's reference is asked)."""
        facts = self._facts.get(word)
        if facts is None:
            facts = (
                in_lexicon(plain(word), self.lexicon),
                self.untranslated_acronym(word),
                None if self.word_data is None else self.target_accepts(word, None),
            )
            if len(self._facts) < _MAX_MEMO:
                self._facts[word] = facts
        return facts

    def _shared_name(self, word: str) -> bool:
        """Whether the target's data writes ``word`` as often as a name it shares; a word the
        source capitalizes only at a sentence's start is otherwise not known as a name."""
        return self.word_data is not None and self.word_data.target_writes_name(word)

    def untranslated_acronym(self, word: str) -> bool:
        """An acronym of the source that neither the target's data nor the corpus's
        translators use: not a name the target shares, whatever its case and length."""
        return (
            self.word_data is not None
            and word.casefold() not in self.target_vocabulary
            and self.word_data.unknown_acronym(word)
        )

    def target_accepts(self, word: str, entry: Entry | None) -> bool:
        """Whether the target language's data (or, without it, the corpus and ``entry``'s
        reference) explains ``word``; a word the corpus's human translators used is the
        target's in either case."""
        if word.casefold() in self.target_vocabulary:
            return True
        if self.word_data is not None:
            return (
                sum(c.isalpha() for c in word) < MIN_LETTERS
                or self.word_data.target_knows(word)
                or self.word_data.foreign_to_source(word)
            )
        if entry is None:
            raise ValueError("without word data, a word is judged against an entry")
        return (
            word.casefold() in folded_words(entry.reference)
            or (
                self.is_target_word(word)
                if self.is_target_word is not None
                else sum(c.isalpha() for c in word) < MIN_LETTERS
            )
            or similar_to_any_of(plain(word), by_length(plain(w) for w in words(entry.reference)))
        )

    def wrong_script(self, predicted_words: list[str], entry: Entry) -> list[str]:
        if self.target_system is None:
            return []
        reference_words = words(entry.reference)
        allowed = {self.target_system, *(system_of_word(w) for w in reference_words)}
        source = folded_words(entry.source)
        found = [
            word
            for word in predicted_words
            if system_of_word(word) not in allowed
            and not (word.casefold() in source and word.casefold() in self.names)
        ]
        return list(dict.fromkeys(found))

    def no_target_text(self, predicted_words: list[str], entry: Entry) -> bool:
        """Whether the output holds no text of its own (``source_copies``): MQM calls that a
        non-translation; it also keeps an output with nothing to judge from passing as free
        of source-language text."""
        return no_text_of_its_own(predicted_words, entry, self.source_vocabulary)

    def prepare(self) -> None:
        """Learn the corpus's words, and read the word data's lists (their first word would),
        unless they were adopted from the word prefetch, and import wordfreq: 0.03-0.08 s a
        language, 0.06 s; all before an entry's scoring time starts."""
        _ = self.corpus_words
        if self.word_data is not None:
            self.word_data.load()

    def score_entry(self, entry: Entry, predicted: str) -> JSONDict:
        predicted_words = words(predicted)
        leaked = self.leaked(predicted_words, entry, predicted)
        wrong = self.wrong_script(predicted_words, entry)
        copied = self.no_target_text(predicted_words, entry)
        return {
            "code_switching_detected": bool(leaked or wrong or copied),
            "leaked_tokens": leaked,
            "wrong_script_tokens": wrong,
            "no_target_text": copied,
        }

    def aggregate(self, records: Sequence[EntryRecord]) -> JSONDict:
        flagged = sum(1 for r in records if r.get("code_switching_detected"))
        return {
            "code_switching_rate": CODE_SWITCHING.score(records),
            "code_switching_entries": flagged,
            "target_script": self.target_system,
        }


def corpus_vocabulary(corpus: Corpus) -> frozenset[str]:
    """Every word of every reference and variant, case-folded: known target-language words."""
    vocabulary: set[str] = set()
    for entry in corpus.entries:
        for text in (entry.reference, *entry.variants):
            vocabulary |= folded_words(text)
    return frozenset(vocabulary)


def build(context: MetricContext) -> CodeSwitching:
    """Always available: everything it needs is in the corpus (and the analyzer, if any)."""
    corpus = context.corpus
    analyzer = analyzer_for(context)
    return CodeSwitching(
        target_system=dominant_system(e.reference for e in corpus.entries),
        is_target_word=analyzer.accepts if analyzer is not None else None,
        lexicon=target_lexicon(context),
        word_data=word_data(
            corpus.dataset.source_language,
            corpus.dataset.target_language,
            (e.source for e in corpus.entries),
            context.prefetched_words,
        ),
    ).learning_from(corpus)


FAMILY: Final = BuiltinFamily(CodeSwitching, build, build_at=5, report_at=5)
