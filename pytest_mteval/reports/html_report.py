"""The HTML report of one run: headline metrics with intervals, breakdown charts, the
histogram of sentence chrF++, the flags, and every entry in a table a person can sort and
filter. Given a baseline, regressed entries show the baseline's prediction and a character
diff. Text a card withholds (scores-only cards carry no source, reference or prediction)
stays withheld: the page shows what the card holds, nothing more.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from pytest_mteval.cards.char_diff import Kind, render
from pytest_mteval.cards.regressions import regression_reasons
from pytest_mteval.metrics import catalog
from pytest_mteval.metrics.record import EntryRecord, as_records
from pytest_mteval.reports import plots
from pytest_mteval.reports.page import (
    checkbox,
    esc,
    num_cell,
    number,
    page,
    select,
    text_cell,
)
from pytest_mteval.scoring.comparable import Comparable
from pytest_mteval.scoring.gate_options import EntryGateOptions

#: (scores key, label, digits) of the headline rows after the metrics, shown when measured.
_AFTER_METRICS: Final = (
    ("length_ratio", "length ratio", 3),
    ("cost_adjusted", "cost-adjusted composite", 3),
    ("avg_latency_seconds", "latency, mean (s)", 3),
    ("p95_latency_seconds", "latency, p95 (s)", 3),
)
WITHHELD: Final = "(withheld)"


def headline_rows() -> list[tuple[str, str, int]]:
    """(scores key, label, digits) of the headline table: the composite, every registered
    metric with its definition's label and direction (points with 2 digits), the rest."""
    metrics = [
        (
            d.name,
            d.label if d.higher_is_better else f"{d.label} (lower is better)",
            2 if d.points else 3,
        )
        for d in catalog.definitions().values()
    ]
    return [("composite", "composite", 3), *metrics, *_AFTER_METRICS]


_DEFAULT_OPTIONS: Final = EntryGateOptions()


def text_withheld(card: Mapping[str, Any]) -> bool:
    """A scores-only card: no row carries source or reference text."""
    rows = card.get("results") or []
    return bool(rows) and not any(r.get("source") or r.get("expected") for r in rows)


def run_report(
    card: Mapping[str, Any],
    baseline: Comparable | None = None,
    options: EntryGateOptions = _DEFAULT_OPTIONS,
) -> str:
    card["scores"]
    dataset: Mapping[str, Any] = card["dataset"]
    method = (card.get("method") or {}).get("name") or card["model_slug"]
    title = f"{method} on {dataset['id']} v{dataset['version']}"
    parts = [
        f"<h1>Run report: {esc(title)}</h1>",
        f'<p class="muted">model {esc(card.get("model_id") or card["model_slug"])}, condition '
        f"{esc(card['condition'])}, {esc(dataset['language_pair'])}, "
        f"{esc(dataset['entry_count'])} entries, run {esc(card['run_id'])} at "
        f"{esc(card['timestamp'])}, card hash {esc(str(card.get('run_card_hash'))[:12])}</p>",
        _headline(card),
        _flags(card),
        _charts(card),
        _entries(card, baseline, options),
    ]
    return page(f"mteval report: {title}", "\n".join(parts))


