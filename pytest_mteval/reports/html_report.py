"""The HTML report of one run: headline metrics with intervals, breakdown charts, the
histogram of sentence chrF++, the flags, and every entry in a table a person can sort and
filter. Given a baseline, regressed entries show the baseline's prediction and a character
diff. Text a card withholds (scores-only cards carry no source, reference or prediction)
stays withheld: the page shows what the card holds, nothing more.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from markupsafe import Markup

from pytest_mteval.cards.char_diff import char_spans
from pytest_mteval.cards.regressions import regression_reasons
from pytest_mteval.metrics import catalog
from pytest_mteval.metrics.entry_record import EntryRecord, as_records
from pytest_mteval.reports import plots
from pytest_mteval.reports.gate_summary import gate_summary
from pytest_mteval.reports.page import number, render, svg
from pytest_mteval.scoring.comparable_run import Comparable
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
    dataset: Mapping[str, Any] = card["dataset"]
    method = (card.get("method") or {}).get("name") or card["model_slug"]
    title = f"{method} on {dataset['id']} v{dataset['version']}"
    model = card.get("model_id") or card["model_slug"]
    data = {
        "page": "run-report",
        "run_id": card["run_id"],
        "run_card_hash": card.get("run_card_hash"),
        "method": method,
        "model": model,
        "dataset": {k: dataset.get(k) for k in ("id", "version", "language_pair", "sha256")},
    }
    return render(
        "run_report.html.j2",
        title=f"mteval report: {title}",
        data=data,
        heading=title,
        model=model,
        condition=card["condition"],
        language_pair=dataset["language_pair"],
        entry_count=dataset["entry_count"],
        run_id=card["run_id"],
        timestamp=card["timestamp"],
        card_hash=str(card.get("run_card_hash"))[:12],
        gate=gate_summary(card),
        headline=_headline(card["scores"]),
        extra=_extra(card),
        flags=_flags(card),
        charts=_charts(card),
        **_entries(card, baseline, options),
    )


def _headline(scores: Mapping[str, Any]) -> list[dict[str, str]]:
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
        rows.append({"key": key, "label": label, "value": number(value, digits), "bounds": bounds})
    return rows


def _extra(card: Mapping[str, Any]) -> list[tuple[str, str]]:
    scores: Mapping[str, Any] = card["scores"]
    totals: Mapping[str, Any] = card.get("totals") or {}
    return [
        ("quality tier", str(scores.get("quality_tier") or "unscored")),
        ("errors", f"{scores.get('errors', 0)} of {scores.get('total', 0)}"),
        ("cost, total (USD)", number(totals.get("total_cost_usd"), 4)),
        ("cost per entry (USD)", number(totals.get("cost_per_entry_usd"), 6)),
    ]


def _flags(card: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [
        {"code": f.get("code"), "message": f.get("message"), "count": len(f.get("entry_ids") or [])}
        for f in card.get("flags") or []
    ]


def _charts(card: Mapping[str, Any]) -> list[tuple[str, Markup]]:
    scores: Mapping[str, Any] = card["scores"]
    charts = []
    for key, title in (
        ("by_difficulty", "by difficulty"),
        ("by_domain", "by domain"),
        ("by_provenance", "by provenance"),
    ):
        groups = scores.get(key) or {}
        if groups:
            charts.append((key, svg(plots.group_bars(groups, title))))
    sentence = [
        r["chrf_score"] for r in card.get("results") or [] if r.get("chrf_score") is not None
    ]
    if sentence:
        charts.append(
            ("histogram", svg(plots.histogram(sentence, "sentence chrF++", "chrF++ of one entry")))
        )
    return charts


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
) -> dict[str, Any]:
    """The context of the entries table: its filters, its columns and one dict per row."""
    rows = as_records(card.get("results") or [])
    withheld = text_withheld(card)
    flags_of = _entry_flags(card)
    head = ["id", "domain", "difficulty", "chrF++", "exact", "FST", "error", "flags"]
    if not withheld:
        head += ["source", "reference", "prediction"]
    if baseline is not None:
        head += ["why regressed", "baseline prediction", "diff baseline → now"]
    return {
        "withheld": withheld,
        "withheld_mark": WITHHELD,
        "with_baseline": baseline is not None,
        "domains": sorted({_label(r.get("domain")) for r in rows}),
        "difficulties": sorted({_label(r.get("difficulty")) for r in rows}),
        "flag_codes": sorted({c for codes in flags_of.values() for c in codes}),
        "head": head,
        "rows": [_entry_row(r, flags_of, withheld, baseline, options) for r in rows],
    }


def _entry_row(
    row: EntryRecord,
    flags_of: Mapping[str, list[str]],
    withheld: bool,
    baseline: Comparable | None,
    options: EntryGateOptions,
) -> dict[str, Any]:
    entry_id = str(row.get("entry_id"))
    fst = row.get("fst_valid")
    before = baseline.rows.get(entry_id) if baseline is not None else None
    reasons = regression_reasons(before, row, options) if baseline is not None else []
    out: dict[str, Any] = {
        "attributes": {
            "entry": entry_id,
            "domain": _label(row.get("domain")),
            "difficulty": _label(row.get("difficulty")),
            "error": "1" if row.get("error") is not None else "0",
            "fst-rejected": "1" if fst is False else "0",
            "flags": " ".join(flags_of.get(entry_id, [])),
            "regressed": "1" if reasons else "0",
        },
        "chrf": row.get("chrf_score"),
        "exact": {True: "yes", False: "no"}.get(row.get("exact_match"), "–"),  # type: ignore[arg-type]
        "fst": {True: "valid", False: "rejected"}.get(fst, "–"),  # type: ignore[arg-type]
        "error": row.get("error") or "",
    }
    if not withheld:
        predicted = row.get("predicted")
        if row.get("error") is not None:
            predicted = f"(error: {row['error']})"
        out["source"] = row.get("source") or WITHHELD
        out["expected"] = row.get("expected") or WITHHELD
        out["predicted"] = "" if predicted is None else predicted
    if baseline is not None:
        old = before.get("predicted") if before is not None else None
        new = row.get("predicted")
        shown = bool(reasons) and not withheld and isinstance(old, str)
        out["reasons"] = "; ".join(reasons)
        out["old"] = old if shown else ""
        out["diff"] = (
            char_spans(old, new) if shown and isinstance(old, str) and isinstance(new, str) else []
        )
    return out


def _label(value: Any) -> str:
    return "unknown" if value is None or value == "" else str(value)
