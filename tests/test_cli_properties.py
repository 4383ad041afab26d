"""Property tests over every ``mteval`` subcommand that reads a user's file (issue 21): whatever
the file holds (any JSON value, a real card with one field of the wrong type, a truncated file,
deep nesting, 5,000-digit numbers, NaN, bytes that are not UTF-8, nothing at all), the command
ends with a documented exit status and a short message, never a traceback.

The commands run in process (``main(argv)``) for speed. Each case counts the inputs it ran and
checks the count, so that a case cannot pass by running nothing. The inputs that once ended in
a traceback are tried first in every run (``known``).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

pytest.importorskip("hypothesis")

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from test_faults_properties import TEMPLATE, documents, either, json_values, mutated_cards
from trust_keys import private

from pytest_mteval.cli.main import main as mteval_main
from pytest_mteval.run.gateway_audit_log import GENESIS

#: Inputs per case. MTEVAL_CLI_EXAMPLES=500 explores further, with new inputs each run; the
#: default (CI) run is the same every time.
EXAMPLES = int(os.environ.get("MTEVAL_CLI_EXAMPLES", "40"))
EXPLORE = "MTEVAL_CLI_EXAMPLES" in os.environ
#: Exit statuses docs/security.md documents for a refused input: 1 (invalid, refused) and 2
#: (unreadable, usage); 0 when a mutated card happens to be valid.
ERRORS = frozenset({1, 2})

CARD = json.dumps(TEMPLATE).encode()
special = st.sampled_from(
    [
        b"",
        b"\n",
        b"\xff\xfe\x00{}",
        b'{"a": "\xc3\x28"}',
        b"1" * 5000,
        b"1e400",
        b'{"scores": NaN}',
        b"[" * 100_000,
        b'{"a":' * 50_000,
        b"\x00" * 64,
    ]
)
truncated = st.integers(0, len(CARD) - 1).map(lambda n: CARD[:n])
#: A file of any kind, JSON-shaped most of the time.
anything = st.one_of(documents, mutated_cards(), truncated, special)
texts = st.one_of(
    st.text(max_size=200).map(lambda t: t.encode("utf-8", "surrogatepass")),
    st.binary(max_size=200),
    special,
)
csv_rows = st.lists(
    st.lists(st.text(max_size=8).filter(lambda t: "\x00" not in t), min_size=1, max_size=5),
    max_size=5,
)
csvs = st.one_of(
    csv_rows.map(lambda rows: "\n".join(",".join(r) for r in rows).encode()),
    st.tuples(st.sampled_from(["sample_id,entry_id,reviewer,rating\n", ""]), csv_rows).map(
        lambda p: (p[0] + "\n".join(",".join(r) for r in p[1])).encode()
    ),
    texts,
)
toml_scalars = st.one_of(
    st.integers(-(2**70), 2**70).map(str),
    st.sampled_from(["nan", "inf", "-inf", "1e400", "0.5", "true", "1979-05-27"]),
    st.text(max_size=8).map(json.dumps),
)
toml_values = st.recursive(
    toml_scalars, lambda inner: st.lists(inner, max_size=3).map(lambda v: f"[{', '.join(v)}]")
)


def _table(name: str, keys: list[str]) -> st.SearchStrategy[str]:
    return st.dictionaries(st.sampled_from(keys), toml_values, max_size=len(keys)).map(
        lambda d: f"[{name}]\n" + "".join(f"{k} = {v}\n" for k, v in d.items())
    )


#: A sweep file: its tables and keys, each value any TOML value.
sweeps = st.lists(
    st.one_of(
        _table("sweep", ["corpus", "method", "budget_usd", "concurrency", "runs_at_once", "name"]),
        _table("axes", ["temperature", "batch_size", "corpus"]),
        _table("method_args", ["model", "x"]),
        _table("[exclude]", ["temperature", "model"]),
    ),
    max_size=4,
).map(lambda tables: "".join(tables).encode("utf-8", "surrogatepass"))
index_lines = st.lists(
    st.one_of(
        json_values.map(json.dumps),
        st.fixed_dictionaries(
            {"path": st.just("{card}")},
            optional={k: json_values for k in ("run_id", "complete", "composite", "timestamp")},
        ).map(json.dumps),
    ),
    max_size=4,
).map(lambda lines: "\n".join(lines).encode())


#: Audit log lines with the chain's fields, each well-typed or any JSON value.
audit_lines = st.lists(
    st.fixed_dictionaries(
        {"seq": either(st.integers(0, 3)), "prev": either(st.just(GENESIS))},
        optional={"kind": json_values, "status": json_values},
    ).map(json.dumps),
    max_size=4,
).map(lambda lines: "\n".join(lines).encode())
#: A BUNDLE.json listing files, each entry well-typed or any JSON value.
bundle_index = st.fixed_dictionaries(
    {
        "files": either(
            st.dictionaries(
                st.sampled_from(["card.json", "x", "../y"]),
                either(
                    st.fixed_dictionaries(
                        {"sha256": either(st.text(max_size=4)), "size": either(st.integers())}
                    )
                ),
                max_size=2,
            )
        )
    }
).map(lambda d: json.dumps(d).encode())


@st.composite
def tarballs(draw: st.DrawFn) -> bytes:
    """A gzipped tar whose BUNDLE.json (and card) are any file of ``anything``."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for name in draw(st.sets(st.sampled_from(["BUNDLE.json", "card.json", "x"]), max_size=3)):
            data = draw(st.one_of(bundle_index, anything) if name == "BUNDLE.json" else anything)
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


