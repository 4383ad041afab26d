"""The user's own per-entry tests on a secret run (issue 21, item 4): docs/usage.md's example,
failing on an encrypted corpus, must not put the entry's source, reference or prediction on the
terminal or into junit, whatever pytest is asked to show (every --tb style, locals, captured
output, warnings, subtests, properties, -rA, --setup-show), on every kind of secret run
(encrypted corpus, --mteval-scores-only, secret segments, under xdist). The objects the
fixtures hand over still carry the text: the tests can check it, only pytest's reporting of
them is withheld (plugin/redact_reports.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import envelope, flores_entries
from methods_for_tests import write_probe

pytest_plugins = ["pytester"]

SOURCE_MARK = "QZXSOURCEMARK"
REFERENCE_MARK = "QZXREFERENCEMARK"

#: The method answers each entry with its (English) source: the docs/usage.md test fails on "the".
ECHO = """
class Probe:
    async def translate(self, entries, config):
        return [{"id": e["id"], "predicted": e["source"], "latency_s": 0.01} for e in entries]
"""

#: docs/usage.md's example, and the careless variants: print, warn, skip, xfail, properties.
USER_TESTS = f"""
import warnings

import pytest

def test_no_english_left(mteval_entry, mteval_result):
    assert mteval_result["error"] is None
    assert "the" not in mteval_result["predicted"].split()

def test_compares_texts(mteval_entry, mteval_result):
    source, reference = mteval_entry.source, mteval_entry.reference
    assert mteval_result["predicted"] == reference, source

def test_prints_and_fails(mteval_entry):
    print("source:", mteval_entry.source)
    print("reference:", mteval_entry.reference)
    assert False

def test_prints_and_passes(mteval_entry, record_property):
    print("source:", mteval_entry.source)
    warnings.warn("odd source: " + mteval_entry.source)
    record_property("reference", mteval_entry.reference)
    record_property("length", len(mteval_entry.reference))

def test_skips_and_xfails(mteval_entry):
    if "{SOURCE_MARK}" in mteval_entry.source:
        pytest.skip(mteval_entry.source)
    pytest.xfail(mteval_entry.reference)

def test_subtests(mteval_entry, subtests):
    with subtests.test(msg=mteval_entry.source[:30], reference=mteval_entry.reference):
        print("in a subtest:", mteval_entry.source)
        assert False, mteval_entry.reference

def test_the_text_is_there_but_not_in_reprs(mteval_entry, mteval_result):
    shown = repr(mteval_entry) + str(mteval_entry) + repr(mteval_result) + str(mteval_result)
    for text in (mteval_entry.source, mteval_entry.reference, mteval_result["predicted"]):
        assert text not in shown
    assert mteval_result["predicted"] == mteval_entry.source
"""


def mteval(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest_mteval.cli.main", *args], capture_output=True, text=True
    )


@pytest.fixture
def marked(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """Four real FLORES entries, the second's source and reference carrying a unique marker,
    in the clear; and the texts that must not be shown."""
    entries = flores_entries(4)
    entries[1]["source"] += f" {SOURCE_MARK}"
    entries[1]["reference"] += f" {REFERENCE_MARK}"
    path = tmp_path_factory.mktemp("clear") / "corpus.json"
    path.write_text(json.dumps(envelope(entries), ensure_ascii=False), encoding="utf-8")
    texts = [SOURCE_MARK, REFERENCE_MARK]
    for entry in entries:
        texts += [entry["source"], entry["reference"]]
    return path, texts


@pytest.fixture
def sealed(marked: tuple[Path, list[str]], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The marked corpus encrypted; its key beside it (``corpus.key``)."""
    folder = tmp_path_factory.mktemp("sealed")
    out = folder / "corpus.json.enc"
    key = folder / "corpus.key"
    made = mteval(
        "corpus", "encrypt", str(marked[0]), str(out), "--key-file", str(key), "--new-key"
    )
    assert made.returncode == 0, made.stdout
    return out


