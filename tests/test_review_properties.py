"""Property tests: whatever a ratings file, a sample record or a threshold option holds,
``mteval review ingest`` ends in a validated card that verifies or in one line naming the
problem, never a traceback. Each test counts the inputs it ran and checks the count."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import tempfile
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("hypothesis")

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_review import build_card
from trust_keys import private

from pytest_mteval.cards import runcard
from pytest_mteval.cli.main import main as mteval_main
from pytest_mteval.review import form

EXAMPLES = 200


def fast(examples: int) -> settings:
    return settings(
        max_examples=examples,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


@pytest.fixture(scope="module")
def drawn(tmp_path_factory):
    """A real card, its sample record (all 40 entries) and the record's content."""
    folder = tmp_path_factory.mktemp("props")
    card = build_card(folder)
    assert run("review", "sample", card, "-n", 40)[0] == 0
    [record] = folder.glob("*.sample.json")
    return card, record, json.loads(record.read_text(encoding="utf-8"))


def run(*args: Any) -> tuple[int, str]:
    """`mteval` in process; `review ingest` signs with the governance key (`trust_keys`)."""
    if args[:2] == ("review", "ingest"):
        args = (*args, "--sign-key", private("governance"))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = mteval_main([str(a) for a in args])
    return code, out.getvalue()


def check_outcome(code: int, output: str, out: Path) -> None:
    if code == 0:
        assert run("verify", out)[0] == 0
        return
    assert code == 1, output
    line = output.strip()
    assert line.startswith("mteval review: ")
    assert "\n" not in line
    assert not out.exists()


cell = st.one_of(
    st.text(max_size=8),
    st.sampled_from(["=1+1", "'=x", "'", "\u200b", "\ud7ff", "2026-12-01", "-", "\r\n"]),
)
names = st.sampled_from(["Alice", "ALICE", "Al\u200bice", "\u0410lice", "Bob", "", " "])


def ratings_rows(record: dict[str, Any]) -> st.SearchStrategy[list[dict[str, Any]]]:
    good = st.fixed_dictionaries(
        {
            "sample_id": st.sampled_from([record["sample_id"], "x-n1-s1", ""]) | cell,
            "entry_id": st.sampled_from(record["entry_ids"]) | cell,
            "reviewer": names | cell,
            "date": st.sampled_from(["", "2026-12-01"]) | cell,
            "rating": st.sampled_from([*form.RATINGS, ""]) | cell,
        }
    )
    return st.lists(good, max_size=6)


@given(data=st.data())
@fast(EXAMPLES)
def test_ingest_of_any_ratings_file_ends_in_a_card_or_one_line(drawn, data):
    card, record_path, record = drawn
    columns = data.draw(st.sampled_from([form.COLUMNS, form.COLUMNS[:6], ("sample_id", "rating")]))
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for index in range(2):
            path = Path(tmp) / f"r{index}.csv"
            with path.open("w", encoding="utf-8", newline="") as handle:
                writer = csv.DictWriter(handle, fieldnames=columns, extrasaction="ignore")
                writer.writeheader()
                writer.writerows(data.draw(ratings_rows(record)))
            files.append(path)
        out = Path(tmp) / "v.json"
        code, output = run("review", "ingest", card, *files, "--sample", record_path, "--out", out)
        check_outcome(code, output, out)
    COUNTS["ratings"] += 1


def record_content(record: dict[str, Any]) -> st.SearchStrategy[Any]:
    leaves = st.one_of(st.none(), st.booleans(), st.integers(-(2**40), 2**40), st.text(max_size=6))
    field = {key: st.one_of(st.just(value), leaves) for key, value in record.items()}
    field["size"] = st.one_of(st.just(record["size"]), st.integers(-3, 10**6), leaves)
    field["entry_ids"] = st.one_of(
        st.just(record["entry_ids"]), st.lists(st.sampled_from(record["entry_ids"]), max_size=40)
    )
    return st.one_of(st.fixed_dictionaries(field), leaves, st.lists(leaves, max_size=3))


@given(data=st.data())
@fast(EXAMPLES)
def test_ingest_of_any_sample_record_ends_in_a_card_or_one_line(drawn, data):
    card, _, record = drawn
    content = data.draw(record_content(record))
    template = [
        {"sample_id": record["sample_id"], "entry_id": e, "rating": "excellent"}
        for e in record["entry_ids"]
    ]
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for name in ("A", "B"):
            path = Path(tmp) / f"{name}.csv"
            with path.open("w", encoding="utf-8", newline="") as handle:
                writer = csv.DictWriter(handle, fieldnames=form.COLUMNS)
                writer.writeheader()
                writer.writerows([{**row, "reviewer": name} for row in template])
            files.append(path)
        forged = Path(tmp) / "record.sample.json"
        forged.write_text(json.dumps(content), encoding="utf-8")
        out = Path(tmp) / "v.json"
        code, output = run("review", "ingest", card, *files, "--sample", forged, "--out", out)
        check_outcome(code, output, out)
        if code == 0:
            assert (
                runcard.load(out)["human_validation"]["sample"]["entry_ids"] == record["entry_ids"]
            )
    COUNTS["records"] += 1


@given(
    option=st.sampled_from(["--min-usable", "--min-entries", "--min-reviewers"]),
    value=st.text(max_size=8)
    | st.sampled_from(["nan", "-inf", "1e400", "0x10", "١", "¹", "²⁰", "--"]),
)
@fast(EXAMPLES)
def test_any_threshold_value_ends_in_one_line(drawn, option, value):
    card, record_path, _ = drawn
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "v.json"
        code, output = run(
            "review",
            "ingest",
            card,
            Path(tmp) / "none.csv",
            "--sample",
            record_path,
            "--out",
            out,
            f"{option}={value}",
        )
        check_outcome(code, output, out)
        assert code == 1
    COUNTS["thresholds"] += 1


COUNTS = {"ratings": 0, "records": 0, "thresholds": 0}


def test_every_property_ran_its_examples():
    """Run last in file order (-p no:randomly): the count is the count claimed."""
    if not all(COUNTS.values()):
        pytest.skip("run with the property tests above (file order)")
    assert COUNTS == {"ratings": EXAMPLES, "records": EXAMPLES, "thresholds": EXAMPLES}
