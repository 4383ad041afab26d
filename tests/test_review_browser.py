"""The review form in headless Chromium: two reviewers fill it and export CSV, and the
exported files are ingested into a community-validated card (spec §7.3); a form of hostile
predictions shows them as text and exports their cells neutralised (issue 21)."""

from __future__ import annotations

import csv
import io
import shutil
import time
from pathlib import Path

import pytest
from test_review import candidate, mteval  # noqa: F401  (the fixture is used by name)
from test_review_attacks import HOSTILE, HYPERLINK
from trust_keys import private

from pytest_mteval.cards import runcard
from pytest_mteval.review import form, sample

webdriver = pytest.importorskip("selenium.webdriver")
CHROMEDRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(
    CHROMEDRIVER is None or shutil.which("chromium") is None,
    reason="needs Debian's chromium and chromium-driver (.ci/run installs them)",
)


@pytest.fixture
def browser(tmp_path):
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    options = webdriver.ChromeOptions()
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(flag)
    options.add_experimental_option(
        "prefs",
        {"download.default_directory": str(downloads), "download.prompt_for_download": False},
    )
    driver = webdriver.Chrome(options=options, service=webdriver.ChromeService(CHROMEDRIVER))
    driver.downloads = downloads
    yield driver
    driver.quit()


def fill(driver, page: Path, reviewer: str, pick) -> Path:
    """Rate every item as ``pick(index)`` says, write a note, export; the downloaded CSV."""
    driver.get(page.as_uri())
    by = webdriver.common.by.By
    driver.find_element(by.ID, "reviewer").send_keys(reviewer)
    items = driver.find_elements(by.CSS_SELECTOR, ".item")
    for index, item in enumerate(items):
        item.find_element(by.CSS_SELECTOR, f"input[value='{pick(index)}']").click()
    items[0].find_element(by.CSS_SELECTOR, "textarea").send_keys('word order, "mostly" fine')
    before = set(driver.downloads.iterdir())
    driver.find_element(by.ID, "export").click()
    for _ in range(100):
        new = [p for p in set(driver.downloads.iterdir()) - before if p.suffix == ".csv"]
        if new:
            return new[0]
        time.sleep(0.1)
    raise AssertionError("the form exported no CSV")


def test_two_reviewers_fill_the_form_and_validate_the_card(candidate, browser, tmp_path):  # noqa: F811
    out = tmp_path / "sheets"
    assert mteval("review", "sample", candidate, "-n", 30, "--out", out).returncode == 0
    [page] = out.glob("*.html")
    first = fill(browser, page, "Reviewer One", lambda i: "excellent" if i % 5 else "acceptable")
    second = fill(browser, page, "Reviewer Two", lambda i: "excellent" if i % 10 else "gist")
    assert first.read_text(encoding="utf-8").count("\n") == 31
    assert '"word order, ""mostly"" fine"' in first.read_text(encoding="utf-8")
    validated = tmp_path / "validated.json"
    [record] = out.glob("*.sample.json")
    done = mteval(
        "review", "ingest", candidate, first, second, "--out", validated, "--sample", record,
        "--sign-key", private("governance"),
    )  # fmt: skip
    assert done.returncode == 0, done.stdout
    card = runcard.load(validated)
    block = card["human_validation"]
    assert card["scores"]["quality_tier"] == "fluent (community validated)"
    assert block["rated_entries"] == 30
    assert len(block["reviewers"]) == 2
    # combined = the worse of the two: gist where the second said gist (i % 10 == 0: 3 items)
    assert block["ratings"]["gist"] == 3
    assert mteval("verify", validated).returncode == 0

    hostile_form(browser, tmp_path)


def hostile_form(driver, tmp_path: Path) -> None:
    """Predictions that once broke the page (``__TITLE__``, a closing script tag) or would
    run in a spreadsheet: shown as text, the title untouched, the export quoted."""
    items = tuple(
        sample.Item(str(i), f"source {i}", text, "", "difficulty_1")
        for i, text in sorted(HOSTILE.items())
    )
    drawn = sample.Sample("a" * 12 + "-n10-s1", "a" * 64, 10, 1, "difficulty", {}, items)
    page = tmp_path / "hostile.html"
    page.write_text(form.html_form(drawn, "Review __DATA__ </title>"), encoding="utf-8")
    exported = fill(driver, page, "=Reviewer", lambda i: "gist")
    assert driver.title == "Review __DATA__ </title>"
    texts = driver.execute_script(
        "return [...document.querySelectorAll('.item')].map(d => d.children[4].textContent)"
    )
    assert texts == [text for _, text in sorted(HOSTILE.items())]
    rows = list(csv.DictReader(io.StringIO(exported.read_text(encoding="utf-8"), newline="")))
    assert rows[0]["prediction"] == "'" + HYPERLINK
    assert rows[0]["reviewer"] == "'=Reviewer"
    assert not [c for r in rows for c in r.values() if c[:1] in ("=", "+", "-", "@", "\t", "\r")]
