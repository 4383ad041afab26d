"""Charts of the HTML pages, drawn by matplotlib and inlined as SVG text.

Figures are built with ``matplotlib.figure.Figure`` directly, never pyplot, so no global state
or GUI backend is touched. Text stays text in the SVG (``svg.fonttype: none``): the page is
smaller, searchable, and the browser's fonts render it. A fixed hash salt makes the output
identical from run to run. Marks a test or a script may want to find carry an ``id`` (gid).

Strings from a card (method, model, group names) are drawn as typed: their text objects
never parse mathtext (``parse_math=False``: ``gpt-$5$`` is no formula, ``$\\foo$`` no
traceback), TeX is off for these figures whatever a matplotlibrc says (``text.usetex``
would hand the strings to LaTeX), legend labels are passed explicitly (a label starting
with ``_`` is not dropped), and a long string is cut (:func:`shown`). The SVG writer escapes
the text, so the chart can be inlined into a page as it is.
"""

from __future__ import annotations

import io
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import matplotlib
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from pytest_mteval.scoring import composite as scoring

#: rcParams for these figures (typed Any: matplotlib types the keys as one long Literal).
_STYLE: Final[Any] = {
    "svg.fonttype": "none",
    "svg.hashsalt": "pytest-mteval",
    "font.size": 9.0,
    "text.usetex": False,
    "text.parse_math": True,  # for the axes' own tick labels (10^-4); off for card strings
}
#: The longest card string a chart shows (the page's tables show it whole).
SHOWN_MAX: Final = 60
#: No creator, date or licence block in the SVG: nothing there for a page to show or fetch.
_NO_METADATA: Final[dict[str, Any]] = {"Creator": None, "Date": None, "Format": None, "Type": None}
#: Background colours of the quality tiers (SCORING.md), lowest first.
_TIER_COLOURS: Final = {
    "baseline": "#f3f3f3",
    "emerging": "#fdf1dc",
    "functional": "#fcf8d5",
    "deployable": "#e5f4e0",
    "fluent": "#d7ecf7",
}


@dataclass(frozen=True)
class ScatterPoint:
    """One run card on the cost-versus-quality plot."""

    label: str
    cost_per_entry: float | None
    composite: float
    lower: float | None
    upper: float | None


def shown(text: str) -> str:
    """A card's string as a chart draws it: on one line, control characters made spaces,
    cut to ``SHOWN_MAX`` characters with an ellipsis."""
    line = "".join(c if c.isprintable() else " " for c in text)
    return line if len(line) <= SHOWN_MAX else line[: SHOWN_MAX - 1] + "…"


def to_svg(figure: Figure) -> str:
    """The figure as an ``<svg>`` element ready to inline (no XML prolog, no doctype)."""
    buffer = io.StringIO()
    with matplotlib.rc_context(_STYLE):
        figure.savefig(buffer, format="svg", bbox_inches="tight", metadata=_NO_METADATA)
    text = buffer.getvalue()
    return text[text.index("<svg") :]


def _tier_bands(axes: Axes) -> None:
    """Shade the quality tiers (SCORING.md §5) behind the data, labelled at the right edge."""
    bounds = sorted((low, name) for low, name in scoring.TIERS)
    for i, (low, name) in enumerate(bounds):
        high = bounds[i + 1][0] if i + 1 < len(bounds) else 1.0
        axes.axhspan(low, high, color=_TIER_COLOURS.get(name, "#ffffff"), zorder=0, lw=0)
        axes.text(
            1.0, (low + high) / 2, f" {name}", transform=axes.get_yaxis_transform(),
            va="center", ha="left", fontsize=8, color="#555555",
        )  # fmt: skip


def no_cost_plot(points: Sequence[ScatterPoint]) -> str | None:
    """Why a board gets no cost plot (no card with a cost above zero), or None.

    With no cost to spread them, every point would sit on one vertical line."""
    if not points or any(p.cost_per_entry for p in points):
        return None
    unknown = sum(1 for p in points if p.cost_per_entry is None)
    free = len(points) - unknown
    parts = [f"{unknown} record no cost" if unknown else "", f"{free} cost nothing" if free else ""]
    return (
        "No cost-versus-quality plot: no card on this board records a cost per entry above "
        f"zero ({' and '.join(p for p in parts if p)}), so its points would all sit on one line."
    )


