"""``mteval compare A B C --html PAGE``: several real runs of one corpus side by side.

The cards come from real sessions over the shipped Shona Tatoeba corpus, on one range of its
entries: the identity method, and the replayed predictions of two upstream LLM runs
(tests/data/upstream-runs, see its SOURCE.md). Scores are checked against sacrebleu's sentence
chrF++ computed here; the page is read back from headless Chromium's DOM.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from functools import cache
from importlib import resources
from pathlib import Path

import pytest
from browser import chromium, console_errors, skip_reason
from replayed_runs import GPT55, HAIKU, REPLAY, REPO, SME_CORPUS, SNA_CORPUS, report
from sacrebleu.metrics import CHRF

from pytest_mteval.cli.main import main
from pytest_mteval.reports.side_by_side import page as page_text
from pytest_mteval.reports.side_by_side import read_cards

CHRF_PP = CHRF(word_order=2)
IDENTITY = REPO / "methods" / "identity"
#: A range of the corpus's entries (its ids are not numbers: a comma list of exact ids).
ENTRY_IDS = [str(e["id"]) for e in json.loads(SNA_CORPUS.read_text("utf-8"))["entries"]][:16]
HOSTILE = "<script>document.title='owned'</script>\x1b[31mred\x1b[0m <b>bold</b> {{ 7*7 }}"
TOP = 4

needs_browser = pytest.mark.skipif(skip_reason() is not None, reason=skip_reason() or "")


def _session(
    folder: Path, method: Path, *method_args: str, corpus: Path = SNA_CORPUS, ids: str = ""
) -> Path:
    """A real pytest-mteval session over ENTRY_IDS (or ``ids``) of ``corpus``; its run card."""
    folder.mkdir(parents=True, exist_ok=True)
    card = folder / "card.json"
    done = subprocess.run(
        [
            sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
            f"--mteval-corpus={corpus}", f"--mteval-method={method}",
            *(f"--mteval-method-arg={a}" for a in method_args),
            f"--mteval-entry={ids or ','.join(ENTRY_IDS)}", f"--mteval-run-card={card}",
        ],
        cwd=folder, capture_output=True, text=True, check=False,
    )  # fmt: skip
    if not card.exists():
        raise RuntimeError(f"session wrote no card:\n{done.stdout}\n{done.stderr}")
    return card


@cache
def three_cards(root: Path) -> tuple[Path, Path, Path]:
    return (
        _session(root / "identity", IDENTITY),
        _session(root / "gpt55", REPLAY, f"predictions={GPT55}"),
        _session(root / "haiku", REPLAY, f"predictions={HAIKU}"),
    )


@pytest.fixture(scope="module")
def cards(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    return three_cards(tmp_path_factory.mktemp("side-by-side"))


@pytest.fixture(scope="module")
def page(cards: tuple[Path, Path, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("page") / "compare.html"
    assert main(["compare", *map(str, cards), "--html", str(out), "--top-spread", str(TOP)]) == 0
    return out


def _expected() -> dict[str, dict[str, object]]:
    """Per entry: source, reference and each run's output and sentence chrF++ (sacrebleu)."""
    corpus = {str(e["id"]): e for e in json.loads(SNA_CORPUS.read_text("utf-8"))["entries"]}
    upstream = [{str(e["id"]): e for e in report(path)["entries"]} for path in (GPT55, HAIKU)]
    out: dict[str, dict[str, object]] = {}
    for entry_id in ENTRY_IDS:
        entry = corpus[entry_id]
        outputs = [entry["source"], *(runs[entry_id]["predicted"] for runs in upstream)]
        scores = [CHRF_PP.sentence_score(o, [entry["reference"]]).score for o in outputs]
        out[entry_id] = {
            "source": entry["source"],
            "reference": entry["reference"],
            "outputs": outputs,
            "chrf": scores,
            "spread": max(scores) - min(scores),
        }
    return out


def _rows(driver: object) -> list[dict[str, object]]:
    return driver.execute_script(  # type: ignore[attr-defined,no-any-return]
        "return Array.from(document.querySelectorAll('tr.sxs-entry')).map(r => ({"
        "id: r.getAttribute('data-entry-id'), hidden: r.hidden,"
        "source: r.querySelector('td.source').textContent,"
        "reference: r.querySelector('td.reference').textContent,"
        "outputs: Array.from(r.querySelectorAll('td.run-cell .output')).map(o => o.textContent),"
        "chrf: Array.from(r.querySelectorAll('td.run-cell')).map(c => c.querySelector("
        "'[data-score=\"chrF++\"]').textContent)}))"
    )


@needs_browser
def test_every_entry_with_every_runs_output_and_sacrebleus_chrf(page: Path) -> None:
    expected = _expected()
    with chromium() as driver:
        driver.get(page.as_uri())  # type: ignore[attr-defined]
        assert console_errors(driver) == []
        rows = _rows(driver)
        summaries = driver.find_elements("css selector", "tr.sxs-run")  # type: ignore[attr-defined]
        assert len(summaries) == 3
    assert [r["id"] for r in rows] == ENTRY_IDS
    for row in rows:
        want = expected[str(row["id"])]
        assert row["source"] == want["source"]
        assert row["reference"] == want["reference"]
        assert row["outputs"] == want["outputs"]
        shown = [float(str(c).split()[-1]) for c in row["chrf"]]  # type: ignore[attr-defined]
        assert shown == pytest.approx(want["chrf"], abs=0.006)
        assert not row["hidden"]


