"""A corpus outside the rootdir, as ``--lf`` and node ids see it.

pytest names a file outside the rootdir with an empty node id, and ``--lf`` joins failed node
ids onto the rootdir without normalizing '..', so it would not recognize that corpus file and
skip it. The corpus is named by its path relative to the rootdir (``../data/x.json``), and
``--lf`` is told about it through the last-failed plugin's private path set: pytest has no
public route (a node path given unnormalized no longer matches its command-line argument).
This module is the one place that touches pytest's private state; it does nothing when that
state is not what it expects.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def corpus_nodeid(config: pytest.Config, corpus: Path) -> str | None:
    """The corpus's node id when it lies outside the rootdir (None: pytest's own)."""
    rootpath = config.rootpath
    return None if corpus.is_relative_to(rootpath) else os.path.relpath(corpus, rootpath)


def rerun_failed_corpus(config: pytest.Config, corpus: Path) -> None:
    """Under ``--lf``, collect a corpus outside the rootdir that holds failed entries."""
    lf = config.pluginmanager.get_plugin("lfplugin")
    nodeid = corpus_nodeid(config, corpus)
    paths = getattr(lf, "_last_failed_paths", None)
    if nodeid is None or not getattr(lf, "active", False) or not isinstance(paths, set):
        return
    if any(str(failed).startswith(nodeid + "::") for failed in getattr(lf, "lastfailed", {})):
        paths.add(corpus)