def cost_quality_scatter(points: Sequence[ScatterPoint], title: str) -> str:
    """Composite against cost per entry (log scale), one mark per card (``id="card-N"``),
    its 95 % interval as an error bar. Free or unknown cost sits on a marked left edge."""
    with matplotlib.rc_context(_STYLE):
        figure = Figure(figsize=(7.5, 4.2))
        axes = figure.add_subplot()
        _tier_bands(axes)
        paid = [p.cost_per_entry for p in points if p.cost_per_entry]
        floor = min(paid) / 10 if paid else 1e-5
        handles, labels = [], []
        for i, point in enumerate(points):
            x = point.cost_per_entry or floor
            low = point.composite - point.lower if point.lower is not None else 0.0
            high = point.upper - point.composite if point.upper is not None else 0.0
            axes.errorbar(
                [x], [point.composite], yerr=[[max(low, 0.0)], [max(high, 0.0)]],
                fmt="none", ecolor="#555555", capsize=3, lw=1, zorder=2,
            )  # fmt: skip
            handles += axes.plot(
                [x], [point.composite], marker="o", ms=7, color=f"C{i % 10}", ls="none",
                gid=f"card-{i}", zorder=3,
            )  # fmt: skip
            labels.append(shown(point.label))
        axes.set_xscale("log")
        axes.set_ylim(0.0, 1.0)
        if not paid or any(not p.cost_per_entry for p in points):
            axes.axvline(floor, color="#999999", ls=":", lw=1)
            axes.text(floor, 0.02, " cost 0 or unknown", fontsize=7, color="#666666")
        axes.set_xlabel("cost per entry (USD, log scale)")
        axes.set_ylabel("composite (95% interval)")
        axes.set_title(title, parse_math=False)
        axes.grid(True, which="major", axis="x", color="#dddddd", lw=0.5)
        if points:
            legend = axes.legend(
                handles, labels, loc="upper left", bbox_to_anchor=(1.12, 1.0), fontsize=8,
                frameon=False,
            )  # fmt: skip
            for text in legend.get_texts():
                text.set_parse_math(False)
        return to_svg(figure)


def group_bars(groups: Mapping[str, Mapping[str, float | int | None]], title: str) -> str:
    """Composite and chrF++/100 of each group (a difficulty, domain, provenance), side by
    side, with the number of entries under each group's name."""
    with matplotlib.rc_context(_STYLE):
        figure = Figure(figsize=(max(3.5, 0.9 * len(groups) + 2.0), 3.0))
        axes = figure.add_subplot()
        names = list(groups)
        width = 0.38
        series = (("composite", 1.0, "C0"), ("chrf_plus_plus", 100.0, "C1"))
        for offset, (key, scale, colour) in zip((-width / 2, width / 2), series, strict=True):
            values = [_scaled(groups[n].get(key), scale) for n in names]
            axes.bar(
                [i + offset for i in range(len(names))], [v or 0.0 for v in values],
                width=width, color=colour, label="chrF++ / 100" if scale != 1.0 else key,
            )  # fmt: skip
        axes.set_xticks(
            range(len(names)),
            [f"{shown(n)}\n(n={groups[n].get('count') or 0})" for n in names],
            parse_math=False,
        )
        axes.set_ylim(0.0, 1.0)
        axes.set_title(title, parse_math=False)
        axes.legend(fontsize=7, frameon=False, loc="upper right")
        return to_svg(figure)


def histogram(values: Sequence[float], title: str, xlabel: str) -> str:
    """Counts of ``values`` (sentence chrF++, 0-100) in ten-point bins."""
    with matplotlib.rc_context(_STYLE):
        figure = Figure(figsize=(5.5, 3.0))
        axes = figure.add_subplot()
        axes.hist(list(values), bins=[10.0 * i for i in range(11)], color="C2", edgecolor="white")
        axes.set_xlim(0.0, 100.0)
        axes.set_xlabel(xlabel, parse_math=False)
        axes.set_ylabel("entries")
        axes.set_title(title, parse_math=False)
        return to_svg(figure)


def _scaled(value: float | int | None, scale: float) -> float | None:
    if value is None or isinstance(value, bool) or not math.isfinite(float(value)):
        return None
    return float(value) / scale
