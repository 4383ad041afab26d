"""The metric registry (``metrics/catalog.py``): each definition's score against an
independent computation, the card's values against its definitions, and a plugin's
definition carried through the card's scores, intervals, the terminal summary, the gate and
``mteval compare``."""

from __future__ import annotations

import json
import random
import statistics
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

import pytest
from replayed_runs import HAIKU, REPLAY, SNA_CORPUS, card_dict, replay_card
from sacrebleu.metrics import BLEU, CHRF, TER

from pytest_mteval.cards.card_model import Scores
from pytest_mteval.cards.comparable_card import from_card
from pytest_mteval.cards.gate import evaluate_runs
from pytest_mteval.cards.runcard import built
from pytest_mteval.cli.main import main
from pytest_mteval.metrics import catalog, code_switching, fst, hallucination, semantic
from pytest_mteval.metrics.catalog import MetricDefinitionError
from pytest_mteval.metrics.definition import MetricDefinition, RatioOfCounts, ShareOfAll
from pytest_mteval.scoring import bootstrap as stats
from pytest_mteval.scoring import composite as scoring
from pytest_mteval.scoring.gate_options import GateOptionError, GateOptions, parse_metric_gate

pytest_plugins = ["pytester"]

METHODS = Path(__file__).resolve().parents[1] / "methods"

#: The plugin's definition, built the same way in the inner sessions' conftest and here.
LETTER_SHARE = MetricDefinition(
    "letter_share",
    "letter share",
    RatioOfCounts("plugin_metrics.letters.letters", "plugin_metrics.letters.chars"),
    interval=True,
)
PLUGIN = """
from pytest_mteval.metrics.definition import MetricDefinition, RatioOfCounts

class Letters:
    name = "letters"
    definitions = (
        MetricDefinition(
            "letter_share",
            "letter share",
            RatioOfCounts("plugin_metrics.letters.letters", "plugin_metrics.letters.chars"),
            interval=True,
        ),
    )

    def score_entry(self, entry, predicted):
        return {"letters": sum(ch.isalpha() for ch in predicted), "chars": len(predicted)}

    def aggregate(self, records):
        return {}

def pytest_mteval_metrics(context):
    return [Letters()]
"""


@pytest.fixture
def registered() -> Iterator[None]:
    """The plugin's definition registered in this process, forgotten afterwards."""
    catalog.register(LETTER_SHARE)
    yield
    catalog.unregister(LETTER_SHARE.name)


@pytest.fixture
def forgotten() -> Iterator[None]:
    """The plugin's definition forgotten after the test (inner sessions run in this process)."""
    yield
    catalog.unregister(LETTER_SHARE.name)


@pytest.fixture(scope="module")
def haiku() -> dict:
    return card_dict(replay_card(HAIKU))


def test_sacrebleu_definitions_finalise_to_sacrebleus_own_corpus_scores(haiku):
    rows = haiku["results"]
    hypotheses = [r["predicted"] if r["error"] is None else "" for r in rows]
    references = [[r["expected"] for r in rows]]
    for definition, metric in (
        (catalog.CHRF_PLUS_PLUS, CHRF(word_order=2)),
        (catalog.BLEU, BLEU()),
        (catalog.TER, TER()),
    ):
        expected = metric.corpus_score(hypotheses, references).score
        assert definition.score(rows) == pytest.approx(expected, abs=1e-9), definition.name


def test_count_definitions_finalise_to_exact_ratios_of_random_counts():
    rng = random.Random(7)
    rows = []
    for i in range(300):
        row: dict = {"entry_id": str(i)}
        if rng.random() < 0.9:  # the others errored: no counts at all
            whole = rng.randint(0, 12)
            row.update(fst_words=whole, fst_accepted_words=rng.randint(0, whole))
            row.update(exact_match=rng.random() < 0.3, semantic_score=round(rng.random(), 6))
            row.update(code_switching_detected=rng.random() < 0.2)
            row.update(hallucination_detected=rng.random() < 0.1)
        rows.append(row)
    scored = [r for r in rows if "fst_words" in r]
    part = sum(r["fst_accepted_words"] for r in scored)
    whole = sum(r["fst_words"] for r in scored)
    assert fst.FST_ACCEPTANCE.score(rows) == float(Fraction(part, whole))
    exact = sum(1 for r in scored if r["exact_match"])
    assert catalog.EXACT_MATCH.score(rows) == float(Fraction(exact, len(rows)))  # errors miss
    assert semantic.SEMANTIC.score(rows) == statistics.fmean(r["semantic_score"] for r in scored)
    switched = sum(1 for r in scored if r["code_switching_detected"])
    assert code_switching.CODE_SWITCHING.score(rows) == float(Fraction(switched, len(scored)))
    across = frozenset(r["entry_id"] for r in scored[:40:3])  # flagged across entries
    flagged = sum(1 for r in scored if r["hallucination_detected"] or r["entry_id"] in across)
    assert hallucination.HALLUCINATION.score(rows, across) == float(Fraction(flagged, len(scored)))
    for definition in (fst.FST_ACCEPTANCE, semantic.SEMANTIC, hallucination.HALLUCINATION):
        resamplable = stats.of_definition(definition, rows, across)
        assert resamplable is not None
        sums = list(resamplable.rows.sum(axis=0))
        assert resamplable.value(sums) == pytest.approx(definition.score(rows, across), abs=1e-12)


