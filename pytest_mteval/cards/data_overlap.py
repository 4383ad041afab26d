"""How much of a corpus a method's bundled data already holds (spec §9.2: no training on
evaluation data; few-shot use of development entries declared), for ``mteval audit`` and
``mteval bundle check --corpus``.

Every data file of the method's folder (``DATA_SUFFIXES``; not its method.json or
method_card.json, whose keys are the harness's) is read as UTF-8 text and cut into
fields: each line, each tab-separated cell (and, for .csv, each CSV cell; for .md, each table
cell), and, for JSON, every string and key. Texts are compared after NFC, case folding and
whitespace made single spaces. An entry's source, or its reference (or a variant), is found in
a file when it equals one of the file's fields (a word list's headword, a few-shot example's
line) or, when it has ``PHRASE_WORDS`` words or more, when it stands word for word inside a
field (a sentence quoted in a prompt). Both are set look-ups: the fields in a set, the phrases
behind a set of their word n-grams, confirmed in the text only when every n-gram is found; so
a FLORES-size corpus against a large file costs one pass over each.

Every file of the folder, code and binaries included, is also decoded as far as
``encoded_texts.py`` can (base64, hex, zlib, gzip, bz2, xz, reversed, layered): each layer it
finds is indexed like a data file, reported as ``name (steps)``, with only what the plain file
does not hold already.

Unlike the bundle's leak check (``bundle_leaks.py``), short texts are counted too: a single
Cree word equal to a word list's headword is an oracle's overlap, reported, not refused.
"""

from __future__ import annotations

import csv
import io
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from pytest_mteval.cards.bundle_leaks import strings_in
from pytest_mteval.cards.encoded_texts import decoded_texts
from pytest_mteval.corpus import Corpus
from pytest_mteval.errors import MtevalError
from pytest_mteval.json_files import parse_json
from pytest_mteval.methods.code_hash import folder_files
from pytest_mteval.methods.manifest import MethodManifest

DATA_SUFFIXES: Final = frozenset(
    {".json", ".jsonl", ".txt", ".tsv", ".csv", ".md", ".yaml", ".yml", ".xml", ".lexc"}
)
#: The harness's own files, whose keys ("name") are not data: a method's declarations.
DECLARATIONS: Final = frozenset({"method.json", "method_card.json"})
PHRASE_WORDS: Final = 4
MAX_FILE_BYTES: Final = 256 * 1024 * 1024


def normalized(text: str) -> str:
    return " ".join(unicodedata.normalize("NFC", text).casefold().split())


@dataclass
class FileIndex:
    """One data file: its normalised fields, the text they make, and their word n-grams."""

    name: str
    fields: set[str] = field(default_factory=set)
    grams: set[tuple[str, ...]] = field(default_factory=set)
    text: str = ""
    #: How the text was decoded from the file ("base64+zlib"); "" for the file as it is.
    layer: str = ""

    @property
    def shown(self) -> str:
        return f"{self.name} ({self.layer})" if self.layer else self.name


def _raw_fields(suffix: str, text: str) -> Iterator[str]:
    lines = text.splitlines()
    yield from lines
    for line in lines:
        if "\t" in line:
            yield from line.split("\t")
        if suffix == ".md" and "|" in line:
            yield from line.split("|")
    if suffix == ".csv":
        for row in csv.reader(io.StringIO(text)):
            yield from row
    if suffix in (".json", ".jsonl"):
        for part in text.splitlines() if suffix == ".jsonl" else [text]:
            try:
                value = parse_json(part.encode("utf-8"), "data file")
            except MtevalError:
                continue
            for string in strings_in(value):
                yield string
                yield from string.splitlines()


def index_file(path: Path, name: str) -> FileIndex | None:
    """The file's index, or None for a file that is not a data file or not UTF-8 text."""
    if path.suffix.lower() not in DATA_SUFFIXES or path.stat().st_size > MAX_FILE_BYTES:
        return None
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    return index_text(name, path.suffix.lower(), text)


def encoded_layers(path: Path, name: str) -> list[FileIndex]:
    """One index per text the file holds encoded (any file: a base64 string in code too)."""
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            return []
        data = path.read_bytes()
    except OSError:
        return []
    return [index_text(name, ".json", text, steps) for steps, text in decoded_texts(data)]


