"""Flags for degenerate runs, which cap the quality tier whatever the composite says.

A weighted composite can be gamed: one valid target sentence repeated for every input looks
perfect to the FST, code-switching and hallucination metrics (SCORING.md). The flags here look
at the run as a whole, from the per-entry records, for the ways of scoring without translating.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, TypedDict

from pytest_mteval.metrics.entry_record import EntryRecord
from pytest_mteval.metrics.match import exact_match, normalize, output_key
from pytest_mteval.metrics.output_language import LanguageVerdict, wrong_language
from pytest_mteval.scoring.composite import CANDIDATE_LABEL, TIERS, UNSCORED

#: The best tier a flagged run may claim.
CAPPED_TIER: Final = "emerging"


class Flag(TypedDict):
    code: str
    message: str
    entry_ids: list[str]


@dataclass(frozen=True)
class Thresholds:
    """When a share of the answered entries makes a run degenerate (see docs/SCORING.md)."""

    #: Entries whose output the run repeats for entries with other references, unsanctioned.
    repeated_share: float = 0.20
    #: Entries with distinct references one output must span to count as repeated.
    repeated_min_references: int = 3
    #: Entries answered with their own source where the reference differs.
    copied_share: float = 0.20
    #: Entries answered with nothing.
    empty_share: float = 0.10
    #: Entries whose output is in another language than the target (metrics/output_language.py).
    wrong_language_share: float = 0.20
    #: Entries that errored, out of all entries.
    error_share: float = 0.20
    #: Answered entries with variants needed before the lint below can judge.
    variants_min_entries: int = 10
    #: Share of those reproducing the exact reference rather than a variant.
    variants_exact_share: float = 0.95


DEFAULT_THRESHOLDS: Final = Thresholds()


def run_flags(
    records: Sequence[EntryRecord],
    thresholds: Thresholds = DEFAULT_THRESHOLDS,
    languages: Sequence[LanguageVerdict] = (),
    target_language: str = "",
) -> list[Flag]:
    """Every flag the run raises, in a fixed order; an empty list means none. ``languages``
    are :func:`output_languages` of the same records, if judged."""
    answered = [r for r in records if r.get("error") is None]
    flags = [
        _errors(records, thresholds),
        _empty_outputs(answered, thresholds),
        _repeated_outputs(answered, thresholds),
        _copied_sources(answered, thresholds),
        _wrong_languages(records, languages, target_language, thresholds),
        _perfect_on_variants(answered, thresholds),
        _truncated(records),
    ]
    return [flag for flag in flags if flag is not None]


def output_languages(records: Sequence[EntryRecord], target_language: str) -> list[LanguageVerdict]:
    """Each record's output language verdict; an errored entry's output is not judged."""
    outputs = [None if r.get("error") is not None else _prediction(r) for r in records]
    references = [[str(r["expected"]), *(str(v) for v in r.get("variants") or [])] for r in records]
    return wrong_language(outputs, references, target_language)


def wrong_language_rate(verdicts: Sequence[LanguageVerdict]) -> float | None:
    """The share of decided outputs judged in another language; None when none was decided."""
    decided = [v for v in verdicts if v.decided]
    return _share(sum(v.wrong for v in decided), len(decided)) if decided else None


def cap_tier(tier: str, flags: Sequence[Flag]) -> str:
    """A flagged run is at most "emerging"; an unflagged one keeps its tier."""
    order = [name for _, name in TIERS]
    plain = "deployable" if tier == CANDIDATE_LABEL else tier
    if plain != UNSCORED and plain not in order:
        raise ValueError(f"unknown tier {tier!r}")
    if not flags or plain == UNSCORED:
        return tier
    return tier if order.index(plain) >= order.index(CAPPED_TIER) else CAPPED_TIER


def _prediction(record: EntryRecord) -> str:
    predicted = record.get("predicted")
    return predicted if isinstance(predicted, str) else ""


def _sanctioned(record: EntryRecord) -> set[str]:
    """The outputs the corpus itself accepts for an entry: its reference and variants."""
    return {output_key(str(record["expected"]))} | {
        output_key(str(v)) for v in record.get("variants") or []
    }


def _ids(records: Sequence[EntryRecord]) -> list[str]:
    return [str(r["entry_id"]) for r in records]


def _share(part: int, whole: int) -> float:
    return part / whole if whole else 0.0


def _errors(records: Sequence[EntryRecord], t: Thresholds) -> Flag | None:
    errored = [r for r in records if r.get("error") is not None]
    if not errored or _share(len(errored), len(records)) < t.error_share:
        return None
    return Flag(
        code="many_errors",
        message=f"{len(errored)} of {len(records)} entries errored: the scores cover the rest",
        entry_ids=_ids(errored),
    )


def _truncated(records: Sequence[EntryRecord]) -> Flag | None:
    """Predictions the harness cut for scoring (run/result_model.py): always flagged."""
    cut = [r for r in records if r.get("truncated_for_scoring")]
    if not cut:
        return None
    return Flag(
        code="truncated_for_scoring",
        message=(
            f"{len(cut)} of {len(records)} entries answered far longer than their source: "
            "their predictions were cut before scoring (see results[].truncated_for_scoring)"
        ),
        entry_ids=_ids(cut),
    )


def _empty_outputs(answered: Sequence[EntryRecord], t: Thresholds) -> Flag | None:
    empty = [r for r in answered if not output_key(_prediction(r))]
    if not empty or _share(len(empty), len(answered)) < t.empty_share:
        return None
    return Flag(
        code="empty_output",
        message=f"{len(empty)} of {len(answered)} answered entries are empty",
        entry_ids=_ids(empty),
    )


def _repeated_outputs(answered: Sequence[EntryRecord], t: Thresholds) -> Flag | None:
    groups: defaultdict[str, list[EntryRecord]] = defaultdict(list)
    for record in answered:
        output = output_key(_prediction(record))
        if output:
            groups[output].append(record)
    repeated: list[EntryRecord] = []
    examples: list[str] = []
    for output, group in groups.items():
        # Paraphrased sources that the corpus itself translates alike share a reference, so
        # one output for them is consistency, not degeneracy: count distinct references.
        unsanctioned = [r for r in group if output not in _sanctioned(r)]
        references = {output_key(str(r["expected"])) for r in unsanctioned}
        if len(references) >= t.repeated_min_references:
            repeated.extend(unsanctioned)
            examples.append(f"{_prediction(unsanctioned[0])!r} x{len(group)}")
    if not repeated or _share(len(repeated), len(answered)) < t.repeated_share:
        return None
    order = {id(r): i for i, r in enumerate(answered)}
    repeated.sort(key=lambda r: order[id(r)])
    return Flag(
        code="repeated_output",
        message=(
            f"{len(repeated)} of {len(answered)} answered entries give an output that the run "
            f"repeats across at least {t.repeated_min_references} entries with different "
            "references: " + ", ".join(examples[:3])
        ),
        entry_ids=_ids(repeated),
    )


def _copied_sources(answered: Sequence[EntryRecord], t: Thresholds) -> Flag | None:
    copied = [
        r
        for r in answered
        if (output := output_key(_prediction(r)))
        and output == output_key(str(r["source"]))
        and output not in _sanctioned(r)
    ]
    if not copied or _share(len(copied), len(answered)) < t.copied_share:
        return None
    recased = sum(1 for r in copied if normalize(_prediction(r)) != normalize(str(r["source"])))
    how = "unchanged"  # a copy re-cased or re-spaced is a copy, and said to be one
    if recased:
        how += f" or changed only in case or spacing ({recased} of them)"
    return Flag(
        code="source_copied",
        message=f"{len(copied)} of {len(answered)} answered entries return their source {how}",
        entry_ids=_ids(copied),
    )


def _has_variants(record: EntryRecord) -> bool:
    reference = normalize(str(record["expected"]))
    return any(normalize(str(v)) != reference for v in record.get("variants") or [])


def _perfect_on_variants(answered: Sequence[EntryRecord], t: Thresholds) -> Flag | None:
    with_variants = [r for r in answered if _has_variants(r)]
    if len(with_variants) < t.variants_min_entries:
        return None
    exact = [r for r in with_variants if exact_match(_prediction(r), str(r["expected"]))]
    if _share(len(exact), len(with_variants)) < t.variants_exact_share:
        return None
    return Flag(
        code="suspiciously_perfect_variants",
        message=(
            f"{len(exact)} of {len(with_variants)} entries with acceptable variants reproduce "
            "the exact reference rather than a variant: were the references seen? (spec §9.3)"
        ),
        entry_ids=_ids(exact),
    )


def _wrong_languages(
    records: Sequence[EntryRecord],
    verdicts: Sequence[LanguageVerdict],
    target_language: str,
    t: Thresholds,
) -> Flag | None:
    """Output in another language than the target's (SCORING.md's degenerate outputs)."""
    answered = sum(1 for r in records if r.get("error") is None)
    wrong = [(r, v) for r, v in zip(records, verdicts, strict=False) if v.wrong]
    if not wrong or _share(len(wrong), answered) < t.wrong_language_share:
        return None
    read = Counter(v.reads_as for _, v in wrong).most_common(3)
    decided = sum(1 for v in verdicts if v.decided)
    return Flag(
        code="wrong_language",
        message=(
            f"{len(wrong)} of {answered} answered entries ({decided} long enough to judge) are "
            f"not in the target language {target_language}: they read as "
            + ", ".join(f"{name} ({count})" for name, count in read)
        ),
        entry_ids=_ids([r for r, _ in wrong]),
    )
