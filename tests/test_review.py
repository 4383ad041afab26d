"""Human validation (spec §7.3): a real run card sampled by `mteval review sample`, rated by
two reviewers in the CSV the form exports, ingested by `mteval review ingest` into a new card
that verifies and names its parent."""

from __future__ import annotations

import csv
import hashlib
import json
import subprocess
import sys
from collections import Counter

import pytest
from conftest import METHODS, envelope, flores_entries
from trust_keys import private

from pytest_mteval.cards import runcard
from pytest_mteval.cards.verification_tier import review_seed
from pytest_mteval.review import agreement, form, sample
from pytest_mteval.scoring.composite import CANDIDATE_LABEL

ENTRIES = 40
# the sheets hold whole predictions, some longer than csv's default field limit
csv.field_size_limit(2**31 - 1)


def record_of(sheet):
    """The sample record `mteval review sample` wrote beside a CSV template."""
    [record] = sheet.parent.glob("*.sample.json")
    return record


def ingest(sheet, *args):
    """`mteval review ingest` against the sample record of ``sheet``, the record signed by
    the governance key (`trust_keys`)."""
    return mteval(
        "review", "ingest", *args, "--sample", record_of(sheet), "--sign-key", private("governance")
    )


def mteval(*args):
    return subprocess.run(
        [sys.executable, "-m", "pytest_mteval.cli.main", *map(str, args)],
        capture_output=True,
        text=True,
        check=False,
    )


def build_card(folder, hostile=None):
    """A real session's card over ``ENTRIES`` FLORES entries, the references replayed as
    predictions except where ``hostile`` (entry index -> prediction) says otherwise."""
    entries = flores_entries(ENTRIES)
    for i, entry in enumerate(entries):
        entry["difficulty"] = 1 + i % 3
    corpus = folder / "corpus.json"
    corpus.write_text(json.dumps(envelope(entries), ensure_ascii=False), encoding="utf-8")
    predictions = folder / "predictions.jsonl"
    predicted = [(hostile or {}).get(i, e["reference"]) for i, e in enumerate(entries)]
    predictions.write_text(
        "".join(
            json.dumps({"id": e["id"], "predicted": p}) + "\n"
            for e, p in zip(entries, predicted, strict=True)
        ),
        encoding="utf-8",
    )
    card = folder / "card.json"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:asyncio",
            f"--mteval-corpus={corpus}",
            f"--mteval-method={METHODS / 'replay'}",
            f"--mteval-method-arg=predictions={predictions}",
            f"--mteval-run-card={card}",
        ],
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
    )
    assert runcard.load(card)["results"], done.stdout
    return card


@pytest.fixture(scope="module")
def candidate(tmp_path_factory):
    """A real session's card that reaches the top tier: the references replayed (one
    session for the module; tests that change a card write their own copy)."""
    card = build_card(tmp_path_factory.mktemp("candidate"))
    loaded = runcard.load(card)
    assert loaded["scores"]["quality_tier"] == CANDIDATE_LABEL
    return card


def test_sample_is_stratified_seeded_and_written_as_form_and_template(candidate, tmp_path):
    out = tmp_path / "sheets"
    done = mteval("review", "sample", candidate, "-n", 30, "--out", out)
    assert done.returncode == 0, done.stdout
    card = runcard.load(candidate)
    [html] = out.glob("*.html")
    [template] = out.glob("*.csv")
    rows = list(csv.DictReader(template.open(encoding="utf-8")))
    assert len(rows) == 30
    by_id = {r["entry_id"]: r for r in card["results"]}
    # proportional allocation: 14/13/13 entries per difficulty -> 10.5/9.75/9.75 of 30 ->
    # 10/9/9 and the two largest remainders -> 10/10/10
    assert Counter(by_id[r["entry_id"]]["difficulty"] for r in rows) == {"1": 10, "2": 10, "3": 10}
    assert all(r["prediction"] == by_id[r["entry_id"]]["predicted"] for r in rows)
    seed = review_seed(card["run_card_hash"])  # the card's hash fixes it
    assert {r["sample_id"] for r in rows} == {f"{card['run_card_hash'][:12]}-n30-s{seed}"}
    page = html.read_text(encoding="utf-8")
    assert all(r["entry_id"] in page for r in rows)
    again = sample.draw(card, 30, seed).entry_ids()
    assert again == [r["entry_id"] for r in rows]
    assert sample.draw(card, 30, seed + 1).entry_ids() != again
    kept = json.loads(record_of(template).read_text(encoding="utf-8"))
    assert kept["card_hash"] == card["run_card_hash"]
    assert (kept["size"], kept["seed"], kept["entry_ids"]) == (30, seed, again)


