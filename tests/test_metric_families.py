"""The built-in metric families are found, not listed (``metrics/registry.py``): each module of
``pytest_mteval.metrics`` that declares a ``FAMILY`` is one, named after it, with its
definitions beside it; the selection and the catalog derive from them."""

from __future__ import annotations

import sys
from types import ModuleType

import pytest

from pytest_mteval.corpus import load_corpus
from pytest_mteval.metrics import catalog, registry, selection
from pytest_mteval.metrics.base import BuiltinFamily, MetricContext
from pytest_mteval.metrics.definition import MeanOfScored, MetricDefinition


class _Family:
    name = "demo"
    definitions = (MetricDefinition("demo_rate", "demo", MeanOfScored("demo")),)


def _module(name: str, **attributes: object) -> ModuleType:
    module = ModuleType(name)
    vars(module).update(attributes)
    return module


def test_each_family_is_its_modules_and_declares_its_definitions_there():
    assert registry.FAMILIES  # found at all
    for family in registry.FAMILIES:
        module = sys.modules[family.kind.__module__]
        assert module.__name__ == f"pytest_mteval.metrics.{family.name}"
        assert module.FAMILY is family
        declared = [v for v in vars(module).values() if isinstance(v, MetricDefinition)]
        assert family.definitions, family.name
        assert set(family.definitions) <= set(declared), family.name


def test_the_orders_are_those_of_the_cards_written_before_families_were_found():
    """The build order places the per-entry fields and card keys each family writes, the
    report order the HTML report's rows: both as the lists of main before issue 25 had them,
    so cards stay byte-identical."""
    assert (
        *("fst", "morphology", "equivalence", "orthography", "code_switching"),
        *("hallucination", "terminology", "semantic"),
    ) == selection.OPTIONAL
    assert [d.name for d in catalog.BUILTIN] == [
        *("chrf_plus_plus", "bleu", "ter", "exact_match_rate", "equivalent_match_rate"),
        *("fst_acceptance_rate", "morphological_accuracy", "semantic_score"),
        *("code_switching_rate", "hallucination_rate", "terminology_adherence"),
        "orthographic_accuracy",
    ]
    assert {"semantic"} == registry.OFF_BY_DEFAULT
    assert set(selection.OPTIONAL) - {"semantic"} == selection.DEFAULT


def test_discovery_takes_declared_families_only_and_refuses_a_name_twice():
    late = BuiltinFamily(_Family, lambda context: None, build_at=9, report_at=1)
    early = BuiltinFamily(_Family, lambda context: None, build_at=1, report_at=1)
    helper = _module("helper", FAMILY="not a family")  # a module that is no family
    assert registry.discover([helper, _module("demo", FAMILY=late)]) == (late,)
    with pytest.raises(RuntimeError, match="declared twice"):
        registry.discover([_module("a", FAMILY=late), _module("b", FAMILY=early)])


def test_a_family_off_by_default_must_say_why_it_may_be_missing():
    with pytest.raises(TypeError, match="demo: a family off by default"):
        BuiltinFamily(_Family, lambda context: None, build_at=1, report_at=1, default=False)
    family = BuiltinFamily(
        _Family,
        lambda context: None,
        build_at=1,
        report_at=1,
        default=False,
        why_unavailable=lambda context: "no model",
    )
    assert (family.name, family.definitions) == ("demo", _Family.definitions)


def test_the_judge_reaches_the_equivalence_family_through_the_context(small_corpus):
    context = MetricContext(corpus=load_corpus(small_corpus))
    entry = context.corpus.entries[0]
    (built,) = registry.builtin_metrics(
        context, judge=lambda e, p: True, selection=selection.MetricSelection.parse(["equivalence"])
    )
    assert built.score_entry(entry, "anything else") == {
        "equivalent_match": True,
        "equivalent_judged": True,
    }