Runner = Callable[[list[str]], tuple[int, str, str]]


def _spawn(argv: list[str]) -> tuple[int, str, str]:
    """``mteval ARGV`` as a process (a command that starts one: in process misses its output)."""
    done = subprocess.run(
        [sys.executable, "-m", "pytest_mteval.cli.main", *argv], capture_output=True, text=True
    )
    return done.returncode, done.stdout, done.stderr


def _run(argv: list[str]) -> tuple[int, str, str]:
    """``mteval ARGV`` in process: exit status, stdout, stderr. An exception is a traceback:
    it is returned as one on stderr so that the property names it."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = mteval_main(argv)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 2
        except Exception as exc:  # the deepest frame of ours names the fault
            ours = [
                f for f in traceback.extract_tb(exc.__traceback__) if "pytest_mteval" in f.filename
            ]
            where = f"{ours[-1].filename}:{ours[-1].lineno}" if ours else "?"
            err.write(f"Traceback at {where}: {type(exc).__name__}: {str(exc)[:200]}\n")
            code = -1
    return code, out.getvalue(), err.getvalue()


def _pytest(argv: list[str]) -> tuple[int, str, str]:
    """``pytest ARGV`` in process: what ``mteval sweep`` runs, without the process."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = int(pytest.main([*argv, "-p", "no:cacheprovider"]))
    return code, out.getvalue(), err.getvalue()


@dataclass(frozen=True)
class Case:
    """One command line; ``{bad}`` is the generated file, ``{card}`` a valid card, ``{out}`` a
    fresh folder, ``{dir}`` the folder holding ``{bad}``."""

    argv: tuple[str, ...]
    inputs: st.SearchStrategy[bytes] = anything
    bad: str = "input.json"
    codes: frozenset[int] = ERRORS
    #: Inputs always tried first: each ended in a traceback once.
    known: tuple[bytes, ...] = ()
    examples: int = EXAMPLES
    runner: Runner = _run

    @property
    def id(self) -> str:
        return " ".join(self.argv)


