"""``mteval corpus import``: a spreadsheet (CSV/TSV with a header), two line-aligned text
files or a reference-harness corpus becomes a corpus in the spec's envelope (§2.1/§2.2).

Every row that does not become an entry is reported with its file, row, column and reason;
nothing is dropped silently. Ids are stable: an ``id`` column when there is one, otherwise a
number derived from the source text, so that re-importing a sheet with rows added, removed,
reordered or with corrected references keeps every other entry's id (baselines and rotation
records refer to entries by id).
"""

from __future__ import annotations

import datetime
import hashlib
import json
import tomllib
import unicodedata
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from pytest_mteval.corpus import (
    DOMAINS,
    CorpusError,
    Dataset,
    Entry,
    read_document,
    validation_message,
)
from pytest_mteval.corpus_tools.rows import (
    DEFAULT_MAX_BYTES,
    Row,
    cell_problem,
    parallel_rows,
    read_text,
    table_rows,
)

Format = Literal["csv", "tsv", "parallel", "harness"]
#: Entry fields a column can fill (spec §2.2); ``variants`` may take several columns.
ENTRY_FIELDS: tuple[str, ...] = (
    "id",
    "source",
    "reference",
    "segment",
    "difficulty",
    "provenance",
    "register",
    "context",
    "domain",
    "morphological_analysis",
    "notes",
    "variant_class",
    "variants",
)
#: Fields a default (``--segment development``...) can fill where a row leaves them empty.
DEFAULTABLE: tuple[str, ...] = (
    "segment",
    "difficulty",
    "provenance",
    "register",
    "context",
    "domain",
)
ENVELOPE_FIELDS: tuple[str, ...] = tuple(Dataset.model_fields)
SEGMENTS: tuple[str, ...] = ("development", "diagnostic", "gold_standard", "held_out")


@dataclass(frozen=True)
class Skipped:
    where: str
    reason: str

    def line(self) -> str:
        return f"{self.where}: skipped: {self.reason}"


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
    toml = _read_toml(options.envelope_file) if options.envelope_file else {}
    envelope = {**toml.get("dataset", {}), **dict(options.envelope)}
    defaults = {**toml.get("defaults", {}), **dict(options.defaults)}
    columns = {**_toml_columns(options.envelope_file, toml), **dict(options.columns)}
    ignored: list[str] = []
    base_envelope: dict[str, Any] = {}
    if fmt == "parallel":
        rows: Iterable[Row] = parallel_rows(
            options.inputs[0], options.inputs[1], options.encoding, options.max_bytes
        )
    elif fmt == "harness":
        rows, base_envelope = _harness_rows(options.inputs[0])
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
    builder = _EntryBuilder(defaults, options.variants_separator, options.encoding)
    for row in rows:
        builder.add(row)
    if not builder.entries:
        reasons = "; ".join(s.line() for s in builder.skipped[:3])
        raise CorpusError(
            f"{options.inputs[0]}: no entries imported ({builder.rows} rows read)"
            + (f": {reasons}" if reasons else "")
        )
    dataset = _envelope(base_envelope, envelope, builder.entries, options.inputs[0])
    document = {"dataset": dataset, "entries": builder.entries}
    return ImportResult(document, builder.rows, builder.skipped, ignored)


def write_document(document: Mapping[str, Any], output: Path) -> str:
    """Write the corpus as UTF-8 JSON; return its sha256 (the dataset version runs record)."""
    data = (json.dumps(document, ensure_ascii=False, indent=2) + "\n").encode("utf-8")
    output.write_bytes(data)
    return hashlib.sha256(data).hexdigest()


