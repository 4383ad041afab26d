"""The matrix of a sweep (spec §6.1): one row per run, the effect of each axis, the best
naive baseline against an engineered method (§6.3), and the entries every run fails.

Reads a sweep's folder (its ``sweep.json`` names each run's axis values) or any run cards;
every card is verified before a number of it is shown. Only the runs the one ranking rule ranks
(``reports/board_rules.py``) are ranked; the others are listed under "Not ranked" with the
reason. Each run shows its flags and how many of its texts came from the translation cache.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_mteval.cards import runcard
from pytest_mteval.cards.card_model import RunCard, Scores, score
from pytest_mteval.cards.card_view import view_of
from pytest_mteval.cards.comparable_card import from_card
from pytest_mteval.cards.compare import compare_runs
from pytest_mteval.errors import MtevalError
from pytest_mteval.json_files import read_json
from pytest_mteval.reports.board_rules import rank_spans, rank_text, ranking_reasons
from pytest_mteval.reports.markdown import md_text
from pytest_mteval.scoring.gate_options import GateOptions
from pytest_mteval.scoring.paired_comparison import COMPOSITE

#: Method classes that are naive baselines (spec §6.3: "without language engineering").
BASELINE_CLASSES = frozenset({"raw-llm"})
#: Sentence chrF++ under which an entry counts as failed by a run.
DEFAULT_FLOOR = 20.0


class MatrixError(MtevalError):
    """Cards that cannot make a matrix; the message names the file."""


@dataclass(frozen=True)
class MatrixRow:
    label: str
    values: dict[str, Any]
    card: RunCard
    path: Path
    #: The label shared by the repeats of one configuration (a sweep's ``repeats = N``).
    configuration: str = ""

    @property
    def scores(self) -> Scores:
        return self.card.scores

    @property
    def method_class(self) -> str | None:
        manifest = (self.card.method.manifest if self.card.method else None) or {}
        found = manifest.get("class")
        return None if found is None else str(found)


def load_rows(sources: Sequence[Path]) -> list[MatrixRow]:
    """Rows from sweep folders (their index) and card files, each card verified."""
    rows: list[MatrixRow] = []
    for source in sources:
        if source.is_dir():
            rows += _rows_of_sweep(source)
        else:
            rows.append(_row(source, source.stem, values_of(_card(source))))
    if not rows:
        raise MatrixError(f"no run card in {', '.join(map(str, sources))}")
    return rows


def _rows_of_sweep(folder: Path) -> list[MatrixRow]:
    index_path = folder / "sweep.json"
    if not index_path.is_file():
        return [_row(p, p.stem, values_of(_card(p))) for p in sorted(folder.rglob("*.json"))]
    index = read_json(index_path, "a sweep index", MatrixError)
    try:
        runs = [
            (str(r["label"]), dict(r["values"]), r.get("card"), str(r.get("configuration") or ""))
            for r in index["runs"]
        ]
    except (KeyError, TypeError, ValueError) as exc:
        raise MatrixError(
            f"{index_path}: not a sweep index ({type(exc).__name__}: {exc})"
        ) from None
    return [
        MatrixRow(label, values, _card(path), path, configuration or label)
        for label, values, card, configuration in runs
        if card
        for path in [_card_path(folder, str(card))]
    ]


def _card_path(folder: Path, recorded: str) -> Path:
    """A card the index names: as recorded (relative to where the sweep ran), else in the
    sweep folder's ``cards/`` (the folder was moved, or is read from elsewhere)."""
    path = Path(recorded)
    if path.is_absolute() or path.exists():
        return path
    moved = folder / "cards" / path.name
    return moved if moved.exists() else path


def _row(path: Path, label: str, values: dict[str, Any]) -> MatrixRow:
    return MatrixRow(label, values, _card(path), path)


def _card(path: Path) -> RunCard:
    try:
        return runcard.read(path)
    except runcard.RunCardError as exc:
        raise MatrixError(str(exc)) from None


def values_of(card: RunCard) -> dict[str, Any]:
    """Axis values of a bare card: what its configuration records."""
    config = card.method.run_config if card.method else {}
    values: dict[str, Any] = {
        "method": card.method.name if card.method else None,
        "model": card.model_slug,
        "temperature": card.temperature,
    }
    values.update(config.get("method_args") or {})
    return values


def axis_means(rows: Sequence[MatrixRow]) -> dict[str, dict[str, float]]:
    """Mean composite per value of every axis that varies (its effect, read at a glance)."""
    axes = sorted({axis for row in rows for axis in row.values})
    out: dict[str, dict[str, float]] = {}
    for axis in axes:
        groups: dict[str, list[float]] = {}
        for row in rows:
            composite = row.scores.composite
            if composite is not None:
                groups.setdefault(str(row.values.get(axis)), []).append(float(composite))
        if len(groups) > 1:
            out[axis] = {value: statistics.fmean(found) for value, found in sorted(groups.items())}
    return out


