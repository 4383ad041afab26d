"""``mteval bundle check --corpus CORPUS``: refuse a bundle that carries the corpus's
references, however they got in (a copy in the method folder, a hard link, ``--include``).

The rule, one problem line per bundled file:
- a file whose bytes are the corpus file's (or, for an encrypted corpus, its plaintext's) is a
  copy of the corpus;
- a file holds a reference when one of the corpus's references or variants of at least
  ``MIN_CHARS`` characters and two words is found in it verbatim, both compared after Unicode
  NFC and with every run of whitespace made one space. Each file is searched as UTF-8 text
  (bytes that are not UTF-8 are skipped, so text inside a binary is found too) and, when it
  parses as JSON, in its decoded strings as well (a copy written with ``\\uXXXX`` escapes).
Shorter references are not searched: single words and short phrases are what dictionaries and
word lists legitimately hold (the shipped dictionary holds 215 of the 431 Cree vocabulary
references of 8 characters or more, none of two words and 12 or more). A reference stored
encoded (base64, hex, zlib, gzip, bz2, xz, reversed, layered: ``encoded_texts.py``) is found
too, and the line says how; only encryption hides one, which the code hash and the static
audit of the method are for.
"""

from __future__ import annotations

import hashlib
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from pytest_mteval.cards.encoded_texts import decoded_texts
from pytest_mteval.corpus import Corpus
from pytest_mteval.errors import MtevalError
from pytest_mteval.json_files import parse_json
from pytest_mteval.run.secret_corpus import open_corpus

MIN_CHARS: Final = 16


@dataclass(frozen=True)
class CorpusReferences:
    """What a bundle is searched for: the corpus's digests and its long references."""

    path: Path
    digests: frozenset[str]
    references: dict[str, str]  # normalized reference -> entry id
    #: A word a file must hold whole when it holds the reference: its longest inner word
    #: (the first and last may be glued to what is around them); None for two words.
    anchors: dict[str, str | None]
    #: The corpus itself, for the overlap report of the bundled method's data.
    loaded: Corpus | None = None


def normalized(text: str) -> str:
    return " ".join(unicodedata.normalize("NFC", text).split())


def corpus_references(path: Path, key_file: Path | None = None) -> CorpusReferences:
    """The corpus's references to search for; MtevalError (one line) when it cannot be read."""
    corpus = open_corpus(path, key_file)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise MtevalError(f"{path}: cannot read corpus file: {exc.strerror or exc}") from None
    found: dict[str, str] = {}
    for entry in corpus.entries:
        for text in (entry.reference, *entry.variants):
            norm = normalized(text)
            if len(norm) >= MIN_CHARS and " " in norm:
                found.setdefault(norm, str(entry.id))
    digests = frozenset({hashlib.sha256(raw).hexdigest(), corpus.sha256})
    anchors = {ref: max(ref.split(" ")[1:-1], key=len, default=None) for ref in found}
    return CorpusReferences(path, digests, found, anchors, corpus)


def leak_problems(root: Path, corpus: CorpusReferences) -> list[str]:
    """One line per file of the unpacked bundle ``root`` that holds the corpus or one of its
    references; not the card, whose rows hold the references of a public corpus by design."""
    card = root / "card.json"
    files = sorted(p for p in root.rglob("*") if p.is_file() and p != card)
    return file_leaks(files, corpus)


def file_leaks(paths: Iterable[Path], corpus: CorpusReferences) -> list[str]:
    """One line per file of ``paths`` that holds the corpus or one of its references."""
    problems: list[str] = []
    for path in paths:
        name = str(path)
        data = path.read_bytes()
        if hashlib.sha256(data).hexdigest() in corpus.digests:
            problems.append(f"{name}: holds a copy of the corpus {corpus.path}")
            continue
        hits = _hits(data, corpus)
        if hits:
            first = min(hits, key=lambda ref: corpus.references[ref])
            ways = sorted(set(hits.values()), key=lambda way: (way != "verbatim", way))
            problems.append(
                f"{name}: holds {len(hits)} reference(s) of the corpus {corpus.path} "
                f"{', '.join(w if w == 'verbatim' else f'encoded ({w})' for w in ways)} "
                f"(entry {corpus.references[first]} among them); a bundle must not carry them"
            )
    return problems


def _hits(data: bytes, corpus: CorpusReferences) -> dict[str, str]:
    """The references found in ``data``, each with how: "verbatim" or the decoding steps. A
    reference is searched for only where its anchor word is one of the text's words (a set
    look-up), so a large binary costs one pass."""
    texts = [("verbatim", normalized(data.decode("utf-8", errors="ignore")))]
    strings = _json_strings(data)
    if strings:
        texts.append(("verbatim", normalized("\n".join(strings))))
    texts.extend((steps, normalized(text)) for steps, text in decoded_texts(data))
    found: dict[str, str] = {}
    for how, text in texts:
        words = set(text.split(" "))
        for ref, anchor in corpus.anchors.items():
            if ref not in found and (anchor is None or anchor in words) and ref in text:
                found[ref] = how
    return found


def _json_strings(data: bytes) -> list[str]:
    """Every string (and key) of ``data`` as JSON, or [] when it is not bounded JSON."""
    if data.lstrip()[:1] not in (b"{", b"[", b'"'):
        return []
    try:
        value = parse_json(data, "bundled file")
    except MtevalError:
        return []
    return list(strings_in(value))


def strings_in(value: Any) -> Iterator[str]:
    """Every string of parsed JSON, keys included: where bundled data can hold a text."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            yield from (k for k in item if isinstance(k, str))
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
