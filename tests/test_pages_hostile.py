"""The HTML pages against a hostile card author: every string a card carries (method, model,
prediction, domain, flag) is shown as text, never run, never read as template syntax, and
never parsed as mathtext or TeX by the plots. The pages come from Jinja2 templates that
escape by default, with their styles and script as real files inlined into the page."""

from __future__ import annotations

import html
import html.parser
import json
import re
import tomllib
from fnmatch import fnmatch
from importlib import resources
from pathlib import Path

import pytest
from conftest import REPO
from leaderboard_cards import copy_cards, load

from pytest_mteval.cards import runcard
from pytest_mteval.cli.main import main

# Imported in the outer process: see tests/test_run_report.py.
pytest.importorskip("pytest_mteval.reports.html_report")

#: Breaks out of a script element, fills a string-replacement placeholder, is template
#: syntax, and is markup with an event handler: each must arrive on the page as text.
HOSTILE = (
    "</script><script>alert(1)</script>__DATA__ __TITLE__ {{ 7*7 }} {% if 1 %}x{% endif %} "
    '<img src=x onerror="alert(2)"> --><img src=y onerror=alert(3)> --!><b>'
)
#: Strings matplotlib reads as mathtext (two unescaped dollars) or as a broken formula.
MATH = ("gpt-$5$", r"a$\frac{1}{2}$b", r"$\undefinedcommand{x}$")


class Tags(html.parser.HTMLParser):
    """Every start tag of a page and every attribute name, as a browser's tokenizer sees them."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.attributes: set[str] = set()
        self.data: dict[str, str] = {}
        self._in: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attributes |= {name for name, _ in attrs}
        self._in = dict(attrs).get("id") if tag == "script" else None

    def handle_data(self, data: str) -> None:
        if self._in:
            self.data[self._in] = self.data.get(self._in, "") + data


def svg_texts(svg: str) -> list[str]:
    """The text the browser draws: each <text> element's content, comments left out."""
    svg = re.sub(r"<!--.*?-->", "", svg, flags=re.S)
    found = re.findall(r"<text\b[^>]*>(.*?)</text>", svg, re.S)
    return [html.unescape(re.sub(r"<[^>]+>", "", t)) for t in found]


def rendered_markdown(text: str) -> str:
    """The HTML a CommonMark renderer with GitHub's tables and strikethrough makes of it."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(text)


def assert_cells_are_text(markdown: str, name: str) -> None:
    """The rendered table holds ``name`` as a cell's whole text, and no markup of its own."""
    body = "".join(re.findall(r"<tbody>(.*?)</tbody>", rendered_markdown(markdown), re.S))
    assert not re.search(r"<(a|img|em|strong|s|del)\b", body), body
    cells = [html.unescape(c) for c in re.findall(r"<td>(.*?)</td>", body)]
    assert name in cells, cells


def parsed(page: Path) -> Tags:
    tags = Tags()
    tags.feed(page.read_text(encoding="utf-8"))
    return tags


def hostile_card(tmp_path: Path, name: str, text: str, model: str | None = None) -> Path:
    path = copy_cards(tmp_path, "haiku")["haiku"]
    card = load(path)
    card["method"]["name"] = text
    card["model_slug"] = card["model_id"] = model or text
    card["results"][0]["predicted"] = card["results"][0]["source"] = text
    card["results"][0]["domain"] = text
    card["scores"]["by_domain"] = {text: card["scores"]["by_domain"]["conv"]}
    card["flags"] = [{"code": text, "message": text, "entry_ids": [text]}]
    runcard.seal(card)
    target = path.with_name(f"{name}.json")
    target.write_text(json.dumps(card), encoding="utf-8")
    path.unlink()
    return target


def test_hostile_strings_render_inertly_on_both_pages(tmp_path, capsys):
    card = hostile_card(tmp_path, "hostile", HOSTILE)
    assert main(["report", str(card), "--html", str(tmp_path / "r.html")]) == 0
    assert main(["leaderboard", str(card), "--html", str(tmp_path / "l.html")]) == 0
    for name in ("r.html", "l.html"):
        text = (tmp_path / name).read_text(encoding="utf-8")
        tags = parsed(tmp_path / name)
        assert "img" not in tags.tags
        assert tags.tags.count("script") == 2  # the page's data and its script, nothing more
        assert not [a for a in tags.attributes if a.startswith("on")]
        assert "{{ 7*7 }}" in text  # shown as typed, not evaluated
        assert "{% if 1 %}x{% endif %}" in text
        assert "__DATA__ __TITLE__" in text
        data = json.loads(tags.data["mteval-page"])
        shown = data if data["page"] == "run-report" else data["boards"][0]["rows"][0]
        assert shown["method"] == shown["model"] == HOSTILE  # the data block holds it exactly
        assert "</script" not in tags.data["mteval-page"]


