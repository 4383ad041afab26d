"""A new metric is one file: a plugin whose family carries its definition, and nothing else.

The plugin below (the inner sessions' only conftest) scores the share of entries left in the
source language (output equal to the source), lower is better, shown on every run's summary
right after exact match. With no other file touched it is on the card's scores with its
interval, in that place of the terminal summary, and gated against a baseline in the session,
where a rise counts as a drop because its definition says lower is better.
(``test_metric_catalog.py`` follows a higher-is-better plugin metric through the gate's API and
``mteval compare``.)
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

import pytest
from replayed_runs import HAIKU, REPLAY, SNA_CORPUS

from pytest_mteval.metrics import catalog
from pytest_mteval.scoring import bootstrap as stats

pytest_plugins = ["pytester"]

METHODS = Path(__file__).resolve().parents[1] / "methods"
PLUGIN = '''
from pytest_mteval.metrics.definition import MetricDefinition, ShareOfAll


class Untranslated:
    """Whether the output is the source itself (an untranslated entry)."""

    name = "untranslated"
    definitions = (
        MetricDefinition(
            "untranslated_share",
            "untranslated",
            ShareOfAll("plugin_metrics.untranslated.same"),
            higher_is_better=False,
            interval=True,
            shown="always",
            shown_at=1,
        ),
    )

    def score_entry(self, entry, predicted):
        return {"same": predicted.strip() == entry.source.strip()}

    def aggregate(self, records):
        return {}


def pytest_mteval_metrics(context):
    return [Untranslated()]
'''


@pytest.fixture
def plugin(pytester: pytest.Pytester) -> Iterator[Path]:
    """The plugin written as the one file of the inner sessions; its definition forgotten
    afterwards (the inner sessions run in this process)."""
    before = set(pytester.path.iterdir())
    conftest = pytester.makeconftest(PLUGIN)
    assert set(pytester.path.iterdir()) - before == {conftest}
    yield conftest
    catalog.unregister("untranslated_share")


def _session(pytester: pytest.Pytester, name: str, *args: str) -> tuple[pytest.RunResult, dict]:
    card = pytester.path / f"{name}.json"
    result = pytester.runpytest(
        f"--mteval-corpus={SNA_CORPUS}", f"--mteval-run-card={card}", "-p", "no:randomly", *args
    )
    assert card.exists(), result.stdout.str()[-3000:]
    return result, json.loads(card.read_text(encoding="utf-8"))


def _summary(result: pytest.RunResult) -> list[str]:
    """The labels of the terminal summary's rows, in order."""
    lines = result.stdout.lines
    start = next(i for i, line in enumerate(lines) if "= mteval =" in line)
    rows = []
    for line in lines[start + 1 :]:
        if line.startswith("="):
            break
        rows.append(line.split("  ")[0])
    return rows


def test_a_plugin_metric_in_one_file_is_scored_shown_and_gated(pytester, plugin):
    haiku = ("--mteval-method=" + str(REPLAY), f"--mteval-method-arg=predictions={HAIKU}")
    base_result, base = _session(pytester, "baseline", *haiku)
    assert base_result.ret == pytest.ExitCode.OK
    copied = [r["predicted"].strip() == r["source"].strip() for r in base["results"]]
    assert base["scores"]["untranslated_share"] == float(Fraction(sum(copied), len(copied)))
    interval = base["scores"]["confidence_intervals"]["untranslated_share"]
    by_hand = stats.confidence_intervals({"x": stats.rate_statistic(copied)})["x"]
    assert interval == dict(by_hand)

    result, card = _session(
        pytester,
        "identity",
        f"--mteval-method={METHODS / 'identity'}",
        f"--mteval-baseline={pytester.path / 'baseline.json'}",
        "--mteval-gate=untranslated_share:0.1",
        "--mteval-max-drop=1",
        "--mteval-entry-max-drop=100",
    )
    assert card["scores"]["untranslated_share"] == 1.0  # every output is its source
    rows = _summary(result)
    at = rows.index("exact match")
    assert rows[at : at + 3] == ["exact match", "untranslated", "latency p50/p95"]
    assert rows.count("untranslated") == 1  # shown always, so not again among the measured
    (gated,) = [r for r in card["gate"]["metrics"] if r["metric"] == "untranslated_share"]
    assert (gated["baseline"], gated["now"]) == (base["scores"]["untranslated_share"], 1.0)
    assert card["gate"]["passed"] is False
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # a rise of a lower-is-better share
    result.stdout.fnmatch_lines(["untranslated_share *FAIL*", "gate *FAILED: untranslated_share"])
