"""Language-resources files: what a corpus knows about its target language.

A corpus names one with ``dataset.language_resources`` (a path relative to the corpus file)::

    {"language": "crk",
     "fst": "crk-strict-analyzer-for-dictionary.hfstol",
     "fst_sha256": "489ae1...",
     "orthography": {"name": "Standard Roman Orthography", "characters": "achikmnopstwyâêîô-"}}

``lexicon`` names a list of the target language's words: one word per line, or a Hunspell
``.dic`` file (such as Debian's ``/usr/share/hunspell/de_DE.dic`` from ``hunspell-de-de``;
the stems before ``/`` are read). ``lexicon_sha256`` pins it like ``fst_sha256``. The
code-switching check accepts the words it lists as target-language words.

Paths inside are relative to the resources file, so a language's folder can move as a whole.
``characters`` is a string (one character each) or a list of strings (for letters written with
more than one code point). When ``fst_sha256`` is given the analyzer is checked against it, so
that a Git-LFS pointer or a different build is refused instead of silently scored with.
"""

from __future__ import annotations

import hashlib
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from pytest_mteval.corpus import Corpus, CorpusError
from pytest_mteval.json_files import read_json


class ResourceError(CorpusError):
    """A language-resources file that cannot be used; the message is meant to be shown as is."""


@dataclass(frozen=True)
class Orthography:
    name: str
    #: NFC-normalized characters (or multi-code-point letters), in lower and upper case.
    characters: frozenset[str]


@dataclass(frozen=True)
class LanguageResources:
    path: Path
    language: str
    fst: Path | None
    orthography: Orthography | None
    lexicon: Path | None = None


def corpus_resources(corpus: Corpus) -> LanguageResources | None:
    """The resources a corpus points to, or None when it names none."""
    named = corpus.dataset.language_resources
    if named is None:
        return None
    if Path(named).is_absolute() or ".." in Path(named).parts:
        # Named inside the corpus's folder, as the corpus's author placed it (a link they
        # put there is theirs); never a path a corpus from elsewhere can aim at /dev or /etc.
        raise ResourceError(
            f"{corpus.path}: field 'dataset.language_resources': {named} is outside the "
            "corpus's folder"
        )
    return load_resources(corpus.path.parent / named)


@lru_cache(maxsize=32)
def load_resources(path: Path) -> LanguageResources:
    """Read and check a resources file (once per process and path)."""
    path = Path(path).resolve()
    raw = read_json(path, "language resources", ResourceError)
    if not isinstance(raw, dict) or not isinstance(raw.get("language"), str):
        raise ResourceError(f"{path}: expected a JSON object with a 'language' string")
    return LanguageResources(
        path=path,
        language=raw["language"],
        fst=_fst_path(path, raw),
        orthography=_orthography(path, raw.get("orthography")),
        lexicon=_pinned_file(path, raw, "lexicon"),
    )


def _pinned_file(path: Path, raw: dict[str, Any], key: str) -> Path | None:
    """A file the resources name under ``key``, checked against ``<key>_sha256`` if given."""
    name = raw.get(key)
    if name is None:
        return None
    if not isinstance(name, str):
        raise ResourceError(f"{path}: {key!r} must be a path relative to this file")
    found = (path.parent / name).resolve()
    if not found.is_file():
        raise ResourceError(f"{path}: the {key} {found} does not exist")
    expected = raw.get(f"{key}_sha256")
    if expected is not None:
        actual = hashlib.sha256(found.read_bytes()).hexdigest()
        if actual != expected:
            raise ResourceError(
                f"{path}: the {key} {found.name} has sha256 {actual}, not the declared {expected}"
            )
    return found


@lru_cache(maxsize=8)
def lexicon_words(path: Path) -> frozenset[str]:
    """The case-folded words of a lexicon: a word list, or a Hunspell ``.dic``'s stems."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise ResourceError(f"{path}: cannot read the lexicon as UTF-8 text: {exc}") from None
    if path.suffix == ".dic" and lines and lines[0].strip().isdigit():
        lines = lines[1:]  # a Hunspell dictionary starts with its word count
    words = set()
    for line in lines:
        word = line.split("/", 1)[0].split("\t", 1)[0].strip()
        if word and not word.startswith("#"):
            words.add(unicodedata.normalize("NFC", word).casefold())
    return frozenset(words)


def _fst_path(path: Path, raw: dict[str, Any]) -> Path | None:
    name = raw.get("fst")
    if name is None:
        return None
    if not isinstance(name, str):
        raise ResourceError(f"{path}: 'fst' must be a path relative to this file")
    fst = (path.parent / name).resolve()
    if not fst.is_relative_to(path.parent):
        raise ResourceError(f"{path}: field 'fst': {fst} is outside this file's folder")
    if not fst.is_file():
        raise ResourceError(f"{path}: the analyzer {fst} does not exist")
    expected = raw.get("fst_sha256")
    if expected is not None:
        actual = hashlib.sha256(fst.read_bytes()).hexdigest()
        if actual != expected:
            raise ResourceError(
                f"{path}: the analyzer {fst.name} has sha256 {actual}, not the declared {expected}"
            )
    return fst


def _orthography(path: Path, raw: Any) -> Orthography | None:
    if raw is None:
        return None
    chars = raw.get("characters") if isinstance(raw, dict) else None
    if isinstance(chars, str):
        chars = list(chars)
    if not isinstance(chars, list) or not chars or not all(isinstance(c, str) for c in chars):
        raise ResourceError(
            f"{path}: 'orthography.characters' must be a non-empty string or list of strings"
        )
    normalized = {unicodedata.normalize("NFC", c) for c in chars if c.strip()}
    both_cases = normalized | {c.lower() for c in normalized} | {c.upper() for c in normalized}
    return Orthography(name=str(raw.get("name") or "unnamed"), characters=frozenset(both_cases))
