"""Per-entry regressions, and the inspection card that makes a regressed entry easy to read.

An entry item fails when it got clearly worse than in the baseline: chrF++ dropped by more
than ``entry_max_drop`` points, it errors where it did not, or its output newly fails the FST.
Entries without a baseline row (no baseline yet, or a new entry) are held to the absolute
``entry_min_chrf`` floor when one is set. Sentence chrF++ on one entry is noisy, hence the
generous default of 10 points: the session gate judges the run, this points at the entries.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from pytest_mteval.cards.char_diff import Kind, render
from pytest_mteval.metrics.entry_record import EntryRecord
from pytest_mteval.scoring.gate_options import EntryGateOptions

#: (record key, label) of the per-entry metrics shown before -> after.
SHOWN_METRICS: Final = (
    ("chrf_score", "chrF++"),
    ("bleu_score", "BLEU"),
    ("ter_score", "TER"),
    ("exact_match", "exact match"),
    ("equivalent_match", "equivalent match"),
    ("fst_valid", "FST valid"),
    ("length_ratio", "length ratio"),
)


@dataclass(frozen=True)
class InspectionCard:
    """A regressed entry for a person: which entry and why, its four texts (source, reference,
    baseline and current output), then the details (metrics before and after, FST rejections,
    a character diff). pytest's ``--tb`` style picks how much is shown (``for_style``)."""

    headline: str
    reasons: tuple[str, ...]
    texts: tuple[str, ...]
    details: tuple[str, ...]

    @property
    def text(self) -> str:
        """The whole card."""
        return "\n".join([*self._short(), *self.details])

    def for_style(self, style: str) -> str:
        """``no`` nothing, ``line`` one line (the entry and its reasons), ``short`` the reasons
        and the four texts, any other style all of it."""
        if style == "no":
            return ""
        if style == "line":
            one_line = "; ".join(reason.replace("\n", "\\n") for reason in self.reasons)
            return f"{self.headline}: {one_line}"
        if style == "short":
            return "\n".join(self._short())
        return self.text

    def _short(self) -> list[str]:
        return [f"{self.headline}:", *(f"  - {r}" for r in self.reasons), *self.texts]


@dataclass(frozen=True)
class EntryVerdict:
    """The inspection card of an entry that fails (None: it passes); whether it fails and why
    are read from the card."""

    card: InspectionCard | None = None

    @property
    def failed(self) -> bool:
        return self.card is not None

    @property
    def reasons(self) -> tuple[str, ...]:
        """One line per reason the entry fails."""
        return () if self.card is None else self.card.reasons

    @property
    def card_text(self) -> str:
        return "" if self.card is None else self.card.text


def entry_verdict(
    baseline_row: EntryRecord | None,
    record: EntryRecord,
    options: EntryGateOptions = EntryGateOptions(),  # noqa: B008 (frozen: safe to share)
) -> EntryVerdict:
    """The verdict on one entry's record against its baseline row (None: no baseline)."""
    reasons = regression_reasons(baseline_row, record, options)
    if not reasons:
        return EntryVerdict()
    return EntryVerdict(inspection_card(baseline_row, record, reasons))


def regression_reasons(
    baseline_row: EntryRecord | None, record: EntryRecord, options: EntryGateOptions
) -> list[str]:
    now_chrf = record.get("chrf_score")
    if baseline_row is None:
        floor = options.entry_min_chrf
        if floor is not None and now_chrf is not None and now_chrf < floor:
            return [f"chrF++ {now_chrf:.2f} is below the floor of {floor:g}"]
        return []
    reasons: list[str] = []
    if record.get("error") is not None and baseline_row.get("error") is None:
        reasons.append(f"newly errors: {record['error']}")
    before_chrf = baseline_row.get("chrf_score")
    if before_chrf is not None and now_chrf is not None:
        drop = before_chrf - now_chrf
        if drop > options.entry_max_drop:
            reasons.append(
                f"chrF++ dropped {drop:.2f} points ({before_chrf:.2f} -> {now_chrf:.2f}), "
                f"more than the allowed {options.entry_max_drop:g}"
            )
    if record.get("fst_valid") is False and baseline_row.get("fst_valid") is True:
        rejected = ", ".join(record.get("fst_rejected_words") or []) or "?"
        reasons.append(f"newly fails the FST (rejected: {rejected})")
    return reasons


def inspection_card(
    baseline_row: EntryRecord | None, record: EntryRecord, reasons: Sequence[str]
) -> InspectionCard:
    """Everything needed to judge a regressed entry without opening a run card."""
    before: Mapping[str, object] = baseline_row or {}
    if record.get("text_withheld"):  # a secret run: only scores come back (run/redaction.py)
        texts = ["source, reference and outputs: withheld (secret run: scores only)"]
    else:
        shown = _prediction(baseline_row) if baseline_row is not None else "(no baseline)"
        texts = [
            f"source:     {record.get('source')}",
            f"reference:  {record.get('expected')}",
            f"baseline:   {shown}",
            f"now:        {_prediction(record)}",
        ]
    details = ["metrics:    baseline -> now"]
    for key, label in SHOWN_METRICS:
        if before.get(key) is None and record.get(key) is None:
            continue
        old, new = before.get(key), record.get(key)
        change = _change(old, new)
        details.append(f"  {label:<18}{_value(old)} -> {_value(new)}{change}")
    rejected_now = record.get("fst_rejected_words")
    rejected_before = before.get("fst_rejected_words")
    if rejected_now or rejected_before:
        details.append(
            f"FST-rejected words: now {_words(rejected_now)}; baseline {_words(rejected_before)}"
        )
    if baseline_row is not None and not record.get("text_withheld"):
        old, new = before.get("predicted"), record.get("predicted")
        if isinstance(old, str) and isinstance(new, str):
            details.append("diff baseline -> now, by character ([-removed-] {+added+}):")
            details.append("  " + char_diff(old, new))
    headline = f"entry {record.get('entry_id')!s} regressed"
    return InspectionCard(headline, tuple(reasons), tuple(texts), tuple(details))


def char_diff(old: str, new: str) -> str:
    """``old`` turned into ``new``, inline: kept text as is, ``[-removed-]``, ``{+added+}``."""
    if old == new:
        return old + "  (identical)"
    return render(old, new, _text_span)


def _text_span(kind: Kind, text: str) -> str:
    return {"kept": text, "removed": f"[-{text}-]", "added": f"{{+{text}+}}"}[kind]


def _prediction(row: EntryRecord) -> str:
    if row.get("error") is not None:
        return f"(error: {row['error']})"
    predicted = row.get("predicted")
    if predicted is None:
        return "(none)"
    # one line per field: a multi-line output is shown with its line breaks escaped
    return str(predicted).replace("\n", "\\n")


def _value(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.2f}"
    return str(value)


def _change(old: Any, new: Any) -> str:
    numbers = (int, float)
    if isinstance(old, bool) or isinstance(new, bool):
        return ""
    if isinstance(old, numbers) and isinstance(new, numbers):
        return f" ({new - old:+.2f})"
    return ""


def _words(words: Any) -> str:
    return ", ".join(str(w) for w in words) if words else "-"
