"""A corpus made on the fly from sacrebleu-style plain files: one segment per line, line-aligned.

``mteval score`` turns them into the spec's envelope and replay predictions, so the same run
scores them. The dataset id says the corpus was made from plain files, never curated.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from pytest_mteval.errors import MtevalError
from pytest_mteval.languages import canonical

#: The dataset id of every corpus made from plain files: read by a board to keep them apart.
PLAIN_FILES_ID: Final = "plain-files"
#: The source text of entries scored without ``--src``: no metric finds it copied.
NO_SOURCE: Final = "(no source given: scored from plain files)"
#: Undetermined language (ISO 639), when ``--lang`` is not given.
UNDETERMINED: Final = "und"
_LANGUAGE = re.compile(r"^[A-Za-z]{2,3}$")


class PlainFilesError(MtevalError):
    """Plain files that cannot be scored together; the message names the file."""


@dataclass(frozen=True)
class LanguagePair:
    source: str
    target: str

    @property
    def label(self) -> str:
        return f"{self.source.upper()}→{self.target.upper()}"


def parse_language_pair(text: str | None) -> LanguagePair:
    """``en-fr`` or ``eng-fra`` as canonical codes; undetermined when not given."""
    if text is None:
        return LanguagePair(UNDETERMINED, UNDETERMINED)
    parts = text.split("-")
    if len(parts) != 2 or not all(_LANGUAGE.match(part) for part in parts):
        raise PlainFilesError(
            f"--lang {text!r}: expected two language codes joined by '-', e.g. en-fr or eng-fra"
        )
    return LanguagePair(canonical(parts[0]), canonical(parts[1]))


def read_lines(path: Path) -> list[str]:
    """The file's lines without their line ends; one-line errors for what cannot be read."""
    try:
        text = path.read_bytes().decode("utf-8")
    except OSError as exc:
        raise PlainFilesError(f"{path}: cannot read: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise PlainFilesError(f"{path}: not UTF-8 (byte {exc.start})") from None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the final line end, not an empty segment
    lines = [line.removesuffix("\r") for line in lines]
    if not lines:
        raise PlainFilesError(f"{path}: empty file, nothing to score")
    return lines


@dataclass(frozen=True)
class PlainFiles:
    """Hypotheses, references and optional sources, checked to be line-aligned."""

    hypotheses: list[str]
    references: list[str]
    sources: list[str] | None
    pair: LanguagePair
    names: tuple[str, ...]


def read_plain_files(
    hypothesis: Path, reference: Path, source: Path | None, lang: str | None
) -> PlainFiles:
    """All files read and checked: same line count, no empty reference or source line."""
    pair = parse_language_pair(lang)
    references = _texts(reference, "reference")
    hypotheses = read_lines(hypothesis)
    _same_length(hypothesis, hypotheses, reference, references)
    sources = None
    if source is not None:
        sources = _texts(source, "source")
        _same_length(source, sources, reference, references)
    names = tuple(str(p) for p in (hypothesis, reference, source) if p is not None)
    return PlainFiles(hypotheses, references, sources, pair, names)


def _texts(path: Path, what: str) -> list[str]:
    lines = read_lines(path)
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            raise PlainFilesError(f"{path}: line {number}: empty {what} (every line is scored)")
    return lines


def _same_length(path: Path, lines: list[str], reference: Path, references: list[str]) -> None:
    if len(lines) != len(references):
        raise PlainFilesError(
            f"{path}: {len(lines)} lines, but {reference} has {len(references)}: "
            "the files must be line-aligned"
        )


def corpus_envelope(files: PlainFiles) -> dict[str, Any]:
    """The spec's envelope of the entries, ids 1..n; its id marks it as made from plain files."""
    sources = files.sources or [NO_SOURCE] * len(files.references)
    entries = [
        {"id": number, "source": source, "reference": reference}
        for number, (source, reference) in enumerate(
            zip(sources, files.references, strict=True), start=1
        )
    ]
    digest = hashlib.sha256("\n".join(files.references).encode("utf-8")).hexdigest()
    return {
        "dataset": {
            "id": PLAIN_FILES_ID,
            "version": f"references-sha256-{digest[:16]}",
            "language_pair": files.pair.label,
            "source_language": files.pair.source,
            "target_language": files.pair.target,
            "created": datetime.now(UTC).date().isoformat(),
            "license": "NOASSERTION",  # SPDX: the user's own files, licence not stated
            "provenance": [PLAIN_FILES_ID, *files.names],
        },
        "entries": entries,
    }


def predictions(files: PlainFiles) -> list[dict[str, Any]]:
    """The hypotheses as the replay method's JSONL rows, matched to entries by id."""
    return [
        {"id": number, "predicted": text} for number, text in enumerate(files.hypotheses, start=1)
    ]
