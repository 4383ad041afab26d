"""ZipfTable against wordfreq's own zipf_frequency, on the human texts the project ships: the
same number for every word, and wordfreq's whole-language dict left unbuilt for the words of
the texts the table was given."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from pytest_mteval.metrics.text import words
from pytest_mteval.metrics.word_frequencies import ZipfTable, packed_bands

wordfreq = pytest.importorskip("wordfreq")
#: wordfreq's function itself, whatever a test counts through it.
direct = wordfreq.zipf_frequency

ROOT = Path(__file__).resolve().parents[1]
#: (corpus, source language, target language), human translations shipped with the project.
CORPORA = [
    (ROOT / "corpora" / "eng-fra-flores-devtest.json", "en", "fr"),
    (ROOT / "tests" / "data" / "reference-harness" / "corpora" / "eng-arb-dev-v1.json", "en", "ar"),
]


def texts(path: Path, limit: int) -> tuple[list[str], list[str]]:
    """Sources and references of a corpus, in either of the two shapes we ship."""
    data = json.loads(path.read_text(encoding="utf-8"))
    entries = data["entries"] if isinstance(data, dict) else data
    sources = [e.get("source") or e.get("source_text") or e["english"] for e in entries]
    references = [e.get("reference") or e.get("target_text") or e["target"] for e in entries]
    return sources[:limit], references[:limit]


def spellings(text_list: list[str]) -> list[str]:
    found = {w for text in text_list for w in words(text)}
    return sorted(found | {w.upper() for w in found} | {w.title() for w in found})


@pytest.fixture
def counted_fallbacks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The words the table handed to wordfreq.zipf_frequency itself."""
    asked: list[str] = []

    def counting(word: str, language: str) -> float:
        asked.append(word)
        return float(direct(word, language))

    monkeypatch.setattr(wordfreq, "zipf_frequency", counting)
    return asked


@pytest.mark.parametrize(("path", "source", "target"), CORPORA, ids=lambda p: getattr(p, "stem", p))
def test_every_word_of_a_corpus_scores_as_wordfreq_scores_it(
    path: Path, source: str, target: str, counted_fallbacks: list[str]
) -> None:
    sources, references = texts(path, 300)
    asked = spellings(sources)
    foreign = [w for w in spellings(references[:40]) if w.casefold() not in set(asked)][:300]
    for language in (source, target):
        table = ZipfTable(language, sources)
        got = {word: table.zipf(word) for word in [*asked, *foreign]}
        fell_back = len(counted_fallbacks)
        counted_fallbacks.clear()
        expected = {word: float(direct(word, language)) for word in got}
        assert got == expected, language
        # the words of the given texts are answered from the table, nearly all of them
        assert fell_back - len(foreign) <= len(asked) // 100, (language, fell_back)


def test_digits_apostrophes_and_hyphens_follow_wordfreqs_rules(
    counted_fallbacks: list[str],
) -> None:
    sources = ["In 2024 the B2B market grew 15% (don't ask), the GOP-Kontrolle said: l'homme."]
    for language in ("en", "fr", "de"):
        table = ZipfTable(language, sources)
        for word in ("2024", "B2B", "15", "don't", "GOP-Kontrolle", "l'homme", "1999", "Welt"):
            assert table.zipf(word) == direct(word, language), (language, word)
    # digits are looked up as their shape ("1999" as "0000", like "2024"): only "Welt" is new
    assert counted_fallbacks == ["Welt"] * 3


def test_without_texts_every_answer_is_wordfreqs_own(counted_fallbacks: list[str]) -> None:
    table = ZipfTable("de", [])
    assert table.zipf("Song") == direct("Song", "de") > 4
    assert table.zipf("qqqzzzx") == 0.0
    assert counted_fallbacks == ["Song", "qqqzzzx"]


@pytest.mark.parametrize("language", ["en", "ar", "fr"])
def test_the_packed_list_reads_as_wordfreqs_own_reader_reads_it(language: str) -> None:
    path = wordfreq.available_languages()[language]
    bands = packed_bands(path)
    assert [[word.decode("utf-8") for word in band] for band in bands] == wordfreq.read_cBpack(path)


def test_a_file_that_is_not_a_packed_list_is_refused_by_name(tmp_path: Path) -> None:
    import msgpack

    forged = tmp_path / "large_xx.msgpack.gz"
    forged.write_bytes(gzip.compress(msgpack.packb([{"format": "cB", "version": 2}, ["word"]])))
    with pytest.raises(ValueError, match=r"large_xx\.msgpack\.gz: not a wordfreq cBpack"):
        packed_bands(str(forged))


def test_a_table_that_adopts_another_tables_read_answers_every_word_as_wordfreq(
    counted_fallbacks: list[str],
) -> None:
    # the prefetch reads in another process, over the corpus file's sources: whatever texts
    # it read, the adopting table's answers are wordfreq's own
    sources, _ = texts(CORPORA[1][0], 200)
    read_elsewhere = ZipfTable("en", sources[:120]).read()
    table = ZipfTable("en", sources[120:])
    table.adopt(read_elsewhere)
    asked = spellings(sources)
    assert {w: table.zipf(w) for w in asked} == {w: float(direct(w, "en")) for w in asked}
    # the adopted words came from the read, the others from wordfreq
    adopted = set(spellings(sources[:120]))
    assert counted_fallbacks
    assert not adopted & set(counted_fallbacks)


def test_a_table_answers_the_words_it_adopted_answers_for_without_tokenizing_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sources, _ = texts(CORPORA[1][0], 60)
    asked = spellings(sources)
    read_elsewhere = ZipfTable("en", sources).read(asked)
    computed: list[str] = []
    real = ZipfTable._computed

    def counting(self: ZipfTable, word: str) -> float:
        computed.append(word)
        return real(self, word)

    monkeypatch.setattr(ZipfTable, "_computed", counting)
    table = ZipfTable("en", sources)
    table.adopt(read_elsewhere)
    table.load()  # the scorer's preparation: nothing left to read
    assert {w: table.zipf(w) for w in asked} == {w: float(direct(w, "en")) for w in asked}
    assert computed == []
    assert table.zipf("Kastanienbaum") == direct("Kastanienbaum", "en")
    assert computed == ["Kastanienbaum"]  # any other word: wordfreq's tokenizer, as before