def bundle_of(data: bytes) -> bytes:
    """A gzipped tar holding ``data`` as its BUNDLE.json."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        info = tarfile.TarInfo("BUNDLE.json")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


DEEP = b"[" * 100_000


CASES = [
    Case(("verify", "{bad}")),
    Case(("verify", "{card}", "--public-key", "{bad}"), texts),
    Case(("show", "{bad}")),
    Case(("show", "latest", "--dir", "{dir}"), index_lines, bad="index.jsonl"),
    Case(
        ("runs", "--dir", "{dir}"),
        index_lines,
        bad="index.jsonl",
        codes=frozenset({0}),  # unreadable rows are shown as "?" or left out, never refused
        known=(b'{"path": "{card}", "composite": []}', b'{"path": "{card}", "composite_ci": "ab"}'),
    ),
    Case(("compare", "{card}", "{bad}")),
    Case(("compare", "{bad}", "{card}")),
    Case(("report", "{bad}", "--html", "{out}/r.html")),
    Case(("report", "{card}", "--html", "{out}/r.html", "--baseline", "{bad}")),
    Case(("leaderboard", "{bad}")),
    Case(("leaderboard", "{bad}", "--html", "{out}/l.html")),
    Case(("matrix", "{bad}")),
    Case(("corpus", "lint", "{bad}")),
    Case(("corpus", "stats", "{bad}")),
    Case(("corpus", "rotate", "{bad}", "--seed", "1", "--move", "1", "-o", "{out}/r.json")),
    Case(("corpus", "encrypt", "{bad}", "{out}/c.enc", "--key-file", "{out}/k", "--new-key")),
    Case(("corpus", "decrypt", "{bad}", "-", "--key-file", "{key}"), texts),
    Case(("corpus", "decrypt", "{enc}", "-", "--key-file", "{bad}"), texts, bad="key"),
    Case(("corpus", "import", "{bad}", "-o", "{out}/c.json", "--format", "harness")),
    Case(("corpus", "import", "{bad}", "-o", "{out}/c.json", "--format", "csv"), csvs, "a.csv"),
    Case(("corpus", "import", "{bad}", "-o", "{out}/c.json", "--format", "tsv"), csvs, "a.tsv"),
    Case(
        ("corpus", "import", "{bad}", "{bad}", "-o", "{out}/c.json", "--format", "parallel"), texts
    ),
    Case(("review", "sample", "{bad}", "--out", "{out}")),
    Case(
        ("review", "ingest", "{card}", "{bad}", "--out", "{out}", "--sign-key", "{gov}"),
        csvs,
        "r.csv",
        known=(b"sample_id,entry_id,reviewer,rating\n" + b"a" * 140_000,),
    ),
    Case(("review", "ingest", "{bad}", "{ratings}", "--out", "{out}", "--sign-key", "{gov}")),
    Case(
        ("bundle", "check", "{bad}"),
        st.one_of(tarballs(), texts),
        "b.tar.gz",
        known=(bundle_of(b'{"files": null}'), bundle_of(DEEP)),
    ),
    Case(
        ("audit-log", "verify", "{bad}"),
        st.one_of(audit_lines, anything, index_lines),
        "log.jsonl",
        known=(DEEP,),  # run/gateway_audit_log.py: RecursionError is "not JSON" too
    ),
    Case(
        ("audit-log", "verify", "{log}", "--card", "{bad}"),
        known=(DEEP,),
    ),
    # `mteval sweep` runs `pytest --mteval-sweep`: once as the command, then in process
    Case(
        ("sweep", "--dry-run", "{bad}"), sweeps, "s.toml", frozenset({4}), examples=1, runner=_spawn
    ),
    Case(
        ("--mteval-sweep={bad}", "--mteval-dry-run"),
        st.one_of(sweeps, texts),
        "s.toml",
        frozenset({4}),
        runner=_pytest,
    ),
    Case(("audit", "{dir}"), bad="method.json"),
    Case(("publish", "{bad}", "--url", "http://127.0.0.1:9/", "--retries", "0")),
]


def _fixed(folder: Path) -> dict[str, str]:
    """The valid files a case names besides the generated one."""
    card = folder / "card.json"
    card.write_bytes(CARD)
    key, enc, log = folder / "corpus.key", folder / "corpus.enc", folder / "audit.jsonl"
    corpus = folder / "corpus.json"
    corpus.write_text(json.dumps(_corpus()), encoding="utf-8")
    _run(["corpus", "encrypt", str(corpus), str(enc), "--key-file", str(key), "--new-key"])
    log.write_text("", encoding="utf-8")
    ratings = folder / "ratings.csv"
    ratings.write_text("sample_id,entry_id,reviewer,rating\ns,1,ana,4\n", encoding="utf-8")
    return {
        "card": str(card),
        "key": str(key),
        "enc": str(enc),
        "log": str(log),
        "ratings": str(ratings),
        "gov": str(private("governance")),  # the key `review ingest` signs with
    }


def _corpus() -> dict[str, object]:
    from conftest import envelope, flores_entries

    return envelope(flores_entries(2))


def _check(case: Case) -> Callable[[Path], int]:
    def run(tmp_path: Path) -> int:
        fixed = _fixed(tmp_path)
        ran = 0

        @settings(
            max_examples=case.examples,
            deadline=None,
            database=None,
            derandomize=not EXPLORE,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        )
        @given(case.inputs)
        def one(data: bytes) -> None:
            nonlocal ran
            ran += 1
            folder = Path(tempfile.mkdtemp(dir=tmp_path))
            bad = folder / case.bad
            bad.write_bytes(data.replace(b"{card}", fixed["card"].encode()))
            names = {**fixed, "bad": str(bad), "dir": str(folder), "out": str(folder / "out")}
            (folder / "out").mkdir()
            argv = [part.format(**names) for part in case.argv]
            code, out, err = case.runner(argv)
            assert "Traceback" not in out + err, err[-600:]
            assert len(err.splitlines()) <= 3, err[-600:]
            assert code in case.codes | {0}, (code, out[-300:], err[-300:])
            if code != 0:
                assert (out + err).strip(), "refused without a word"

        for data in case.known:
            one = example(data)(one)
        one()
        return ran

    return run


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in CASES])
def test_a_command_answers_every_file_with_a_short_message(case: Case, tmp_path: Path) -> None:
    ran = _check(case)(tmp_path)
    assert ran >= case.examples + len(case.known)