def stable_id(source: str) -> int:
    """A number from the source text alone (NFC, spacing collapsed): the same sentence gets the
    same id in every import, whatever the row order."""
    text = " ".join(unicodedata.normalize("NFC", source).split())
    # 48 bits: below 2**53, so JavaScript reads it exactly; a collision among 10,000 sources
    # has a chance of about 2e-7, and would be reported as a duplicate id, never merged.
    return int(hashlib.sha256(text.encode("utf-8")).hexdigest()[:12], 16)


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise CorpusError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise CorpusError(f"{path}: not a valid UTF-8 TOML file: {exc}") from None
    for table in ("dataset", "defaults", "columns"):
        if not isinstance(raw.get(table, {}), dict):
            raise CorpusError(f"{path}: [{table}] must be a table")
    unknown = set(raw) - {"dataset", "defaults", "columns"}
    if unknown:
        raise CorpusError(
            f"{path}: unknown table {sorted(unknown)[0]!r}: "
            "expected [dataset], [defaults], [columns]"
        )
    for key in raw.get("defaults", {}):
        if key not in DEFAULTABLE:
            raise CorpusError(
                f"{path}: [defaults] {key!r}: expected one of {', '.join(DEFAULTABLE)}"
            )
    return raw


def _toml_columns(path: Path | None, toml: Mapping[str, Any]) -> dict[str, tuple[str, ...]]:
    columns: dict[str, tuple[str, ...]] = {}
    for name, value in toml.get("columns", {}).items():
        headers = [value] if isinstance(value, str) else value
        if name not in ENTRY_FIELDS or not all(isinstance(h, str) for h in headers):
            raise CorpusError(
                f"{path}: [columns] {name!r}: expected an entry field ({', '.join(ENTRY_FIELDS)}) "
                "= a column name (or a list of them for variants)"
            )
        columns[name] = tuple(headers)
    return columns


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


def _harness_rows(path: Path) -> tuple[list[Row], dict[str, Any]]:
    """The reference harness's corpus shape, mapped by the loader (pytest_mteval.corpus)."""
    raw, _, shape, _ = read_document(path)
    if shape != "harness":
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


class _EntryBuilder:
    """Rows -> entry dicts, validated by the loader's own model; each refusal is recorded."""

    def __init__(self, defaults: Mapping[str, Any], separator: str, encoding: str) -> None:
        self.defaults = {k: str(v) for k, v in defaults.items()}
        self.separator = separator
        self.encoding = encoding
        self.entries: list[dict[str, Any]] = []
        self.skipped: list[Skipped] = []
        self.rows = 0
        self._ids: dict[str, str] = {}
        self._pairs: dict[tuple[str, str], str] = {}
        self._sources: dict[str, str] = {}

    def add(self, row: Row) -> None:
        self.rows += 1
        problem = row.problem or self._problem(row)
        if problem is not None:
            self.skipped.append(Skipped(row.where, problem))

    def _problem(self, row: Row) -> str | None:
        label = row.labels.get
        for name, value in row.cells.items():
            reason = cell_problem(label(name, name), value, self.encoding)
            if reason is not None:
                return reason
        cells = {k: v.strip() for k, v in row.cells.items()}
        for name in ("source", "reference"):
            if not cells.get(name):
                return f"column {label(name, name)!r}: empty {name}"
        for name, value in self.defaults.items():
            if not cells.get(name):
                cells[name] = value
        raw, problem = self._typed(cells, label)
        if problem is not None:
            return problem
        source, reference = raw["source"], raw["reference"]
        first = self._pairs.get((source, reference))
        if first is not None:
            return f"duplicate of {first} (same source and reference)"
        first = self._sources.get(source)
        if first is not None:
            return (
                f"column {label('source', 'source')!r}: same source as {first} with another "
                "reference: add this translation to that row's variants instead"
            )
        key = str(raw["id"])
        if key in self._ids:
            return f"column {label('id', 'id')!r}: id {key} already used by {self._ids[key]}"
        if row.metadata:
            raw["metadata"] = row.metadata
        try:
            Entry.model_validate(raw)
        except ValidationError as exc:
            return validation_message(exc)
        self._ids[key] = self._pairs[(source, reference)] = self._sources[source] = row.where
        self.entries.append(raw)
        return None

    def _typed(self, cells: dict[str, str], label: Any) -> tuple[dict[str, Any], str | None]:
        """Cells as the entry's typed fields, or why a cell cannot be one."""
        raw: dict[str, Any] = {
            "id": None,
            "source": cells["source"],
            "reference": cells["reference"],
        }
        raw["id"] = _id_value(cells["id"]) if cells.get("id") else stable_id(cells["source"])
        segment = cells.get("segment") or "development"
        segment = "_".join(segment.casefold().replace("-", " ").split())
        if segment not in SEGMENTS:
            where = label("segment", "--segment")
            return (
                raw,
                f"column {where!r}: {cells['segment']!r} is not one of {', '.join(SEGMENTS)}",
            )
        raw["segment"] = segment
        if cells.get("difficulty"):
            value = cells["difficulty"]
            if not value.isdigit() or not 1 <= int(value) <= 5:
                where = label("difficulty", "--difficulty")
                return raw, f"column {where!r}: {value!r} is not a difficulty 1-5 (spec §2.4)"
            raw["difficulty"] = int(value)
        if cells.get("domain"):
            domain = cells["domain"].casefold()
            if domain not in DOMAINS:
                where = label("domain", "--domain")
                return raw, (
                    f"column {where!r}: {cells['domain']!r} is not a domain code "
                    f"({', '.join(sorted(DOMAINS))})"
                )
            raw["domain"] = domain
        for name in ("provenance", "morphological_analysis", "notes"):
            if cells.get(name):
                raw[name] = cells[name]
        for name in ("register", "context"):  # the §2.6 conventions are lower case
            if cells.get(name):
                raw[name] = cells[name].casefold()
        if cells.get("variant_class"):
            raw["variant_class"] = cells["variant_class"]
        variants = _split_variants(cells.get("variants", ""), self.separator, raw["reference"])
        if variants:
            raw["variants"] = variants
        return raw, None


