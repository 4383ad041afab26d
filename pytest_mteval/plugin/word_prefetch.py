"""The corpus's word frequencies, read on the second core from the moment pytest is configured.

The code-switching detector asks wordfreq's lists about the words of the outputs, reading the
frequencies of the corpus's source tokens once: about 0.2 s for a language pair (wordfreq's
import, 0.03-0.08 s a list, the tokens). In a small run that was on the way to the first
scored entry, since the scorer process could only start it once the harness had imported what
a run needs and built its metrics, 0.3 s after configure. A child forked at
``pytest_configure``, before those imports, now reads them beside the harness: it takes the
language pair and the sources from the corpus file (JSON, without the harness's 0.2 s of
imports for settings and validation), builds the tables the detector builds, and sends what
they read, with their answers for every word of the sources (``source_words``) and the file's
digest; the harness adopts it when it builds the detector (``word_data``'s ``prefetched``),
and the scorer process, forked later, inherits it.

Scores never depend on it: a table answers exactly for any tokens it holds (a token it did not
ask about is asked of wordfreq itself, so more sources, or other ones, change no answer), a
read for a corpus whose digest is not the run's is not adopted, and a child that fails, dies
or takes longer than ``TIMEOUT_S`` gives nothing: the tables read as before. Started only
where it may pay: on Linux (fork), in a process that scores (not an xdist controller, not
``--collect-only``, a dry run or ``--help``), unless the code-switching metric is skipped,
for a corpus file of at most ``MAX_CORPUS_BYTES`` (a larger run's start is a small part of it,
and the child would hold a second copy of the corpus).
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Iterable, Mapping
from multiprocessing.connection import Connection
from pathlib import Path

import pytest

from pytest_mteval.metrics.word_frequencies import Read
from pytest_mteval.option_catalog import spec
from pytest_mteval.plugin.xdist_internals import distributes
from pytest_mteval.run.forked_child import fork_child, reap
from pytest_mteval.shipped_corpora import PREFIX, shipped_corpus

#: A larger corpus file is not prefetched (about 3,000 entries of the reference harness's shape).
MAX_CORPUS_BYTES = 4 << 20
#: How long the harness waits for the child when it builds the detector before reading itself.
TIMEOUT_S = 30.0

#: What the child sends: the digest of the corpus it read, and each language's table's read.
Prefetched = tuple[str, dict[str, Read]]


class WordPrefetch:
    """One child reading the run's word frequencies; ``take`` them once, ``close`` at the end."""

    def __init__(self, config: pytest.Config) -> None:
        self._pid, pipe = fork_child(lambda theirs: theirs.send(_read_words(config)))
        self._pipe: Connection | None = pipe
        self._taken: dict[str, Read] | None = None

    def take(self, corpus_sha256: str) -> Mapping[str, Read]:
        """What the child read for the corpus of this digest, by language; empty when it read
        nothing, another corpus, or did not answer in time."""
        if self._taken is None:
            self._taken = self._receive(corpus_sha256)
        return self._taken

    def _receive(self, corpus_sha256: str) -> dict[str, Read]:
        got: object = None
        try:
            if self._pipe is not None and self._pipe.poll(TIMEOUT_S):
                got = self._pipe.recv()
        except (EOFError, OSError):
            pass  # the child died: nothing to adopt
        finally:
            self.close()
        if isinstance(got, tuple) and len(got) == 2 and got[0] == corpus_sha256:
            return dict(got[1])
        return {}

    def close(self) -> None:
        """End the child (killed if it is still reading) and reap it."""
        if self._pipe is None:
            return
        self._pipe.close()
        self._pipe = None
        reap(self._pid, kill=True)


def start_word_prefetch(config: pytest.Config) -> WordPrefetch | None:
    """A prefetch for this run where one may pay (see the module docstring), else None."""
    option = config.option
    quiet = getattr(option, "collectonly", False) or getattr(option, "help", False)
    quiet = quiet or bool(_value(config, "dry-run"))
    skipped = " ".join(_values(config, "skip-metric")).replace(",", " ").split()
    if sys.platform != "linux" or quiet or distributes(config) or "code_switching" in skipped:
        return None
    prefetch = WordPrefetch(config)
    config.add_cleanup(prefetch.close)
    return prefetch


def corpus_file(config: pytest.Config) -> Path | None:
    """The corpus file as ``read_settings`` resolves it (a command-line path from where pytest
    runs, an ini path from the ini file, ``shipped:NAME`` installed), without its imports."""
    given = config.getoption(spec("corpus").dest)
    raw = str(given or _value(config, "corpus") or "")
    if not raw:
        return None
    if raw.startswith(PREFIX):
        return shipped_corpus(raw[len(PREFIX) :])
    ini = config.inipath
    base = ini.parent if given is None and ini is not None else config.invocation_params.dir
    return base / raw


def _value(config: pytest.Config, name: str) -> object:
    dest = spec(name).dest
    given = config.getoption(dest)
    return given if given is not None else config.getini(dest)


def _values(config: pytest.Config, name: str) -> list[str]:
    found = _value(config, name)
    return [str(value) for value in found] if isinstance(found, list) else []


def _read_words(config: pytest.Config) -> Prefetched | None:  # pragma: no cover - in the child
    """In the child: the languages and sources of the corpus file, and its tables' reads.
    Only what scores need not trust is read here (no validation: that is the harness's); a
    file of another shape, or encrypted, gives nothing. What only the child needs is imported
    here, after the fork: the harness forks it before any of the run's imports."""
    from pytest_mteval.metrics.word_data import frequency_tables

    path = corpus_file(config)
    if path is None or not path.is_file() or path.stat().st_size > MAX_CORPUS_BYTES:
        return None
    data = path.read_bytes()
    document = json.loads(data)
    field = str(_value(config, "source-field") or spec("source-field").default)
    pair = _language_pair(document)
    entries = document.get("entries") if isinstance(document, dict) else None
    if pair is None or not isinstance(entries, list):
        return None
    sources = [e[field] for e in entries if isinstance(e, dict) and isinstance(e.get(field), str)]
    tables = frequency_tables(*pair, sources) if sources else None
    if tables is None:
        return None
    asked = source_words(sources)
    digest = hashlib.sha256(data).hexdigest()
    return digest, {language: table.read(asked) for language, table in tables.items()}


def source_words(sources: Iterable[str]) -> list[str]:
    """The words of the sources as the code-switching detector asks about them when an output
    copies them (its words, and the acronyms hyphens join to them): answered in the child, so
    that a run whose outputs keep source words need not import wordfreq's tokenizer."""
    from pytest_mteval.metrics.text import words
    from pytest_mteval.metrics.word_data import acronym_parts

    found = {word for text in sources for word in words(text)}
    return sorted(found | set(acronym_parts(found)))


def _language_pair(document: object) -> tuple[str, str] | None:
    """(source, target) of the spec's envelope or of the reference harness's shape."""
    if not isinstance(document, dict):
        return None
    dataset, pair = document.get("dataset"), document.get("language_pair")
    if isinstance(dataset, dict):
        source, target = dataset.get("source_language"), dataset.get("target_language")
    elif isinstance(pair, dict):
        source, target = pair.get("source"), pair.get("target")
    else:
        return None
    return (source, target) if isinstance(source, str) and isinstance(target, str) else None
