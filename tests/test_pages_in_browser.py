"""The HTML pages as a person sees them: rendered by headless Chromium, read back from its DOM.

Cards come from real replay sessions; the run report is written by a real session's
``--mteval-html``. Each test saves a full-page screenshot under its temporary folder.
"""

from __future__ import annotations

import json
import re

import pytest
from browser import chromium, console_errors, full_page_screenshot, skip_reason
from leaderboard_cards import RUNS, copy_cards, load
from sacrebleu.metrics.chrf import CHRF

from pytest_mteval.cli.main import main

# Imported here, in the outer process, so that pytester's in-process runs find matplotlib
# already loaded: pytester drops the modules a run imported, and a second run's fresh copy of
# matplotlib fails on the first copy's leftovers ('Figure' object has no attribute 'items').
pytest_mteval_html_report = pytest.importorskip("pytest_mteval.reports.html_report")

pytestmark = pytest.mark.skipif(skip_reason() is not None, reason=skip_reason() or "")

SNA_RUNS = ("gpt55", "haiku", "deepseek")


def visible_cells(driver, table_css, column):
    return driver.execute_script(
        "return Array.from(document.querySelectorAll(arguments[0] + ' tbody tr'))"
        ".filter(r => !r.hidden).map(r => r.cells[arguments[1]].getAttribute('data-sort'))",
        table_css,
        column,
    )


def header_index(driver, table_css, label):
    labels = driver.execute_script(
        "return Array.from(document.querySelectorAll(arguments[0] + ' thead th'))"
        ".map(h => h.textContent)",
        table_css,
    )
    return labels.index(label)


def test_leaderboard_page(tmp_path):
    paths = copy_cards(tmp_path / "cards", *SNA_RUNS, "gemini-sme")
    out = tmp_path / "out"
    assert main(["leaderboard", str(tmp_path / "cards"), "--html", f"{out}/"]) == 0
    page = out / "leaderboard.html"
    text = page.read_text(encoding="utf-8")
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", text)  # nothing to fetch
    with chromium() as driver:
        driver.get(page.as_uri())
        boards = driver.find_elements("css selector", "section.board")
        assert len(boards) == 2
        shown_ids = sorted(
            r.get_attribute("data-run-id")
            for r in driver.find_elements("css selector", "tr.card-row")
        )
        assert shown_ids == sorted(load(p)["run_id"] for p in paths.values())
        for board in boards:
            rows = board.find_elements("css selector", "tr.card-row")
            marks = board.find_elements("css selector", "svg g[id^='card-']")
            assert len(marks) == len(rows)  # one mark per card in the scatter
            assert all(m.is_displayed() for m in marks)
        sna = "#" + (boards[1] if "eng-sna" in boards[1].text else boards[0]).get_attribute("id")
        table = f"{sna} table"
        column = header_index(driver, table, "chrF++")
        before = [float(v) for v in visible_cells(driver, table, column)]
        assert before != sorted(before)  # ranked by composite: chrF++ falls down the table
        driver.find_elements("css selector", f"{table} thead th")[column].click()
        after = [float(v) for v in visible_cells(driver, table, column)]
        assert after == sorted(before)
        driver.find_elements("css selector", f"{table} thead th")[column].click()
        assert [float(v) for v in visible_cells(driver, table, column)] == sorted(
            before, reverse=True
        )
        assert console_errors(driver) == []
        assert driver.execute_script("return performance.getEntriesByType('resource').length") == 0
        shot = full_page_screenshot(driver, tmp_path / "leaderboard.png")
    assert shot.stat().st_size > 20_000


def regressed_ids(baseline, now, max_drop=10.0):
    """Entries whose sentence chrF++ dropped by more than max_drop, straight from the two
    upstream reports' texts with sacrebleu, independently of the plugin."""
    chrf = CHRF(word_order=2)
    before = {e["id"]: e for e in json.loads(baseline.read_text(encoding="utf-8"))["entries"]}
    out = set()
    for entry in json.loads(now.read_text(encoding="utf-8"))["entries"]:
        old = chrf.sentence_score(before[entry["id"]]["predicted"], [entry["expected"]]).score
        new = chrf.sentence_score(entry["predicted"], [entry["expected"]]).score
        if old - new > max_drop:
            out.add(str(entry["id"]))
    return out


