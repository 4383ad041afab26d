"""The entries a run collects: the reserved held-out rule (benchmark spec §2.3), the segment,
domain, difficulty and entry filters, and what the card says about segments.

``held_out`` entries are "reserved for future evaluation, never used until activated": a run
leaves them out unless it activates them explicitly (``--mteval-activate-held-out``, ini key
``mteval_activate_held_out``), so a plain run never sends them to a method or its provider.
The card's ``dataset.segments`` records the segments the run covered and whether held-out
entries were activated; the leaderboard reads it to tell official (gold-standard) runs from
development ones (spec §6.4).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any, Final

from pytest_mteval.corpus import Corpus, FieldNames
from pytest_mteval.errors import SettingsError
from pytest_mteval.run.entry_ids import EntrySelectionError, selected_keys
from pytest_mteval.run.run_settings import Settings
from pytest_mteval.run.secret_corpus import open_corpus

HELD_OUT: Final = "held_out"
GOLD_STANDARD: Final = "gold_standard"
ACTIVATE_OPTION: Final = "--mteval-activate-held-out"


def run_corpus(settings: Settings) -> Corpus:
    """The corpus of ``--mteval-corpus`` as this run collects it: held-out entries left out
    unless activated, then the filters; refused when nothing is left."""
    assert settings.corpus is not None
    whole = open_corpus(
        settings.corpus.resolve(),
        settings.corpus_key_file,
        settings.corpus_key_env,
        FieldNames(settings.source_field, settings.reference_field),
    )
    corpus = reserved_left_out(whole, settings.segments, settings.activate_held_out)
    corpus = corpus.filtered(settings.segments, settings.domains, settings.difficulties)
    corpus = only_entries(corpus, settings.entries)
    if not corpus.entries:
        raise SettingsError(
            f"{corpus.path}: no entry matches the segment/domain/difficulty filters"
        )
    return corpus


def only_entries(corpus: Corpus, ids: tuple[str, ...]) -> Corpus:
    """``--mteval-entry ID``: exactly these entries (``-k entry-42`` also matches entry-420);
    a range ``1-3`` or a list ``1-3,7`` as the reference harness takes them."""
    if not ids:
        return corpus
    try:
        wanted = selected_keys(ids, (entry.key for entry in corpus.entries))
    except EntrySelectionError as exc:
        raise SettingsError(f"--mteval-entry: {exc} in {corpus.path}") from None
    kept = tuple(entry for entry in corpus.entries if entry.key in wanted)
    return dataclasses.replace(corpus, entries=kept)


def reserved_left_out(corpus: Corpus, requested: Iterable[str], activated: bool) -> Corpus:
    """The corpus without its held-out entries unless ``activated``; asking for the
    held-out segment by name without activating it is refused in one line."""
    if activated:
        return corpus
    if HELD_OUT in set(requested):
        raise SettingsError(
            f"{corpus.path}: --mteval-segment {HELD_OUT}: held-out entries are reserved and "
            f"never used until activated (spec §2.3); pass {ACTIVATE_OPTION} "
            "(ini key mteval_activate_held_out) to activate them"
        )
    kept = tuple(e for e in corpus.entries if e.segment != HELD_OUT)
    left_out = len(corpus.entries) - len(kept)
    return dataclasses.replace(corpus, entries=kept, held_out_left_out=left_out)


def segments_record(
    corpus: Corpus, segments_run: Iterable[str | None], activated: bool
) -> dict[str, Any]:
    """The card's ``dataset.segments``: what the run covered, and the held-out decision."""
    covered = sorted({s for s in segments_run if s})
    return {
        "covered": covered,
        "held_out_activated": activated,
        "held_out_left_out": corpus.held_out_left_out,
        "gold_standard_only": covered == [GOLD_STANDARD],
    }
