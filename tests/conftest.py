"""Shared paths and small builders for the test suite."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import httpcore  # noqa: F401
import pytest

# httpx imports httpcore lazily, at its first request, and from then on maps httpcore's errors
# to its own by class: were httpcore first imported inside an inner session (the gateway's
# upstream client), a later test would import it anew and get errors httpx does not map.
# The plugin loads a run's modules only when a run starts (plugin/hooks.py). pytester's
# in-process sessions forget the modules imported during them, and a C extension imported a
# second time (numpy) refuses to load: import them here, once, before any inner session.
import pytest_mteval.plugin.run_hooks
import pytest_mteval.plugin.sweep_option  # noqa: F401
from pytest_mteval.metrics.entry_record import record_index
from pytest_mteval.plugin.run_stash import STATE

REPO = Path(__file__).resolve().parents[1]
CORPORA = REPO / "corpora"
METHODS = REPO / "methods"
DATA = REPO / "tests" / "data"

#: Three real sentence pairs (FLORES-200 devtest lines 1-3, eng->fra, CC-BY-SA-4.0).
FLORES_HEAD = CORPORA / "eng-fra-flores-devtest.json"


def envelope(entries: list[dict[str, Any]], **dataset: Any) -> dict[str, Any]:
    """A corpus in the spec's envelope around the given entries."""
    return {
        "dataset": {
            "id": "test-corpus",
            "version": "1.0",
            "language_pair": "ENG→FRA",
            "source_language": "eng",
            "target_language": "fra",
            "created": "2026-11-30",
            "license": "CC-BY-SA-4.0",
            "provenance": ["corpus"],
            **dataset,
        },
        "entries": entries,
    }


def documented_fingerprint(card: dict[str, Any]) -> str:
    """A card's fingerprint as docs/cards.md documents it (spec §3.8), computed here rather
    than by the code under test: sha256 of the components joined by '|', text escaped."""

    def text(value: str, also: str = "") -> str:
        out = value.replace("\\", "\\\\").replace("|", "\\|")
        return out.replace(also, "\\" + also) if also else out

    temperature = repr(float(card["temperature"]))
    assert "e" not in temperature, "the cards tested here use plain temperatures"
    temperature = temperature.removesuffix(".0")
    batch = card["batch_size"]
    parts = [
        text(card["dataset"]["sha256"]),
        text(card["model_slug"]),
        text(card["condition"]),
        text(card["system_prompt_sha256"]),
        temperature,
        text(card["harness_version"]),
        "" if batch is None else str(batch),
        ",".join(text(tool, ",") for tool in sorted(card["tools_enabled"])),
    ]
    return hashlib.sha256("|".join(parts).encode("utf-8")).hexdigest()


def flores_entries(count: int) -> list[dict[str, Any]]:
    """The first ``count`` real entries of the shipped FLORES eng->fra corpus."""
    data = json.loads(FLORES_HEAD.read_text(encoding="utf-8"))
    return list(data["entries"][:count])


def link_resources(folder: Path) -> str:
    """Link the shipped language resources beside a test's corpus, where a corpus must name
    them (inside its own folder); returns the name for ``dataset.language_resources``."""
    link = folder / "resources"
    if not link.exists():
        link.symlink_to(CORPORA / "resources", target_is_directory=True)
    return "resources/crk/crk.json"


@pytest.fixture
def small_corpus(tmp_path: Path) -> Path:
    """Six real FLORES entries with varied metadata, written to a file."""
    entries = flores_entries(6)
    for i, entry in enumerate(entries):
        entry["difficulty"] = 1 + i % 3
        entry["domain"] = ["news", "edu"][i % 2]
    path = tmp_path / "small.json"
    path.write_text(json.dumps(envelope(entries), ensure_ascii=False), encoding="utf-8")
    return path


@pytest.fixture
def pytester(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """pytester, with pytest-asyncio left out of the inner runs: they have no ini file, so it
    would warn there about its unset loop scope, and pytest-mteval owns its own event loop;
    hypothesis's plugin is left out too: importing it costs seconds per inner session."""
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:asyncio -p no:hypothesispytest")
    return pytester


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """``pytest --mteval-corpus=...`` from the clone (the README's first command) evaluates the
    corpus: this project's own test modules are not collected, rather than collected and
    deselected (a header of "2283 items / 1271 deselected"). Name them to run them too."""
    if collection_path.name == "conftest.py":
        return None
    evaluating = config.getoption("mteval_corpus", default=None) is not None
    return True if evaluating and config.args_source != pytest.Config.ArgsSource.ARGS else None


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    """pytest-asyncio runs this project's async tests and is a dev extra, not a dependency of
    the plugin. Without it (``pip install -e .``, the README's first command), its ini keys
    in pyproject.toml are still known, so that pytest does not warn about them."""
    if not pluginmanager.has_plugin("asyncio"):
        for key in ("asyncio_mode", "asyncio_default_fixture_loop_scope"):
            parser.addini(key, "pytest-asyncio's, when it is installed (the dev extra)")


class KeptRecords:
    """A plugin keeping the run's records beside their corpus entries, at the session's end
    (in the controller, under xdist)."""

    def __init__(self) -> None:
        self.records: list[tuple[Any, Any]] = []

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        state = session.config.stash[STATE]
        self.records = [(r, state.corpus.entries[record_index(r)]) for r in state.records.values()]
