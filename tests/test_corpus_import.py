"""``mteval corpus import`` on real sheets (Tatoeba, morphodict, FLORES) and on hostile files:
every refused row is reported with file, row and column; whole-file problems end in one line."""

from __future__ import annotations

import csv
import json
import random

import pytest
from conftest import CORPORA, DATA

from pytest_mteval.cli.main import main
from pytest_mteval.corpus import load_corpus
from pytest_mteval.corpus_tools.entries import stable_id

TOOLS = DATA / "corpus-tools"
GUJ = TOOLS / "eng-guj-tatoeba-120.csv"
CREE = TOOLS / "morphodict-sample-head40.csv"
YOR = TOOLS / "eng-yor-harness-12.json"
ENVELOPE = [
    "--id=test-corpus",
    "--source-language=en",
    "--target-language=gu",
    "--license=LicenseRef-CC-BY-2.0-FR",
    "--provenance=corpus",
]
GUJ_COLUMNS = ["--source-column=English", "--reference-column=Gujarati"]


def run(capsys, *args):
    """The real ``mteval`` entry point: exit status and the printed lines."""
    code = main([str(a) for a in args])
    return code, capsys.readouterr().out.splitlines()


def import_(capsys, tmp_path, *args, name="out.json"):
    out = tmp_path / name
    code, lines = run(capsys, "corpus", "import", *args, "-o", out)
    return code, lines, out


def sheet_rows(path, source, reference):
    with path.open(encoding="utf-8", newline="") as handle:
        return [(r[source], r[reference]) for r in csv.DictReader(handle)]


def test_real_spreadsheet_becomes_a_loadable_corpus(capsys, tmp_path):
    code, lines, out = import_(capsys, tmp_path, GUJ, *GUJ_COLUMNS, *ENVELOPE, "--consent=x")
    assert code == 0, lines
    corpus = load_corpus(out)
    expected = sheet_rows(GUJ, "English", "Gujarati")
    assert [(e.source, e.reference) for e in corpus.entries] == expected
    with GUJ.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [e.segment for e in corpus.entries] == [r["segment"] for r in rows]
    assert [e.difficulty for e in corpus.entries] == [int(r["difficulty"]) for r in rows]
    assert [e.register_ for e in corpus.entries] == [r["register"] for r in rows]
    # Columns mapped to no field are kept, not dropped: the Tatoeba ids name the authors.
    assert corpus.entries[0].metadata == {
        "tatoeba_source_id": rows[0]["tatoeba_source_id"],
        "tatoeba_target_id": rows[0]["tatoeba_target_id"],
    }
    assert corpus.dataset.provenance == ["corpus"]
    assert corpus.dataset.language_pair == "EN→GU"
    assert corpus.dataset.consent == "x"
    assert lines[-1].startswith(
        f"{out}: 120 entries from 120 rows, 0 skipped; sha256 {corpus.sha256}"
    )


def test_ids_are_stable_when_rows_move_vanish_or_get_corrected(capsys, tmp_path):
    code, _, first = import_(capsys, tmp_path, GUJ, *GUJ_COLUMNS, *ENVELOPE, name="a.json")
    assert code == 0
    before = {e.source: e.id for e in load_corpus(first).entries}
    lines = GUJ.read_text(encoding="utf-8").splitlines(keepends=True)
    body = lines[1:]
    random.Random(3).shuffle(body)
    del body[7]
    body[0] = body[0].replace(",gold_standard,", ",development,")
    edited = tmp_path / "edited.csv"
    edited.write_text(lines[0] + "".join(body), encoding="utf-8")
    code, _, second = import_(capsys, tmp_path, edited, *GUJ_COLUMNS, *ENVELOPE, name="b.json")
    assert code == 0
    after = {e.source: e.id for e in load_corpus(second).entries}
    assert len(after) == 119
    assert all(after[source] == before[source] for source in after)
    assert all(isinstance(i, int) and 0 < i < 2**53 for i in after.values())


