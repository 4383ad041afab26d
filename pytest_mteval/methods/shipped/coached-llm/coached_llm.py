"""coached-llm: a chat model coached by a file of grammar notes, dictionary entries and examples.

The coaching file is the method's value (method class coached-llm), so all of it goes into the
system prompt, which the run card records in full with its sha256, and the file's own sha256
is recorded on every result as ``coaching_data_sha256``.

Coaching file (JSON): ``{"notes": [str], "dictionary": [{"source", "target", "note"?}],
"examples": [{"source", "target"}]}``, at least one of them non-empty; other keys (title,
license, attribution) are documentation. Method arg ``coaching=PATH``; without it the file
``coaching/<target language>.json`` next to this module is used.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_mteval.methods.chat import ChatMethod, MethodSetupError, language_name
from pytest_mteval.methods.protocol import MethodEntry, RunConfig

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Coaching:
    """A loaded coaching file and the digest of its bytes."""

    path: Path
    sha256: str
    notes: tuple[str, ...]
    dictionary: tuple[tuple[str, str, str], ...]
    examples: tuple[tuple[str, str], ...]


def coaching_path(config: RunConfig) -> Path:
    """``coaching=`` as given (relative to the working directory, else to the method folder),
    or the shipped file for the target language."""
    given = config.method_args.get("coaching")
    if not given:
        return HERE / "coaching" / f"{config.target_language.lower()}.json"
    path = Path(given)
    if path.is_absolute() or path.exists():
        return path
    return Path(config.method_dir or HERE) / path


def load_coaching(path: Path) -> Coaching:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise MethodSetupError(
            f"coached-llm: cannot read coaching file {path}: {exc.strerror or exc} "
            "(pass method arg coaching=PATH)"
        ) from None
    try:
        raw = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise MethodSetupError(f"coached-llm: {path}: invalid JSON: {exc}") from None
    if not isinstance(raw, dict):
        raise MethodSetupError(f"coached-llm: {path}: a coaching file is a JSON object")
    notes = tuple(_strings(raw, "notes", path))
    dictionary = tuple(
        (_field(row, "source", path), _field(row, "target", path), str(row.get("note") or ""))
        for row in _rows(raw, "dictionary", path)
    )
    examples = tuple(
        (_field(row, "source", path), _field(row, "target", path))
        for row in _rows(raw, "examples", path)
    )
    if not (notes or dictionary or examples):
        raise MethodSetupError(f"coached-llm: {path}: no notes, dictionary entries or examples")
    return Coaching(path, hashlib.sha256(data).hexdigest(), notes, dictionary, examples)


def _strings(raw: dict[str, Any], key: str, path: Path) -> list[str]:
    value = raw.get(key) or []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise MethodSetupError(f"coached-llm: {path}: field {key!r} must be a list of strings")
    return value


def _rows(raw: dict[str, Any], key: str, path: Path) -> list[dict[str, Any]]:
    value = raw.get(key) or []
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise MethodSetupError(f"coached-llm: {path}: field {key!r} must be a list of objects")
    return value


def _field(row: dict[str, Any], name: str, path: Path) -> str:
    value = row.get(name)
    if not isinstance(value, str) or not value.strip():
        raise MethodSetupError(f"coached-llm: {path}: every row needs a non-empty {name!r}")
    return value


class CoachedLLMMethod(ChatMethod):
    """One request per entry; the system prompt carries the whole coaching file."""

    def __init__(self) -> None:
        self._loaded: dict[Path, Coaching] = {}

    def coaching(self, config: RunConfig) -> Coaching:
        path = coaching_path(config)
        if path not in self._loaded:
            self._loaded[path] = load_coaching(path)
        return self._loaded[path]

    def prepare(self, config: RunConfig) -> None:
        self.coaching(config)

    def entry_metadata(self, config: RunConfig) -> dict[str, Any]:
        return {"coaching_data_sha256": self.coaching(config).sha256}

    def run_card_fields(self, config: RunConfig) -> dict[str, Any]:
        return {"tools_enabled": [], **self.entry_metadata(config)}

    def system_prompt(self, config: RunConfig) -> str:
        source, target = language_name(config, "source"), language_name(config, "target")
        coaching = self.coaching(config)
        parts = [
            f"You are an expert translator from {source} to {target}. Translate the user's "
            "text. Reply with the translation only, without explanations or quotation marks."
        ]
        if coaching.notes:
            notes = "\n".join(f"{i}. {note}" for i, note in enumerate(coaching.notes, 1))
            parts.append(f"Notes on {target}:\n{notes}")
        if coaching.dictionary:
            rows = "\n".join(
                f"- {s} = {t}" + (f" ({n})" if n else "") for s, t, n in coaching.dictionary
            )
            parts.append(f"Dictionary ({source} = {target}):\n{rows}")
        if coaching.examples:
            rows = "\n".join(f"{source}: {s}\n{target}: {t}" for s, t in coaching.examples)
            parts.append(f"Examples:\n{rows}")
        return "\n\n".join(parts)

    def user_message(self, entry: MethodEntry, config: RunConfig) -> str:
        context = entry.get("context")
        source = entry.get("source", "")
        return f"Context: {context}\n\nText: {source}" if context else source
