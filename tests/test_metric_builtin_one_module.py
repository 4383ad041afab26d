"""A new built-in metric is one module: its definition, its family and its ``FAMILY``.

The module below (word count: whether the output has as many words as the reference) is
written into a directory of its own, which a fresh Python process adds to the
``pytest_mteval.metrics`` package before anything of the plugin is imported, as if the file
were in the package; no other file is written or changed. That process runs a real session
(real outputs of an LLM replayed) and reports what the rest of the plugin made of the module:
the metric is a choice of ``--mteval-metrics`` (on by default, left out by
``--mteval-skip-metric``), its score and its card key are on the card, its row is in the
terminal summary where its ``shown_at`` puts it, and its card key is reserved, so no plugin
may take it. (``test_metric_plugin_one_file.py`` does the same for a plugin's metric.)
"""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from replayed_runs import HAIKU, REPLAY, SNA_CORPUS

MODULE = '''
"""Word count: the output has as many words as the reference."""

from pytest_mteval.metrics.base import BuiltinFamily
from pytest_mteval.metrics.definition import MeanOfScored, MetricDefinition

WORD_COUNT = MetricDefinition(
    "word_count_rate",
    "word count",
    MeanOfScored("word_count_kept"),
    shown_at=6,
    card_keys=("word_count_entries",),
)


class WordCount:
    name = "word_count"
    definitions = (WORD_COUNT,)

    def score_entry(self, entry, predicted):
        return {"word_count_kept": len(predicted.split()) == len(entry.reference.split())}

    def aggregate(self, records):
        kept = sum(1 for r in records if r.get("word_count_kept") is True)
        return {"word_count_rate": WORD_COUNT.score(records), "word_count_entries": kept}


def build(context):
    return WordCount()


FAMILY = BuiltinFamily(WordCount, build, build_at=9, report_at=9)
'''

#: Run in a fresh process: the module's directory joins the package, then two sessions (the
#: default selection, and the metric skipped), then what the catalog and selection hold.
DRIVER = """
import json, sys
import pytest_mteval.metrics

pytest_mteval.metrics.__path__.append(sys.argv[1])
import pytest

session = sys.argv[3:]
codes = [
    pytest.main([*session, "--mteval-run-card=default.json"]),
    pytest.main([*session, "--mteval-run-card=skipped.json", "--mteval-skip-metric=word_count"]),
]
from pytest_mteval.metrics import catalog, selection
from pytest_mteval.metrics.definition import MeanOfScored, MetricDefinition

try:
    catalog.register(MetricDefinition("word_count_entries", "x", MeanOfScored("x")))
    refused = ""
except catalog.MetricDefinitionError as error:
    refused = str(error)
try:
    selection.MetricSelection.parse(["no_such_metric"])
except selection.MetricSelectionError as error:
    unknown = str(error)
facts = {
    "codes": codes,
    "optional": list(selection.OPTIONAL),
    "default": sorted(selection.DEFAULT),
    "reserved": sorted(catalog.RESERVED),
    "when_measured": list(catalog.shown("when_measured")),
    "refused": refused,
    "unknown": unknown,
}
with open(sys.argv[2], "w", encoding="utf-8") as out:
    json.dump(facts, out)
"""


def _summary(output: str) -> list[tuple[str, str]]:
    """The (label, value) rows of the first terminal summary in ``output``."""
    lines = output.splitlines()
    start = next(i for i, line in enumerate(lines) if "= mteval =" in line)
    rows = []
    for line in lines[start + 1 :]:
        if line.startswith("="):
            break
        label, _, value = line.partition("  ")
        rows.append((label, value.strip()))
    return rows


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict, str]:
    folder = tmp_path_factory.mktemp("one-module")
    package = folder / "metrics"
    package.mkdir()
    (package / "word_count.py").write_text(MODULE, encoding="utf-8")
    (folder / "driver.py").write_text(DRIVER, encoding="utf-8")
    session = [
        f"--mteval-corpus={SNA_CORPUS}",
        f"--mteval-method={REPLAY}",
        f"--mteval-method-arg=predictions={HAIKU}",
        "-p",
        "no:randomly",
        "-p",
        "no:cacheprovider",
        "-q",
    ]
    done = subprocess.run(
        [sys.executable, "driver.py", str(package), "facts.json", *session],
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert (folder / "facts.json").exists(), done.stdout[-3000:] + done.stderr[-3000:]
    facts = json.loads((folder / "facts.json").read_text(encoding="utf-8"))
    assert facts["codes"] == [0, 0], done.stdout[-3000:]
    assert sorted(p.name for p in package.iterdir() if p.suffix == ".py") == [
        "word_count.py"
    ]  # the one file the metric is
    return folder, facts, done.stdout


def test_the_module_is_a_choice_of_the_selection_on_by_default(run):
    _, facts, _ = run
    assert facts["optional"][-1] == "word_count"  # built last: its build_at
    assert "word_count" in facts["default"]
    assert "word_count" in facts["unknown"]  # named among the known metrics


def test_its_score_and_card_key_are_on_the_card(run):
    folder, _, _ = run
    card = json.loads((folder / "default.json").read_text(encoding="utf-8"))
    answered = [r for r in card["results"] if r.get("error") is None and r.get("predicted")]
    kept = [len(r["predicted"].split()) == len(r["expected"].split()) for r in answered]
    assert 0 < sum(kept) < len(kept)  # the outputs tell one from the other
    scores = card["scores"]
    assert scores["word_count_rate"] == float(Fraction(sum(kept), len(kept)))
    assert scores["word_count_entries"] == sum(kept)
    assert "word_count_rate" not in scores["composite_metrics"]  # no weight, not weighed
    skipped = json.loads((folder / "skipped.json").read_text(encoding="utf-8"))
    assert "word_count_rate" not in skipped["scores"]
    assert "word_count_kept" not in skipped["results"][0]
    assert {
        k: v for k, v in skipped["scores"].items() if not k.startswith("word_count_")
    }.keys() == {k for k in scores if not k.startswith("word_count_")}


def test_its_row_is_in_the_terminal_summary_by_its_shown_at(run):
    folder, facts, output = run
    card = json.loads((folder / "default.json").read_text(encoding="utf-8"))
    assert facts["when_measured"][-1] == "word_count_rate"  # shown_at 6, after all
    rows = _summary(output)
    labels = [label for label, _ in rows]
    at = labels.index("word count")
    assert labels[at + 1].startswith("composite (")  # the last of the measured metrics
    assert rows[at][1] == f"{card['scores']['word_count_rate']:.3f}"


def test_its_card_key_is_reserved(run):
    _, facts, _ = run
    assert "word_count_entries" in facts["reserved"]
    assert "word_count_rate" not in facts["reserved"]  # a score, not a reserved key
    assert "'word_count_entries'" in facts["refused"]