def _headline(card: Mapping[str, Any]) -> str:
    scores: Mapping[str, Any] = card["scores"]
    intervals: Mapping[str, Any] = scores.get("confidence_intervals") or {}
    rows = []
    for key, label, digits in headline_rows():
        value = scores.get(key)
        if value is None:
            continue
        interval = intervals.get(key) or {}
        bounds = (
            f"[{interval['lower']:.{digits}f}, {interval['upper']:.{digits}f}]"
            if interval.get("lower") is not None and interval.get("upper") is not None
            else ""
        )
        if key == "composite":
            label += f" (profile {scores.get('scoring_profile') or '?'})"
        rows.append(
            f'<tr data-metric="{esc(key)}"><th>{esc(label)}</th>'
            f'<td class="num">{number(value, digits)}</td><td class="num">{esc(bounds)}</td></tr>'
        )
    totals: Mapping[str, Any] = card.get("totals") or {}
    extra = [
        ("quality tier", str(scores.get("quality_tier") or "unscored")),
        ("errors", f"{scores.get('errors', 0)} of {scores.get('total', 0)}"),
        ("cost, total (USD)", number(totals.get("total_cost_usd"), 4)),
        ("cost per entry (USD)", number(totals.get("cost_per_entry_usd"), 6)),
    ]
    rows += [f"<tr><th>{esc(k)}</th><td>{esc(v)}</td><td></td></tr>" for k, v in extra]
    return (
        '<h2>Headline</h2><table class="headline"><thead><tr><th>metric</th><th>value</th>'
        f"<th>95% interval</th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )


def _flags(card: Mapping[str, Any]) -> str:
    flags = card.get("flags") or []
    if not flags:
        return '<h2>Flags</h2><p class="muted">no flag raised</p>'
    items = "".join(
        f'<li data-flag="{esc(f.get("code"))}"><strong>{esc(f.get("code"))}</strong>: '
        f"{esc(f.get('message'))} ({len(f.get('entry_ids') or [])} entries)</li>"
        for f in flags
    )
    return f'<h2>Flags</h2><ul class="flags">{items}</ul>'


def _charts(card: Mapping[str, Any]) -> str:
    scores: Mapping[str, Any] = card["scores"]
    charts = []
    for key, title in (
        ("by_difficulty", "by difficulty"),
        ("by_domain", "by domain"),
        ("by_provenance", "by provenance"),
    ):
        groups = scores.get(key) or {}
        if groups:
            charts.append(f'<figure id="chart-{key}">{plots.group_bars(groups, title)}</figure>')
    sentence = [
        r["chrf_score"] for r in card.get("results") or [] if r.get("chrf_score") is not None
    ]
    if sentence:
        svg = plots.histogram(sentence, "sentence chrF++", "chrF++ of one entry")
        charts.append(f'<figure id="chart-histogram">{svg}</figure>')
    return '<h2>Breakdowns</h2><div class="charts">' + "".join(charts) + "</div>"


def _entry_flags(card: Mapping[str, Any]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for flag in card.get("flags") or []:
        for entry_id in flag.get("entry_ids") or []:
            out.setdefault(str(entry_id), []).append(str(flag.get("code")))
    for entry_id in (card.get("hallucination") or {}).get("hallucination_entries") or []:
        out.setdefault(str(entry_id), []).append("hallucination")
    return out


def _entries(
    card: Mapping[str, Any], baseline: Comparable | None, options: EntryGateOptions
) -> str:
    rows = as_records(card.get("results") or [])
    withheld = text_withheld(card)
    flags_of = _entry_flags(card)
    domains = sorted({_label(r.get("domain")) for r in rows})
    difficulties = sorted({_label(r.get("difficulty")) for r in rows})
    codes = sorted({c for codes in flags_of.values() for c in codes})
    filters = [
        select("domain", "domain", domains),
        select("difficulty", "difficulty", difficulties),
        select("flags", "flag", codes),
        checkbox("error", "errors only"),
        checkbox("fst-rejected", "FST rejections only"),
    ]
    if baseline is not None:
        filters.append(checkbox("regressed", "regressed only"))
    head = ["id", "domain", "difficulty", "chrF++", "exact", "FST", "error", "flags"]
    if not withheld:
        head += ["source", "reference", "prediction"]
    if baseline is not None:
        head += ["why regressed", "baseline prediction", "diff baseline → now"]
    body = [_entry_row(r, flags_of, withheld, baseline, options) for r in rows]
    note = (
        f'<p class="note">{WITHHELD} This card carries scores only: source, reference and '
        "prediction text are withheld.</p>"
        if withheld
        else ""
    )
    return (
        f'<h2>Entries</h2>{note}<div class="filters">{"".join(filters)}'
        '<span>shown: <output id="shown"></output></span></div>'
        '<table class="sortable entries"><thead><tr>'
        + "".join(f"<th>{esc(h)}</th>" for h in head)
        + f"</tr></thead><tbody>{''.join(body)}</tbody></table>"
    )


def _entry_row(
    row: EntryRecord,
    flags_of: Mapping[str, list[str]],
    withheld: bool,
    baseline: Comparable | None,
    options: EntryGateOptions,
) -> str:
    entry_id = str(row.get("entry_id"))
    flags = flags_of.get(entry_id, [])
    fst = row.get("fst_valid")
    before = baseline.rows.get(entry_id) if baseline is not None else None
    reasons = regression_reasons(before, row, options) if baseline is not None else []
    attributes = {
        "entry": entry_id,
        "domain": _label(row.get("domain")),
        "difficulty": _label(row.get("difficulty")),
        "error": "1" if row.get("error") is not None else "0",
        "fst-rejected": "1" if fst is False else "0",
        "flags": " ".join(flags),
        "regressed": "1" if reasons else "0",
    }
    cells = [
        text_cell(entry_id),
        text_cell(attributes["domain"]),
        text_cell(attributes["difficulty"]),
        num_cell(row.get("chrf_score"), 1),
        text_cell({True: "yes", False: "no"}.get(row.get("exact_match"), "–")),  # type: ignore[arg-type]
        text_cell({True: "valid", False: "rejected"}.get(fst, "–")),  # type: ignore[arg-type]
        text_cell(row.get("error") or ""),
        text_cell(" ".join(flags)),
    ]
    if not withheld:
        predicted = row.get("predicted")
        if row.get("error") is not None:
            predicted = f"(error: {row['error']})"
        cells += [
            text_cell(row.get("source") or WITHHELD, css="text"),
            text_cell(row.get("expected") or WITHHELD, css="text"),
            text_cell("" if predicted is None else predicted, css="text"),
        ]
    if baseline is not None:
        old = before.get("predicted") if before is not None else None
        new = row.get("predicted")
        shown = reasons and not withheld and isinstance(old, str)
        diff = _diff(old, new) if shown and isinstance(old, str) and isinstance(new, str) else ""
        cells += [
            text_cell("; ".join(reasons), css="reason"),
            text_cell(old if shown else "", css="text"),
            f'<td class="text diff">{diff}</td>',
        ]
    data = " ".join(f'data-{k}="{esc(v)}"' for k, v in attributes.items())
    return f"<tr {data}>{''.join(cells)}</tr>"


def _diff(old: str, new: str) -> str:
    """``old`` turned into ``new``, character by character, as <del>/<ins>."""
    return render(old, new, _html_span)


def _html_span(kind: Kind, text: str) -> str:
    tag = {"kept": "", "removed": "del", "added": "ins"}[kind]
    return f"<{tag}>{esc(text)}</{tag}>" if tag else esc(text)


def _label(value: Any) -> str:
    return "unknown" if value is None or value == "" else str(value)
