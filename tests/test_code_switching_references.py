"""benchmarks/code_switching_references.py on a folder of four sentences written here: the
first half is the corpus, the second half's human translations are scored as outputs, and
the flagged ones are those a reader picks out by hand."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

SCRIPT = REPO / "benchmarks" / "code_switching_references.py"
ENGLISH = [
    "The cat sleeps.",
    "The dog runs.",
    'They call it "flat white" coffee.',
    "It was really cold.",
]


def run(folder: Path, german: list[str]) -> list[str]:
    (folder / "eng_Latn.devtest").write_text("\n".join(ENGLISH) + "\n", encoding="utf-8")
    (folder / "deu_Latn.devtest").write_text("\n".join(german) + "\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(folder), "eng_Latn-deu_Latn"],
        capture_output=True,
        text=True,
        check=False,
        cwd=REPO,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout.splitlines()


def test_a_kept_english_word_is_flagged_and_a_quoted_mention_is_not(tmp_path: Path) -> None:
    wordfreq = pytest.importorskip("wordfreq")
    # By wordfreq called directly: German uses "really" and "white" less than a tenth as
    # often as English (a Zipf unit), so kept bare they are untranslated words.
    for word in ("really", "white"):
        assert wordfreq.zipf_frequency(word, "de") < wordfreq.zipf_frequency(word, "en") - 1
    german = ["Die Katze schläft.", "Der Hund rennt.", "Sie nennen ihn „flat white“ Kaffee."]
    assert run(tmp_path, [*german, "Es war really kalt."]) == [
        "eng_Latn -> deu_Latn: 1 of 2 human translations flagged",
        "  line 4: really",
    ]
    # the same words without the translator's quotation marks are not a mention kept
    unquoted = [*german[:2], "Sie nennen ihn flat white Kaffee.", "Es war wirklich kalt."]
    assert run(tmp_path, unquoted) == [
        "eng_Latn -> deu_Latn: 1 of 2 human translations flagged",
        "  line 3: flat white",
    ]
