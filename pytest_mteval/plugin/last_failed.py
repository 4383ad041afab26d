"""A corpus outside the rootdir, as node ids and ``--lf`` see it.

pytest names a file outside the rootdir with an empty node id, so the corpus is named by its
path relative to the rootdir (``../data/x.json``), a shipped one by its name
(``shipped:NAME``). ``--lf`` then joins that id onto the rootdir without normalizing '..',
does not recognize the corpus file among the files that failed, and would skip collecting
it (its entries could never be re-run). The corpus reports its own collection instead
(``collect_corpus``), through pytest's public ``CallInfo`` and ``CollectReport``; ``--lf``
still deselects the entries that did not fail.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pytest_mteval.shipped_corpora import PREFIX, SHIPPED_CORPORA


def corpus_nodeid(config: pytest.Config, corpus: Path) -> str | None:
    """The corpus's node id when it lies outside the rootdir (None: pytest's own): a shipped
    corpus is ``shipped:NAME``, as the user named it, not a path into site-packages that
    would push each entry's reason out of the ``-rf`` lines."""
    rootpath = config.rootpath
    if corpus.is_relative_to(rootpath):
        return None
    if corpus.resolve().parent == SHIPPED_CORPORA.resolve():
        return PREFIX + corpus.stem
    return os.path.relpath(corpus, rootpath)


def collect_corpus(collector: pytest.Collector) -> pytest.CollectReport | None:
    """The corpus's collection report, made here so that no plugin skips the file; None
    when collecting failed, and pytest's own report then says why."""
    call = pytest.CallInfo.from_call(lambda: list(collector.collect()), "collect")
    if call.excinfo is not None:
        return None
    return pytest.CollectReport(collector.nodeid, "passed", None, call.result)
