"""Methods installed by name: shipped ones, and entry points of the group
``pytest_mteval.methods`` (here from a distribution written on sys.path for the test)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import METHODS
from methods_for_tests import MANIFEST

from pytest_mteval.methods.loader import MethodLoadError, MethodSource, find_method
from pytest_mteval.methods.named_methods import (
    ENTRY_POINT_GROUP,
    SHIPPED,
    installed_methods,
    listings,
)
from pytest_mteval.methods.protocol import RunConfig

GOOD = """
class Good:
    async def translate(self, entries, config):
        return [{"id": e["id"], "predicted": e["source"][::-1]} for e in entries]
"""


@pytest.fixture
def site(tmp_path, monkeypatch):
    """A folder on sys.path holding a distribution with three entry points (apart from the
    corpus: the sandbox shows this folder to the method it installs)."""
    tmp_path = tmp_path / "site"
    tmp_path.mkdir()
    (tmp_path / "good_method").mkdir()
    (tmp_path / "good_method" / "__init__.py").write_text(GOOD)
    manifest = {**MANIFEST, "method_id": "good", "entry_point": "good_method:Good"}
    (tmp_path / "good_method" / "method.json").write_text(json.dumps(manifest))
    dist = tmp_path / "fake_methods-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: fake-methods\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(
        f"[{ENTRY_POINT_GROUP}]\n"
        "good = good_method:Good\n"
        "identity = good_method:Good\n"  # a shipped name: refused, never shadowing
        "broken = no_such_module:Thing\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def test_every_shipped_folder_is_registered_by_its_method_id():
    found = installed_methods()
    folders = {p.name for p in SHIPPED.iterdir() if (p / "method.json").is_file()}
    assert {name for name, value in found.items() if isinstance(value, Path)} == folders
    assert found["identity"] == SHIPPED / "identity"
    # the checkout's methods/<name> paths lead to the same folders
    assert (METHODS / "identity").resolve() == SHIPPED / "identity"


def test_an_entry_point_class_is_built_with_its_manifest(site):
    source = installed_methods()["good"]
    assert isinstance(source, MethodSource)
    assert source.manifest is not None
    assert source.manifest.method_id == "good"
    assert source.directory == site / "good_method"
    found = find_method("good", Path("/nonexistent"), {"good": source})
    assert found.factory is source.factory  # the same source, its code hashed when asked for
    assert found.code is not None
    assert found.code["distribution"] is None  # this distribution lists no files (no RECORD)
    method = found.factory(RunConfig())
    assert type(method).__name__ == "Good"


def test_a_shipped_name_cannot_be_taken_and_a_broken_one_fails_when_asked(site):
    registered = installed_methods()
    for name, fragment in (("identity", "reuses the name"), ("broken", "import failed")):
        source = find_method(name, Path("/nonexistent"), registered)
        with pytest.raises(MethodLoadError, match=fragment) as caught:
            source.factory(RunConfig())
        assert "fake-methods 1.0" in str(caught.value)
    rows = {row.name: row for row in listings() if "fake-methods" in row.origin}
    assert rows["broken"].problem is not None
    assert rows["identity"].problem == "name already taken"
    assert rows["good"].problem is None


def test_a_session_runs_an_entry_point_method_by_name(pytester, small_corpus, site, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(site))
    result = pytester.runpytest_subprocess(
        f"--mteval-corpus={small_corpus}",
        "--mteval-method=good",
        f"--mteval-run-card={pytester.path / 'card.json'}",
        "-p",
        "no:cacheprovider",
    )
    assert result.ret == 0, result.stdout.str()[-2000:]
    card = json.loads((pytester.path / "card.json").read_text(encoding="utf-8"))
    assert card["method"]["manifest"]["method_id"] == "good"  # validated and on the card
    from pytest_mteval.run.sandbox import sandbox_problem

    if sandbox_problem() is None:  # by default a method installed as a package is sandboxed
        assert card["runner"]["sandbox"] == "netns"
    row = card["results"][0]
    assert row["predicted"] == row["source"][::-1]
