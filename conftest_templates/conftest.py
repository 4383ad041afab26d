"""conftest.py for a repository evaluated with pytest-mteval: copy it to the repository root.

pytest-mteval turns each corpus entry into a test item of its own. The fixtures it provides,
``mteval_entry`` (the corpus entry: ``source``, ``reference``, ``variants``, ``terms``,
``domain``...) and ``mteval_result`` (the entry's record: ``predicted``, ``error``,
``chrf_score``, ``exact_match``...), let ordinary test functions add the checks a language or a
product needs; see ``test_translation_rules.py``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import pytest

#: CI variables worth keeping on the run card, so a card says which commit it measured.
_CI_VARIABLES = ("GITHUB_SHA", "GITHUB_RUN_ID", "GITHUB_REF", "CI_COMMIT_SHA", "CI_JOB_ID")


def pytest_mteval_run_card(card: dict[str, Any], config: pytest.Config) -> None:
    """Record the CI job that produced the card (hashed with the rest of the card)."""
    found = {name: os.environ[name] for name in _CI_VARIABLES if name in os.environ}
    if found:
        card.setdefault("extensions", {})["ci"] = found


@pytest.fixture
def translated(mteval_result: Mapping[str, Any]) -> str:
    """The entry's translation. A failed translation skips the custom checks: the entry's own
    item already fails for it, with the error."""
    if mteval_result["error"] is not None or mteval_result["predicted"] is None:
        pytest.skip(f"no translation: {mteval_result['error']}")
    return str(mteval_result["predicted"])