def test_morphodict_sheet_with_variant_columns(capsys, tmp_path):
    args = [
        "--source-column=Query",
        "--reference-column=Nêhiyawêwin 1",
        "--column=variants=Nêhiyawêwin 2",
        "--column=variants=Nêhiyawêwin 3",
        "--id=crk",
        "--source-language=en",
        "--target-language=crk",
        "--license=Apache-2.0",
        "--provenance=dictionary",
        "--difficulty=1",
    ]
    # The sheet leaves out trailing empty cells ("sees him,wâpamêw"): ragged unless allowed.
    code, lines, out = import_(capsys, tmp_path, CREE, *args)
    assert code == 0
    assert lines[0] == (
        f"{CREE}:12: skipped: 2 cells where the header has 4 (ragged row: a missing or extra "
        "separator?; --allow-short-rows if it ends in empties)"
    )
    assert len(load_corpus(out).entries) == 33
    code, lines, out = import_(capsys, tmp_path, CREE, *args, "--allow-short-rows", name="all.json")
    assert code == 0, lines
    with CREE.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    entries = load_corpus(out).entries
    assert len(entries) == len(rows) == 40
    for entry, row in zip(entries, rows, strict=True):
        others = [row["Nêhiyawêwin 2"] or "", row["Nêhiyawêwin 3"] or ""]
        assert entry.variants == [v for v in others if v and v != row["Nêhiyawêwin 1"]]
        assert (entry.source, entry.reference) == (row["Query"], row["Nêhiyawêwin 1"])
        assert (entry.difficulty, entry.provenance) == (1, "dictionary")


def test_line_aligned_text_files_keep_alignment(capsys, tmp_path):
    data = json.loads((CORPORA / "eng-fra-flores-devtest.json").read_text(encoding="utf-8"))
    pairs = [(e["source"], e["reference"]) for e in data["entries"][:20]]
    # A line separator inside a sentence must not split it (str.splitlines would).
    pairs[4] = (pairs[4][0] + "\u2028" + "x", pairs[4][1])
    src, ref = tmp_path / "eng.txt", tmp_path / "fra.txt"
    src.write_bytes("\r\n".join(s for s, _ in pairs).encode() + b"\r\n")  # CRLF
    ref.write_bytes("\n".join(r for _, r in pairs).encode())  # LF, no final newline
    code, lines, out = import_(
        capsys,
        tmp_path,
        src,
        ref,
        "--id=f",
        "--source-language=en",
        "--target-language=fr",
        "--license=CC-BY-SA-4.0",
    )
    assert code == 0, lines
    assert [(e.source, e.reference) for e in load_corpus(out).entries] == pairs


def test_text_files_of_different_lengths_are_refused(capsys, tmp_path):
    src, ref = tmp_path / "a.txt", tmp_path / "b.txt"
    src.write_text("one\ntwo\nthree\n", encoding="utf-8")
    ref.write_text("un\ndeux\n", encoding="utf-8")
    code, lines, _ = import_(capsys, tmp_path, src, ref, *ENVELOPE)
    assert code == 2
    assert lines == [
        f"mteval corpus import: {src}: 3 lines, but {ref} has 2: the files are not line-aligned "
        "(line N of one must translate line N of the other)"
    ]


def test_reference_harness_corpus(capsys, tmp_path):
    code, lines, out = import_(capsys, tmp_path, YOR, "--license=LicenseRef-CC-BY-2.0-FR")
    assert code == 0, lines
    raw = json.loads(YOR.read_text(encoding="utf-8"))
    corpus = load_corpus(out)
    assert corpus.shape == "spec"
    assert [e.id for e in corpus.entries] == [e["id"] for e in raw["entries"]]
    assert [e.reference for e in corpus.entries] == [e["reference"] for e in raw["entries"]]
    assert corpus.dataset.id == raw["corpus_id"]
    assert corpus.dataset.license == "LicenseRef-CC-BY-2.0-FR"
    assert corpus.entries[0].metadata == raw["entries"][0]["metadata"]


