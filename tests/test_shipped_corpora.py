"""The shipped data: every corpus loads and is exactly what its converter makes from the upstream
files; the Plains Cree resources, the dictionary word list and the copied upstream run reports
agree with the corpora they belong to."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path

import offline_upstream
import pytest

from pytest_mteval.corpus import Corpus, load_corpus

REPO = Path(__file__).resolve().parents[1]
CORPORA = REPO / "corpora"
CRK = CORPORA / "resources" / "crk"
WORDLIST = REPO / "methods" / "dictionary" / "eng-crk.tsv"
RUNS = REPO / "tests" / "data" / "upstream-runs"
SHARED = REPO.parent / "shared" / "data"

#: Entry counts from the upstream files themselves: `wc -l` of the FLORES devtest files, the
#: harness's `entry_count`, and the 548 data rows of sample.csv less the one Cree query.
EXPECTED_ENTRIES = {
    "eng-fra-flores-devtest.json": 1012,
    "fra-eng-flores-devtest.json": 1012,
    "eng-sme-tatoeba-dev.json": 58,
    "eng-sna-tatoeba-dev.json": 47,
    "eng-crk-morphodict-vocab.json": 547,
}
TATOEBA = {"eng-sme": "eng-sme-tatoeba-dev.json", "eng-sna": "eng-sna-tatoeba-dev.json"}


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def corpus(name: str) -> Corpus:
    return load_corpus(CORPORA / name)


def test_every_shipped_corpus_is_accounted_for():
    assert sorted(p.name for p in CORPORA.glob("*.json")) == sorted(EXPECTED_ENTRIES)


@pytest.mark.parametrize(("name", "count"), sorted(EXPECTED_ENTRIES.items()))
def test_corpus_loads_with_expected_entries_and_unique_ids(name, count):
    loaded = corpus(name)
    assert loaded.shape == "spec"
    assert len(loaded.entries) == count
    assert len({entry.key for entry in loaded.entries}) == count
    assert all(entry.segment == "development" for entry in loaded.entries)
    assert set(loaded.dataset.provenance) == {entry.provenance for entry in loaded.entries}


@pytest.mark.parametrize("name", sorted(EXPECTED_ENTRIES))
def test_licence_is_an_spdx_expression_with_its_text_or_pointer(name):
    licenses = pytest.importorskip("packaging.licenses")
    license_id = corpus(name).dataset.license
    assert licenses.canonicalize_license_expression(license_id) == license_id
    assert list((CORPORA / "LICENSES").glob(f"{license_id}.*")), f"no LICENSES/{license_id}.*"


@pytest.mark.parametrize("name", sorted(EXPECTED_ENTRIES))
def test_readme_table_row_gives_current_sha256_and_count(name):
    rows = [
        line
        for line in (CORPORA / "README.md").read_text(encoding="utf-8").splitlines()
        if line.startswith(f"| [`{name}`]")
    ]
    assert len(rows) == 1, f"corpora/README.md has no single table row for {name}"
    cells = [cell.strip() for cell in rows[0].strip("|").split("|")]
    assert f"`{sha256(CORPORA / name)}`" in cells
    assert f"{EXPECTED_ENTRIES[name]:,}" in cells


# --- converters reproduce the committed files byte for byte -----------------------------------

#: (script, what it writes into --out; the word list goes to --wordlist, sent to --out too)
CONVERTERS = [
    ("convert_flores.py", {"eng-fra-flores-devtest.json", "fra-eng-flores-devtest.json"}),
    ("convert_tatoeba.py", {"eng-sme-tatoeba-dev.json", "eng-sna-tatoeba-dev.json"}),
    ("convert_morphodict.py", {"eng-crk-morphodict-vocab.json", "eng-crk.tsv"}),
    ("build_crk_resources.py", {"crk.json", "crk-strict-analyzer-for-dictionary.hfstol"}),
]
COMMITTED = {
    "eng-crk.tsv": WORDLIST,
    "crk.json": CRK / "crk.json",
    "crk-strict-analyzer-for-dictionary.hfstol": CRK / "crk-strict-analyzer-for-dictionary.hfstol",
}


@pytest.fixture
def upstream(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """../shared/data when present, else the same files rebuilt from a fresh clone."""
    if SHARED.is_dir():
        return SHARED
    return offline_upstream.build(tmp_path_factory.mktemp("upstream"))


@pytest.mark.parametrize(("script", "outputs"), CONVERTERS, ids=[c[0] for c in CONVERTERS])
def test_converter_reproduces_committed_files_byte_for_byte(tmp_path, upstream, script, outputs):
    args = [sys.executable, str(REPO / "scripts" / script), "--shared", str(upstream)]
    args += ["--out", str(tmp_path)]
    if "eng-crk.tsv" in outputs:
        args += ["--wordlist", str(tmp_path / "eng-crk.tsv")]
    subprocess.run(args, check=True, capture_output=True, cwd=tmp_path)
    assert {p.name for p in tmp_path.iterdir()} == outputs
    for name in outputs:
        committed = COMMITTED.get(name, CORPORA / name)
        assert (tmp_path / name).read_bytes() == committed.read_bytes(), name


# --- FLORES ----------------------------------------------------------------------------------


def test_flores_ids_are_line_numbers_and_first_line_is_the_devtest_first_line():
    entries = corpus("eng-fra-flores-devtest.json").entries
    assert [entry.id for entry in entries] == list(range(1, 1013))
    assert entries[0].source.startswith('"We now have 4-month-old mice that are non-diabetic')
    assert entries[0].reference.startswith("«\u00a0Nous avons à présent des souris de 4\u00a0mois")
    assert entries[0].metadata["url"].startswith("https://en.wikinews.org/wiki/Toronto_team-led")


def test_flores_domains_follow_the_metadata_column():
    # metadata_devtest.tsv column 2 counts: wikibooks 351, wikinews 341, wikivoyage 320.
    entries = corpus("eng-fra-flores-devtest.json").entries
    counts: dict[str | None, int] = {}
    for entry in entries:
        counts[entry.domain] = counts.get(entry.domain, 0) + 1
    assert counts == {"edu": 351, "news": 341, None: 320}
    mapping = {(entry.metadata["flores_domain"], entry.domain) for entry in entries}
    assert mapping == {("wikibooks", "edu"), ("wikinews", "news"), ("wikivoyage", None)}


def test_flores_reverse_direction_mirrors_the_forward_one():
    forward = corpus("eng-fra-flores-devtest.json")
    reverse = corpus("fra-eng-flores-devtest.json")
    assert (reverse.dataset.source_language, reverse.dataset.target_language) == ("fr", "en")
    for fwd, rev in zip(forward.entries, reverse.entries, strict=True):
        assert (rev.id, rev.source, rev.reference) == (fwd.id, fwd.reference, fwd.source)
        assert (rev.domain, rev.metadata) == (fwd.domain, fwd.metadata)


# --- Tatoeba and the upstream run reports ----------------------------------------------------


@pytest.mark.parametrize("name", sorted(TATOEBA.values()))
def test_tatoeba_ids_name_the_sentence_whose_url_is_kept(name):
    for entry in corpus(name).entries:
        tatoeba = entry.metadata["tatoeba"]
        assert entry.id == f"tatoeba_{tatoeba['source_sentence_id']}"
        assert tatoeba["source_url"].endswith(f"/sentences/show/{tatoeba['source_sentence_id']}")
        assert tatoeba["target_url"].endswith(f"/sentences/show/{tatoeba['target_sentence_id']}")


def run_reports() -> list[Path]:
    return sorted(RUNS.glob("*_report.json"))


def test_four_upstream_reports_are_shipped_with_the_sha256_in_source_md():
    source_md = (RUNS / "SOURCE.md").read_text(encoding="utf-8")
    assert len(run_reports()) == 4
    for path in run_reports():
        assert f"`{sha256(path)}`" in source_md, path.name
        if SHARED.is_dir():
            assert path.read_bytes() == (SHARED / "upstream-runs" / path.name).read_bytes()


@pytest.mark.parametrize("path", run_reports(), ids=lambda p: p.name[20:60])
def test_every_reported_entry_exists_in_the_shipped_corpus_with_the_same_text(path):
    report = json.loads(path.read_text(encoding="utf-8"))
    pair = Path(report["config"]["corpus_path"]).name.removesuffix("-dev-v1.json")
    entries = {entry.key: entry for entry in corpus(TATOEBA[pair]).entries}
    reported = report["entries"]
    assert len(reported) == len(entries)
    for row in reported:
        assert row["id"] in entries, row["id"]
        assert row["source"] == entries[row["id"]].source
        assert row["expected"] == entries[row["id"]].reference


# --- Plains Cree resources and the dictionary word list --------------------------------------


def crk_resources() -> dict[str, object]:
    return json.loads((CRK / "crk.json").read_text(encoding="utf-8"))


def test_crk_corpus_points_at_the_resources_file():
    loaded = corpus("eng-crk-morphodict-vocab.json")
    assert loaded.resource_path(loaded.dataset.language_resources) == (CRK / "crk.json").resolve()


def test_crk_fst_file_matches_the_sha256_in_the_notice():
    resources = crk_resources()
    fst = CRK / str(resources["fst"])
    notice = (CRK / "NOTICE.md").read_text(encoding="utf-8")
    pinned = set(re.findall(r"`([0-9a-f]{64})`", notice))
    assert pinned == {sha256(fst)} == {resources["fst_sha256"]}
    assert resources["fst_license"] == "AGPL-3.0-or-later"
    assert "https://github.com/giellalt/lang-crk" in notice
    assert (CORPORA / "LICENSES" / "AGPL-3.0-or-later.txt").is_file()


def test_crk_orthography_is_the_standard_roman_orthography():
    # SRO: consonants c h k m n p s t w y, vowels a i o and long â ê î ô, hyphen for compounds.
    orthography = crk_resources()["orthography"]
    assert isinstance(orthography, dict)
    assert set(orthography["characters"]) == set("chkmnpstwy" + "aio" + "âêîô" + "-")


def test_shipped_analyzer_accepts_cree_and_rejects_english():
    hfst = pytest.importorskip("hfst")
    analyzer = hfst.HfstInputStream(str(CRK / str(crk_resources()["fst"]))).read()
    flags = re.compile(r"@[PNDRCU]\.[^@]*@")
    analyses = {flags.sub("", out) for out, _ in analyzer.lookup("atim")}
    assert "atim+N+A+Sg" in analyses
    assert not analyzer.lookup("dog")
    assert not analyzer.lookup("niwapamaw")


def read_wordlist() -> list[list[str]]:
    lines = WORDLIST.read_text(encoding="utf-8").splitlines()
    return [line.split("\t") for line in lines if not line.startswith("#")]


def test_wordlist_is_sorted_unique_lowercase_pairs_with_the_stated_size():
    pairs = read_wordlist()
    assert all(len(pair) == 2 and pair[0] == pair[0].lower() and pair[1] for pair in pairs)
    keys = [english for english, _ in pairs]
    assert keys == sorted(set(keys))
    stated = re.search(r"(\d+) words\.", (WORDLIST.parent / "WORDLIST.md").read_text("utf-8"))
    assert stated is not None
    assert int(stated.group(1)) == len(pairs)


def test_wordlist_is_an_oracle_for_the_single_word_entries_of_the_crk_corpus():
    table = dict(read_wordlist())
    single = [e for e in corpus("eng-crk-morphodict-vocab.json").entries if " " not in e.source]
    assert {e.source.strip("'\"").lower() for e in single} == set(table)
    assert all(table[e.source.strip("'\"").lower()] == e.reference for e in single)
