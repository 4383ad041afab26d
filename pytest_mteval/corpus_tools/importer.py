"""``mteval corpus import``: a spreadsheet (CSV/TSV with a header), two line-aligned text
files or a reference-harness corpus becomes a corpus in the spec's envelope (§2.1/§2.2).

Every row that does not become an entry is reported with its file, row, column and reason;
nothing is dropped silently. Ids are stable: an ``id`` column when there is one, otherwise a
number derived from the source text, so that re-importing a sheet with rows added, removed,
reordered or with corrected references keeps every other entry's id (baselines and rotation
records refer to entries by id).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pytest_mteval.corpus import CorpusError, FieldNames, read_document
from pytest_mteval.corpus_tools.entries import ENTRY_FIELDS, EntryBuilder, Skipped
from pytest_mteval.corpus_tools.envelope import build_envelope, read_toml, toml_columns
from pytest_mteval.corpus_tools.rows import (
    DEFAULT_MAX_BYTES,
    Row,
    parallel_rows,
    read_text,
    table_rows,
)

Format = Literal["csv", "tsv", "parallel", "harness"]


@dataclass(frozen=True)
class ImportOptions:
    """How to read the input and fill the envelope; see ``mteval corpus import --help``."""

    inputs: tuple[Path, ...]
    format: Format | None = None
    columns: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    envelope: Mapping[str, Any] = field(default_factory=dict)
    envelope_file: Path | None = None
    defaults: Mapping[str, str] = field(default_factory=dict)
    variants_separator: str = "|"
    encoding: str = "utf-8"
    max_bytes: int = DEFAULT_MAX_BYTES
    #: Rows with fewer cells than the header end in empty cells (spreadsheets often omit them).
    allow_short_rows: bool = False


@dataclass
class ImportResult:
    document: dict[str, Any]
    rows: int
    skipped: list[Skipped]
    #: Columns mapped to no entry field: kept in each entry's ``metadata``.
    metadata_columns: list[str]


def detect_format(inputs: Sequence[Path]) -> Format:
    if len(inputs) == 2:
        return "parallel"
    suffix = inputs[0].suffix.lower()
    if suffix in {".tsv", ".tab"}:
        return "tsv"
    if suffix == ".json":
        return "harness"
    if suffix == ".csv":
        return "csv"
    raise CorpusError(
        f"{inputs[0]}: cannot tell the format from the name: pass --format csv|tsv|harness, "
        "or two text files (source, reference) for line-aligned text"
    )


def import_corpus(options: ImportOptions) -> ImportResult:
    """Read the input and build the corpus document; CorpusError when nothing usable results."""
    fmt = options.format or detect_format(options.inputs)
    if (fmt == "parallel") != (len(options.inputs) == 2):
        raise CorpusError(
            "give two files (source, reference) for line-aligned text, one file otherwise"
        )
    toml = read_toml(options.envelope_file) if options.envelope_file else {}
    envelope = {**toml.get("dataset", {}), **dict(options.envelope)}
    defaults = {**toml.get("defaults", {}), **dict(options.defaults)}
    columns = {**toml_columns(options.envelope_file, toml), **dict(options.columns)}
    ignored: list[str] = []
    base_envelope: dict[str, Any] = {}
    if fmt == "parallel":
        rows: Iterable[Row] = parallel_rows(
            options.inputs[0], options.inputs[1], options.encoding, options.max_bytes
        )
    elif fmt == "harness":
        rows, base_envelope = _harness_rows(options.inputs[0], _field_names(options.columns))
    else:
        path = options.inputs[0]
        text = read_text(path, options.encoding, options.max_bytes)
        delimiter = "\t" if fmt == "tsv" else ","
        header, table = table_rows(
            path, text, delimiter, options.encoding, options.allow_short_rows
        )
        mapping = _column_mapping(path, header, columns)
        ignored = [h for h in header if h and all(h not in cols for cols in mapping.values())]
        rows = _mapped(table, mapping, ignored)
    builder = EntryBuilder(defaults, options.variants_separator, options.encoding)
    for row in rows:
        builder.add(row)
    if not builder.entries:
        reasons = "; ".join(s.line() for s in builder.skipped[:3])
        raise CorpusError(
            f"{options.inputs[0]}: no entries imported ({builder.rows} rows read)"
            + (f": {reasons}" if reasons else "")
        )
    dataset = build_envelope(base_envelope, envelope, builder.entries, options.inputs[0])
    document = {"dataset": dataset, "entries": builder.entries}
    return ImportResult(document, builder.rows, builder.skipped, ignored)


def write_document(document: Mapping[str, Any], output: Path) -> str:
    """Write the corpus as UTF-8 JSON; return its sha256 (the dataset version runs record)."""
    data = (json.dumps(document, ensure_ascii=False, indent=2) + "\n").encode("utf-8")
    output.write_bytes(data)
    return hashlib.sha256(data).hexdigest()


def _column_mapping(
    path: Path, header: list[str], columns: Mapping[str, tuple[str, ...]]
) -> dict[str, tuple[str, ...]]:
    """Entry field -> header columns: the explicit mapping, else a column named like the field."""
    mapping: dict[str, tuple[str, ...]] = {}
    by_name = {h.casefold(): h for h in header}
    for name in ENTRY_FIELDS:
        if name in columns:
            missing = [c for c in columns[name] if c not in header]
            if missing:
                raise CorpusError(
                    f"{path}: row 1 (header): no column {missing[0]!r} (for {name}); the columns "
                    f"are: {', '.join(repr(h) for h in header)}"
                )
            mapping[name] = columns[name]
        elif name.casefold() in by_name:
            mapping[name] = (by_name[name.casefold()],)
    for required in ("source", "reference"):
        if required not in mapping:
            raise CorpusError(
                f"{path}: row 1 (header): no column {required!r}; the columns are: "
                f"{', '.join(repr(h) for h in header)}. Name yours with --{required}-column NAME"
            )
    return mapping


def _mapped(
    rows: Iterable[Row], mapping: Mapping[str, tuple[str, ...]], extra: Sequence[str]
) -> Iterator[Row]:
    """Cells by entry field; the other columns' non-empty cells go to the entry's metadata."""
    labels = {n: " + ".join(c) for n, c in mapping.items()}
    for row in rows:
        if row.problem is not None:
            yield row
            continue
        cells = {
            name: row.cells[cols[0]]
            if name != "variants"
            else "\x1f".join(row.cells[c] for c in cols)
            for name, cols in mapping.items()
        }
        metadata = {h: row.cells[h].strip() for h in extra if row.cells[h].strip()}
        yield Row(row.where, cells, labels=labels, metadata=metadata)


def _field_names(columns: Mapping[str, tuple[str, ...]]) -> FieldNames:
    """``--source-column``/``--reference-column`` name a harness corpus's fields."""
    source, reference = columns.get("source") or ("source",), columns.get("reference")
    return FieldNames(source[0], (reference or ("reference",))[0])


def _harness_rows(path: Path, fields: FieldNames) -> tuple[list[Row], dict[str, Any]]:
    """The reference harness's corpus shapes (its curated object, its flat list of entries
    with ``target`` for the reference), mapped by the loader (pytest_mteval.corpus)."""
    raw, _, shape, _ = read_document(path, fields)
    if shape == "spec":
        raise CorpusError(
            f"{path}: already in the spec's envelope: lint it with mteval corpus lint"
        )
    rows: list[Row] = []
    for index, entry in enumerate(raw["entries"]):
        where = f"{path}: entry {index}"
        if not isinstance(entry, dict):
            rows.append(Row(where, problem="an entry is a JSON object"))
            continue
        cells = {
            k: "\x1f".join(map(str, v)) if isinstance(v, list) else str(v)
            for k, v in entry.items()
            if k in ENTRY_FIELDS and v is not None
        }
        rows.append(Row(where, cells, metadata=entry.get("metadata") or {}))
    dataset = {k: v for k, v in raw["dataset"].items() if v}
    return rows, dataset
