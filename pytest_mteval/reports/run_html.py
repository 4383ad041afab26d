"""``--mteval-html=PATH``: the finished run's HTML report, written beside its card."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pytest_mteval.cards.card_view import view_of
from pytest_mteval.cards.runcard import built
from pytest_mteval.reports.html_report import run_report
from pytest_mteval.reports.page import is_page_path
from pytest_mteval.scoring.comparable_run import Comparable
from pytest_mteval.scoring.gate_options import EntryGateOptions


def write_run_report(
    card: Mapping[str, Any],
    path: Path,
    baseline: Comparable | None,
    options: EntryGateOptions,
) -> str:
    """Write the report of the card just written (its JSON) to ``path``, or into it as
    ``<run id>.html`` when it is a folder (any path not ending in .html or .htm); return where,
    or why not. A report that cannot be written must not cost the run its card or verdict."""
    target = path if is_page_path(str(path)) else path / f"{card['run_id']}.html"
    try:
        page = run_report(view_of(built(card), card), baseline, options)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(page, encoding="utf-8")
    except Exception as exc:
        return f"NOT WRITTEN: {target}: {type(exc).__name__}: {exc}"
    return str(target)