def test_form_shows_hostile_text_as_data_only():
    hostile = '</script><script>alert("x")</script><img src=x onerror=alert(1)>'
    item = sample.Item("7", "source", hostile, "reference", "difficulty_1")
    drawn = sample.Sample("a" * 12 + "-n1-s1", "a" * 64, 1, 1, "difficulty", {}, (item,))
    page = form.html_form(drawn, "</title><script>bad()</script>")
    assert "<script>alert" not in page
    assert "<img" not in page
    assert "<script>bad" not in page
    start = page.index('type="application/json">') + len('type="application/json">')
    data = json.loads(page[start : page.index("</script>", start)])
    assert data["items"][0]["prediction"] == hostile
    assert "innerHTML" not in page


def rate(path, card_path, reviewer, ratings, date="2026-12-01"):
    """Fill the CSV template as a reviewer would."""
    rows = list(csv.DictReader(card_path.open(encoding="utf-8")))
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=form.COLUMNS)
        writer.writeheader()
        for row, rating in zip(rows, ratings, strict=True):
            note = 'a note, with "quotes"\nover two lines' if row is rows[0] else ""
            writer.writerow(
                {**row, "reviewer": reviewer, "date": date, "rating": rating, "note": note}
            )
    return path


@pytest.fixture
def sheet(candidate, tmp_path):
    out = tmp_path / "sheets"
    assert mteval("review", "sample", candidate, "-n", 30, "--out", out).returncode == 0
    [template] = out.glob("*.csv")
    return template


def test_round_trip_turns_a_candidate_into_a_community_validated_card(candidate, sheet, tmp_path):
    first = ["excellent"] * 20 + ["acceptable"] * 8 + ["gist", "reject"]
    second = ["excellent"] * 18 + ["acceptable"] * 10 + ["reject", "reject"]
    a = rate(tmp_path / "a.csv", sheet, "Alice Example", first)
    b = rate(tmp_path / "b.csv", sheet, "Bob Example", second, "2026-12-02")
    out = tmp_path / "validated.json"
    done = ingest(sheet, candidate, a, b, "--out", out)
    assert done.returncode == 0, done.stdout
    parent, child = runcard.load(candidate), runcard.load(out)
    assert child["scores"]["quality_tier"] == "fluent (community validated)"
    assert mteval("verify", out).returncode == 0
    block = child["human_validation"]
    assert block["extends"]["run_card_hash"] == parent["run_card_hash"]
    assert child["run_card_hash"] != parent["run_card_hash"]
    assert "Alice" not in out.read_text(encoding="utf-8")
    assert {r["id"] for r in block["reviewers"]} == {
        "r-" + hashlib.sha256(f"{parent['run_card_hash']}:{name}".encode()).hexdigest()[:12]
        for name in ("alice example", "bob example")
    }
    pairs = list(zip(first, second, strict=True))
    assert block["agreement"]["exact"] == round(sum(x == y for x, y in pairs) / 30, 4)
    # lower median of two = the worse rating of the two
    order = form.RATINGS
    combined = Counter(min(x, y, key=order.index) for x, y in pairs)
    assert block["ratings"] == {r: combined[r] for r in order}
    assert block["sample"]["entry_ids"] == [
        r["entry_id"] for r in csv.DictReader(sheet.open(encoding="utf-8"))
    ]
    assert sorted(d for r in block["reviewers"] for d in r["dates"]) == ["2026-12-01", "2026-12-02"]


