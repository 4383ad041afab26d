"""Scores only: what a run on secret data may write (spec §6.4, §8.2 "only scores come back").

A run is secret when ``--mteval-scores-only`` is given, when its corpus is encrypted, or when
it evaluates entries of the ``gold_standard`` or ``held_out`` segments. Its card then keeps,
per entry, the id, the labels (segment, domain, difficulty, provenance), every number and
yes/no the metrics produced, and the entry's sufficient statistics (n-gram and edit COUNTS,
from which the gate and ``mteval compare`` recompute and resample corpus scores), but no
source, reference, variant or prediction text, no method output of any kind (error messages,
rejected words, metric notes) and no free text that quotes them (warnings, the hallucination
detector's evidence). Any other string on the card that quotes one of those texts (a flag
naming a repeated output, a method's self-description echoing a source) is withheld too. The
rows say ``text_withheld: true`` and the card says why in ``redaction``. Counts are not
text, but they are not nothing either: a chrF++ count row tells the length of a reference in
characters, which is judged an acceptable disclosure.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, cast

from pytest_mteval.corpus import Corpus
from pytest_mteval.metrics.entry_record import EntryRecord, as_records, record_stats
from pytest_mteval.run.secret_corpus import MAGIC
from pytest_mteval.scoring.comparable_run import row_stats

SECRET_SEGMENTS: Final = frozenset({"gold_standard", "held_out"})
#: Row fields whose text is the corpus's or the method's, set to null.
TEXT_FIELDS: Final = ("source", "expected", "raw_predicted", "predicted")
#: Row fields that hold labels from the corpus envelope, not its text: kept.
LABEL_FIELDS: Final = frozenset({"entry_id", "segment", "domain", "difficulty", "provenance"})
#: Row fields holding a verdict word chosen by harness code: kept when a short word.
VERDICT_FIELDS: Final = frozenset({"semantic_verdict"})
WITHHELD_ERROR: Final = "error (message withheld: secret run)"
WITHHELD: Final = "(withheld: secret run)"
#: Card keys left as they are: the rows (redacted field by field) and the seal.
_NOT_SCRUBBED: Final = frozenset(
    {"results", "redaction", "fingerprint", "run_card_hash", "signature", "warnings"}
)


@dataclass(frozen=True)
class Secrecy:
    """Why a run's text is withheld; no reason means it is not."""

    reasons: tuple[str, ...] = ()

    @property
    def withheld(self) -> bool:
        return bool(self.reasons)


