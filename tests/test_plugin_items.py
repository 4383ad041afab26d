"""End-to-end: a corpus becomes batches of entry items, selectable like any tests."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import METHODS
from methods_for_tests import calls, write_probe

pytest_plugins = ["pytester"]


def run(pytester: pytest.Pytester, corpus: Path, *args: str) -> pytest.RunResult:
    return pytester.runpytest(
        f"--mteval-corpus={corpus}", f"--mteval-method={METHODS / 'identity'}", *args
    )


def test_each_entry_is_an_item_under_its_batch(pytester, small_corpus):
    result = run(pytester, small_corpus, "--collect-only", "-q", "--mteval-batch-size=4")
    ids = [line for line in result.outlines if "::" in line]
    # outside the rootdir, the corpus is named by its path relative to the rootdir
    name = os.path.relpath(small_corpus, pytester.path)
    assert name.startswith("..")
    assert ids == [
        f"{name}::batch-{b:04d}::entry-{i}"
        for b, i in [(0, 1), (0, 2), (0, 3), (0, 4), (1, 5), (1, 6)]
    ]


def test_k_selects_by_entry_id_domain_and_difficulty(pytester, small_corpus):
    by_id = run(pytester, small_corpus, "-k", "entry-3", "-q")
    by_id.assert_outcomes(passed=1, deselected=5)
    by_domain = run(pytester, small_corpus, "-k", "domain_edu", "-q")
    by_domain.assert_outcomes(passed=3, deselected=3)
    by_difficulty = run(pytester, small_corpus, "-k", "difficulty_1 and domain_news", "-q")
    by_difficulty.assert_outcomes(passed=1, deselected=5)


def test_m_selects_entries_by_their_marker(pytester, small_corpus):
    pytester.makepyfile(test_user="def test_one(mteval_entry):\n    assert mteval_entry\n")

    def selected(expression: str) -> list[str]:
        found = run(pytester, small_corpus, "-m", expression, "--collect-only", "-q")
        return [line.split("::")[-1] for line in found.outlines if "::" in line]

    assert selected("mteval") == [f"entry-{i}" for i in range(1, 7)]
    assert selected("not mteval") == [f"test_one[entry-{i}]" for i in range(1, 7)]


def test_filters_restrict_the_corpus(pytester, small_corpus):
    result = run(pytester, small_corpus, "--mteval-domain=news", "--mteval-difficulty=3", "-q")
    result.assert_outcomes(passed=1)


def test_ini_keys_configure_the_run(pytester, small_corpus):
    pytester.makeini(
        f"[pytest]\nmteval_corpus = {small_corpus}\nmteval_method = {METHODS / 'identity'}\n"
        "mteval_batch_size = 2\n"
    )
    result = pytester.runpytest("--collect-only", "-q")
    assert sum("::batch-0002::" in line for line in result.outlines) == 2


def test_without_a_corpus_the_plugin_stays_out_of_the_way(pytester):
    pytester.makepyfile(
        test_plain="def test_one():\n    assert True\n",
        test_mt="def test_entry(mteval_entry):\n    assert False\n",
    )
    result = pytester.runpytest("-q")
    result.assert_outcomes(passed=1, skipped=1)
    assert "mteval" not in result.stdout.str().split("passed")[-1]
    assert not (pytester.path / ".mteval").exists()


def test_bare_run_evaluates_corpus_and_mteval_tests_but_not_unrelated_ones(pytester, small_corpus):
    pytester.makepyfile(
        test_plain="def test_unrelated():\n    raise AssertionError('should not run')\n",
        test_mt="def test_predicted(mteval_result):\n    assert mteval_result['predicted']\n",
    )
    result = run(pytester, small_corpus, "-q")
    result.assert_outcomes(passed=12, deselected=1)
    explicit = run(pytester, small_corpus, "test_plain.py", "-q")
    assert explicit.ret == 1  # an explicitly named test file still runs


def test_user_tests_reuse_the_items_translations(pytester, small_corpus):
    probe = write_probe(pytester.path)
    pytester.makepyfile(
        test_mt=(
            "def test_upper(mteval_entry, mteval_result):\n"
            "    assert mteval_result['predicted'] == mteval_entry.source.upper()\n"
            "    assert mteval_result['entry_id'] == mteval_entry.key\n"
        )
    )
    result = pytester.runpytest(
        f"--mteval-corpus={small_corpus}", f"--mteval-method={probe}", "--mteval-batch-size=4",
        "--mteval-sandbox=none",  # the test reads the method's call log: private in the sandbox
    )  # fmt: skip
    result.assert_outcomes(passed=12)
    translated = [e["id"] for call in calls(probe) for e in call["entries"]]
    assert sorted(translated) == [1, 2, 3, 4, 5, 6]


def test_method_never_sees_reference_side_fields(pytester, tmp_path):
    entries = [
        {
            "id": 1,
            "source": "I see the dog",
            "reference": "niwâpamâw atim",
            "variants": ["atim niwâpamâw"],
            "morphological_analysis": "ni-wâpam-âw atim | 1sg-see.TA-3sg.DIR dog.AN",
            "notes": "Animate noun (atim)",
            "difficulty": 2,
            "register": "conversational",
            "domain": "conv",
        }
    ]
    corpus = tmp_path / "crk.json"
    corpus.write_text(
        json.dumps(
            {
                "dataset": {
                    "id": "spec-example",
                    "version": "1.0",
                    "language_pair": "EN→CRK",
                    "source_language": "en",
                    "target_language": "crk",
                    "created": "2026-05-01",
                    "license": "CC-BY-NC-SA-4.0",
                    "provenance": ["gold_standard"],
                },
                "entries": entries,
            }
        ),
        encoding="utf-8",
    )
    probe = write_probe(pytester.path)
    # the plain runner: the test reads the method's call log, private in the sandbox
    pytester.runpytest(
        f"--mteval-corpus={corpus}", f"--mteval-method={probe}", "--mteval-sandbox=none"
    ).assert_outcomes(passed=1)
    (received,) = calls(probe)[0]["entries"]
    assert received == {
        "id": 1,
        "source": "I see the dog",
        "segment": "development",
        "difficulty": 2,
        "register": "conversational",
        "domain": "conv",
    }
    text = json.dumps(calls(probe), ensure_ascii=False)
    for secret in ("niwâpamâw", "atim", "1sg-see", "Animate"):
        assert secret not in text


def test_method_registered_by_a_conftest_hook(pytester, small_corpus):
    """A runner process imports a registered method's factory by its module and name, so the
    factory is a module-level function; the fixture gives the method's description there."""
    pytester.makeconftest(
        """
class Echo:
    async def translate(self, entries, config):
        return [{"id": e["id"], "predicted": config.method_args["prefix"] + e["source"]}
                for e in entries]

def make_echo(run_config):
    return Echo()

def pytest_mteval_methods(config):
    return {"echo": make_echo}
"""
    )
    pytester.makepyfile(
        test_mt=(
            "def test_prefix(mteval_result, mteval_method):\n"
            "    assert mteval_result['predicted'].startswith('>> ')\n"
            "    assert mteval_method.class_name == 'Echo'\n"
            "\n"
            "def test_translate_through_the_runner(mteval_method):\n"
            "    import asyncio\n"
            "    from pytest_mteval import RunConfig\n"
            "    entries = [{'id': 'x', 'source': 'a'}]\n"
            "    out = asyncio.run(mteval_method.translate(entries, RunConfig()))\n"
            "    assert [r['predicted'] for r in out] == ['>> a']\n"
        )
    )
    result = pytester.runpytest(
        f"--mteval-corpus={small_corpus}", "--mteval-method=echo", "--mteval-method-arg=prefix=>> "
    )
    result.assert_outcomes(passed=13)


