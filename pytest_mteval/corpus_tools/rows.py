"""Reading the files linguists have into rows of cells: CSV/TSV with a header, two line-aligned
text files. Whole-file problems raise CorpusError naming the file (and row and column where
there is one); a bad row is handed on with the reason, so that the importer reports it."""

from __future__ import annotations

import codecs
import csv
import io
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_mteval.corpus import CorpusError

#: Larger inputs are refused before reading: a corpus is sentences, not a dump (--max-bytes).
DEFAULT_MAX_BYTES = 64 * 1024 * 1024
#: A longer cell is no sentence to translate; the row is skipped with that reason.
MAX_CELL_CHARS = 10_000


@dataclass(frozen=True)
class Row:
    """One data row: where it is (``file:row``), its cells by column name, or why it is bad."""

    where: str
    cells: dict[str, str] = field(default_factory=dict)
    problem: str | None = None
    #: Entry field -> the column(s) it came from, to name them in a report.
    labels: dict[str, str] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)


def read_text(path: Path, encoding: str, max_bytes: int) -> str:
    """The file's text. A UTF-8 or UTF-16 byte-order mark is honoured and removed; bytes that
    are not valid in ``encoding`` survive as surrogates so that their row can be named."""
    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise CorpusError(
                f"{path}: {size:,} bytes is over the import limit of {max_bytes:,} "
                "(--max-bytes): is this the right file?"
            )
        data = path.read_bytes()
    except OSError as exc:
        raise CorpusError(f"{path}: cannot read: {exc.strerror or exc}") from None
    for bom, codec in ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le")):
        if data.startswith(bom):
            return _decode(path, data[len(bom) :], codec)
    if data.startswith(codecs.BOM_UTF16_BE):
        return _decode(path, data[2:], "utf-16-be")
    return _decode(path, data, encoding)


def _decode(path: Path, data: bytes, encoding: str) -> str:
    try:
        return data.decode(encoding, errors="surrogateescape")
    except LookupError:
        raise CorpusError(f"{path}: unknown encoding {encoding!r} (--encoding)") from None
    except UnicodeDecodeError as exc:  # UTF-16 cannot escape: an odd trailing byte
        raise CorpusError(
            f"{path}: not {encoding} text: {exc.reason} at byte {exc.start}"
        ) from None


_ESCAPED = re.compile("[\udc80-\udcff]")


def bad_bytes(text: str) -> str | None:
    """The undecodable bytes kept as surrogates in a cell, shown as hex, or None."""
    found = [f"0x{ord(c) - 0xDC00:02x}" for c in _ESCAPED.findall(text)]
    return " ".join(dict.fromkeys(found)) if found else None


def cell_problem(column: str, value: str, encoding: str) -> str | None:
    """Why one cell cannot be imported, or None."""
    if len(value) > MAX_CELL_CHARS:
        return (
            f"column {column!r}: {len(value):,} characters, over the {MAX_CELL_CHARS:,} "
            "a sentence can have"
        )
    undecodable = bad_bytes(value)
    if undecodable is not None:
        return (
            f"column {column!r}: not {encoding} text (byte {undecodable}); re-save the file as "
            "UTF-8, or pass --encoding (e.g. cp1252)"
        )
    if "\x00" in value:
        return f"column {column!r}: contains a NUL byte (a binary file?)"
    return None


def table_rows(
    path: Path, text: str, delimiter: str, encoding: str, pad_short: bool = False
) -> tuple[list[str], Iterator[Row]]:
    """The header and the data rows of a CSV (quoted, RFC 4180) or TSV (one row per line, no
    quoting, as Tatoeba and most tools write it). CRLF and LF both end a row."""
    if delimiter == "\t":
        lines = _physical_lines(text)
        records: Iterator[tuple[int, list[str]]] = (
            (number, line.split("\t")) for number, line in enumerate(lines, start=1)
        )
    else:
        records = _csv_records(path, text)
    first = next(records, None)
    while first is not None and not any(cell.strip() for cell in first[1]):
        first = next(records, None)
    if first is None:
        raise CorpusError(
            f"{path}: the file is empty: expected a header row, then one row per entry"
        )
    number, header = first
    header = [cell.strip() for cell in header]
    for index, name in enumerate(header):
        undecodable = bad_bytes(name)
        if undecodable is not None:
            raise CorpusError(
                f"{path}: row {number} (header), column {index + 1}: not {encoding} text "
                f"(byte {undecodable}); re-save the file as UTF-8 or pass --encoding"
            )
    seen: dict[str, int] = {}
    for index, name in enumerate(header):
        if name and name in seen:
            raise CorpusError(
                f"{path}: row {number} (header), column {index + 1}: column name {name!r} "
                f"repeats column {seen[name] + 1}"
            )
        seen[name] = index
    return header, _data_rows(path, header, records, pad_short)


def _data_rows(
    path: Path, header: list[str], records: Iterator[tuple[int, list[str]]], pad_short: bool
) -> Iterator[Row]:
    for number, cells in records:
        where = f"{path}:{number}"
        if not any(cell.strip() for cell in cells):
            continue  # a blank line holds no row
        if len(cells) < len(header) and pad_short:
            cells = cells + [""] * (len(header) - len(cells))
        if len(cells) != len(header):
            hint = "" if len(cells) > len(header) else "; --allow-short-rows if it ends in empties"
            yield Row(
                where,
                problem=f"{len(cells)} cells where the header has {len(header)} (ragged row: "
                f"a missing or extra separator?{hint})",
            )
            continue
        yield Row(where, dict(zip(header, cells, strict=True)))


def _physical_lines(text: str) -> list[str]:
    """Lines split on LF only (CR before it dropped): ``str.splitlines`` would also split on
    U+2028, U+0085 and form feeds inside a sentence and break the alignment."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.removesuffix("\r") for line in lines]


def _csv_records(path: Path, text: str) -> Iterator[tuple[int, list[str]]]:
    previous = csv.field_size_limit()
    # Let long cells through the parser, so that the row and column can be named afterwards.
    csv.field_size_limit(max(previous, len(text) + 1))
    try:
        reader = csv.reader(io.StringIO(text, newline=""), strict=True)
        start = 1
        while True:
            try:
                cells = next(reader)
            except StopIteration:
                return
            except csv.Error as exc:
                raise CorpusError(f"{path}: row {start}: not valid CSV: {exc}") from None
            yield start, cells
            start = reader.line_num + 1
    finally:
        csv.field_size_limit(previous)


def parallel_rows(source: Path, reference: Path, encoding: str, max_bytes: int) -> Iterator[Row]:
    """Two line-aligned files, line N of one translated by line N of the other."""
    sources = _physical_lines(read_text(source, encoding, max_bytes))
    references = _physical_lines(read_text(reference, encoding, max_bytes))
    if len(sources) != len(references):
        raise CorpusError(
            f"{source}: {len(sources)} lines, but {reference} has {len(references)}: the files "
            "are not line-aligned (line N of one must translate line N of the other)"
        )
    for number, (src, ref) in enumerate(zip(sources, references, strict=True), start=1):
        if not src.strip() and not ref.strip():
            continue
        yield Row(f"{source}:{number}", {"source": src, "reference": ref})