def file_is_encrypted(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            return handle.read(len(MAGIC)) == MAGIC
    except OSError:
        return False


def secrecy_of(corpus: Corpus, scores_only: bool) -> Secrecy:
    reasons: list[str] = []
    if scores_only:
        reasons.append("--mteval-scores-only")
    if file_is_encrypted(corpus.path):
        reasons.append("encrypted corpus")
    secret = sorted({entry.segment for entry in corpus.entries} & SECRET_SEGMENTS)
    if secret:
        reasons.append(f"secret segment(s) {', '.join(secret)}")
    return Secrecy(tuple(reasons))


def redact_card(
    card: dict[str, Any], secrecy: Secrecy, records: Sequence[EntryRecord] = ()
) -> dict[str, Any]:
    """Withhold every text of an unsealed card in place (see the module docstring).

    The run's ``records`` carry the statistics the workers computed; rows without them have
    theirs computed here (TER's cost about 5 ms an entry).
    """
    dropped: set[str] = set()
    rows = card.get("results") or []
    quoted = _Quoted(_texts(rows))
    stats = {str(r.get("entry_id")): found for r in records if (found := record_stats(r))}
    card["results"] = [
        redact_row({**row, "stats": stats.get(str(row.get("entry_id")))}, dropped) for row in rows
    ]
    evidence = card.get("hallucination")
    if isinstance(evidence, dict):
        repeated = evidence.get("same_output_for_different_sources")
        if isinstance(repeated, Mapping):  # keyed by the repeated output text
            evidence["same_output_for_different_sources"] = sorted(
                sorted(str(i) for i in ids) for ids in repeated.values()
            )
    warnings = card.get("warnings") or []
    card["warnings"] = [f"{len(warnings)} warning(s) withheld"] if warnings else []
    for key, value in card.items():
        if key not in _NOT_SCRUBBED:
            card[key] = _scrub(value, quoted)
    card["redaction"] = {
        "text_withheld": True,
        "reasons": list(secrecy.reasons),
        "row_fields_withheld": sorted({*TEXT_FIELDS, *dropped}),
    }
    return card


def redact_row(
    row: Mapping[str, Any], dropped: set[str] | None = None, with_stats: bool = True
) -> EntryRecord:
    """A row or record with its text withheld; names of dropped fields go to ``dropped``.
    ``with_stats``: keep (or compute) every family's sufficient statistics. The text fields
    are None: the shape of a secret run's card row."""
    dropped = set() if dropped is None else dropped
    out: dict[str, Any] = dict.fromkeys(TEXT_FIELDS)
    for key, value in row.items():
        if key in TEXT_FIELDS or key == "stats":
            continue
        if key in LABEL_FIELDS or _scalar(value):
            out[key] = value
        elif key == "error":
            out[key] = WITHHELD_ERROR
        elif key in VERDICT_FIELDS and isinstance(value, str) and value.isidentifier():
            out[key] = value
        elif key == "hallucination_reasons" and isinstance(value, list):
            out[key] = sorted({str(reason).split(":")[0] for reason in value})
        elif key == "plugin_metrics" and isinstance(value, Mapping):
            out[key] = {
                name: {k: v for k, v in scores.items() if _scalar(v)}
                for name, scores in value.items()
                if isinstance(scores, Mapping)
            }
        else:
            dropped.add(key)
    # every family's counts, an errored entry's too (as an empty output against its reference)
    out["stats"] = row_stats(as_records([row])[0]) if with_stats else None
    out["text_withheld"] = True
    return cast(EntryRecord, out)


def _texts(rows: Sequence[Mapping[str, Any]]) -> set[str]:
    """Every text of the rows (and of their variants), to recognize where it is quoted."""
    found: set[str] = set()
    for row in rows:
        for key in (*TEXT_FIELDS, "variants"):
            value = row.get(key)
            values = value if isinstance(value, list) else [value]
            found.update(str(v) for v in values if isinstance(v, str) and v.strip())
    return found


class _Quoted:
    """Recognizes a string that quotes a text: exactly, or containing one of 4 characters or
    more, as written or as ``repr`` and JSON would escape it."""

    def __init__(self, texts: set[str]) -> None:
        forms = {
            form
            for text in texts
            for form in (text, repr(text)[1:-1], json.dumps(text)[1:-1])
            if form
        }
        self.exact = forms
        self.long = sorted((f for f in forms if len(f) >= 4), key=len)

    def __call__(self, value: str) -> bool:
        if value in self.exact:
            return True
        for form in self.long:
            if len(form) > len(value):
                return False
            if form in value:
                return True
        return False


def _scrub(value: Any, quoted: _Quoted) -> Any:
    """``value`` with every string that quotes a text withheld (a repeated output named in a
    flag, a method's self-description echoing a source...)."""
    if isinstance(value, str):
        return WITHHELD if quoted(value) else value
    if isinstance(value, list):
        return [_scrub(item, quoted) for item in value]
    if isinstance(value, dict):
        return {
            f"{WITHHELD} {n}" if quoted(str(key)) else key: _scrub(item, quoted)
            for n, (key, item) in enumerate(value.items())
        }
    return value


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, bool | int | float)


def withheld_lines(lines: Sequence[str], secrecy: Secrecy) -> list[str]:
    """``lines`` when the run is not secret, else one line saying they are withheld."""
    if not secrecy.withheld:
        return list(lines)
    return [f"{WITHHELD} ({'; '.join(secrecy.reasons)})"]
