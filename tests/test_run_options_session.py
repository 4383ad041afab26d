"""The run's own options in a real session, command line and ini key: corpus filters, the method
card, the FST, the run-card hook, and the refusal of a language pair the method does not support.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from conftest import CORPORA, METHODS, envelope, flores_entries

from pytest_mteval.cards import runcard

pytest_plugins = ["pytester"]

CRK = CORPORA / "eng-crk-morphodict-vocab.json"
ANALYZER = CORPORA / "resources" / "crk" / "crk-strict-analyzer-for-dictionary.hfstol"
SEGMENTS = ["development", "held_out", "diagnostic"]
DOMAINS = ["news", "edu", None]


def card_of(pytester: pytest.Pytester) -> dict[str, Any]:
    return json.loads((pytester.path / "card.json").read_text(encoding="utf-8"))


def run(pytester: pytest.Pytester, corpus: Path, method: Path, *args: str) -> pytest.RunResult:
    (pytester.path / "card.json").unlink(missing_ok=True)
    return pytester.runpytest(
        f"--mteval-corpus={corpus}",
        f"--mteval-method={method}",
        f"--mteval-run-card={pytester.path / 'card.json'}",
        *args,
    )


# --- --mteval-segment / --mteval-domain / --mteval-difficulty ----------------------------------


@pytest.fixture
def labelled(tmp_path: Path) -> tuple[Path, list[dict[str, Any]]]:
    """Nine real FLORES entries with every combination of segment, domain and difficulty."""
    entries = flores_entries(9)
    for i, entry in enumerate(entries):
        entry["segment"] = SEGMENTS[i % 3]
        entry["domain"] = DOMAINS[(i // 3) % 3]
        entry["difficulty"] = 1 + (i + i // 3) % 3
    path = tmp_path / "labelled.json"
    path.write_text(json.dumps(envelope(entries), ensure_ascii=False), encoding="utf-8")
    return path, entries


FILTERS = [
    ({"segment": ["held_out"]}, {}),
    ({"domain": ["news", "edu"]}, {}),
    ({"difficulty": ["2"], "segment": ["development", "diagnostic"]}, {}),
]


def expected_ids(entries: list[dict[str, Any]], chosen: dict[str, list[str]]) -> list[int]:
    def keep(entry: dict[str, Any]) -> bool:
        return all(str(entry[key]) in values for key, values in chosen.items())

    return [entry["id"] for entry in entries if keep(entry)]


@pytest.mark.parametrize("form", ["cli", "ini"])
@pytest.mark.parametrize("chosen", [f[0] for f in FILTERS], ids=["segment", "domains", "both"])
def test_filters_run_exactly_the_matching_entries_and_are_recorded(
    pytester, labelled, form, chosen
):
    path, entries = labelled
    expected = expected_ids(entries, chosen)
    assert 0 < len(expected) < len(entries)
    # held-out entries are reserved (spec §2.3, tests/test_held_out.py): activated here
    if form == "cli":
        args = [f"--mteval-{key}={value}" for key, values in chosen.items() for value in values]
        args.append("--mteval-activate-held-out")
    else:
        lines = [f"mteval_{key} = {' '.join(values)}" for key, values in chosen.items()]
        lines.append("mteval_activate_held_out = true")
        pytester.makeini("[pytest]\n" + "\n".join(lines) + "\n")
        args = []
    result = run(pytester, path, METHODS / "identity", *args)
    result.assert_outcomes(passed=len(expected))
    card = card_of(pytester)
    assert [row["entry_id"] for row in card["results"]] == [str(i) for i in expected]
    filters = card["dataset"]["filters"]
    assert filters["segment"] == chosen.get("segment", [])
    assert filters["domain"] == chosen.get("domain", [])
    assert filters["difficulty"] == [int(d) for d in chosen.get("difficulty", [])]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--mteval-segment=gold_standard"], "no entry matches the segment/domain/difficulty"),
        (["--mteval-difficulty=6"], "--mteval-difficulty must be between 1 and 5, got '6'"),
        (["--mteval-difficulty=hard"], "--mteval-difficulty expects a number, got 'hard'"),
    ],
)
def test_a_filter_that_cannot_be_used_is_one_line(pytester, labelled, args, message):
    result = run(pytester, labelled[0], METHODS / "identity", *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    output = result.stdout.str() + result.stderr.str()
    assert message in output
    assert "Traceback" not in output
    assert not (pytester.path / "card.json").exists()


# --- --mteval-method-card ----------------------------------------------------------------------

METHOD_CARD = {
    "method_id": "identity",
    "name": "Identity",
    "class": "custom-plugin",
    "description": "Copies the source: the floor every method must beat.",
    "author": "pytest-mteval tests",
    "tools_used": [],
    "open_source": True,
    "homepage": "https://example.org/identity",  # extra fields are kept
}


@pytest.mark.parametrize("form", ["cli", "ini"])
def test_the_method_card_is_embedded_in_the_run_card(pytester, small_corpus, form):
    folder = pytester.mkdir("cards")
    (folder / "method-card.json").write_text(json.dumps(METHOD_CARD), encoding="utf-8")
    if form == "cli":
        args = [f"--mteval-method-card={folder / 'method-card.json'}"]
    else:  # relative to the ini file
        pytester.makeini("[pytest]\nmteval_method_card = cards/method-card.json\n")
        args = []
    result = run(pytester, small_corpus, METHODS / "identity", *args)
    assert result.ret == pytest.ExitCode.OK
    embedded = card_of(pytester)["method_card"]
    assert {key: embedded[key] for key in METHOD_CARD} == METHOD_CARD
    runcard.verify(card_of(pytester), pytester.path / "card.json")


def test_a_method_card_missing_a_field_stops_the_run_naming_file_and_field(pytester, small_corpus):
    path = pytester.path / "method-card.json"
    path.write_text(json.dumps({k: v for k, v in METHOD_CARD.items() if k != "description"}))
    result = run(pytester, small_corpus, METHODS / "identity", f"--mteval-method-card={path}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    output = result.stdout.str() + result.stderr.str()
    assert f"{path}: field 'description': required field is missing" in output
    assert "Traceback" not in output
    assert not (pytester.path / "card.json").exists()


# --- the pytest_mteval_run_card hook -----------------------------------------------------------

HOOK = """
import json

