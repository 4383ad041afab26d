"""Reports of entry items live to the session's end (pytest keeps every one for its summary),
so what they carry is shared, not copied: one keywords mapping per entry, and no record at all
(the run keeps it; tests/test_reports_carry_no_texts.py is why)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import CORPORA

pytest_plugins = ["pytester"]

IDENTITY = CORPORA.parent / "methods" / "identity"


@pytest.mark.parametrize("workers", [["-p", "no:xdist"], ["-n", "2"]], ids=["n0", "n2"])
def test_an_entrys_reports_share_its_keywords_and_hold_no_record(
    pytester: pytest.Pytester, small_corpus: Path, workers: list[str]
) -> None:
    recorder = pytester.inline_run(
        f"--mteval-corpus={small_corpus}",
        f"--mteval-method={IDENTITY}",
        f"--mteval-run-card={pytester.path / 'card.json'}",
        *workers,
    )
    by_item: dict[str, list[pytest.TestReport]] = {}
    for report in recorder.getreports("pytest_runtest_logreport"):
        by_item.setdefault(report.nodeid, []).append(report)
    entries = {nodeid: reports for nodeid, reports in by_item.items() if "::entry-" in nodeid}
    assert len(entries) == 6
    for reports in entries.values():
        assert [r.when for r in reports] == ["setup", "call", "teardown"]
        assert "mteval" in reports[0].keywords  # the keywords are the item's, still
        if workers[0] == "-p":  # reports made in this process: one mapping for the three
            assert all(r.keywords is reports[0].keywords for r in reports)
        call = reports[1]
        assert not hasattr(call, "mteval_record")  # under xdist too: taken off once stored
    card = json.loads((pytester.path / "card.json").read_text(encoding="utf-8"))
    assert len(card["results"]) == 6  # the run got every record all the same
