"""``mteval corpus lint``: the §11.1 table, §2 schema, contamination and content checks, on
real corpora; exit 0 (ready), 1 (problems, each named), 2 (not a corpus)."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from conftest import CORPORA, DATA, envelope, flores_entries
from corpus_sheets import read, ready_corpus

from pytest_mteval.cli.main import main
from pytest_mteval.corpus_tools.checks import near_key

SHIPPED = sorted(CORPORA.glob("*.json"))


def lint(capsys, path, *args):
    code = main(["corpus", "lint", str(path), *args])
    return code, capsys.readouterr().out


def lint_json(capsys, path):
    code, out = lint(capsys, path, "--format", "json")
    return code, json.loads(out)


def write(path, document):
    path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    return path


def test_a_corpus_meeting_every_minimum_passes(capsys, tmp_path):
    path = ready_corpus(tmp_path)
    code, report = lint_json(capsys, path)
    assert code == 0, report["findings"]
    raw = read(path)
    segments = Counter(e["segment"] for e in raw["entries"])
    have = {m["number"]: m["have"] for m in report["minimums"]}
    assert have == {
        1: segments["gold_standard"],
        2: segments["development"],
        3: segments["diagnostic"],
        4: len(raw["entries"]),
        5: len({e["difficulty"] for e in raw["entries"]}),
        6: len({e["register"] for e in raw["entries"]}),
        7: "yes",
    }
    assert all(m["ok"] for m in report["minimums"])
    assert not [f for f in report["findings"] if f["severity"] == "error"]
    code, text = lint(capsys, path)
    assert code == 0
    assert text.splitlines()[-1] == "OK: meets every minimum, no errors"


def _keep(document, segment, count):
    """Move entries of a segment to held_out until ``count`` remain."""
    extra = [e for e in document["entries"] if e["segment"] == segment][count:]
    for entry in extra:
        entry["segment"] = "held_out"


def _break(document, number):
    entries = document["entries"]
    if number == 1:
        _keep(document, "gold_standard", 49)
    elif number == 2:
        _keep(document, "development", 29)
    elif number == 3:
        _keep(document, "diagnostic", 9)
    elif number == 4:
        del entries[17]["provenance"]
    elif number == 5:
        for entry in entries:
            entry["difficulty"] = min(entry["difficulty"], 2)
    elif number == 6:
        for entry in entries:
            entry["register"] = "conversational"
    else:
        del document["dataset"]["consent"]


NAMES = {
    1: "gold_standard entries",
    2: "development entries",
    3: "diagnostic entries",
    4: "entries with provenance",
    5: "difficulty tiers (of 5)",
    6: "registers",
    7: "community consent (dataset.consent)",
}


@pytest.mark.parametrize("number", sorted(NAMES))
def test_each_missed_minimum_fails_and_is_named(capsys, tmp_path, number):
    document = read(ready_corpus(tmp_path))
    _break(document, number)
    path = write(tmp_path / "broken.json", document)
    code, report = lint_json(capsys, path)
    assert code == 1
    assert [m["number"] for m in report["minimums"] if not m["ok"]] == [number]
    code, text = lint(capsys, path)
    assert code == 1
    assert text.splitlines()[-1] == f"NOT READY: §11.1.{number} {NAMES[number]}"


def test_every_schema_problem_is_listed_not_only_the_first(capsys, tmp_path):
    entries = flores_entries(6)
    entries[1]["domain"] = "travel"
    entries[2]["difficulty"] = 7
    entries[3]["segment"] = "test"
    entries[4]["id"] = entries[0]["id"]
    del entries[5]["reference"]
    document = envelope(entries, created="yesterday")
    del document["dataset"]["license"]
    code, report = lint_json(capsys, write(tmp_path / "c.json", document))
    assert code == 1
    schema = [f["message"] for f in report["findings"] if f["code"] == "schema"]
    assert schema[0] == "dataset.license: Field required"
    assert schema[1].startswith("entry 1 (id 2): unknown domain 'travel'; expected one of conv,")
    assert schema[2].startswith("entry 2 (id 3): field 'difficulty': ")
    assert schema[3].startswith("entry 3 (id 4): field 'segment': ")
    assert schema[4] == "entry 4 (id 1): duplicate id, first used by entry 0"
    assert schema[5] == "entry 5 (id 6): field 'reference': required field is missing"
    assert len(schema) == 6


def test_envelope_checks(capsys, tmp_path):
    document = envelope(flores_entries(3), created="yesterday", version="first")
    document["entries"][0]["provenance"] = "textbook"
    code, report = lint_json(capsys, write(tmp_path / "c.json", document))
    assert code == 1
    messages = {f["message"]: f["severity"] for f in report["findings"] if f["code"] == "schema"}
    assert messages == {
        "dataset.created 'yesterday' is not an ISO 8601 date": "error",
        "dataset.version 'first' is not a semantic version (1.0.0)": "warning",
        "dataset.provenance ['corpus'] lacks tags its entries use: textbook": "error",
    }


def test_contamination_duplicates_copies_variants_and_lengths(capsys, tmp_path):
    entries = flores_entries(12)
    for entry in entries:
        entry["segment"] = "development"
    entries[1]["segment"] = "gold_standard"
    entries[2]["source"] = entries[1]["source"].upper() + "  "  # near-duplicate, public
    entries[4]["source"] = entries[3]["source"]  # exact duplicate, same segment
    entries[5]["reference"] = entries[5]["source"]  # reference == source
    entries[6]["variants"] = ["autre", entries[6]["reference"]]  # variants hold the reference
    entries[7]["reference"] = entries[7]["reference"][:8]  # truncated: odd length ratio
    code, report = lint_json(capsys, write(tmp_path / "c.json", envelope(entries)))
    assert code == 1
    found = {f["code"]: (f["severity"], f["entry_ids"]) for f in report["findings"]}
    assert found["contamination"] == ("error", ["2", "3"])
    assert found["duplicate_source"] == ("warning", ["4", "5"])
    assert found["reference_equals_source"] == ("warning", ["6"])
    assert found["variant_is_reference"] == ("warning", ["7"])
    assert found["length_ratio"] == ("warning", ["8"])
    assert len(found) == 5


def test_length_ratio_is_judged_against_the_pair_s_own_median(capsys, tmp_path):
    # Chinese -> English references run about 3 times longer in characters: not suspicious.
    sheet = DATA / "corpus-tools" / "wmt21-ted-zhen-refB-20.tsv"
    path = tmp_path / "zhen.json"
    args = ["--column=id=seg_id", "--id=zhen", "--source-language=zh", "--target-language=en"]
    assert (
        main(["corpus", "import", str(sheet), *args, "--license=Apache-2.0", "-o", str(path)]) == 0
    )
    capsys.readouterr()
    _, report = lint_json(capsys, path)
    assert "length_ratio" not in {f["code"] for f in report["findings"]}
    document = read(path)
    document["entries"][3]["reference"] = document["entries"][3]["reference"][:9]
    _, report = lint_json(capsys, write(path, document))
    flagged = [f["entry_ids"] for f in report["findings"] if f["code"] == "length_ratio"]
    assert flagged == [[str(document["entries"][3]["id"])]]


def test_near_key_groups_case_spacing_and_punctuation_only():
    assert near_key("Edmonton") == near_key('"edmonton"') == near_key("Edmonton !")
    assert near_key("I love you!") == near_key("I love you.")
    assert near_key("beaver-berry") == near_key("beaver berry")
    assert near_key("I love you") != near_key("I loved you")
    assert near_key("côte") != near_key("cote")


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_shipped_corpora_are_development_only_so_not_ready(capsys, path):
    code, report = lint_json(capsys, path)
    raw = json.loads(path.read_text(encoding="utf-8"))
    assert code == 1
    missed = {m["number"] for m in report["minimums"] if not m["ok"]}
    assert {1, 3, 7} <= missed  # no gold_standard, no diagnostic, no consent recorded
    assert report["minimums"][1]["have"] == len(raw["entries"])
    assert not [f for f in report["findings"] if f["severity"] == "error"]


def test_resources_of_the_plains_cree_corpus(capsys):
    code, report = lint_json(capsys, CORPORA / "eng-crk-morphodict-vocab.json")
    assert code == 1
    raw = json.loads((CORPORA / "eng-crk-morphodict-vocab.json").read_text(encoding="utf-8"))
    resources = {r["name"]: r for r in report["resources"]}
    assert resources["FST analyzer"]["found"]
    assert resources["orthography"]["found"]
    assert not resources["gold morphological analyses"]["found"]
    with_variants = sum(1 for e in raw["entries"] if e.get("variants"))
    assert resources["variants / variant classes"]["detail"] == (
        f"variants on {with_variants} entries, 0 variant classes"
    )
    near = [f for f in report["findings"] if f["code"] == "near_duplicate_source"]
    assert ["523", "524"] in [f["entry_ids"] for f in near]  # Edmonton / edmonton


def test_a_missing_resources_file_is_an_error(capsys, tmp_path):
    document = envelope(flores_entries(3), language_resources="nowhere/crk.json")
    code, report = lint_json(capsys, write(tmp_path / "c.json", document))
    assert code == 1
    errors = [f["message"] for f in report["findings"] if f["code"] == "resources"]
    assert len(errors) == 1
    assert "nowhere/crk.json: cannot read language resources" in errors[0]


def test_warnings_fail_only_with_strict(capsys, tmp_path):
    path = ready_corpus(tmp_path)
    code, report = lint_json(capsys, path)
    assert code == 0
    assert report["findings"]  # the real sheet has a loose translation: a length warning
    assert {f["severity"] for f in report["findings"]} == {"warning"}
    code, _ = lint(capsys, path, "--strict")
    assert code == 1
    raw = read(path)
    diagnostic = [str(e["id"]) for e in raw["entries"] if e["segment"] == "diagnostic"]
    unnamed = [f for f in report["findings"] if f["code"] == "diagnostic_without_phenomenon"]
    assert [f["entry_ids"] for f in unnamed] == [diagnostic]
    for entry in raw["entries"]:
        if entry["segment"] == "diagnostic":
            entry["notes"] = "register: exclamation vs statement"
    _, report = lint_json(capsys, write(path, raw))
    assert "diagnostic_without_phenomenon" not in {f["code"] for f in report["findings"]}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"\xff\xfe{}", "not UTF-8 text"),
        (b'{"entries": 3}', "a corpus is a JSON object with an 'entries' list"),
        (b"source,reference\n", "invalid JSON at line 1, column 1"),
    ],
)
def test_unreadable_files_exit_2_with_one_line(capsys, tmp_path, content, message):
    path = tmp_path / "c.json"
    path.write_bytes(content)
    code, out = lint(capsys, path)
    assert code == 2
    assert out.count("\n") == 1
    assert out.startswith(f"mteval corpus lint: {path}: ")
    assert message in out
    code, out = lint(capsys, path, "--format", "json")
    assert code == 2
    assert message in json.loads(out)["error"]


def test_a_100_mb_file_that_is_no_corpus_exits_2(capsys, tmp_path):
    path = tmp_path / "big.json"
    with path.open("wb") as handle:
        handle.write(b'["')
        handle.write(b"x" * (100 * 1024 * 1024))
        handle.write(b'"]')
    code, out = lint(capsys, path)
    assert (code, out) == (
        2,
        f"mteval corpus lint: {path}: a corpus is a JSON object with an 'entries' list (or "
        "the reference harness's flat list of entries)\n",
    )


def test_linting_a_sheet_says_to_import_it_first(capsys):
    sheet = DATA / "corpus-tools" / "eng-guj-tatoeba-120.csv"
    code, out = lint(capsys, sheet)
    assert code == 2
    assert out == (
        f"mteval corpus lint: {sheet}: invalid JSON at line 1, column 1: Expecting value "
        f"(a sheet? make it a corpus first: mteval corpus import {sheet} -o ...)\n"
    )


def test_missing_file_exits_2(capsys, tmp_path):
    path = tmp_path / "nope.json"
    code, out = lint(capsys, path)
    assert code == 2
    assert (
        out == f"mteval corpus lint: {path}: cannot read corpus file: No such file or directory\n"
    )