def pytest_mteval_run_card(card, config):
    seen = {
        "composite": card["scores"]["composite"],
        "gate": card["gate"]["passed"],
        "hash": card["run_card_hash"],
        "entries": len(card["results"]),
        "corpus": config.getoption("mteval_corpus"),
    }
    (config.rootpath / "seen.json").write_text(json.dumps(seen))
    card.setdefault("extensions", {})["ci"] = {"pipeline": "1234", "branch": "main"}
"""


def test_a_conftest_hook_sees_the_finished_card_and_its_extension_is_sealed_in(
    pytester, small_corpus
):
    pytester.makeconftest(HOOK)
    result = run(pytester, small_corpus, METHODS / "identity")
    assert result.ret == pytest.ExitCode.OK
    card = card_of(pytester)
    seen = json.loads((pytester.path / "seen.json").read_text())
    assert seen == {
        "composite": card["scores"]["composite"],
        "gate": True,
        "hash": "",  # not sealed yet: the hash is computed after every implementation ran
        "entries": 6,
        "corpus": str(small_corpus),
    }
    assert card["extensions"]["ci"] == {"pipeline": "1234", "branch": "main"}
    runcard.verify(card, pytester.path / "card.json")
    forged = {**card, "extensions": {"ci": {"pipeline": "9999", "branch": "main"}}}
    with pytest.raises(runcard.RunCardError, match="run_card_hash does not match"):
        runcard.verify(forged, pytester.path / "forged.json")


# --- --mteval-fst --------------------------------------------------------------------------------


@pytest.fixture
def crk_words(tmp_path: Path) -> tuple[Path, Path, list[str]]:
    """Eight real English -> Plains Cree entries with no language resources, and predictions:
    the Cree reference for the first four, the English source for the last four."""
    document = json.loads(CRK.read_text(encoding="utf-8"))
    entries = document["entries"][:8]
    dataset = {k: v for k, v in document["dataset"].items() if k != "language_resources"}
    corpus = tmp_path / "crk.json"
    corpus.write_text(json.dumps({"dataset": dataset, "entries": entries}, ensure_ascii=False))
    predicted = [e["reference"] if i < 4 else e["source"] for i, e in enumerate(entries)]
    predictions = tmp_path / "predictions.jsonl"
    lines = [
        json.dumps({"id": e["id"], "predicted": p}) for e, p in zip(entries, predicted, strict=True)
    ]
    predictions.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert all(" " not in p for p in predicted)  # one word each: no tokenizer needed below
    return corpus, predictions, predicted


def accepted_by_hfst(word: str) -> bool:
    hfst = pytest.importorskip("hfst")
    analyzer = hfst.HfstInputStream(str(ANALYZER)).read()
    return bool(analyzer.lookup(word) or analyzer.lookup(word.lower()))


@pytest.mark.parametrize("form", ["cli", "ini"])
def test_an_fst_turns_on_acceptance_and_profile_a(pytester, crk_words, form):
    corpus, predictions, predicted = crk_words
    replay = [f"--mteval-method-arg=predictions={predictions}"]
    without = run(pytester, corpus, METHODS / "replay", *replay)
    assert without.ret == pytest.ExitCode.OK
    assert card_of(pytester)["scores"]["scoring_profile"] == "B"
    assert card_of(pytester)["scores"]["fst_acceptance_rate"] is None

    if form == "cli":
        fst = [f"--mteval-fst={ANALYZER}"]
    else:
        pytester.makeini(f"[pytest]\nmteval_fst = {ANALYZER}\n")
        fst = []
    result = run(pytester, corpus, METHODS / "replay", *replay, *fst)
    assert result.ret == pytest.ExitCode.OK
    card = card_of(pytester)
    accepted = [accepted_by_hfst(word) for word in predicted]
    assert 0 < sum(accepted) < len(accepted)
    assert card["scores"]["scoring_profile"] == "A"
    assert card["scores"]["fst_acceptance_rate"] == pytest.approx(sum(accepted) / len(accepted))
    assert [row["fst_valid"] for row in card["results"]] == accepted
    assert card["fst_version"] == hashlib.sha256(ANALYZER.read_bytes()).hexdigest()
    assert "fst_acceptance_rate" in card["scores"]["composite_metrics"]
    result.stdout.fnmatch_lines(["composite (A)*"])


def test_a_missing_fst_stops_the_run_naming_the_file(pytester, crk_words):
    corpus, predictions, _ = crk_words
    missing = pytester.path / "nowhere.hfstol"
    result = run(
        pytester,
        corpus,
        METHODS / "replay",
        f"--mteval-method-arg=predictions={predictions}",
        f"--mteval-fst={missing}",
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    output = result.stdout.str() + result.stderr.str()
    assert f"{missing}: no such analyzer file" in output
    assert "Traceback" not in output


# --- a language pair the method does not support ------------------------------------------------


def test_a_method_is_refused_on_a_pair_it_does_not_support(pytester, small_corpus, crk_words):
    refused = run(pytester, small_corpus, METHODS / "dictionary")
    assert refused.ret == pytest.ExitCode.USAGE_ERROR
    output = refused.stdout.str() + refused.stderr.str()
    assert "method 'dictionary' supports ['en>crk'], not " in output
    assert "Traceback" not in output
    assert not (pytester.path / "card.json").exists()
    assert not (pytester.path / ".mteval").exists()  # nothing was translated or cached

    accepted = run(pytester, crk_words[0], METHODS / "dictionary")  # en>crk: its own pair
    assert accepted.ret == pytest.ExitCode.OK
    assert card_of(pytester)["dataset"]["language_pair"] == "EN→CRK"
