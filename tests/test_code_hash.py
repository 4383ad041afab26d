"""The run card records a hash of the method's code as it ran (issue 21, part 3): the method
folder's files, or the installed distribution's, recomputed here by the documented rule and
never by the code under test."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import METHODS
from methods_for_tests import MANIFEST

from pytest_mteval.cards import runcard
from pytest_mteval.cli.main import main as mteval
from pytest_mteval.methods.code_hash import folder_hash as harness_hash
from pytest_mteval.methods.loader import find_method
from pytest_mteval.methods.named_methods import ENTRY_POINT_GROUP, installed_methods

#: Rewrites its own code the first time it translates, then answers with the source.
SELF_REWRITING = """
from pathlib import Path

class Shifty:
    async def translate(self, entries, config):
        Path(__file__).write_text("# innocent\\n" + Path(__file__).read_text())
        return [{"id": e["id"], "predicted": e["source"]} for e in entries]
"""


def documented_hash(lines: list[tuple[str, bytes]]) -> str:
    """The rule as docs/reports.md gives it: ``sha256sum`` lines (hex, two spaces, path) in the
    byte order of the relative paths, hashed again."""
    listing = "".join(f"{hashlib.sha256(data).hexdigest()}  {name}\n" for name, data in lines)
    return hashlib.sha256(listing.encode("utf-8")).hexdigest()


def folder_hash(folder: Path) -> str:
    files = [
        (p.relative_to(folder).as_posix(), p.read_bytes())
        for p in folder.rglob("*")
        if p.is_file() and "__pycache__" not in p.relative_to(folder).parts
    ]
    return documented_hash(sorted(files, key=lambda f: f[0].encode()))


def session(pytester, corpus, method, card, *more):
    result = pytester.runpytest(
        f"--mteval-corpus={corpus}", f"--mteval-method={method}", f"--mteval-run-card={card}", *more
    )
    assert card.exists(), result.stdout.str()[-3000:]
    return runcard.load(card)


def test_the_card_holds_the_folder_hash_and_verifies(pytester, small_corpus, tmp_path, capsys):
    method = tmp_path / "identity"
    shutil.copytree(METHODS / "identity", method)
    (method / "__pycache__").mkdir(exist_ok=True)
    (method / "__pycache__" / "stale.cpython-312.pyc").write_bytes(b"not code that ran")
    card = session(pytester, small_corpus, method, tmp_path / "card.json")
    code = card["method"]["code"]
    assert code["sha256"] == folder_hash(method)
    assert code["files"] == 3
    assert code["rule"] == "pytest-mteval-code/1"
    assert mteval(["verify", str(tmp_path / "card.json")]) == 0
    assert f"code sha256 {code['sha256'][:12]}" in capsys.readouterr().out
    card["method"]["code"]["sha256"] = folder_hash(METHODS / "replay")  # sealed: an edit shows
    (tmp_path / "edited.json").write_text(json.dumps(card))
    assert mteval(["verify", str(tmp_path / "edited.json")]) == 1


def test_a_method_that_rewrites_itself_is_hashed_as_it_ran(pytester, small_corpus, tmp_path):
    method = tmp_path / "shifty"
    method.mkdir()
    (method / "shifty.py").write_text(SELF_REWRITING)
    manifest = {**MANIFEST, "method_id": "shifty", "entry_point": "shifty:Shifty"}
    (method / "method.json").write_text(json.dumps(manifest))
    before = folder_hash(method)
    # the plain runner: the sandbox shows the method's folder read-only, so there the
    # rewrite itself fails
    card = session(pytester, small_corpus, method, tmp_path / "card.json", "--mteval-sandbox=none")
    assert "# innocent" in (method / "shifty.py").read_text()  # it did rewrite itself
    assert card["method"]["code"]["sha256"] == before != folder_hash(method)


def test_an_old_card_without_a_code_hash_still_verifies(pytester, small_corpus, tmp_path, capsys):
    card = session(pytester, small_corpus, METHODS / "identity", tmp_path / "card.json")
    del card["method"]["code"]
    old = tmp_path / "old.json"
    old.write_text(json.dumps(runcard.seal(card)))
    assert mteval(["verify", str(old)]) == 0
    assert "no code hash" in capsys.readouterr().out


@pytest.fixture
def site(tmp_path, monkeypatch):
    """An installed distribution (a dist-info with RECORD) registering a module:Class."""
    root = tmp_path / "site"
    package = root / "hashed_method"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(
        "class Good:\n    async def translate(self, entries, config):\n        return []\n"
    )
    (package / "helper.py").write_text("WORDS = {'dog': 'atim'}\n")
    manifest = {**MANIFEST, "method_id": "hashed", "entry_point": "hashed_method:Good"}
    (package / "method.json").write_text(json.dumps(manifest))
    dist = root / "hashed_method-2.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: hashed-method\nVersion: 2.0\n")
    (dist / "entry_points.txt").write_text(f"[{ENTRY_POINT_GROUP}]\nhashed = hashed_method:Good\n")
    (dist / "INSTALLER").write_text("pip\n")
    listed = ["hashed_method/__init__.py", "hashed_method/helper.py", "hashed_method/method.json"]
    listed += ["hashed_method/__pycache__/helper.cpython-312.pyc", "../../bin/hashed-tool"]
    listed += [f"{dist.name}/{n}" for n in ("METADATA", "entry_points.txt", "INSTALLER")]
    (dist / "RECORD").write_text("".join(f"{n},,\n" for n in [*listed, f"{dist.name}/RECORD"]))
    monkeypatch.syspath_prepend(str(root))
    return root


def test_a_method_named_by_an_installed_package_hashes_its_distribution(site):
    source = find_method("hashed", Path("/nonexistent"), installed_methods())
    code = source.code
    assert code is not None
    kept = ["hashed_method/__init__.py", "hashed_method/helper.py", "hashed_method/method.json"]
    kept += ["hashed_method-2.0.dist-info/METADATA", "hashed_method-2.0.dist-info/entry_points.txt"]
    expected = documented_hash(sorted((n, (site / n).read_bytes()) for n in kept))
    assert code["distribution"] == {
        "name": "hashed-method",
        "version": "2.0",
        "sha256": expected,
        "files": 5,
        "bytes": sum((site / n).stat().st_size for n in kept),
        "missing": 0,
    }
    assert code["sha256"] == folder_hash(site / "hashed_method")


SHELL_RULE = (
    "find . -type f ! -path '*/__pycache__/*' ! -path '*/.mteval/*' ! -path '*/.pytest_cache/*'"
    " -printf '%P\\0' | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum"
)


def test_the_documented_shell_command_gives_the_same_hash(tmp_path):
    """The coreutils line of docs/reports.md and the harness agree, on names that sort
    differently by locale, a sourceless .pyc (importable code: it counts) and the folders left
    out."""
    folder = tmp_path / "m"
    for name, data in {
        "method.json": b"{}",
        "Zeta.py": b"z",
        "alpha.py": b"a",
        "sub dir/\u00e9t\u00e9.tsv": "\u00e9".encode(),
        "sub dir/_x.py": b"x",
        "compiled.pyc": b"\x00code",
        "__pycache__/alpha.cpython-312.pyc": b"cache",
        "pkg/__pycache__/x.pyc": b"cache",
        ".mteval/runs/index.json": b"[]",
        ".pytest_cache/v": b"v",
    }.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    shell = subprocess.run(
        ["bash", "-c", SHELL_RULE], cwd=folder, capture_output=True, text=True, check=True
    ).stdout.split()[0]
    found = harness_hash(folder)
    assert found["sha256"] == shell
    assert found["files"] == 6


INNOCENT = """class Swapped:
    async def translate(self, entries, config):
        return [{"id": e["id"], "predicted": "innocent"} for e in entries]