def repeat_lines(rows: Sequence[MatrixRow]) -> list[str]:
    """Each repeated configuration's mean and spread of composite and chrF++ (spec §1.3:
    within ±2% when the spread is at most 2% of the largest composite)."""
    groups: dict[str, list[MatrixRow]] = {}
    for row in rows:
        groups.setdefault(row.configuration or row.label, []).append(row)
    repeated = {k: g for k, g in groups.items() if len(g) > 1}
    if not repeated:
        return []
    head = "| configuration | runs | composite mean | spread | stdev | chrF++ mean | spread | ±2% |"
    lines = ["", "Repeats of each configuration (cache off; spec §1.3):", "", head]
    lines.append("|" + "---|" * 8)
    for label, group in sorted(repeated.items()):
        composite = _scores(group, "composite")
        chrf = _scores(group, "chrf_plus_plus")
        largest = max((abs(v) for v in composite), default=0.0)
        within = bool(composite) and max(composite) - min(composite) <= 0.02 * largest
        lines.append(
            f"| {md_text(label)} | {len(group)} | {_mean(composite)} | {_spread(composite)} | "
            f"{_stdev(composite)} | {_mean(chrf, 2)} | {_spread(chrf, 2)} | "
            f"{'yes' if within else 'no'} |"
        )
    return lines


def _scores(rows: Sequence[MatrixRow], name: str) -> list[float]:
    return [float(found) for r in rows if (found := score(r.scores, name)) is not None]


def _mean(values: Sequence[float], digits: int = 4) -> str:
    return "-" if not values else f"{statistics.fmean(values):.{digits}f}"


def _spread(values: Sequence[float], digits: int = 4) -> str:
    return "-" if not values else f"{max(values) - min(values):.{digits}f}"


def _stdev(values: Sequence[float]) -> str:
    return "-" if len(values) < 2 else f"{statistics.stdev(values):.4f}"


def failed_everywhere(rows: Sequence[MatrixRow], floor: float = DEFAULT_FLOOR) -> list[str]:
    """Entries that every run left in error or under ``floor`` sentence chrF++."""
    failing: set[str] | None = None
    for row in rows:
        here = {
            str(r["entry_id"])
            for r in row.card.results
            if r.get("error") is not None or float(r.get("chrf_score") or 0.0) < floor
        }
        failing = here if failing is None else failing & here
    return sorted(failing or (), key=_natural)


def _natural(key: str) -> tuple[int, str]:
    return (int(key), "") if key.isascii() and key.isdigit() else (1 << 62, key)


def method_vs_best_baseline(rows: Sequence[MatrixRow], method: str) -> list[str]:
    """§6.3: the chosen run against the best naive baseline, with a paired significance test.

    Only a ranked baseline is a bar (``ranked_and_not``): a degenerate one's score is no bar.
    """
    chosen = next((row for row in rows if row.label == method), None)
    if chosen is None:
        return [f"no run labelled {method!r}"]
    ranked, apart = ranked_and_not(rows)
    baselines = [
        r
        for r in ranked
        if r is not chosen and r.method_class in BASELINE_CLASSES and r.scores.composite is not None
    ]
    if not baselines:
        return ["no ranked naive baseline (method class raw-llm) among the other runs"]
    best = max(baselines, key=lambda r: float(r.scores.composite or 0.0))
    comparison = compare_runs(
        from_card(best.card, str(best.path)),
        from_card(chosen.card, str(chosen.path)),
        GateOptions(max_drop=None),
    )
    measure = comparison.verdict.measures.get(COMPOSITE)
    if measure is None:
        return [f"{method} against {best.label}: no entries in common"]
    now, base, delta = measure.now, measure.baseline, measure.delta
    if now is None or base is None or delta is None:
        return [f"{method} against {best.label}: no entries in common"]
    lower, upper = measure.lower, measure.upper
    ci = "" if lower is None or upper is None else f", 95% CI [{lower:+.4f}, {upper:+.4f}]"
    p = "" if measure.p_value is None else f", paired bootstrap p = {measure.p_value:.3f}"
    verdict = "beats" if delta > 0 and (measure.p_value or 1) < 0.05 else "does not beat"
    unranked = next((reason for row, reason in apart if row is chosen), None)
    note = [] if unranked is None else [f"{method} itself is not ranked: {md_text(unranked)}"]
    return [
        f"{method} {verdict} the best baseline {best.label}: composite "
        f"{now:.4f} vs {base:.4f} (delta {delta:+.4f}{ci}{p})",
        *note,
    ]


def ranked_and_not(
    rows: Sequence[MatrixRow],
) -> tuple[list[MatrixRow], list[tuple[MatrixRow, str]]]:
    """The rows the ranking rule ranks, best first, and the others with their reason."""
    reasons = ranking_reasons([(row.label, view_of(row.card, {})) for row in rows])
    ranked = [row for row, reason in zip(rows, reasons, strict=True) if reason is None]
    ranked.sort(key=lambda r: (r.scores.composite is None, -float(r.scores.composite or 0.0)))
    apart = [(row, reason) for row, reason in zip(rows, reasons, strict=True) if reason]
    return ranked, apart