def test_a_real_cards_scores_are_its_definitions_over_its_rows(haiku):
    """No check at run time that two derivations agree: this test holds them to one."""
    rows, scores = haiku["results"], haiku["scores"]
    across = frozenset(haiku["hallucination"]["hallucination_entries"])
    measured = [n for n, d in catalog.definitions().items() if scores.get(n) is not None]
    assert {"chrf_plus_plus", "bleu", "ter", "hallucination_rate"} <= set(measured)
    for name in measured:
        assert catalog.definitions()[name].score(rows, across) == scores[name], name


def test_the_composite_takes_scale_and_direction_from_the_definitions():
    for name in {n for table in scoring.WEIGHTS.values() for n in table}:
        definition = catalog.get(name)
        assert definition is not None, name
        low = scoring.normalize(name, 0.2 * definition.scale)
        assert low == pytest.approx(0.2 if definition.higher_is_better else 0.8), name
    assert {"code_switching_rate", "hallucination_rate"} == scoring.LOWER_IS_BETTER
    assert {"chrf_plus_plus"} == scoring.PERCENT_SCALE


def test_registering_is_idempotent_and_refuses_a_taken_or_reserved_name(registered):
    catalog.register(LETTER_SHARE)  # the controller and every worker register it: harmless
    other = MetricDefinition("letter_share", "letters", ShareOfAll("x"))
    with pytest.raises(MetricDefinitionError, match="'letter_share' is already defined"):
        catalog.register(other, by="metric 'other'")
    for name in ("chrf_plus_plus", "composite", "total", "Bad Name"):
        with pytest.raises(MetricDefinitionError, match=repr(name)):
            catalog.register(MetricDefinition(name, "x", ShareOfAll("x")))
    with pytest.raises(MetricDefinitionError, match="must be a MetricDefinition"):
        catalog.register("letter_share")  # type: ignore[arg-type]


def test_every_score_key_of_the_card_model_is_a_definition_or_reserved():
    """A plugin's metric cannot overwrite a run-level figure of the card."""
    fields = set(Scores.model_fields)
    assert fields - {d.name for d in catalog.BUILTIN} <= catalog.RESERVED
    for name in sorted(fields - {d.name for d in catalog.BUILTIN}):
        with pytest.raises(MetricDefinitionError):
            catalog.register(MetricDefinition(name, "x", ShareOfAll("x")))


def test_a_gate_knows_a_registered_metric_only_once_registered():
    with pytest.raises(GateOptionError, match="unknown metric 'letter_share'"):
        parse_metric_gate("letter_share:0.1")
    catalog.register(LETTER_SHARE)
    try:
        assert parse_metric_gate("letter_share:0.1") == ("letter_share", 0.1)
        with pytest.raises(GateOptionError, match="0-1"):
            parse_metric_gate("letter_share:5")
    finally:
        catalog.unregister(LETTER_SHARE.name)


def _session(pytester, name: str, *method: str) -> dict:
    card = pytester.path / f"{name}.json"
    result = pytester.runpytest(
        f"--mteval-corpus={SNA_CORPUS}", f"--mteval-run-card={card}", *method
    )
    assert card.exists(), result.stdout.str()
    assert "letter share" in result.stdout.str()  # the summary, under the definition's label
    return json.loads(card.read_text(encoding="utf-8"))


def _letter_share(card: dict) -> tuple[list[float], list[float]]:
    """Letters and characters of each row's prediction, counted here (0 for an error)."""
    letters = [float(sum(c.isalpha() for c in r["predicted"] or "")) for r in card["results"]]
    chars = [float(len(r["predicted"] or "")) for r in card["results"]]
    return letters, chars


def test_a_plugin_definition_is_scored_resampled_gated_and_compared(pytester, forgotten, capsys):
    pytester.makeconftest(PLUGIN)
    assert catalog.get("letter_share") is None  # until the session's plugin registers it
    a = _session(pytester, "a", f"--mteval-method={METHODS / 'identity'}")
    b = _session(
        pytester,
        "b",
        f"--mteval-method={REPLAY}",
        f"--mteval-method-arg=predictions={HAIKU}",
    )
    for card in (a, b):
        letters, chars = _letter_share(card)
        value = float(Fraction(int(sum(letters)), int(sum(chars))))
        assert card["scores"]["letter_share"] == value
        interval = card["scores"]["confidence_intervals"]["letter_share"]
        by_hand = stats.confidence_intervals({"x": stats.ratio_statistic(letters, chars)})["x"]
        assert interval == dict(by_hand)
        assert interval["lower"] < value < interval["upper"]
    gated = evaluate_runs(
        from_card(built(a), "a"),
        from_card(built(b), "b"),
        GateOptions(metric_gates={"letter_share": 0.5}),
    )
    assert catalog.get("letter_share") == LETTER_SHARE
    (row,) = [r for r in gated.rows if r.metric == "letter_share"]
    assert (row.baseline, row.now) == (a["scores"]["letter_share"], b["scores"]["letter_share"])
    assert row.p_value is not None
    paths = [pytester.path / "a.json", pytester.path / "b.json"]
    main(["compare", *map(str, paths)])
    shown = [line.split() for line in capsys.readouterr().out.splitlines()]
    (cells,) = [c for c in shown if c and c[0] == "letter_share"]
    expected = [f"{a['scores']['letter_share']:.4f}", f"{b['scores']['letter_share']:.4f}"]
    assert cells[1:3] == expected
