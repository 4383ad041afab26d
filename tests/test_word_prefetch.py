"""The word frequencies read by a child forked at configure: what the harness would read
itself, adopted only for the run's own corpus, given up when the child fails, and a card the
same byte for byte as a run that reads them itself."""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import METHODS, REPO
from test_scorer_process import card_without_timings

from pytest_mteval.metrics.word_data import frequency_tables
from pytest_mteval.metrics.word_frequencies import ZipfTable
from pytest_mteval.plugin import word_prefetch
from pytest_mteval.plugin.options import read_settings
from pytest_mteval.plugin.word_prefetch import WordPrefetch, corpus_file, source_words
from pytest_mteval.run.forked_child import fork_child, reap
from pytest_mteval.run.hardening import is_dumpable

pytest_plugins = ["pytester"]
pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the prefetch forks")

HARNESS_CORPUS = REPO / "tests" / "data" / "reference-harness" / "corpora" / "eng-arb-dev-v1.json"


def configured(pytester: pytest.Pytester, *args: str) -> pytest.Config:
    """A config with the plugin's options parsed, as ``pytest_configure`` sees it (no run)."""
    return pytester.parseconfig(*args)


def test_the_corpus_file_is_the_one_read_settings_resolves(pytester: pytest.Pytester) -> None:
    (pytester.path / "sub").mkdir()
    (pytester.path / "sub" / "c.json").write_bytes(HARNESS_CORPUS.read_bytes())
    (pytester.path / "sub" / "pytest.ini").write_text("[pytest]\nmteval_corpus = c.json\n")
    ini = ["-c", "sub/pytest.ini"]
    cases = [
        ini,  # from the ini file, relative to it (not to where pytest runs)
        [*ini, "--mteval-corpus=sub/c.json"],  # from the command line, relative to where it runs
        ["--mteval-corpus=shipped:eng-fra-flores-devtest"],
    ]
    for args in cases:
        config = configured(pytester, *args)
        assert corpus_file(config) == read_settings(config).corpus, args


def test_the_child_reads_what_the_harness_would_read_for_the_same_corpus(
    pytester: pytest.Pytester,
) -> None:
    config = configured(pytester, f"--mteval-corpus={HARNESS_CORPUS}")
    digest = hashlib.sha256(HARNESS_CORPUS.read_bytes()).hexdigest()
    prefetch = WordPrefetch(config)
    got = prefetch.take(digest)
    sources = [entry["source"] for entry in _entries(HARNESS_CORPUS)]
    tables = frequency_tables("eng", "arb", sources)
    assert tables is not None
    assert set(got) == {"en", "ar"}
    asked = source_words(sources)
    assert got == {language: table.read(asked) for language, table in tables.items()}
    assert prefetch.take(digest) is got  # once: the child is gone
    with pytest.raises(ChildProcessError):
        os.waitpid(prefetch._pid, os.WNOHANG)  # reaped


def test_a_read_for_another_corpus_or_from_a_failed_child_is_not_adopted(
    pytester: pytest.Pytester,
) -> None:
    config = configured(pytester, f"--mteval-corpus={HARNESS_CORPUS}")
    assert WordPrefetch(config).take("0" * 64) == {}  # the file changed since: not the run's
    broken = pytester.path / "broken.json"
    broken.write_text('{"dataset": {"source_language": "en"', encoding="utf-8")
    config = configured(pytester, f"--mteval-corpus={broken}")
    assert WordPrefetch(config).take(hashlib.sha256(broken.read_bytes()).hexdigest()) == {}


def test_a_child_that_does_not_answer_in_time_is_killed_and_gives_nothing(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(word_prefetch, "_read_words", lambda config: time.sleep(60))
    monkeypatch.setattr(word_prefetch, "TIMEOUT_S", 0.2)
    prefetch = WordPrefetch(configured(pytester, f"--mteval-corpus={HARNESS_CORPUS}"))
    started = time.monotonic()
    assert prefetch.take("whatever") == {}
    assert time.monotonic() - started < 30
    with pytest.raises(ChildProcessError):
        os.waitpid(prefetch._pid, os.WNOHANG)


def test_a_child_of_the_harness_cannot_be_read_by_the_users_other_processes_nor_holds_its_files(
    tmp_path: Path,
) -> None:
    # the prefetch child holds the whole corpus file, references included, from configure on,
    # before the harness itself turns not dumpable for its runner
    held_open = (tmp_path / "secret").open("w")
    try:
        pid, pipe = fork_child(lambda p: p.send((is_dumpable(), os.listdir("/proc/self/fd"))))
        dumpable, descriptors = pipe.recv()
        reap(pid)
    finally:
        held_open.close()
    assert dumpable is False
    assert len(descriptors) <= 5  # stdin, stdout, stderr, its pipe, the listing's own


def test_a_run_with_the_prefetch_writes_the_card_of_a_run_that_reads_the_words_itself(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    adopted: list[str] = []
    real_adopt = ZipfTable.adopt

    def counted(self: ZipfTable, read: Any) -> None:
        adopted.append(self.language)
        real_adopt(self, read)

    monkeypatch.setattr(ZipfTable, "adopt", counted)
    args = [
        f"--mteval-corpus={HARNESS_CORPUS}",
        f"--mteval-method={METHODS / 'identity'}",
        "--mteval-sandbox=none",
        "-p",
        "no:cacheprovider",
    ]
    prefetched = pytester.runpytest(*args, f"--mteval-run-card={pytester.path / 'a.json'}")
    assert prefetched.ret == 0
    assert sorted(adopted) == ["ar", "en"]
    monkeypatch.setattr(word_prefetch, "MAX_CORPUS_BYTES", 0)  # not prefetched: read here
    adopted.clear()
    read_here = pytester.runpytest(*args, f"--mteval-run-card={pytester.path / 'b.json'}")
    assert read_here.ret == 0
    assert adopted == []
    card = card_without_timings(pytester.path / "a.json")
    assert card["scores"]["code_switching_entries"] > 0  # the identity method copies English
    assert card == card_without_timings(pytester.path / "b.json")


def _entries(path: Path) -> list[dict[str, Any]]:
    import json

    entries: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))["entries"]
    return entries
