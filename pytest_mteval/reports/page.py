"""The shell every HTML page shares: Jinja2 templates shipped in the package
(``reports/templates/``), rendered with escaping on by default, their styles and script real
files (``reports/static/``) inlined by the template, so a page is one self-contained file
(nothing fetched at view time).

Every value a template shows is escaped unless it is marked safe, and only two things are:
the static files of the package, and the SVG charts matplotlib writes (which escape their own
text). A card's strings are data, never template source: ``{{ 7*7 }}`` in a method name is
shown as typed. Data for scripts goes in as ``{{ data|tojson }}`` inside
``<script type="application/json">``, where ``<``, ``>``, ``&`` and ``'`` are escaped.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup


def is_page_path(path: str) -> bool:
    """A page is named ``*.html`` or ``*.htm``; any other path is a folder to write into."""
    return path.lower().endswith((".html", ".htm"))


@cache
def environment() -> Environment:
    """The one environment of the pages: autoescaping always on, an undefined name an error
    (a typo in a template must not render as an empty cell)."""
    env = Environment(
        loader=PackageLoader("pytest_mteval.reports", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["number"] = number
    env.filters["sort_value"] = sort_value
    env.globals["static"] = static
    env.policies["json.dumps_kwargs"] = {"sort_keys": True, "ensure_ascii": False}
    return env


@cache
def static(name: str) -> Markup:
    """A file of ``reports/static/``, to inline in a ``<style>`` or ``<script>`` element;
    refused if it could close that element early."""
    text = resources.files("pytest_mteval.reports").joinpath("static", name).read_text("utf-8")
    if re.search(r"</(style|script)|<!--", text, re.IGNORECASE):
        raise ValueError(f"reports/static/{name} cannot be inlined: it closes its element")
    return Markup(text)


def render(template: str, **context: Any) -> str:
    """The page ``template`` (a file of ``reports/templates/``) filled with ``context``."""
    return environment().get_template(template).render(**context)


def svg(text: str) -> Markup:
    """A chart matplotlib wrote (its text escaped by matplotlib's SVG writer), to inline."""
    if not text.startswith("<svg") or re.search(r"<script|<foreignObject", text, re.I):
        raise ValueError("not an SVG chart of this package")
    return Markup(text)


def number(value: Any, digits: int, suffix: str = "") -> str:
    """A number for display, "–" when not measured."""
    if value is None or isinstance(value, bool) or not isinstance(value, int | float):
        return "–"
    return f"{value:.{digits}f}{suffix}"


def sort_value(value: Any) -> str:
    """A cell's ``data-sort``: the number as the script reads it, empty when not measured."""
    if value is None or isinstance(value, bool) or not isinstance(value, int | float):
        return ""
    return repr(float(value))
