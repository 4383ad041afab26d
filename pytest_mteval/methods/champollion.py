"""``--mteval-method=champollion:PATH``: the method champollion uses for the corpus's language
pair, read from its ``champollion.config.json`` (``version`` 3, ``pairs["en:crk"].methodPlugin``),
so that the harness evaluates exactly what champollion localizes with.

``methodPlugin`` names a method folder (with method.json) relative to the config's folder, or
else a method installed by name (a shipped one, an entry point).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pytest_mteval.corpus_model import Dataset
from pytest_mteval.errors import MtevalError
from pytest_mteval.json_files import read_json
from pytest_mteval.languages import canonical

PREFIX = "champollion:"
#: The config versions this reader understands.
VERSIONS = (3,)


class ChampollionError(MtevalError):
    """A champollion config that names no usable method; the message names file and field."""


def champollion_choice(spec: str, base: Path, dataset: Dataset) -> tuple[str, Path]:
    """``(method, base)`` for ``--mteval-method``: unchanged unless ``spec`` is
    ``champollion:PATH``, then the methodPlugin of the corpus's pair and the config's folder
    (where a relative methodPlugin is looked up)."""
    if not spec.startswith(PREFIX):
        return spec, base
    source, target = dataset.source_language, dataset.target_language
    path = (base / spec.removeprefix(PREFIX)).resolve()
    if path.is_dir():
        path = path / "champollion.config.json"
    config: Any = read_json(path, "champollion config", ChampollionError)
    if not isinstance(config, dict):
        raise ChampollionError(f"{path}: a champollion config is a JSON object")
    if config.get("version") not in VERSIONS:
        raise ChampollionError(
            f"{path}: field 'version': {config.get('version')!r} is not a version this reader "
            f"knows ({', '.join(map(str, VERSIONS))})"
        )
    pairs = config.get("pairs")
    if not isinstance(pairs, dict):
        raise ChampollionError(f"{path}: field 'pairs': an object of 'src:tgt' pairs is needed")
    for key, pair in pairs.items():
        src, _, tgt = str(key).partition(":")
        if canonical(src) == canonical(source) and canonical(tgt) == canonical(target):
            plugin = pair.get("methodPlugin") if isinstance(pair, dict) else None
            if not isinstance(plugin, str) or not plugin.strip():
                raise ChampollionError(
                    f"{path}: field 'pairs.{key}.methodPlugin': a method name or folder is needed"
                )
            return plugin, path.parent
    known = ", ".join(map(str, pairs)) or "none"
    raise ChampollionError(
        f"{path}: field 'pairs': no pair for the corpus's {source}:{target} (pairs: {known})"
    )