def _forms(texts: list[str]) -> list[str]:
    """Each text as written, as repr and JSON escape it, and its first words (a truncated
    repr or a line cut at 50 characters still quotes them)."""
    found: set[str] = set()
    for text in texts:
        found |= {text, repr(text)[1:-1], json.dumps(text)[1:-1]}
        found.add(" ".join(text.split()[:4]))
    return sorted(f for f in found if len(f) >= 12)


def _run(pytester: pytest.Pytester, corpus: Path, *args: str) -> tuple[str, pytest.RunResult]:
    pytester.makepyfile(test_user=USER_TESTS)
    junit = pytester.path / "junit.xml"
    key = corpus.parent / "corpus.key"
    result = pytester.runpytest(
        f"--mteval-corpus={corpus}",
        *([f"--mteval-corpus-key-file={key}"] if key.exists() else []),
        f"--mteval-method={write_probe(pytester.path, ECHO)}",
        f"--junitxml={junit}",
        "-o",
        "junit_family=xunit1",  # xunit2 leaves record_property out of the file
        "-rA",
        *args,
    )
    output = result.stdout.str() + result.stderr.str()
    assert "INTERNALERROR" not in output, output
    return output + junit.read_text(encoding="utf-8"), result


@pytest.mark.parametrize(
    "style", [["--tb=long", "-l", "--setup-show"], ["--tb=short"], ["--tb=line"], ["--tb=native"]]
)
def test_a_failing_user_test_on_an_encrypted_corpus_shows_no_text(
    pytester: pytest.Pytester,
    marked: tuple[Path, list[str]],
    sealed: Path,
    style: list[str],
) -> None:
    shown, result = _run(pytester, sealed, *style)
    leaked = [form for form in _forms(marked[1]) if form in shown]
    assert not leaked, f"shown: {leaked[0]!r}"
    # 4 entry items, the docs/usage.md test passes on 2 entries (no "the"), the others as written
    # each subtest's failure counts once, and its test once more
    result.assert_outcomes(passed=4 + 2 + 4 + 4, failed=2 + 4 + 4 + 4 * 2, skipped=1, xfailed=3)
    assert "details hidden: scores-only run" in shown
    assert "test_user.py" in shown  # where and what, still
    assert "AssertionError" in shown
    # the parametrize ids are the entries' ids, not their text
    assert "test_no_english_left[entry-" in shown


def test_the_same_tests_in_the_clear_show_the_text(
    pytester: pytest.Pytester, marked: tuple[Path, list[str]]
) -> None:
    """The guard is the secret run's, not a loss of pytest's output everywhere."""
    pytester.makepyfile(test_user=USER_TESTS)
    result = pytester.runpytest(
        f"--mteval-corpus={marked[0]}",
        f"--mteval-method={write_probe(pytester.path, ECHO)}",
        "--tb=long",
        "-rA",
    )
    output = result.stdout.str()
    assert SOURCE_MARK in output
    assert REFERENCE_MARK in output
    assert "details hidden" not in output


@pytest.mark.parametrize(
    "secret",
    [["--mteval-scores-only"], ["held_out"], ["gold_standard"], ["--mteval-scores-only", "-n2"]],
)
def test_every_kind_of_secret_run_hides_the_text(
    pytester: pytest.Pytester, marked: tuple[Path, list[str]], secret: list[str]
) -> None:
    """Scores only by the option (also under xdist: workers redact before sending) or by a
    secret segment, the corpus in the clear."""
    corpus, texts = marked
    args = [a for a in secret if a.startswith("-")]
    if not args:  # every entry in the secret segment
        data = json.loads(corpus.read_text(encoding="utf-8"))
        for entry in data["entries"]:
            entry["segment"] = secret[0]
        corpus = pytester.path / "segment.json"
        corpus.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
        if secret[0] == "held_out":  # reserved unless activated (spec §2.3)
            args.append("--mteval-activate-held-out")
    shown, result = _run(pytester, corpus, "--tb=long", "-l", *args)
    leaked = [form for form in _forms(texts) if form in shown]
    assert not leaked, f"shown: {leaked[0]!r}"
    # each subtest's failure counts once, and its test once more
    result.assert_outcomes(passed=4 + 2 + 4 + 4, failed=2 + 4 + 4 + 4 * 2, skipped=1, xfailed=3)