@needs_browser
def test_the_disagreement_filter_keeps_only_the_widest_spreads(page: Path) -> None:
    expected = _expected()
    ranked = sorted(expected, key=lambda i: (-float(expected[i]["spread"]), i))  # type: ignore[arg-type]
    with chromium() as driver:
        driver.get(page.as_uri())  # type: ignore[attr-defined]
        driver.find_element("id", "sxs-disagree").click()  # type: ignore[attr-defined]
        kept = [r["id"] for r in _rows(driver) if not r["hidden"]]
        shown = driver.find_element("id", "sxs-shown").text  # type: ignore[attr-defined]
        top = driver.find_element("id", "sxs-top")  # type: ignore[attr-defined]
        top.clear()
        top.send_keys("2")
        kept_two = [r["id"] for r in _rows(driver) if not r["hidden"]]
        spread = driver.find_elements("css selector", "table.sxs-entries thead th")[1]  # type: ignore[attr-defined]
        spread.click()
        spread.click()  # descending: the widest spread first
        first = _rows(driver)[0]["id"]
    assert sorted(kept) == sorted(ranked[:TOP])
    assert shown == f"{TOP} of {len(ENTRY_IDS)}"
    assert sorted(kept_two) == sorted(ranked[:2])
    assert first == ranked[0]


def test_the_summary_at_the_top_is_each_cards_own(page: Path, cards: tuple[Path, ...]) -> None:
    text = page.read_text("utf-8")
    for card_path in cards:
        card = json.loads(card_path.read_text("utf-8"))
        assert f"{card['scores']['chrf_plus_plus']:.2f}" in text
        assert f"{card['scores']['composite']:.4f}" in text


def test_cards_of_another_corpus_are_refused_in_one_line(
    cards: tuple[Path, ...], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first_sme = str(json.loads(SME_CORPUS.read_text("utf-8"))["entries"][0]["id"])
    edited = _session(tmp_path / "sme", IDENTITY, corpus=SME_CORPUS, ids=first_sme)
    out = tmp_path / "page.html"
    code = main(["compare", str(cards[0]), str(cards[1]), str(edited), "--html", str(out)])
    printed = capsys.readouterr().out
    assert code == 2
    assert printed.count("\n") == 1
    assert f"{edited} is not of the corpus of {cards[0]}" in printed
    assert not out.exists()


def test_three_runs_without_html_ask_for_it(
    cards: tuple[Path, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["compare", *map(str, cards)]) == 2
    printed = capsys.readouterr().out
    assert printed.count("\n") == 1
    assert "--html PAGE" in printed


def test_two_cards_keep_the_text_diff_and_write_the_page(
    cards: tuple[Path, ...], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "two.html"
    code = main(["compare", str(cards[1]), str(cards[2]), "--html", str(out)])
    printed = capsys.readouterr().out
    assert code in (0, 1)
    assert "entries that regressed most" in printed or "gate PASSED" in printed
    assert out.read_text("utf-8").count('class="sxs-entry"') == len(ENTRY_IDS)


@needs_browser
def test_a_hostile_prediction_is_shown_as_text(cards: tuple[Path, ...], tmp_path: Path) -> None:
    predictions = tmp_path / "hostile.jsonl"
    lines = [
        json.dumps({"id": i, "predicted": HOSTILE if i == ENTRY_IDS[0] else "x"}) for i in ENTRY_IDS
    ]
    predictions.write_text("\n".join(lines) + "\n", "utf-8")
    hostile = _session(tmp_path / "hostile", REPLAY, f"predictions={predictions}")
    out = tmp_path / "hostile.html"
    assert main(["compare", str(cards[0]), str(hostile), "--html", str(out)]) in (0, 1)
    assert "<script>document" not in out.read_text("utf-8")
    with chromium() as driver:
        driver.get(out.as_uri())  # type: ignore[attr-defined]
        title = driver.title  # type: ignore[attr-defined]
        rows = _rows(driver)
        bolds = driver.execute_script(  # type: ignore[attr-defined]
            "return document.querySelectorAll('td.run-cell b').length"
        )
    assert title != "owned"
    assert rows[0]["outputs"][1] == HOSTILE  # type: ignore[index]
    assert bolds == 0


def test_a_redacted_cards_missing_texts_stay_missing(cards: tuple[Path, ...]) -> None:
    """A secret corpus's card carries no source or reference; the page shows none either."""
    runs = read_cards(list(cards))
    for run in runs:
        for row in run.card.results:  # as run/redaction.py leaves a secret run's rows
            row["source"] = None
            row["expected"] = None
    text = page_text(runs)
    for css in ("source", "reference"):
        cells = re.findall(rf'<td class="text {css}">(.*?)</td>', text)
        assert cells == ['<span class="muted">(not on the card)</span>'] * len(ENTRY_IDS)


def test_a_reference_harness_report_is_refused_in_one_line(
    cards: tuple[Path, ...], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "page.html"
    assert main(["compare", str(cards[0]), str(GPT55), str(cards[1]), "--html", str(out)]) == 2
    printed = capsys.readouterr().out
    assert printed == (
        f"mteval compare: {GPT55}: not a run card of this harness (results, run_card_hash): "
        "the side-by-side page shows run cards only\n"
    )
    assert not out.exists()


def test_the_page_is_one_file_with_its_packaged_style_and_script(page: Path) -> None:
    text = page.read_text("utf-8")
    folder = resources.files("pytest_mteval.reports")
    for name in ("side_by_side.css", "side_by_side.js", "page.css", "page.js"):
        assert folder.joinpath("static", name).read_text("utf-8").strip() in text
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", text)  # nothing to fetch