def test_a_registered_lambda_runs_in_process_only(pytester, small_corpus):
    """A lambda cannot be named in another process: refused with one line in the default
    runner mode, and the method object itself is the fixture with --mteval-runner=inprocess."""
    pytester.makeconftest(
        """
class Echo:
    async def translate(self, entries, config):
        return [{"id": e["id"], "predicted": config.method_args["prefix"] + e["source"]}
                for e in entries]

def pytest_mteval_methods(config):
    return {"echo": lambda run_config: Echo()}
"""
    )
    pytester.makepyfile(
        test_mt=(
            "def test_prefix(mteval_result, mteval_method):\n"
            "    assert mteval_result['predicted'].startswith('>> ')\n"
            "    assert type(mteval_method).__name__ == 'Echo'\n"
        )
    )
    args = [
        f"--mteval-corpus={small_corpus}",
        "--mteval-method=echo",
        "--mteval-method-arg=prefix=>> ",
    ]
    refused = pytester.runpytest(*args)
    assert refused.ret == pytest.ExitCode.USAGE_ERROR
    refused.stderr.fnmatch_lines(["*cannot import*--mteval-runner=inprocess*"])
    assert "Traceback" not in refused.stderr.str()
    result = pytester.runpytest(*args, "--mteval-runner=inprocess")
    result.assert_outcomes(passed=12)


def test_lf_reruns_failed_entries_of_a_corpus_outside_the_rootdir_beside_failed_tests(
    pytester, small_corpus
):
    """A failed test in a file under the rootdir makes ``--lf`` skip every other file; the
    corpus (named ``../small.json``) must still be collected, its failed entries re-run."""
    pytester.makepyfile(
        test_user="def test_entry(mteval_entry):\n    assert str(mteval_entry.id) != '2'\n"
    )
    floor = "--mteval-entry-min-chrf=30"
    first = run(pytester, small_corpus, floor, "-p", "no:randomly")
    failed = sorted(line.split()[1] for line in first.outlines if line.startswith("FAILED"))
    entries = [nodeid for nodeid in failed if "::batch-" in nodeid]
    assert entries, "no entry fell under the floor: the test proves nothing"
    assert "test_user.py::test_entry[entry-2]" in failed
    again = run(pytester, small_corpus, floor, "-p", "no:randomly", "--lf")
    rerun = sorted(line.split()[1] for line in again.outlines if line.startswith("FAILED"))
    assert rerun == failed