def test_envelope_and_defaults_from_toml(capsys, tmp_path):
    toml = tmp_path / "corpus.toml"
    toml.write_text(
        '[dataset]\nid = "eng-guj-community"\nversion = "0.3.0"\nsource_language = "en"\n'
        'target_language = "gu"\nlicense = "CC-BY-4.0"\nconsent = "docs/consent.pdf"\n'
        '[defaults]\nprovenance = "elicited"\n'
        '[columns]\nsource = "English"\nreference = "Gujarati"\n',
        encoding="utf-8",
    )
    code, lines, out = import_(capsys, tmp_path, GUJ, "--envelope", toml, "--version=0.4.0")
    assert code == 0, lines
    dataset = load_corpus(out).dataset
    assert (dataset.id, dataset.version, dataset.license) == (
        "eng-guj-community",
        "0.4.0",
        "CC-BY-4.0",
    )
    assert dataset.provenance == ["elicited"]
    assert dataset.consent == "docs/consent.pdf"


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ("[columns]\nsource = 3\n", "[columns] 'source': expected an entry field"),
        ('[dataset]\nprovenance = "corpus"\n', "[dataset] provenance must be a list of strings"),
        ("[defaults]\nreference = 'x'\n", "[defaults] 'reference': expected one of segment,"),
        ("[dataset\n", "not a valid UTF-8 TOML file"),
        ("[extra]\n", "unknown table 'extra'"),
    ],
)
def test_bad_toml_is_one_line(capsys, tmp_path, toml, message):
    path = tmp_path / "corpus.toml"
    path.write_text(toml, encoding="utf-8")
    code, lines, _ = import_(capsys, tmp_path, GUJ, *GUJ_COLUMNS, *ENVELOPE, "--envelope", path)
    assert code == 2
    assert len(lines) == 1
    assert lines[0].startswith(f"mteval corpus import: {path}: ")
    assert message in lines[0]


def test_missing_envelope_field_is_named_with_the_option(capsys, tmp_path):
    code, lines, out = import_(
        capsys,
        tmp_path,
        GUJ,
        *GUJ_COLUMNS,
        "--id=x",
        "--source-language=en",
        "--target-language=gu",
    )
    assert code == 2
    assert len(lines) == 1
    assert "needs 'license'" in lines[0]
    assert "--license SPDX-ID" in lines[0]
    assert not out.exists()


def write_sheet(tmp_path, text, name="sheet.csv", encoding="utf-8"):
    path = tmp_path / name
    path.write_bytes(text.encode(encoding))
    return path


def test_header_without_reference_column_names_file_row_and_column(capsys, tmp_path):
    sheet = write_sheet(tmp_path, "source,translation\nI see the dog,niwâpamâw atim\n")
    code, lines, _ = import_(capsys, tmp_path, sheet, *ENVELOPE)
    assert code == 2
    assert lines == [
        f"mteval corpus import: {sheet}: row 1 (header): no column 'reference'; the columns are: "
        "'source', 'translation'. Name yours with --reference-column NAME"
    ]


def test_every_skipped_row_is_reported_with_row_column_and_reason(capsys, tmp_path):
    sheet = write_sheet(
        tmp_path,
        "source,reference,difficulty,domain,segment\n"
        "I see the dog,niwâpamâw atim,2,conv,development\n"  # row 2: kept
        ",tânisi,1,conv,development\n"  # 3: empty source
        "hello,,1,conv,development\n"  # 4: empty reference
        "I see the dog,niwâpamâw atim,2,conv,development\n"  # 5: duplicate of 2
        "I see the dog,niwâpamâwak atimwak,2,conv,development\n"  # 6: same source
        "dog,atim,7,conv,development\n"  # 7: difficulty
        "cat,minôs,1,pets,development\n"  # 8: domain
        "horse,mistatim,1,conv,test\n"  # 9: segment
        "thank you,kinanâskomitin\n"  # 10: ragged
        "\n"  # 11: a blank line is no row
        "yes,êha,1,conv,Gold Standard\n",  # 12: kept, segment normalised
    )
    code, lines, out = import_(capsys, tmp_path, sheet, *ENVELOPE)
    assert code == 0
    p = str(sheet)
    assert lines[:8] == [
        f"{p}:3: skipped: column 'source': empty source",
        f"{p}:4: skipped: column 'reference': empty reference",
        f"{p}:5: skipped: duplicate of {p}:2 (same source and reference)",
        f"{p}:6: skipped: column 'source': same source as {p}:2 with another reference: add this "
        "translation to that row's variants instead",
        f"{p}:7: skipped: column 'difficulty': '7' is not a difficulty 1-5 (spec §2.4)",
        f"{p}:8: skipped: column 'domain': 'pets' is not a domain code (conv, ecommerce, edu, "
        "financial, gov, legal, literary, marketing, medical, news, religious, scientific, "
        "subtitles, support, tech, ui)",
        f"{p}:9: skipped: column 'segment': 'test' is not one of development, diagnostic, "
        "gold_standard, held_out",
        f"{p}:10: skipped: 2 cells where the header has 5 (ragged row: a missing or extra "
        "separator?; --allow-short-rows if it ends in empties)",
    ]
    assert lines[8].startswith(f"{out}: 2 entries from 10 rows, 8 skipped")
    entries = load_corpus(out).entries
    assert [(e.source, e.segment) for e in entries] == [
        ("I see the dog", "development"),
        ("yes", "gold_standard"),
    ]