def index_text(name: str, suffix: str, text: str, layer: str = "") -> FileIndex:
    """The index of ``text``, read as a file of ``suffix``."""
    index = FileIndex(name, layer=layer)
    for raw in _raw_fields(suffix, text):
        norm = normalized(raw)
        if norm:
            index.fields.add(norm)
    lines: list[str] = []
    for norm in index.fields:
        words = norm.split(" ")
        if len(words) >= PHRASE_WORDS:
            lines.append(norm)
            index.grams.update(zip(*(words[i:] for i in range(PHRASE_WORDS)), strict=False))
    index.text = "\n".join(f" {line} " for line in lines)
    return index


def holds(index: FileIndex, norm: str) -> bool:
    """Whether the normalised text is one of the file's fields or a phrase inside one."""
    if norm in index.fields:
        return True
    words = norm.split(" ")
    if len(words) < PHRASE_WORDS:
        return False
    grams = zip(*(words[i:] for i in range(PHRASE_WORDS)), strict=False)
    return all(g in index.grams for g in grams) and f" {norm} " in index.text


def declared(manifest: MethodManifest | None, corpus: Corpus) -> bool:
    """Whether the method says its data comes from, or used, this corpus."""
    if manifest is None:
        return False
    ds = corpus.dataset
    return ds.id in manifest.oracle_for or any(
        item.names(ds.id, ds.version, corpus.sha256) for item in manifest.exposure
    )


def data_files(folder: Path) -> list[FileIndex]:
    """The index of each data file, then of each encoded text of any file."""
    files = [(name, path) for name, path in folder_files(folder) if name not in DECLARATIONS]
    found = (index_file(path, name) for name, path in files)
    plain = [index for index in found if index is not None]
    return plain + [layer for name, path in files for layer in encoded_layers(path, name)]


def overlap(folder: Path, corpus: Corpus, manifest: MethodManifest | None) -> dict[str, Any]:
    """The report: per file and in all, the ids of the entries whose source or reference the
    method's data files hold."""
    files = data_files(folder)
    per_file: list[dict[str, Any]] = []
    sources: set[str] = set()
    references: set[str] = set()
    entries = [
        (str(e.id), normalized(e.source), [normalized(t) for t in (e.reference, *e.variants)])
        for e in corpus.entries
    ]
    plain: dict[str, tuple[set[str], set[str]]] = {}
    for index in files:
        src = [i for i, source, _ in entries if source and holds(index, source)]
        ref = [i for i, _, refs in entries if any(r and holds(index, r) for r in refs)]
        if index.layer:  # only what the file does not hold as it is
            held_src, held_ref = plain.get(index.name, (set(), set()))
            src = [i for i in src if i not in held_src]
            ref = [i for i in ref if i not in held_ref]
        else:
            plain[index.name] = (set(src), set(ref))
        if src or ref:
            per_file.append({"file": index.shown, "sources": src, "references": ref})
        sources.update(src)
        references.update(ref)
    order = {i: n for n, (i, _, _) in enumerate(entries)}
    ds = corpus.dataset
    return {
        "corpus": {"id": ds.id, "version": ds.version, "sha256": corpus.sha256},
        "entries": len(entries),
        "files_checked": list(dict.fromkeys(index.name for index in files)),
        "sources": sorted(sources, key=order.__getitem__),
        "references": sorted(references, key=order.__getitem__),
        "files": per_file,
        "declared": declared(manifest, corpus),
    }


def overlap_lines(report: dict[str, Any], shown: int = 10) -> list[str]:
    """The report for people: a summary line, then one line per file."""
    corpus = report["corpus"]
    n = report["entries"]
    head = (
        f"overlap with {corpus['id']} {corpus['version']} ({n} entries, "
        f"{len(report['files_checked'])} file(s) checked): "
        f"{len(report['references'])} reference(s), {len(report['sources'])} source(s) found"
    )
    if not report["files"]:
        return [f"{head}; none"]
    note = (
        "declared in method.json (oracle_for or exposure)"
        if report["declared"]
        else "NOT declared in method.json (add exposure or oracle_for)"
    )
    lines = [f"{head}; {note}"]
    for item in report["files"]:
        for kind in ("references", "sources"):
            ids = item[kind]
            if ids:
                more = f" and {len(ids) - shown} more" if len(ids) > shown else ""
                lines.append(
                    f"  {item['file']}: {len(ids)} {kind[:-1]}(s) of entries "
                    f"{', '.join(ids[:shown])}{more}"
                )
    return lines
