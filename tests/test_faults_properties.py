"""Property tests: whatever bytes a corpus or a run card holds, the corpus loader and
``mteval verify`` end in the project's own error type (one line), never in anything else.

Inputs are generated as JSON documents shaped like the real files (every field of the spec's
envelope and of the reference harness's shape, each either well-typed or any JSON value,
lone surrogates included) and as hostile texts (deep nesting, 5,000-digit integers, NaN,
random bytes). Each test counts the inputs it ran and checks the count, so the number the
suite claims is the number it ran.
"""

from __future__ import annotations

import contextlib
import io
import json
import tempfile
from pathlib import Path
from typing import Any

import pytest

# hypothesis comes with the dev extra; a bare `pip install -e .` run must still collect this
pytest.importorskip("hypothesis")

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_mteval.cards import runcard
from pytest_mteval.cards.baseline import read_run
from pytest_mteval.cli.main import main as mteval_main
from pytest_mteval.corpus import DOMAINS, load_corpus
from pytest_mteval.errors import MtevalError
from pytest_mteval.metrics.resources import corpus_resources

CORPUS_EXAMPLES = 3000
CARD_EXAMPLES = 2500
BASELINE_EXAMPLES = 1000


def fast(examples: int) -> settings:
    return settings(
        max_examples=examples,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


leaves = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
    st.sampled_from(["", "   ", "\ud800", "a\udfffb", "/dev/zero", "../../etc/passwd", "\u200b"]),
)
json_values = st.recursive(
    leaves,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)