def test_run_report_of_a_session(pytester, tmp_path):
    from selenium.webdriver.support.ui import Select

    baseline = copy_cards(tmp_path, "gpt55")["gpt55"]
    predictions, model, corpus = RUNS["haiku"]
    report, card_path = tmp_path / "report.html", tmp_path / "haiku.json"
    result = pytester.runpytest(
        f"--mteval-corpus={corpus}",
        f"--mteval-method={RUNS['gpt55'][0].parents[3] / 'methods' / 'replay'}",
        f"--mteval-method-arg=predictions={predictions}",
        f"--mteval-model={model}",
        f"--mteval-run-card={card_path}",
        f"--mteval-baseline={baseline}",
        f"--mteval-html={report}",
    )
    result.stdout.fnmatch_lines([f"html report {report}"])
    card = load(card_path)
    rows = card["results"]
    expected_regressed = regressed_ids(RUNS["gpt55"][0], predictions)
    assert expected_regressed
    with chromium() as driver:
        driver.get(report.as_uri())
        entries = "table.entries"
        ids = lambda: set(visible_cells(driver, entries, 0))  # noqa: E731
        assert ids() == {r["entry_id"] for r in rows}
        assert driver.find_element("id", "shown").text == f"{len(rows)} of {len(rows)}"
        domain = Select(driver.find_element("id", "filter-domain"))
        domain.select_by_value("religious")
        assert ids() == {r["entry_id"] for r in rows if r["domain"] == "religious"}
        domain.select_by_value("")
        driver.find_element("id", "filter-regressed").click()
        assert ids() == expected_regressed
        # the character diff turns the baseline prediction into this run's
        gpt = {
            str(e["id"]): e["predicted"]
            for e in json.loads(RUNS["gpt55"][0].read_text())["entries"]
        }
        by_id = {r["entry_id"]: r for r in rows}
        for entry_id in expected_regressed:
            old, new = driver.execute_script(
                "var c=document.querySelector('tr[data-entry=\"'+arguments[0]+'\"] td.diff');"
                "var a=c.cloneNode(true),b=c.cloneNode(true);"
                "a.querySelectorAll('ins').forEach(e=>e.remove());"
                "b.querySelectorAll('del').forEach(e=>e.remove());"
                "return [a.textContent,b.textContent]",
                entry_id,
            )
            assert (old, new) == (gpt[entry_id], by_id[entry_id]["predicted"])
        driver.find_element("id", "filter-regressed").click()
        column = header_index(driver, entries, "chrF++")
        driver.find_elements("css selector", f"{entries} thead th")[column].click()
        shown = [float(v) for v in visible_cells(driver, entries, column)]
        assert shown == sorted(r["chrf_score"] for r in rows)
        charts = driver.find_elements("css selector", "figure svg")
        assert len(charts) == 4  # difficulty, domain, provenance, histogram
        headline = driver.find_element("css selector", "tr[data-metric=composite]").text
        ci = card["scores"]["confidence_intervals"]["composite"]
        assert f"{card['scores']['composite']:.3f}" in headline
        assert f"[{ci['lower']:.3f}, {ci['upper']:.3f}]" in headline
        assert console_errors(driver) == []
        assert driver.execute_script("return performance.getEntriesByType('resource').length") == 0
        shot = full_page_screenshot(driver, tmp_path / "report.png")
    assert shot.stat().st_size > 20_000


def test_hostile_strings_stay_text_in_the_browser(tmp_path):
    """A card whose method, model, prediction, domain and flag break out of a script, fill a
    placeholder, look like a template and carry event handlers: in a real browser nothing
    runs, no element is added, and the page's data parses back to the string."""
    from test_pages_hostile import HOSTILE, hostile_card

    card = hostile_card(tmp_path, "hostile", HOSTILE)
    assert main(["report", str(card), "--html", str(tmp_path / "r.html")]) == 0
    assert main(["leaderboard", str(card), "--html", str(tmp_path / "l.html")]) == 0
    with chromium() as driver:
        for name, shown in (("r.html", "h1"), ("l.html", "tr.card-row td:nth-child(2)")):
            driver.get((tmp_path / name).as_uri())
            # an alert() would be open now, and this call would raise UnexpectedAlertPresent
            counts = driver.execute_script(
                "return [document.scripts.length, document.images.length,"
                " document.querySelectorAll('[onerror]').length,"
                " JSON.parse(document.getElementById('mteval-page').textContent)]"
            )
            assert counts[:3] == [2, 0, 0]
            data = counts[3] if name == "r.html" else counts[3]["boards"][0]["rows"][0]
            assert data["method"] == HOSTILE
            assert HOSTILE in driver.find_element("css selector", shown).text
            assert console_errors(driver) == []
        full_page_screenshot(driver, tmp_path / "hostile.png")
