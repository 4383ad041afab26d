"""The converters in scripts/ run on the upstream files a fresh clone has (tests/data copies,
the committed analyzer, FLORES rebuilt from its corpus): tests/offline_upstream.py."""

from __future__ import annotations

import hashlib
import importlib
import subprocess
import sys
from pathlib import Path

import offline_upstream
import pytest
from test_shipped_corpora import COMMITTED, CONVERTERS, CORPORA, REPO


@pytest.fixture
def shared(tmp_path: Path) -> Path:
    return offline_upstream.build(tmp_path / "shared")


def convert(script: str, shared: Path, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    args = [sys.executable, str(REPO / "scripts" / script), "--shared", str(shared)]
    return subprocess.run(
        [*args, "--out", str(out), *extra], capture_output=True, text=True, cwd=out.parent
    )


def test_the_rebuilt_flores_files_are_the_upstream_ones():
    """SOURCE.md of the upstream folder gives these sha256; the corpus pins the same."""
    upstream = {
        "eng_Latn.devtest": "612e9fbe87997617c0fa8fa8929654a4f49b728d96738112c2b86ef6a1d78d88",
        "fra_Latn.devtest": "82f5b000db419ef9254eea7857cce82943b361090942f17ed696e3dce2944f42",
        "metadata_devtest.tsv": "8edac47f861fcf6b54dad2068c10ba8f741da8b8676861c6bc27fcd9f5483b36",
    }
    rebuilt = offline_upstream.flores_files()
    assert {name: hashlib.sha256(data).hexdigest() for name, data in rebuilt.items()} == upstream


def test_a_changed_corpus_line_is_caught_before_any_converter_runs(tmp_path):
    changed = tmp_path / "flores.json"
    text = offline_upstream.FLORES.read_text(encoding="utf-8")
    changed.write_text(text.replace("4-month-old mice", "4-month-old rats", 1), encoding="utf-8")
    with pytest.raises(AssertionError, match=r"eng_Latn\.devtest rebuilt .* differs"):
        offline_upstream.flores_files(changed)


@pytest.mark.parametrize(("script", "outputs"), CONVERTERS, ids=[c[0] for c in CONVERTERS])
def test_every_converter_rebuilds_the_committed_files_offline(shared, tmp_path, script, outputs):
    if script == "build_crk_resources.py":
        pytest.importorskip("hfst")
    out = tmp_path / "out"
    extra = ["--wordlist", str(out / "eng-crk.tsv")] if "eng-crk.tsv" in outputs else []
    done = convert(script, shared, out, *extra)
    assert done.returncode == 0, done.stderr
    assert {p.name for p in out.iterdir()} == outputs
    for name in outputs:
        committed = COMMITTED.get(name, CORPORA / name)
        assert (out / name).read_bytes() == committed.read_bytes(), name


def test_crk_resources_builder_refuses_an_analyzer_that_is_not_the_pinned_one(shared, tmp_path):
    fst = shared / "crk-fst" / "crk-strict-analyzer-for-dictionary.hfstol"
    fst.write_bytes(fst.read_bytes() + b"\0")
    done = convert("build_crk_resources.py", shared, tmp_path / "out")
    assert done.returncode != 0
    assert "is not the pinned" in done.stderr
    assert "Traceback" not in done.stderr


def test_flores_converter_refuses_a_devtest_file_that_lost_a_line(shared, monkeypatch):
    monkeypatch.syspath_prepend(str(REPO / "scripts"))
    flores = importlib.import_module("convert_flores")
    path = shared / "flores200-devtest" / "fra_Latn.devtest"
    path.write_text("".join(path.read_text(encoding="utf-8").splitlines(True)[1:]), "utf-8")
    with pytest.raises(SystemExit, match=r"fra_Latn\.devtest: expected 1012 non-empty lines"):
        flores.build(shared / "flores200-devtest", "eng", "fra")
