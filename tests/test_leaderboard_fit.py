"""The leaderboard page fits a 1400 px window (issue 42, item 7): no horizontal scrollbar,
each method on one or two lines, and a cost plot only where costs spread the points.

Measured in headless Chromium on real session cards, with the method-interface columns
filled from real method cards.
"""

from __future__ import annotations

import json

import pytest
from browser import chromium, console_errors, full_page_screenshot, skip_reason
from leaderboard_cards import copy_cards, load
from official_cards import card_of
from test_method_cards import REPLAY, copied, method_card_cards

from pytest_mteval.cards import runcard
from pytest_mteval.cli.main import main
from pytest_mteval.reports import plots

needs_chromium = pytest.mark.skipif(skip_reason() is not None, reason=skip_reason() or "")
# matplotlib loaded in this process before any page is drawn (tests/test_pages_in_browser.py)
pytest.importorskip("pytest_mteval.reports.html_report")

#: Per method cell: how many lines its text takes, badge included. A Range over the cell gives
#: one client rect per line of each text fragment; rects whose middles fall inside one line's
#: top and bottom are that line.
LINES = """
return Array.from(document.querySelectorAll('td.method')).map(cell => {
  const range = document.createRange();
  range.selectNodeContents(cell);
  const rects = Array.from(range.getClientRects()).filter(r => r.width > 0 && r.height > 0)
    .sort((a, b) => a.top - b.top);
  const lines = [];
  for (const r of rects) {
    const middle = (r.top + r.bottom) / 2;
    const line = lines.find(l => middle >= l.top && middle <= l.bottom);
    if (!line) { lines.push({top: r.top, bottom: r.bottom}); continue; }
    line.top = Math.min(line.top, r.top);
    line.bottom = Math.max(line.bottom, r.bottom);
  }
  return [cell.textContent, lines.length];
});
"""
WIDTHS = """
const doc = document.documentElement;
const tables = Array.from(document.querySelectorAll('table')).map(t => {
  const box = t.getBoundingClientRect();
  return [box.right, t.scrollWidth, t.clientWidth];
});
return [doc.scrollWidth, doc.clientWidth, window.innerWidth, tables];
"""


@pytest.fixture(scope="module")
def board_folder(tmp_path_factory):
    """Real cards of every kind the board shows: three eng→sna runs and one eng→sme run
    without method cards, two runs whose method cards fill the method columns, and an A2 run
    of the same method and model as another (the longest badge, and a run label)."""
    root = tmp_path_factory.mktemp("fit")
    cards = root / "cards"
    copy_cards(cards, "gpt55", "haiku", "deepseek", "gemini-sme")
    for path in method_card_cards(root / "methods"):
        (cards / f"card-{path.name}").write_bytes(path.read_bytes())
    external = copied(root / "a2" / "replay", REPLAY, None, dependency_class="A2", dependencies=[
        {"id": "engine", "kind": "service", "license": "proprietary", "access": "external-api",
         "source": "https://engine.example/translate", "substitutable": False,
         "redistributable": False, "transferable": False},
    ])  # fmt: skip
    (cards / "card-a2.json").write_bytes(card_of("haiku", "a2", method=external).read_bytes())
    return cards


@needs_chromium
def test_the_leaderboard_fits_1400_px(board_folder, tmp_path):
    out = tmp_path / "out"
    assert main(["leaderboard", str(board_folder), "--html", f"{out}/"]) == 0
    page = out / "leaderboard.html"
    with chromium() as driver:
        driver.set_window_size(1400, 1000)
        driver.get(page.as_uri())
        scroll_width, client_width, inner, tables = driver.execute_script(WIDTHS)
        lines = driver.execute_script(LINES)
        full_page_screenshot(driver, tmp_path / "leaderboard.png")
        assert console_errors(driver) == []
    assert inner == 1400
    assert scroll_width <= client_width, (scroll_width, client_width)
    for right, table_scroll, table_client in tables:
        assert right <= client_width
        assert table_scroll <= table_client
    assert len(lines) == 7  # every ranked card's method cell measured
    assert any("external dependency" in name and "[" in name for name, _ in lines)
    assert all(1 <= count <= 2 for _, count in lines), lines
    # the columns that made it wide are there, filled
    text = page.read_text(encoding="utf-8")
    for column in ("Tools used", "Open source", "Prompt version", "Temperature", "Date"):
        assert f"<th>{column}</th>" in text
    assert "recorded predictions, entry-id matcher" in text


def test_no_cost_plot_when_no_card_has_a_cost(tmp_path, capsys):
    """Cards whose cost is unknown get one sentence instead of a plot stacking them."""
    folder = tmp_path / "cards"
    paths = copy_cards(folder, "gpt55", "haiku")
    for path in paths.values():
        card = load(path)
        card["totals"] = {**card["totals"], "total_cost_usd": None, "cost_per_entry_usd": None}
        card["scores"]["cost_adjusted"] = None
        path.write_text(json.dumps(runcard.seal(card)), encoding="utf-8")
        runcard.verify(load(path), path)
    out = tmp_path / "out"
    assert main(["leaderboard", str(folder), "--html", f"{out}/"]) == 0
    text = (out / "leaderboard.html").read_text(encoding="utf-8")
    assert "<svg" not in text
    assert (
        "No cost-versus-quality plot: no card on this board records a cost per entry above "
        "zero (2 record no cost), so its points would all sit on one line."
    ) in text
    # with their costs, the same cards get their plot, one mark each
    priced = tmp_path / "priced"
    copy_cards(priced, "gpt55", "haiku")
    assert main(["leaderboard", str(priced), "--html", f"{out}/"]) == 0
    text = (out / "leaderboard.html").read_text(encoding="utf-8")
    assert text.count('<g id="card-') == 2
    assert "No cost-versus-quality plot" not in text


def test_the_no_plot_sentence_tells_unknown_from_free_costs():
    free = plots.ScatterPoint("a", 0.0, 0.5, 0.4, 0.6)
    unknown = plots.ScatterPoint("b", None, 0.6, None, None)
    paid = plots.ScatterPoint("c", 0.002, 0.7, 0.6, 0.8)
    assert "(1 record no cost and 1 cost nothing)" in str(plots.no_cost_plot([free, unknown]))
    assert plots.no_cost_plot([free, unknown, paid]) is None  # one cost spreads the points
    assert plots.no_cost_plot([]) is None