def test_strict_writes_nothing_when_a_row_is_skipped(capsys, tmp_path):
    sheet = write_sheet(tmp_path, "source,reference\na,b\nc,\n")
    code, lines, out = import_(capsys, tmp_path, sheet, *ENVELOPE, "--strict")
    assert code == 1
    assert lines[-1] == "mteval corpus import: 1 rows skipped (--strict): nothing written"
    assert not out.exists()


def test_output_never_overwrites_an_input(capsys, tmp_path):
    sheet = write_sheet(tmp_path, "source,reference\na,b\n")
    code, lines = run(capsys, "corpus", "import", sheet, *ENVELOPE, "--force", "-o", sheet)
    assert (code, lines) == (
        2,
        [f"mteval corpus import: {sheet}: is an input; write the corpus to another file"],
    )
    assert sheet.read_text(encoding="utf-8") == "source,reference\na,b\n"


def test_two_inputs_are_only_for_line_aligned_text(capsys, tmp_path):
    sheet = write_sheet(tmp_path, "source,reference\na,b\n")
    code, lines, _ = import_(capsys, tmp_path, sheet, sheet, "--format=csv", *ENVELOPE)
    assert (code, lines) == (
        2,
        [
            "mteval corpus import: give two files (source, reference) for line-aligned text, "
            "one file otherwise"
        ],
    )


def test_existing_output_needs_force(capsys, tmp_path):
    sheet = write_sheet(tmp_path, "source,reference\na,b\n")
    (tmp_path / "out.json").write_text("{}", encoding="utf-8")
    code, lines, out = import_(capsys, tmp_path, sheet, *ENVELOPE)
    assert (code, lines) == (
        2,
        [f"mteval corpus import: {out}: exists; pass --force to overwrite it"],
    )
    assert out.read_text(encoding="utf-8") == "{}"


def test_wrong_encoding_names_the_row_and_column_then_imports_with_encoding(capsys, tmp_path):
    text = "source,reference\nthe coffee,le café\nthe house,la maison\n"
    sheet = write_sheet(tmp_path, text, encoding="cp1252")
    code, lines, out = import_(capsys, tmp_path, sheet, *ENVELOPE)
    assert code == 0
    assert lines[0] == (
        f"{sheet}:2: skipped: column 'reference': not utf-8 text (byte 0xe9); re-save the file "
        "as UTF-8, or pass --encoding (e.g. cp1252)"
    )
    assert [e.source for e in load_corpus(out).entries] == ["the house"]
    code, _, fixed = import_(
        capsys, tmp_path, sheet, *ENVELOPE, "--encoding=cp1252", name="fixed.json"
    )
    assert code == 0
    assert [e.reference for e in load_corpus(fixed).entries] == ["le café", "la maison"]


def test_wholly_undecodable_file_ends_in_one_line(capsys, tmp_path):
    sheet = write_sheet(tmp_path, "sourc\xe9,reference\na,b\n", encoding="latin-1")
    code, lines, _ = import_(capsys, tmp_path, sheet, *ENVELOPE)
    assert code == 2
    assert lines == [
        f"mteval corpus import: {sheet}: row 1 (header), column 1: not utf-8 text (byte 0xe9); "
        "re-save the file as UTF-8 or pass --encoding"
    ]


