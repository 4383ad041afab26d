"""The terminal summary says what a pip user can act on: directions, weights, plurals, and
next steps the run did not already take (issue 44, item 10)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, envelope, flores_entries

from pytest_mteval.metrics import catalog
from pytest_mteval.scoring.composite import weights

pytest_plugins = ["pytester"]


def _corpus(folder: Path) -> Path:
    path = folder / "corpus.json"
    path.write_text(json.dumps(envelope(flores_entries(6))), encoding="utf-8")
    return path


def _summary(result: pytest.RunResult) -> dict[str, str]:
    text = result.stdout.str().split("= mteval =", 1)[1]
    rows = {}
    for line in text.splitlines():
        found = re.match(r"^(\S[\w ()/+-]*?)\s{2,}(.*)$", line)
        if found:
            rows.setdefault(found[1], found[2])
    return rows


def test_directions_and_weights_are_on_the_screen(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_subprocess(
        f"--mteval-corpus={_corpus(pytester.path)}", "--mteval-method=identity"
    )
    rows = _summary(result)
    for key in ("ter", "code_switching_rate", "hallucination_rate"):
        label = catalog.get(key).label  # type: ignore[union-attr]
        assert rows[label].endswith("(lower is better)"), (label, rows[label])
    assert "lower is better" not in rows["chrF++"]
    legend = rows["legend"]
    assert "docs/SCORING.md" not in legend  # a pip install has no docs folder
    shown = dict(re.findall(r"([a-zA-Z+ -]+?) (\d\.\d+|\d)(?:,|\))", legend.split("weights ")[1]))
    expected = {catalog.get(n).label: w for n, w in weights("B").items()}  # type: ignore[union-attr]
    assert {label.strip(): float(w) for label, w in shown.items()} == expected


def test_next_does_not_suggest_what_the_run_already_had(pytester: pytest.Pytester) -> None:
    corpus = _corpus(pytester.path)
    plain = _summary(pytester.runpytest_subprocess(f"--mteval-corpus={corpus}",
                                                   "--mteval-method=identity"))  # fmt: skip
    assert "--mteval-html=report.html" in plain["next"]
    assert "--mteval-update-baseline" in plain["next"]
    options = ["--mteval-html=page.html", "--mteval-baseline=base.json"]
    run = pytester.runpytest_subprocess(
        f"--mteval-corpus={corpus}", "--mteval-method=identity", *options,
        "--mteval-update-baseline",
    )  # fmt: skip
    had = _summary(run)
    assert "--mteval-html" not in had["next"], had["next"]
    assert "--mteval-update-baseline" not in had["next"], had["next"]


def test_one_failed_entry_is_one_entry(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_subprocess(
        f"--mteval-corpus={_corpus(pytester.path)}",
        f"--mteval-method={REPO / 'examples' / 'per-entry-errors'}", "--mteval-method-arg=fail=3",
    )  # fmt: skip
    result.assert_outcomes(failed=1, passed=5)
    assert _summary(result)["next"].startswith("1 entry failed: its report is above;")
    assert "1 entries" not in result.stdout.str()


def test_review_sample_takes_o_like_the_other_commands(pytester: pytest.Pytester) -> None:
    card = pytester.path / "card.json"
    result = pytester.runpytest_subprocess(
        f"--mteval-corpus={_corpus(pytester.path)}", "--mteval-method=identity",
        f"--mteval-run-card={card}",
    )  # fmt: skip
    assert result.ret == 0
    mteval = [sys.executable, "-m", "pytest_mteval.cli.main"]
    for flag, folder in (("-o", "short"), ("--output", "long"), ("--out", "old")):
        done = subprocess.run([*mteval, "review", "sample", str(card), flag, folder],
                              cwd=pytester.path, capture_output=True, text=True)  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert any((pytester.path / folder).iterdir()), flag


@pytest.mark.parametrize("workers", [[], ["-n", "2"]])
def test_a_gated_run_ends_its_progress_once(pytester: pytest.Pytester, workers: list[str]) -> None:
    """It ended "[100%] [ 97%]": the gate item, reported after the entries, counted twice."""
    result = pytester.runpytest_subprocess(
        f"--mteval-corpus={_corpus(pytester.path)}", "--mteval-method=identity",
        "--mteval-fail-under=0.01", *workers,
    )  # fmt: skip
    assert result.ret == 0
    lines = result.stdout.lines
    progress = [line for line in lines if re.search(r"\[\s*\d+%\]", line)]
    assert len(progress) == 1, progress
    assert re.search(r"\[100%\]$", progress[0]), progress
    assert len(re.findall(r"%\]", progress[0])) == 1, progress
    assert lines[lines.index(progress[0]) + 1] == "mteval .", lines