def _id_value(text: str) -> int | str:
    """An id cell: a whole number as an integer (the spec's type), anything else as text."""
    return int(text) if text.isdigit() else text


def _split_variants(cell: str, separator: str, reference: str) -> list[str]:
    """Variants from one or more columns (joined by U+001F) and the separator inside a cell,
    without empties, repeats, or the reference itself."""
    out: list[str] = []
    for chunk in cell.split("\x1f"):
        for part in chunk.split(separator) if separator else [chunk]:
            text = part.strip()
            if text and text != reference and text not in out:
                out.append(text)
    return out


def _envelope(
    base: Mapping[str, Any],
    given: Mapping[str, Any],
    entries: Sequence[Mapping[str, Any]],
    origin: Path,
) -> dict[str, Any]:
    """The dataset envelope: the options over the TOML over what the input says, then the
    defaults that are facts (today's date, the provenance tags actually used)."""
    unknown = [k for k in given if k not in ENVELOPE_FIELDS]
    if unknown:
        raise CorpusError(
            f"envelope field {unknown[0]!r} is not one of {', '.join(ENVELOPE_FIELDS)} (spec §2.1)"
        )
    dataset: dict[str, Any] = {**base, **{k: v for k, v in given.items() if v not in (None, "")}}
    dataset.setdefault("version", "1.0.0")
    dataset.setdefault("created", datetime.datetime.now(datetime.UTC).date().isoformat())
    tags = sorted({str(e["provenance"]) for e in entries if e.get("provenance")})
    dataset["provenance"] = sorted(set(dataset.get("provenance") or []) | set(tags))
    src, tgt = dataset.get("source_language"), dataset.get("target_language")
    if src and tgt:
        dataset.setdefault("language_pair", f"{str(src).upper()}→{str(tgt).upper()}")
    hints = {
        "id": "--id NAME (e.g. eng-crk-community-v1)",
        "source_language": "--source-language CODE (BCP 47, e.g. en)",
        "target_language": "--target-language CODE (BCP 47, e.g. crk)",
        "license": "--license SPDX-ID (e.g. CC-BY-4.0)",
    }
    for name, hint in hints.items():
        if not dataset.get(name):
            raise CorpusError(
                f"{origin}: the envelope needs {name!r} (spec §2.1): pass {hint} or set it "
                "under [dataset] in --envelope FILE.toml"
            )
    try:
        Dataset.model_validate(dataset)
    except ValidationError as exc:
        raise CorpusError(f"envelope: {validation_message(exc)}") from None
    ordered = [k for k in ENVELOPE_FIELDS if k in dataset]
    return {k: dataset[k] for k in ordered + [k for k in dataset if k not in ordered]}
