"""Where a run keeps its state on pytest's objects: keys shared by the entry point's
fixtures (``hooks.py``) and the run's own hooks (``run_hooks.py``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

import pytest

if TYPE_CHECKING:
    from pytest_mteval.plugin.word_prefetch import WordPrefetch
    from pytest_mteval.run.run_state import RunState

STATE: pytest.StashKey[RunState] = pytest.StashKey()
RECORD: pytest.StashKey[dict[str, Any]] = pytest.StashKey()
KEYWORDS: pytest.StashKey[Mapping[str, Literal[1]]] = pytest.StashKey()
WORD_PREFETCH: pytest.StashKey[WordPrefetch | None] = pytest.StashKey()
