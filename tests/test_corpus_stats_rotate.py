"""``mteval corpus stats`` and ``mteval corpus rotate`` (spec §9.3.2) on real corpora."""

from __future__ import annotations

import hashlib
import json
import statistics
from collections import Counter

import pytest
from conftest import CORPORA
from corpus_sheets import read, ready_corpus

from pytest_mteval.cli.main import main
from pytest_mteval.corpus import load_corpus
from pytest_mteval.corpus_tools.checks import near_key
from pytest_mteval.corpus_tools.rotate import next_version

SME = CORPORA / "eng-sme-tatoeba-dev.json"


def run(capsys, *args):
    code = main([str(a) for a in args])
    return code, capsys.readouterr().out


@pytest.mark.parametrize(
    "path", [SME, CORPORA / "eng-crk-morphodict-vocab.json"], ids=lambda p: p.name
)
def test_stats_match_an_independent_count(capsys, path):
    code, out = run(capsys, "corpus", "stats", path, "--format", "json")
    assert code == 0
    stats = json.loads(out)
    raw = json.loads(path.read_text(encoding="utf-8"))["entries"]
    for facet in ("segment", "difficulty", "register", "domain", "provenance"):
        counted = Counter("(none)" if e.get(facet) is None else str(e[facet]) for e in raw)
        assert stats["distributions"][facet] == dict(counted), facet
    words = [len(e["reference"].split()) for e in raw]
    assert stats["lengths"]["reference"]["words"]["median"] == statistics.median(words)
    assert stats["lengths"]["source"]["characters"]["max"] == max(len(e["source"]) for e in raw)
    assert stats["with"]["variants"] == sum(1 for e in raw if e.get("variants"))
    assert stats["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()


def test_stats_text_shows_each_facet(capsys):
    code, out = run(capsys, "corpus", "stats", SME)
    assert code == 0
    raw = json.loads(SME.read_text(encoding="utf-8"))["entries"]
    conversational = sum(1 for e in raw if e["register"] == "conversational")
    lines = out.splitlines()
    assert lines[0].startswith(f"{SME}: tatoeba-eng-sme-dev 0.1.0, {len(raw)} entries")
    row = next(line for line in lines if line.strip().startswith("conversational"))
    assert row.split()[1] == str(conversational)


def test_stats_on_a_bad_file_is_one_line(capsys, tmp_path):
    path = tmp_path / "c.json"
    path.write_bytes(b"\xff{}")
    code, out = run(capsys, "corpus", "stats", path)
    assert code == 2
    assert out == f"mteval corpus stats: {path}: not UTF-8 text (invalid start byte at byte 0)\n"


def test_rotation_swaps_k_entries_and_records_itself(capsys, tmp_path):
    source = ready_corpus(tmp_path)
    before = load_corpus(source)
    out = tmp_path / "rotated.json"
    code, printed = run(capsys, "corpus", "rotate", source, "--seed", 7, "--move", 5, "-o", out)
    assert code == 0, printed
    after = load_corpus(out)
    old = {e.key: e.segment for e in before.entries}
    new = {e.key: e.segment for e in after.entries}
    changed = {k for k in old if old[k] != new[k]}
    to_gold = sorted(k for k in changed if new[k] == "gold_standard")
    to_dev = sorted(k for k in changed if new[k] == "development")
    assert len(to_gold) == len(to_dev) == 5
    assert all(old[k] == "development" for k in to_gold)
    assert all(old[k] == "gold_standard" for k in to_dev)
    assert Counter(old.values()) == Counter(new.values())
    # Nothing but the segments changed in the entries.
    strip = [e.model_copy(update={"segment": "x"}) for e in after.entries]
    assert strip == [e.model_copy(update={"segment": "x"}) for e in before.entries]
    rotation = read(out)["dataset"]["rotations"][-1]
    assert rotation["seed"] == 7
    assert rotation["from_sha256"] == before.sha256
    assert rotation["from_version"] == before.dataset.version
    assert sorted(map(str, rotation["to_gold_standard"])) == to_gold
    assert sorted(map(str, rotation["to_development"])) == to_dev
    assert all(isinstance(i, int) for i in rotation["to_gold_standard"])
    assert after.dataset.version == next_version(before.dataset.version) == "1.0.1"
    assert after.sha256 != before.sha256
    assert printed.startswith(f"{out}: version 1.0.1, sha256 {after.sha256}: moved 5 entries")
    # The same seed on the same file gives the same bytes; another seed, other entries.
    code, _ = run(
        capsys, "corpus", "rotate", source, "--seed", 7, "--move", 5, "-o", tmp_path / "again.json"
    )
    assert (tmp_path / "again.json").read_bytes() == out.read_bytes()
    code, _ = run(
        capsys, "corpus", "rotate", source, "--seed", 8, "--move", 5, "-o", tmp_path / "b.json"
    )
    assert (
        read(tmp_path / "b.json")["dataset"]["rotations"][-1]["to_gold_standard"]
        != rotation["to_gold_standard"]
    )
    # No entry with a near-duplicate moved (that would be contamination); lint still passes.
    keys = Counter(near_key(e.source) for e in before.entries)
    assert all(keys[near_key(e.source)] == 1 for e in after.entries if e.key in changed)
    assert any(n > 1 for n in keys.values())
    assert run(capsys, "corpus", "lint", out)[0] == 0


def test_rotating_more_than_a_segment_holds_is_refused(capsys, tmp_path):
    code, out = run(
        capsys, "corpus", "rotate", SME, "--seed", 1, "--move", 2, "-o", tmp_path / "r.json"
    )
    assert code == 2
    assert out == (
        f"mteval corpus rotate: {SME}: cannot move 2 entries out of gold_standard: it has 0 "
        "(entries with a near-duplicate source elsewhere stay put)\n"
    )
    assert not (tmp_path / "r.json").exists()


def test_rotation_never_overwrites_its_input(capsys, tmp_path):
    source = ready_corpus(tmp_path)
    before = source.read_bytes()
    code, out = run(capsys, "corpus", "rotate", source, "--seed", 1, "--move", 1, "-o", source)
    assert code == 2
    assert out == f"mteval corpus rotate: {source}: write the new version to another file (-o)\n"
    assert source.read_bytes() == before


@pytest.mark.parametrize(
    ("old", "new"),
    [("1.0.0", "1.0.1"), ("0.1", "0.2"), ("2.9", "2.10"), ("v1-rc", "v2-rc"), ("x", "x.1")],
)
def test_next_version(old, new):
    assert next_version(old) == new


HOSTILE = {
    "bom": ("\ufeff" + json.dumps({"entries": []})).encode("utf-8"),
    "latin1": '{"dataset": {}, "entries": [{"source": "caf\xe9"}]}'.encode("latin-1"),
    "csv": b"source,reference\r\nI see the dog,niwapamaw atim\r\n",
    "truncated": SME.read_bytes()[:5000],
    "ragged_entry": json.dumps({"dataset": {}, "entries": [["a", "b"]]}).encode(),
}


@pytest.mark.parametrize("command", ["lint", "stats", "rotate"])
@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_hostile_corpus_files_end_in_one_line(capsys, tmp_path, command, kind):
    path = tmp_path / "corpus.json"
    path.write_bytes(HOSTILE[kind])
    extra = ["--seed", 1, "--move", 1, "-o", tmp_path / "out.json"] if command == "rotate" else []
    code, out = run(capsys, "corpus", command, path, *extra)
    if command == "lint" and kind == "ragged_entry":
        # Readable as a corpus: lint lists the problems instead (exit 1).
        assert code == 1
        assert "error   schema: entry 0: an entry is a JSON object" in out
        return
    assert code == 2
    assert out.count("\n") == 1
    assert out.startswith(f"mteval corpus {command}: {path}: ")
