"""Load the run a new run is gated against, and refuse a baseline made on other data.

A baseline is either our run card (its schema, fingerprint and hash are verified: a hand-edited
baseline would let anyone move the goalposts) or a reference-harness ``*_report.json``. A
missing baseline file is the normal state of a repository's first run, so it is a note, never
an error. A baseline made on a different dataset is refused with a message that says how to
proceed, because scores on different entries or references are not comparable.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any

from pytest_mteval.cards import runcard
from pytest_mteval.cards.comparable_card import from_card
from pytest_mteval.cards.foreign_card import (
    foreign_comparable,
    is_foreign_card,
    verify_foreign_card,
)
from pytest_mteval.corpus import Corpus
from pytest_mteval.errors import MtevalError
from pytest_mteval.run.run_state import BaselineLoad
from pytest_mteval.scoring.comparable_run import (
    Comparable,
    from_harness_report,
    is_harness_report,
)

#: entry id -> (source, reference): what must agree for two runs to be on the same data.
EntryTexts = Mapping[str, tuple[str, str]]


class BaselineError(MtevalError):
    """A baseline that cannot be used; the message is one line, shown as is."""


def read_run(path: Path) -> Comparable:
    """A run card (verified), a reference-harness report (re-scored) or a reference-harness
    card (verified by its own rules, run-level scores only), as a Comparable."""
    try:
        raw = runcard.load(path)
    except runcard.RunCardError as exc:
        raise BaselineError(str(exc)) from None
    if is_harness_report(raw):
        for index, entry in enumerate(raw["entries"]):
            if not isinstance(entry, dict) or "id" not in entry:
                raise BaselineError(
                    f"{path}: malformed reference-harness report: entries[{index}] is not an "
                    "object with an 'id'"
                )
        try:
            return from_harness_report(raw, str(path))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise BaselineError(f"{path}: malformed reference-harness report: {exc!r}") from None
    if is_foreign_card(raw):  # the reference harness's own run card: its rules, its scores
        try:
            verify_foreign_card(raw, path)
        except runcard.RunCardError as exc:
            raise BaselineError(str(exc)) from None
        return foreign_comparable(raw, str(path))
    if "results" not in raw or "run_card_hash" not in raw:
        raise BaselineError(
            f"{path}: neither a run card (results, run_card_hash) nor a reference-harness "
            "report (overall, entries)"
        )
    try:
        card = runcard.verify(raw, path)
    except runcard.RunCardError as exc:
        raise BaselineError(str(exc)) from None
    return from_card(card, str(path))


def corpus_texts(corpus: Corpus) -> dict[str, tuple[str, str]]:
    return {e.key: (e.source, e.reference) for e in corpus.entries}


def run_texts(run: Comparable) -> dict[str, tuple[str, str]]:
    return {key: (str(r.get("source")), str(r.get("expected"))) for key, r in run.rows.items()}


def dataset_difference(
    baseline: Comparable, sha256: str | None, texts: EntryTexts, what: str = "the corpus"
) -> str | None:
    """Why ``baseline`` was not made on this data, or None when it was.

    With both sha256 known they decide; otherwise (a reference-harness report records none)
    the entries both have must agree in source and reference, and there must be some.
    """
    if baseline.dataset_sha256 and sha256:
        if baseline.dataset_sha256 == sha256:
            return None
        return (
            f"dataset sha256 {_short(baseline.dataset_sha256)} of the baseline differs from "
            f"{_short(sha256)} of {what}"
        )
    shared = [key for key in texts if key in baseline.rows]
    if not shared:
        return f"the baseline has no entry id in common with {what}"
    theirs = run_texts(baseline)
    changed = [key for key in shared if theirs[key] != texts[key]]
    if changed:
        listed = ", ".join(changed[:5]) + (" ..." if len(changed) > 5 else "")
        return (
            f"{len(changed)} of {len(shared)} shared entries differ in source or reference "
            f"from {what} ({listed})"
        )
    return None


def load_baseline(
    path: Path, corpus: Corpus | None = None, allow_dataset_change: bool = False
) -> BaselineLoad:
    """The baseline at ``path`` checked against the run's corpus.

    Raises BaselineError for an unusable baseline or, unless ``allow_dataset_change``, one
    made on other data. A missing file returns a BaselineLoad without a baseline.
    """
    if not path.exists():
        return BaselineLoad(path, None)
    run = read_run(path)
    if run.partial:
        raise BaselineError(
            f"baseline {path} is a partial run (-k, --lf, -x or filters): gate against a run "
            "of the whole corpus"
        )
    problem = None
    if corpus is not None:
        problem = dataset_difference(run, corpus.sha256, corpus_texts(corpus))
        if problem is not None and not allow_dataset_change:
            raise BaselineError(refusal(path, problem))
    return BaselineLoad(path, run, problem)


def refusal(path: Path | str, problem: str) -> str:
    return (
        f"baseline {path} was not made on this dataset: {problem}. Scores on other data are "
        "not comparable: refresh the baseline (--mteval-update-baseline on the main branch), "
        "pass --mteval-allow-dataset-change to compare over the entries whose source and "
        "reference are unchanged, or --mteval-baseline=none for a run without the configured "
        "gate (an ad-hoc run on other data)"
    )


def _short(sha: str) -> str:
    return sha[:12] + "…"


class BaselineOutcome(Enum):
    """What became of ``--mteval-update-baseline``."""

    WRITTEN = "written"
    NO_BASELINE = "no --mteval-baseline to write to"
    RUN_FAILED = "the run did not pass"
    INCOMPLETE = "the run is incomplete"
    PARTIAL = "the run did not cover the whole corpus"
    WRITE_FAILED = "writing failed"


@dataclass(frozen=True)
class BaselineUpdate:
    outcome: BaselineOutcome
    path: Path | None = None
    #: Why the run is incomplete, or the operating system's reason writing failed.
    detail: str | None = None

    @property
    def failed(self) -> bool:
        """The baseline was to be written and could not be: the session fails."""
        return self.outcome is BaselineOutcome.WRITE_FAILED


def replace_baseline(
    path: Path | None, card: Mapping[str, Any], passed: bool, whole_corpus: bool
) -> BaselineUpdate:
    """Write a passing, complete run of the whole corpus over the baseline at ``path``.

    Anything less would move the goalposts of every later run, so it is refused, and the
    outcome says why.
    """
    if path is None:
        return BaselineUpdate(BaselineOutcome.NO_BASELINE)
    if not passed:
        return BaselineUpdate(BaselineOutcome.RUN_FAILED, path)
    if card.get("complete") is False:
        return BaselineUpdate(BaselineOutcome.INCOMPLETE, path, str(card.get("incomplete_reason")))
    if not whole_corpus:
        return BaselineUpdate(BaselineOutcome.PARTIAL, path)
    try:
        runcard.replace(card, path)
    except OSError as exc:
        return BaselineUpdate(BaselineOutcome.WRITE_FAILED, path, str(exc.strerror or exc))
    return BaselineUpdate(BaselineOutcome.WRITTEN, path)