@pytest.mark.parametrize(
    ("bom", "encoding"),
    [(b"\xef\xbb\xbf", "utf-8"), (b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be")],
)
def test_byte_order_marks_are_honoured(capsys, tmp_path, bom, encoding):
    # Excel's "Unicode text" export is a UTF-16 TSV with a BOM; its CSV export starts with one.
    text = "source\treference\r\nI see the dog\tniwâpamâw atim\r\n"
    sheet = tmp_path / "excel.tsv"
    sheet.write_bytes(bom + text.encode(encoding))
    code, lines, out = import_(capsys, tmp_path, sheet, *ENVELOPE)
    assert code == 0, lines
    assert [(e.source, e.reference) for e in load_corpus(out).entries] == [
        ("I see the dog", "niwâpamâw atim")
    ]


def test_crlf_csv_with_a_quoted_multiline_cell_counts_rows_from_their_first_line(capsys, tmp_path):
    text = 'source,reference\r\n"two\r\nlines",deux lignes\r\nempty,\r\nok,d\'accord\r\n'
    sheet = write_sheet(tmp_path, text)
    code, lines, out = import_(capsys, tmp_path, sheet, *ENVELOPE)
    assert code == 0
    assert lines[0] == f"{sheet}:4: skipped: column 'reference': empty reference"
    entries = load_corpus(out).entries
    assert [(e.source, e.reference) for e in entries] == [
        ("two\r\nlines", "deux lignes"),
        ("ok", "d'accord"),
    ]


def test_malformed_csv_names_the_row(capsys, tmp_path):
    sheet = write_sheet(tmp_path, 'source,reference\na,b\nc "d" e,"f\n')
    code, lines, _ = import_(capsys, tmp_path, sheet, *ENVELOPE)
    assert code == 2
    assert len(lines) == 1
    assert lines[0].startswith(f"mteval corpus import: {sheet}: row 3: not valid CSV: ")


def test_ragged_tsv_rows_are_skipped_and_named(capsys, tmp_path):
    sheet = tmp_path / "pairs.tsv"
    sheet.write_text("source\treference\tnotes\na\tb\tc\nd\te\nf\tg\th\ti\n", encoding="utf-8")
    code, lines, out = import_(capsys, tmp_path, sheet, *ENVELOPE)
    assert code == 0
    assert lines[:2] == [
        f"{sheet}:3: skipped: 2 cells where the header has 3 (ragged row: a missing or extra "
        "separator?; --allow-short-rows if it ends in empties)",
        f"{sheet}:4: skipped: 4 cells where the header has 3 (ragged row: a missing or extra "
        "separator?)",
    ]
    assert [e.notes for e in load_corpus(out).entries] == ["c"]


HUNDRED_MB = 100 * 1024 * 1024


def test_a_100_mb_file_is_refused_before_reading(capsys, tmp_path):
    sheet = tmp_path / "dump.tsv"
    with sheet.open("wb") as handle:
        handle.write(b"source\treference\n")
        handle.truncate(HUNDRED_MB)
    code, lines, _ = import_(capsys, tmp_path, sheet, *ENVELOPE)
    assert code == 2
    assert lines == [
        f"mteval corpus import: {sheet}: {HUNDRED_MB:,} bytes is over the import limit of "
        f"{64 * 1024 * 1024:,} (--max-bytes): is this the right file?"
    ]


def test_a_100_mb_cell_is_named_by_row_and_column(capsys, tmp_path):
    sheet = tmp_path / "huge.csv"
    with sheet.open("wb") as handle:
        handle.write(b"source,reference\nhello,tanisi\nthe dog,")
        handle.write(b"a" * HUNDRED_MB)
        handle.write(b"\n")
    code, lines, out = import_(capsys, tmp_path, sheet, *ENVELOPE, f"--max-bytes={2 * HUNDRED_MB}")
    assert code == 0
    assert lines[0] == (
        f"{sheet}:3: skipped: column 'reference': {HUNDRED_MB:,} characters, over the 10,000 a "
        "sentence can have"
    )
    assert [e.source for e in load_corpus(out).entries] == ["hello"]


def test_stable_id_ignores_spacing_and_composition():
    assert stable_id("I see  the dog ") == stable_id("I see the dog")
    assert stable_id("café") == stable_id("cafe\u0301")
    assert stable_id("I see the dog") != stable_id("I see the dogs")