def test_pages_come_from_packaged_templates_and_static_files(tmp_path, capsys):
    """The styles and script are files of the package, inlined whole: the page stays one
    self-contained file, and the files are in the package data a wheel installs."""
    from pytest_mteval.reports import page

    assert page.environment().autoescape is True
    folder = resources.files("pytest_mteval.reports")
    files = {
        "templates/run_report.html.j2",
        "templates/leaderboard.html.j2",
        "static/page.css",
        "static/page.js",
    }
    assert all(folder.joinpath(f).is_file() for f in files)
    card = copy_cards(tmp_path, "gpt55")["gpt55"]
    assert main(["report", str(card), "--html", str(tmp_path / "r.html")]) == 0
    assert main(["leaderboard", str(card), "--html", str(tmp_path / "l.html")]) == 0
    for name in ("r.html", "l.html"):
        text = (tmp_path / name).read_text(encoding="utf-8")
        for static in ("static/page.css", "static/page.js"):
            assert folder.joinpath(static).read_text(encoding="utf-8").strip() in text
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    globs = pyproject["tool"]["setuptools"]["package-data"]["pytest_mteval"]
    package = REPO / "pytest_mteval"
    shipped = [
        p.relative_to(package).as_posix()
        for sub in ("templates", "static")
        for p in (package / "reports" / sub).iterdir()
    ]
    assert shipped
    assert all(any(fnmatch(p, g) for g in globs) for p in shipped), shipped
    assert any(d.lower().startswith("jinja2>=3.1,<4") for d in pyproject["project"]["dependencies"])


@pytest.mark.parametrize("text", MATH)
def test_dollars_in_names_reach_the_plots_as_text(tmp_path, capsys, text):
    """A method, model or domain named like a formula is drawn as typed: no mathtext
    traceback, and the SVG holds the literal string (the plots keep text as text)."""
    card = hostile_card(tmp_path, "math", text, model=f"model {text}")
    assert main(["leaderboard", str(card), "--html", str(tmp_path / "l.html")]) == 0
    assert main(["report", str(card), "--html", str(tmp_path / "r.html")]) == 0
    board = (tmp_path / "l.html").read_text(encoding="utf-8")
    svg = board[board.index("<svg") : board.index("</svg>")]
    assert f"1. {text} (model {text})" in svg_texts(svg)  # the legend entry, one string
    report = (tmp_path / "r.html").read_text(encoding="utf-8")
    domain_chart = re.search(r'<figure id="chart-by_domain">(.*?)</figure>', report, re.S)
    assert domain_chart is not None
    assert text in svg_texts(domain_chart.group(1))  # the group's tick label


def test_a_tex_rc_setting_does_not_reach_user_strings(tmp_path, capsys, monkeypatch):
    """``text.usetex`` from a user's matplotlibrc would hand card strings to LaTeX (or crash
    without one): the plots pin it off for their own figures."""
    import matplotlib

    monkeypatch.setitem(matplotlib.rcParams, "text.usetex", True)
    card = hostile_card(tmp_path, "tex", r"\input{/etc/passwd}")
    assert main(["leaderboard", str(card), "--html", str(tmp_path / "l.html")]) == 0
    board = (tmp_path / "l.html").read_text(encoding="utf-8")
    svg = board[board.index("<svg") : board.index("</svg>")]
    assert r"1. \input{/etc/passwd} (\input{/etc/passwd})" in svg_texts(svg)


def test_the_markdown_board_shows_names_as_text(tmp_path, capsys):
    """The markdown board goes into pull requests and READMEs: a name is not markup there
    either (no raw HTML, no link, no code span or emphasis of the author's making)."""
    name = "[win](http://evil.example) <img src=x onerror=alert(1)> `x` *y* a|b"
    card = hostile_card(tmp_path, "md", name)
    assert main(["leaderboard", str(card)]) == 0
    out = capsys.readouterr().out
    assert_cells_are_text(out, name)  # the Model cell
    row = next(line for line in out.splitlines() if line.startswith("| 1 "))
    cells = re.split(r"(?<!\\)\|", row)
    method, model = cells[2].strip().removesuffix(" `S`"), cells[12].strip()
    for cell in (method, model):
        assert re.search(r"(?<!\\)[<>\[\]`*|]", cell) is None, cell
        assert cell.startswith(r"\[win\](http://evil.example) \<img src=x onerror=alert(1)\>")
        assert cell.endswith(r"\`x\` \*y\* a\|b")


def test_the_sweep_matrix_shows_values_as_text(tmp_path):
    """``mteval matrix`` of cards whose method and model names are markdown: one cell each,
    every special character escaped, the table's columns intact."""
    from pytest_mteval.sweep.matrix import matrix_markdown

    name = "a|b <img src=x onerror=alert(1)> [x](http://evil.example)"
    hostile = hostile_card(tmp_path / "h", "h", name)
    plain = copy_cards(tmp_path / "p", "gpt55")["gpt55"]
    lines = matrix_markdown([hostile, plain])
    assert_cells_are_text("\n".join(lines), name)
    table = [line for line in lines if line.startswith("| ")]
    widths = {len(re.split(r"(?<!\\)\|", line)) for line in table}
    assert len(widths) == 1, table  # no row has more cells than the header
    row = next(line for line in table if "img" in line)
    assert r"a\|b \<img src=x onerror=alert(1)\> \[x\](http://evil.example)" in row
    for cell in re.split(r"(?<!\\)\|", row)[2:4]:  # method, model
        assert re.search(r"(?<!\\)[<>\[\]|]", cell) is None, cell