def either(good: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """A well-typed value most of the time, any JSON value otherwise."""
    return st.one_of(good, good, json_values)


text = st.text(min_size=0, max_size=20)
entry = st.fixed_dictionaries(
    {"id": either(st.integers(0, 50) | st.text(max_size=4)), "source": either(text)},
    optional={
        "reference": either(text),
        "segment": either(st.sampled_from(["development", "held_out", "nope"])),
        "difficulty": either(st.integers(-1, 7)),
        "domain": either(st.sampled_from(sorted(DOMAINS))),
        "provenance": either(text),
        "register": either(text),
        "context": either(text),
        "variants": either(st.lists(text, max_size=2)),
        "terms": either(st.dictionaries(text, text, max_size=2)),
        "metadata": json_values,
    },
)
dataset = st.fixed_dictionaries(
    {
        name: either(text)
        for name in ("id", "version", "language_pair", "source_language", "target_language")
    },
    optional={
        "created": either(text),
        "license": either(text),
        "provenance": either(st.lists(text, max_size=2)),
        "language_resources": either(st.sampled_from(["res.json", "/dev/zero", "../x.json"])),
    },
)
spec_corpus = st.fixed_dictionaries(
    {"dataset": either(dataset), "entries": either(st.lists(either(entry), max_size=4))}
)
harness_entry = st.fixed_dictionaries(
    {"id": either(st.integers(0, 50)), "source": either(text), "reference": either(text)},
    optional={
        "provenance": either(
            st.fixed_dictionaries({}, optional={"source_name": json_values, "license": json_values})
        ),
        "metadata": either(st.fixed_dictionaries({}, optional={"provenance": json_values})),
        "segment": json_values,
    },
)
harness_corpus = st.fixed_dictionaries(
    {"corpus_id": either(text), "entries": either(st.lists(either(harness_entry), max_size=4))},
    optional={
        "language_pair": either(
            st.fixed_dictionaries({"source": json_values, "target": json_values})
        ),
        "version": json_values,
        "created": json_values,
        "segment": json_values,
    },
)
hostile_texts = st.one_of(
    st.integers(1, 3000).map(lambda n: "[" * n + "]" * n),
    st.integers(1, 3000).map(lambda n: '{"a":' * n + "1" + "}" * n),
    st.integers(300, 6000).map(lambda n: '{"entries": [], "dataset": ' + "9" * n + "}"),
    st.sampled_from(["NaN", '{"entries": [Infinity]}', '"\\ud800"', "", "{", "[]", "null"]),
)
documents = st.one_of(
    st.one_of(spec_corpus, harness_corpus, json_values).map(lambda d: json.dumps(d).encode()),
    hostile_texts.map(str.encode),
    st.binary(max_size=64),
)


def test_the_corpus_loader_raises_only_its_own_error() -> None:
    ran = 0
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "corpus.json"
        (Path(folder) / "res.json").write_text('{"language": "fra"}', encoding="utf-8")

        @fast(CORPUS_EXAMPLES)
        @given(documents)
        def load(data: bytes) -> None:
            nonlocal ran
            ran += 1
            path.write_bytes(data)
            try:
                corpus = load_corpus(path)
                corpus_resources(corpus)
            except MtevalError as exc:
                message = str(exc)
                assert "\n" not in message
                assert message.startswith(str(path))
                return
            assert all(e.source.strip() and e.reference.strip() for e in corpus.entries)

        load()
    assert ran >= CORPUS_EXAMPLES


def card_template() -> dict[str, Any]:
    card: dict[str, Any] = {
        "run_id": "run",
        "harness_version": "0.0",
        "timestamp": "2026-12-01T00:00:00+00:00",
        "elapsed_seconds": 1.0,
        "model_slug": "method:probe",
        "condition": "baseline",
        "temperature": 0.0,
        "system_prompt_sha256": "0" * 64,
        "system_prompt_used": "",
        "tools_enabled": ["fst"],
        "batch_size": 2,
        "dataset": {
            "id": "d",
            "version": "1",
            "language_pair": "ENG→FRA",
            "sha256": "a" * 64,
            "entry_count": 1,
        },
        "scores": {
            "total": 1,
            "errors": 0,
            "exact_matches": 0,
            "exact_match_rate": 0.0,
            "chrf_plus_plus": 50.0,
        },
        "totals": {"prompt_tokens": 3},
        "results": [
            {
                "entry_id": "1",
                "source": "s",
                "expected": "e",
                "predicted": "p",
                "exact_match": False,
                "chrf_score": 50.0,
                "bleu_score": 10.0,
                "error": None,
            }
        ],
        "fingerprint": "",
        "run_card_hash": "",
    }
    return runcard.seal(card)


def paths_of(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(value, dict):
        for key, inner in value.items():
            found += paths_of(inner, (*prefix, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            found += paths_of(inner, (*prefix, index))
    return found


TEMPLATE = card_template()
CARD_PATHS = [p for p in paths_of(TEMPLATE) if p]


@st.composite
def mutated_cards(draw: st.DrawFn) -> bytes:
    """A valid card with one value replaced or removed, resealed half of the time (so the
    schema is reached, not only the hash check)."""
    card = json.loads(json.dumps(TEMPLATE))
    path = draw(st.sampled_from(CARD_PATHS))
    parent = card
    for part in path[:-1]:
        parent = parent[part]
    if draw(st.booleans()) and isinstance(parent, dict):
        del parent[path[-1]]
    else:
        parent[path[-1]] = draw(json_values)
    if draw(st.booleans()):
        with contextlib.suppress(Exception):  # the test's own reseal may fail on a broken card
            runcard.seal(card)
    return json.dumps(card).encode()


def test_mteval_verify_answers_every_input_with_one_line() -> None:
    ran = 0
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "card.json"

        @fast(CARD_EXAMPLES)
        @given(st.one_of(mutated_cards(), mutated_cards(), documents))
        def verify(data: bytes) -> None:
            nonlocal ran
            ran += 1
            path.write_bytes(data)
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                code = mteval_main(["verify", str(path)])
            lines = out.getvalue().splitlines()
            # OK adds a line about the signature and one about the code hash; INVALID is one
            assert len(lines) == (3 if code == 0 else 1)
            assert (code, lines[0].split()[0]) in {(0, "OK"), (1, "INVALID")}

        verify()
    assert ran >= CARD_EXAMPLES


harness_report_entry = st.fixed_dictionaries(
    {"id": either(st.integers(0, 9) | text)},
    optional={
        name: either(text)
        for name in ("source", "expected", "predicted", "error", "latency_s", "cost_usd")
    },
)
harness_reports = st.fixed_dictionaries(
    {
        "entries": st.lists(either(harness_report_entry), max_size=3),
        "overall": st.fixed_dictionaries(
            {}, optional={"corpus_chrf": json_values, "confidence_intervals": json_values}
        ),
    },
    optional={"config": json_values},
)


def test_a_baseline_file_raises_only_the_projects_error() -> None:
    ran = 0
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "baseline.json"

        @fast(BASELINE_EXAMPLES)
        @given(st.one_of(harness_reports.map(lambda d: json.dumps(d).encode()), mutated_cards()))
        def read(data: bytes) -> None:
            nonlocal ran
            ran += 1
            path.write_bytes(data)
            try:
                read_run(path)
            except MtevalError as exc:
                message = str(exc)
                assert "\n" not in message

        read()
    assert ran >= BASELINE_EXAMPLES