def test_ratings_below_threshold_leave_the_candidate_label(candidate, sheet, tmp_path):
    poor = ["gist"] * 20 + ["acceptable"] * 10
    a = rate(tmp_path / "a.csv", sheet, "A", poor)
    b = rate(tmp_path / "b.csv", sheet, "B", poor)
    out = tmp_path / "validated.json"
    assert ingest(sheet, candidate, a, b, "--out", out).returncode == 0
    child = runcard.load(out)
    assert child["human_validation"]["meets_threshold"] is False
    assert child["scores"]["quality_tier"] == CANDIDATE_LABEL


def test_one_reviewer_is_not_enough(candidate, sheet, tmp_path):
    a = rate(tmp_path / "a.csv", sheet, "A", ["excellent"] * 30)
    out = tmp_path / "validated.json"
    assert ingest(sheet, candidate, a, "--out", out).returncode == 0
    assert runcard.load(out)["scores"]["quality_tier"] == CANDIDATE_LABEL


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("rating", "good"), "line 5: field 'rating': 'good' is not one of"),
        (("entry_id", "99999"), "line 5: field 'entry_id': '99999' is not in the sample"),
        (("prediction", "something else"), "line 5: field 'prediction': differs"),
        (("date", "yesterday"), "line 5: field 'date': 'yesterday' is not YYYY-MM-DD"),
        (("reviewer", ""), "line 5: field 'reviewer': empty"),
    ],
)
def test_bad_ratings_get_one_line_naming_file_line_and_field(
    candidate, sheet, tmp_path, change, message
):
    path = rate(tmp_path / "a.csv", sheet, "A", ["excellent"] * 30)
    rows = list(csv.DictReader(path.open(encoding="utf-8")))
    rows[2][change[0]] = change[1]
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=form.COLUMNS)
        writer.writeheader()
        writer.writerows(rows)
    b = rate(tmp_path / "b.csv", sheet, "B", ["excellent"] * 30)
    done = ingest(sheet, candidate, path, b, "--out", tmp_path / "v.json")
    assert done.returncode == 1
    line = done.stdout.strip()
    assert "\n" not in line
    assert line.startswith(f"mteval review: {path}: {message}")
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "v.json").exists()


def test_a_sheet_from_another_card_or_a_duplicate_reviewer_is_refused(candidate, sheet, tmp_path):
    a = rate(tmp_path / "a.csv", sheet, "Same", ["excellent"] * 30)
    b = rate(tmp_path / "b.csv", sheet, "same", ["excellent"] * 30)
    done = ingest(sheet, candidate, a, b, "--out", tmp_path / "v.json")
    assert "reviewer 'same' appears in more than one file" in done.stdout
    assert f"as 'Same' in {a}" in done.stdout
    other = runcard.load(candidate)
    other["temperature"] = 0.5
    other_path = tmp_path / "other.json"
    runcard.write_new(runcard.seal(other), other_path)
    done = ingest(sheet, other_path, a, "--out", tmp_path / "v.json")
    assert done.returncode == 1
    assert "field 'card_hash': drawn from card" in done.stdout


def test_a_forged_or_edited_validated_card_does_not_verify(candidate, sheet, tmp_path):
    poor = ["reject"] * 30
    a, b = (rate(tmp_path / f"{n}.csv", sheet, n, poor) for n in "ab")
    out = tmp_path / "validated.json"
    assert ingest(sheet, candidate, a, b, "--out", out).returncode == 0
    forged = runcard.load(out)
    forged["scores"]["quality_tier"] = "fluent (community validated)"
    forged["human_validation"]["meets_threshold"] = True
    path = tmp_path / "forged.json"
    runcard.write_new(runcard.seal(forged), path)
    done = mteval("verify", path)
    assert done.returncode == 1
    assert "meets_threshold does not follow" in done.stdout
    edited = runcard.load(out)
    edited["scores"]["chrf_plus_plus"] = 12.0
    path = tmp_path / "edited.json"
    runcard.write_new(runcard.seal(edited), path)
    done = mteval("verify", path)
    assert done.returncode == 1
    assert "is not its parent" in done.stdout


def test_krippendorff_alpha_matches_the_published_example():
    # Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: four
    # observers, twelve units, missing values; interval alpha = 0.849.
    table = [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
        [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
    ]
    units = [[row[u] for row in table if row[u] is not None] for u in range(12)]
    assert round(agreement.krippendorff_alpha_interval(units), 3) == 0.849