def matrix_markdown(
    source: Path | Sequence[Path] | Sequence[MatrixRow],
    method: str | None = None,
    floor: float = DEFAULT_FLOOR,
) -> list[str]:
    """The whole matrix report as Markdown lines, of sources or of rows already verified."""
    rows = _source_rows(source)
    axes = sorted({axis for row in rows for axis in row.values if _varies(rows, axis)})
    head = ["rank", "run", *axes, "composite [95% CI]", "chrF++", "FST acc.", "exact"]
    head += ["$/entry", "latency p50", "tier", "flags", "cache"]
    ranked, apart = ranked_and_not(rows)
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    spans = rank_spans([_interval(row) for row in ranked])
    for row, span in zip(ranked, spans, strict=True):
        lines.append("| " + " | ".join([rank_text(span), *_cells(row, axes)]) + " |")
    if not ranked:
        lines = ["No run is ranked: each is listed under Not ranked with the reason."]
    if apart:
        lines += ["", "Not ranked (reports/board_rules.py):", ""]
        apart_head = [*head, "why not ranked"]
        lines += ["| " + " | ".join(apart_head) + " |", "|" + "---|" * len(apart_head)]
        for row, reason in apart:
            cells = ["–", *_cells(row, axes), md_text(reason)]
            lines.append("| " + " | ".join(cells) + " |")
    means = axis_means(rows)
    if means:
        lines += ["", "Mean composite per axis value (every run, ranked or not):", ""]
        for axis, by_value in means.items():
            shown = ", ".join(f"{md_text(value)} {mean:.4f}" for value, mean in by_value.items())
            lines.append(f"- {axis}: {shown}")
    lines += repeat_lines(rows)
    if method:
        lines += ["", *method_vs_best_baseline(rows, method)]
    hard = failed_everywhere(rows, floor)
    lines += ["", f"Entries every run fails (error or sentence chrF++ < {floor:g}): {len(hard)}"]
    if hard:
        lines.append("  " + ", ".join(hard[:50]) + (" ..." if len(hard) > 50 else ""))
    return lines


def _source_rows(source: Path | Sequence[Path] | Sequence[MatrixRow]) -> list[MatrixRow]:
    if isinstance(source, Path):
        return load_rows([source])
    if source and all(isinstance(item, MatrixRow) for item in source):
        return [item for item in source if isinstance(item, MatrixRow)]
    return load_rows([item for item in source if isinstance(item, Path)])


def _interval(row: MatrixRow) -> tuple[float | None, float | None]:
    """The composite's interval, or the composite itself where the card has none."""
    composite = row.scores.composite
    if composite is None:
        return None, None
    ci = (row.scores.confidence_intervals or {}).get("composite")
    low = ci.lower if ci is not None and ci.lower is not None else composite
    high = ci.upper if ci is not None and ci.upper is not None else composite
    return float(low), float(high)


def cache_text(card: RunCard) -> str:
    """How many of the run's texts the translation cache served, as the matrix shows it."""
    cache = card.cache
    if cache is None:
        return "not recorded"
    if cache.get("method_fingerprint") is None:
        return "off"
    hits, total = int(cache.get("cache_hits") or 0), len(card.results)
    return "none" if hits == 0 else "all cached" if hits >= total else f"{hits} of {total} cached"


def flags_text(card: RunCard) -> str:
    """The run's flag codes, with how many entries each names."""
    shown = [f"{f.code} x{len(f.entry_ids)}" if f.entry_ids else f.code for f in card.flags or ()]
    return ", ".join(shown) or "-"


def _varies(rows: Iterable[MatrixRow], axis: str) -> bool:
    return len({json.dumps(r.values.get(axis), sort_keys=True) for r in rows}) > 1


def _cells(row: MatrixRow, axes: Sequence[str]) -> list[str]:
    s = row.scores
    ci = (s.confidence_intervals or {}).get("composite")
    composite = _num(s.composite, 4)
    if ci is not None and ci.lower is not None:
        composite += f" [{ci.lower:.4f}, {ci.upper:.4f}]"
    per_entry = row.card.totals.cost_per_entry_usd
    return [
        md_text(row.label),
        *(md_text(str(row.values.get(axis, ""))) for axis in axes),
        composite,
        _num(s.chrf_plus_plus, 2),
        _num(s.fst_acceptance_rate, 3),
        _num(s.exact_match_rate, 3),
        "-" if per_entry is None else f"{per_entry:.5f}",
        _num(s.median_latency_seconds, 3),
        md_text(str(s.quality_tier or "-")),
        md_text(flags_text(row.card)),
        md_text(cache_text(row.card)),
    ]


def _num(value: Any, digits: int) -> str:
    return "-" if value is None else f"{float(value):.{digits}f}"