"""
HIDDEN = """class Swapped:
    async def translate(self, entries, config):
        return [{"id": e["id"], "predicted": "bytecode"} for e in entries]
"""


@pytest.mark.parametrize("sandbox", ["auto", "none"])
def test_bytecode_in_pycache_never_stands_in_for_the_hashed_source(
    pytester, small_corpus, tmp_path, sandbox
):
    """A ``__pycache__/*.pyc`` compiled from other code, stamped with the hashed source's
    mtime and size, is what Python would import; the runner reads the source instead."""
    import importlib.util
    import os
    import py_compile

    method = tmp_path / "swapped"
    method.mkdir()
    source = method / "swapped.py"
    assert len(HIDDEN) == len(INNOCENT)
    source.write_text(HIDDEN)
    py_compile.compile(str(source), cfile=importlib.util.cache_from_source(str(source)))
    stamp = source.stat().st_mtime_ns
    source.write_text(INNOCENT)
    os.utime(source, ns=(stamp, stamp))  # the .pyc's header now matches the innocent source
    manifest = {**MANIFEST, "method_id": "swapped", "entry_point": "swapped:Swapped"}
    (method / "method.json").write_text(json.dumps(manifest))
    result = pytester.runpytest(
        f"--mteval-corpus={small_corpus}",
        f"--mteval-method={method}",
        f"--mteval-run-card={tmp_path / 'card.json'}",
        f"--mteval-sandbox={sandbox}",
    )
    card = runcard.load(tmp_path / "card.json")
    assert {row["predicted"] for row in card["results"]} == {"innocent"}, result.stdout.str()
    assert card["method"]["code"]["sha256"] == folder_hash(method)
