"""Property test: whatever a bundle's BUNDLE.json and cost report hold, ``mteval bundle
check`` answers with PROBLEM lines, one line each, never a traceback. The inputs it ran are
counted, so the number claimed is the number run."""

from __future__ import annotations

import contextlib
import io
import json
import tarfile
import tempfile
from pathlib import Path

import pytest

pytest.importorskip("hypothesis")

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_mteval.cli.main import main

EXAMPLES = 400

leaves = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=8),
    st.sampled_from(["card.json", "method/method.json", "../x", "0" * 64, "\ud800"]),
)
values = st.recursive(
    leaves,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=12,
)
file_tables = st.dictionaries(
    st.sampled_from(["card.json", "cost-report.json", "method/method.json", "x"]),
    st.one_of(values, st.fixed_dictionaries({"size": values, "sha256": values})),
    max_size=3,
)
indexes = st.one_of(
    values,
    st.fixed_dictionaries(
        {"files": st.one_of(file_tables, values)},
        optional={"run_card_hash": values, "format": values},
    ),
)
texts = st.one_of(
    indexes.map(lambda v: json.dumps(v).encode("utf-8", "surrogatepass")),
    st.binary(max_size=64),
    st.integers(1, 3000).map(lambda n: b"[" * n + b"]" * n),
)


def test_bundle_check_answers_every_index_with_problem_lines() -> None:
    ran = 0
    with tempfile.TemporaryDirectory() as folder:
        bundle = Path(folder) / "b.tar.gz"

        @settings(
            max_examples=EXAMPLES,
            deadline=None,
            database=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        )
        @given(texts, texts)
        def check(index: bytes, report: bytes) -> None:
            nonlocal ran
            ran += 1
            with tarfile.open(bundle, "w:gz") as tar:
                for name, data in (("BUNDLE.json", index), ("cost-report.json", report)):
                    info = tarfile.TarInfo(name)
                    info.size = len(data)
                    tar.addfile(info, io.BytesIO(data))
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                code = main(["bundle", "check", str(bundle)])
            lines = out.getvalue().splitlines()
            assert code == 1
            assert lines
            assert all(line.startswith(f"PROBLEM {bundle}") for line in lines), lines

        check()
    assert ran >= EXAMPLES
