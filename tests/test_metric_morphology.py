"""Morphological accuracy with the shipped strict Plains Cree analyzer, on the spec's example
(§2.2: "I see the dog" -> "niwâpamâw atim") in both gold notations."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import hfst
import pytest
from conftest import link_resources

from pytest_mteval.corpus import load_corpus
from pytest_mteval.metrics import morphology
from pytest_mteval.metrics.base import Metric, MetricContext
from pytest_mteval.run.entry_scoring import build_record
from pytest_mteval.scoring.comparable_run import entry_statistic

REPO = Path(__file__).resolve().parents[1]
CRK = REPO / "corpora" / "resources" / "crk"
STRICT = CRK / "crk-strict-analyzer-for-dictionary.hfstol"
SEGMENTED = "ni-wâpam-âw atim | 1sg-see.TA-3sg.DIR dog.AN"
ANALYZED = "wâpamêw+V+TA+Ind+1Sg+3SgO atim+N+A+Sg"
FLAG = re.compile(r"@[PNDRCU]\.[^@]*@")


def hfst_analyses(word: str) -> list[str]:
    transducer = hfst.HfstInputStream(str(STRICT)).read()
    return [FLAG.sub("", a) for a, _ in transducer.lookup(word.lower())]


def corpus_file(tmp_path: Path, gold: str | None) -> Path:
    entries: list[dict[str, Any]] = [
        {"id": 1, "source": "I see the dog", "reference": "niwâpamâw atim"},
        {"id": 2, "source": "I slept", "reference": "nikî-nipân"},
    ]
    if gold is not None:
        entries[0]["morphological_analysis"] = gold
    data = {
        "dataset": {
            "id": "crk-morph",
            "version": "1",
            "language_pair": "EN→CRK",
            "source_language": "en",
            "target_language": "crk",
            "created": "2026-11-30",
            "license": "Apache-2.0",
            "provenance": ["gold_standard"],
            "language_resources": link_resources(tmp_path),
        },
        "entries": entries,
    }
    path = tmp_path / "crk.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


#: A method's result for an entry it failed to translate.
FAILED: Any = {"predicted": None, "error": "timeout", "latency_s": None}


def built(tmp_path: Path, gold: str) -> tuple[morphology.MorphologicalAccuracy, Any]:
    corpus = load_corpus(corpus_file(tmp_path, gold))
    metric = morphology.build(MetricContext(corpus=corpus))
    assert isinstance(metric, Metric)
    assert isinstance(metric, morphology.MorphologicalAccuracy)
    return metric, corpus.entries[0]


def test_parse_both_notations() -> None:
    assert morphology.parse_gold(SEGMENTED) == [(("ni", "wâpam", "âw"), False), (("atim",), False)]
    assert morphology.parse_gold(ANALYZED) == [
        (("wâpamêw", "V", "TA", "Ind", "1Sg", "3SgO"), True),
        (("atim", "N", "A", "Sg"), True),
    ]


@pytest.mark.parametrize(
    "predicted", ["niwâpamâw atim", "Atim niwâpamâw.", "kiwâpamâw atim", "niwapamaw atim"]
)
def test_analyzer_notation_counts_units_shared_with_the_best_analysis(
    tmp_path: Path, predicted: str
) -> None:
    metric, entry = built(tmp_path, ANALYZED)
    gold = [Counter(w.split("+")) for w in ANALYZED.split()]
    options = [
        [Counter(a.split("+")) for a in hfst_analyses(w)] for w in re.findall(r"[\w-]+", predicted)
    ]
    # Independent brute force over both word orders (two gold words, two predicted words).
    best = 0
    for order in ([0, 1], [1, 0]):
        total = 0
        for g, p in zip(gold, [options[i] for i in order], strict=True):
            total += max(((g & a).total() for a in p), default=0)
        best = max(best, total)
    row = metric.score_entry(entry, predicted)
    assert row["morphology_units"] == 10
    assert row["morphology_reproduced"] == best
    assert row["morphological_accuracy"] == best / 10


def test_wrong_person_loses_exactly_the_person_tag(tmp_path: Path) -> None:
    metric, entry = built(tmp_path, ANALYZED)
    assert hfst_analyses("kiwâpamâw") == ["wâpamêw+V+TA+Ind+2Sg+3SgO"]
    assert metric.score_entry(entry, "kiwâpamâw atim")["morphology_reproduced"] == 9


def test_segmented_notation_counts_morphemes_in_accepted_words(tmp_path: Path) -> None:
    metric, entry = built(tmp_path, SEGMENTED)
    assert metric.score_entry(entry, "niwâpamâw atim")["morphological_accuracy"] == 1.0
    assert hfst_analyses("kiwâpamâw")  # a real word, but 2nd person: "ni" is missing
    assert metric.score_entry(entry, "kiwâpamâw atim")["morphology_reproduced"] == 3
    assert hfst_analyses("niwapamaw") == []  # rejected: its morphemes count for nothing
    assert metric.score_entry(entry, "niwapamaw atim")["morphology_reproduced"] == 1
    assert metric.score_entry(entry, "I see the dog")["morphological_accuracy"] == 0.0


def test_run_pools_units_and_counts_failed_entries(tmp_path: Path) -> None:
    metric, entry = built(tmp_path, SEGMENTED)
    ok = {
        "entry_id": "1",
        "predicted": "kiwâpamâw atim",
        **metric.score_entry(entry, "kiwâpamâw atim"),
    }
    failed = build_record(entry, 0, 0, FAILED, [metric])  # what the run records for it
    no_gold = {"entry_id": "2", "predicted": "nikî-nipân", "morphological_accuracy": None}
    assert metric.aggregate([ok, no_gold])["morphological_accuracy"] == 3 / 4
    assert metric.aggregate([ok, failed, no_gold])["morphological_accuracy"] == 3 / 8
    assert metric.aggregate([no_gold])["morphological_accuracy"] is None


def test_a_failed_entry_carries_its_gold_units_so_entry_statistics_match(tmp_path: Path) -> None:
    """The composite's interval and the gate pool per-entry counts: a failed entry must count
    there as in the run's value (4 gold morphemes: ni, wâpam, âw, atim; 3 reproduced)."""
    metric, entry = built(tmp_path, SEGMENTED)
    ok = {"entry_id": "1", "predicted": "kiwâpamâw atim"}
    ok.update(metric.score_entry(entry, "kiwâpamâw atim"))
    failed = build_record(entry, 0, 0, FAILED, [metric])
    records = [ok, failed]
    assert metric.aggregate(records)["morphological_accuracy"] == 3 / 8
    assert (failed["morphology_units"], failed["morphology_reproduced"]) == (4, 0)
    assert metric.aggregate(records)["morphological_accuracy"] == 3 / 8  # counted once
    pooled = entry_statistic("morphological_accuracy", records)
    assert pooled is not None
    assert pooled.value(list(pooled.rows.sum(axis=0))) == 3 / 8


def test_not_built_without_gold_or_without_analyzer(tmp_path: Path) -> None:
    assert morphology.build(MetricContext(corpus=load_corpus(corpus_file(tmp_path, None)))) is None
    data = json.loads(corpus_file(tmp_path, SEGMENTED).read_text(encoding="utf-8"))
    del data["dataset"]["language_resources"]
    plain = tmp_path / "plain.json"
    plain.write_text(json.dumps(data), encoding="utf-8")
    assert morphology.build(MetricContext(corpus=load_corpus(plain))) is None
