"""``mteval score HYP REF``: sacrebleu-style plain files scored by the run's own session, its
chrF++, BLEU and TER equal to sacrebleu's command line on real FLORES human translations."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import DATA, FLORES_HEAD

from pytest_mteval import evaluate
from pytest_mteval.cards.card_view import view_of
from pytest_mteval.cards.runcard import read
from pytest_mteval.plain_files import PLAIN_FILES_ID
from pytest_mteval.reports.board_rules import board_key

#: FLORES-200 devtest lines 1-100 in Spanish: line n translates entry n of the eng-fra corpus.
SPANISH = DATA / "flores200-devtest-excerpt" / "spa_Latn.first100"
LINES = 40
#: What the brief's users type: the three metrics, chrF++ (word order 2), JSON, 6 decimals.
SACREBLEU_ARGS = ["-m", "chrf", "bleu", "ter", "--chrf-word-order", "2", "-w", "6", "-f", "json"]
ALIGNED = "the files must be line-aligned"


def mteval(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest_mteval.cli.main", *args],
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
    )


def write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """hyp.txt: the human Spanish translations, scored against ref.txt: the human French."""
    folder = tmp_path_factory.mktemp("plain")
    entries = json.loads(FLORES_HEAD.read_text(encoding="utf-8"))["entries"][:LINES]
    write_lines(folder / "ref.txt", [e["reference"] for e in entries])
    write_lines(folder / "src.txt", [e["source"] for e in entries])
    spanish = SPANISH.read_text(encoding="utf-8").splitlines()[:LINES]
    write_lines(folder / "hyp.txt", spanish)
    return folder


@pytest.fixture(scope="module")
def scored(files: Path) -> subprocess.CompletedProcess[str]:
    args = ["score", "hyp.txt", "ref.txt", "--src", "src.txt", "--lang", "en-fr"]
    return mteval(files, *args, "-o", "card.json")


@pytest.fixture(scope="module")
def sacrebleu_json(files: Path) -> dict[str, dict[str, Any]]:
    """sacrebleu's own command line, as its users run it, on the same two files."""
    out = subprocess.run(
        [sys.executable, "-m", "sacrebleu", "ref.txt", "-i", "hyp.txt", *SACREBLEU_ARGS],
        cwd=files,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return {score["name"]: score for score in json.loads(out)}


def test_scores_equal_sacrebleus_command_line(
    scored: subprocess.CompletedProcess[str], files: Path, sacrebleu_json: dict[str, Any]
) -> None:
    assert scored.returncode == 0, scored.stdout + scored.stderr
    scores = read(files / "card.json").scores
    assert scores.chrf_plus_plus == pytest.approx(sacrebleu_json["chrF2++"]["score"], abs=1e-4)
    assert scores.bleu == pytest.approx(sacrebleu_json["BLEU"]["score"], abs=1e-4)
    assert scores.ter == pytest.approx(sacrebleu_json["TER"]["score"], abs=1e-4)


def test_the_output_prints_sacrebleus_signatures(
    scored: subprocess.CompletedProcess[str], sacrebleu_json: dict[str, Any]
) -> None:
    for name in ("chrF2++", "BLEU", "TER"):
        assert f"{name}|{sacrebleu_json[name]['signature']}" in scored.stdout
    assert "corpus           plain-files (EN→FR), 40 entries" in scored.stdout


def test_the_card_is_a_run_card_marked_as_made_from_plain_files(
    scored: subprocess.CompletedProcess[str], files: Path
) -> None:
    card = read(files / "card.json")
    assert card.dataset.id == PLAIN_FILES_ID
    assert card.dataset.entry_count == LINES
    rows = card.results
    spanish = SPANISH.read_text(encoding="utf-8").splitlines()
    assert [r["predicted"] for r in rows] == spanish[:LINES]
    assert rows[0]["source"].startswith('"We now have 4-month-old mice')
    assert card.signatures is not None
    assert set(card.signatures) >= {"chrf_plus_plus", "ter"}


def test_without_source_and_language_the_scores_do_not_change(
    files: Path, sacrebleu_json: dict[str, Any]
) -> None:
    done = mteval(files, "score", "hyp.txt", "ref.txt", "-o", "bare.json")
    assert done.returncode == 0, done.stdout + done.stderr
    card = read(files / "bare.json")
    assert card.scores.chrf_plus_plus == pytest.approx(sacrebleu_json["chrF2++"]["score"], abs=1e-4)
    assert card.dataset.language_pair == "UND→UND"


@pytest.mark.parametrize(
    ("hyp_lines", "ref_lines", "args", "message"),
    [
        (3, 5, [], f"mteval score: hyp.txt: 3 lines, but ref.txt has 5: {ALIGNED}"),
        (0, 5, [], "mteval score: hyp.txt: empty file, nothing to score"),
        (5, 0, [], "mteval score: ref.txt: empty file, nothing to score"),
        (5, 5, ["--src", "src.txt"], f"mteval score: src.txt: 4 lines, but ref.txt has 5: "
         f"{ALIGNED}"),
        (5, 5, ["--lang", "french"], "mteval score: --lang 'french': expected two language codes "
         "joined by '-', e.g. en-fr or eng-fra"),
        (5, 5, ["--src", "gone.txt"], "mteval score: gone.txt: cannot read: No such file or "
         "directory"),
    ],
)  # fmt: skip
def test_bad_input_is_one_line_naming_the_file(
    tmp_path: Path, hyp_lines: int, ref_lines: int, args: list[str], message: str
) -> None:
    spanish = SPANISH.read_text(encoding="utf-8").splitlines()
    write_lines(tmp_path / "hyp.txt", spanish[:hyp_lines])
    write_lines(tmp_path / "ref.txt", spanish[:ref_lines])
    write_lines(tmp_path / "src.txt", spanish[:4])
    done = mteval(tmp_path, "score", "hyp.txt", "ref.txt", *args)
    assert (done.returncode, done.stdout, done.stderr) == (1, "", message + "\n")
    assert not list(tmp_path.glob("*.card.json"))


def test_an_empty_reference_line_names_the_file_and_line(tmp_path: Path) -> None:
    write_lines(tmp_path / "hyp.txt", ["Bonjour.", "Au revoir."])
    write_lines(tmp_path / "ref.txt", ["Bonjour.", "  "])
    done = mteval(tmp_path, "score", "hyp.txt", "ref.txt")
    assert done.stderr == "mteval score: ref.txt: line 2: empty reference (every line is scored)\n"


def test_same_outputs_score_alike_but_never_share_a_board_with_the_curated_corpus(
    files: Path,
) -> None:
    """The identity method's outputs (the sources) as plain files: the same scores as the
    curated corpus's run on those entries, on another board (dataset id, version, sha256)."""
    done = mteval(files, "score", "src.txt", "ref.txt", "--src", "src.txt", "--lang", "en-fr")
    assert done.returncode == 0, done.stdout + done.stderr
    plain = read(files / "src.card.json")
    curated = evaluate("identity", "shipped:eng-fra-flores-devtest", entry=f"1-{LINES}")
    for metric in ("chrf_plus_plus", "bleu", "ter", "exact_match_rate"):
        assert getattr(plain.scores, metric) == getattr(curated.scores, metric)
    keys = [board_key(view_of(card, card.model_dump())) for card in (plain, curated)]
    assert keys[0].dataset_id == PLAIN_FILES_ID
    assert keys[1].dataset_id == "flores200-devtest-eng-fra"
    assert keys[0] != keys[1]


def test_crlf_files_and_an_empty_output_line_score_as_sacrebleu_reads_them(
    files: Path, tmp_path: Path
) -> None:
    """Windows line ends and an empty hypothesis line keep the lines aligned: the scores still
    equal sacrebleu's on the same bytes."""
    spanish = SPANISH.read_text(encoding="utf-8").splitlines()[:LINES]
    spanish[5] = ""
    (tmp_path / "hyp.txt").write_bytes("".join(f"{s}\r\n" for s in spanish).encode("utf-8"))
    (tmp_path / "ref.txt").write_bytes((files / "ref.txt").read_bytes().replace(b"\n", b"\r\n"))
    done = mteval(tmp_path, "score", "hyp.txt", "ref.txt", "-o", "card.json")
    assert done.returncode == 0, done.stdout + done.stderr
    card = read(tmp_path / "card.json")
    assert card.results[5]["predicted"] == ""
    assert card.results[6]["predicted"] == spanish[6]
    out = subprocess.run(
        [sys.executable, "-m", "sacrebleu", "ref.txt", "-i", "hyp.txt", *SACREBLEU_ARGS],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    cli = {score["name"]: score["score"] for score in json.loads(out)}
    assert card.scores.chrf_plus_plus == pytest.approx(cli["chrF2++"], abs=1e-4)
    assert card.scores.bleu == pytest.approx(cli["BLEU"], abs=1e-4)
    assert card.scores.ter == pytest.approx(cli["TER"], abs=1e-4)
