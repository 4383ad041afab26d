"""Issue 41, group 6: every reader of an evidence file survives bad input. A foreign card or
report with a string where a number belongs, a card whose ``method_args`` is a list, a sealed
review sample or a steward authorisation nested 100k deep, a 9 MiB chunked gateway body: each
ends in one line naming the file (or a 413), never a traceback. Hypothesis drives each reader
with mutated real files."""

from __future__ import annotations

import copy
import hashlib
import json
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_steward import provider, run, server, world  # noqa: F401  # fixtures

from pytest_mteval.cards import runcard
from pytest_mteval.cards.steward import StewardError, check_authorisation
from pytest_mteval.cli.main import main
from pytest_mteval.errors import MtevalError
from pytest_mteval.review.sealed_box import (
    generate_key_pair,
    load_private_key,
    load_public_key,
    seal,
)
from pytest_mteval.review.sealed_sample import open_sample
from pytest_mteval.run.gateway_request import BadRequest, parse_request
from pytest_mteval.sweep.reproduction import ReproductionError, reproduction_args

DATA = Path(__file__).parent / "data"
FOREIGN_CARD = DATA / "reference-harness" / "cards" / "peer_card_arb.json"
FOREIGN_REPORT = (
    DATA / "upstream-runs" / "run_20260612_124749_anthropic_claudehaiku45_naive_all_b25_ebf42b"
    "_report.json"
)
_COMPONENTS = {
    "dataset_sha256": ("dataset", "sha256"),
    "model_slug": ("model_slug",),
    "condition": ("condition",),
    "system_prompt_sha256": ("system_prompt_sha256",),
    "temperature": ("temperature",),
    "batch_size": ("batch_size",),
    "tools_enabled": ("tools_enabled",),
    "harness_version": ("harness_version",),
}
DEEP = 100_000

#: Any JSON value, small.
JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)  # fmt: skip


def rehashed(card: dict[str, Any]) -> dict[str, Any]:
    """A foreign card whose fingerprint and run_card_hash agree with its (edited) content, as
    a forger would make it: only the reader's robustness is left to stop it."""
    fingerprint = card.get("fingerprint")
    if isinstance(fingerprint, dict) and isinstance(fingerprint.get("components"), dict):
        for name, where in _COMPONENTS.items():
            value: Any = card
            for key in where:
                value = value.get(key) if isinstance(value, dict) else None
            fingerprint["components"][name] = value
        encoded = json.dumps(fingerprint["components"], sort_keys=True).encode()
        fingerprint["hash"] = hashlib.sha256(encoded).hexdigest()
    if isinstance(card.get("run_card_hash"), str):
        card["run_card_hash"] = runcard.card_hash(card)
    return card


def paths(value: Any, where: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in ``value`` a field can be replaced (lists: their first three items)."""
    found = [where] if where else []
    if isinstance(value, dict):
        for key, inner in value.items():
            found += paths(inner, (*where, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value[:3]):
            found += paths(inner, (*where, index))
    return found


def replaced(document: Any, where: tuple[Any, ...], value: Any) -> Any:
    out = copy.deepcopy(document)
    holder = out
    for key in where[:-1]:
        holder = holder[key]
    holder[where[-1]] = value
    return out


def one_line_or_ok(code: int, out: str, err: str) -> None:
    assert isinstance(code, int)
    assert "Traceback" not in out + err
    if code == 2:  # unusable: the reason is one line
        lines = [line for line in err.splitlines() if line.strip()]
        lines = lines or [line for line in out.splitlines() if line.strip()]
        assert lines, (out, err)


def commands(path: Path, tmp: Path) -> list[list[str]]:
    return [
        ["verify", str(path)],
        ["leaderboard", str(path)],
        ["report", str(path), "--html", str(tmp / "page.html")],
    ]


# --- foreign cards and reports -------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "where", "value"),
    [
        (FOREIGN_REPORT, ("entries", 0, "cost_usd"), "0.001"),
        (FOREIGN_REPORT, ("entries", 1, "latency_s"), "fast"),
        (FOREIGN_CARD, ("scores", "total"), "eight"),
        (FOREIGN_CARD, ("totals", "total_cost_usd"), "1.0"),
        (FOREIGN_CARD, ("scores", "errors"), "none"),
        (FOREIGN_CARD, ("model_id",), 7),
    ],
)
def test_a_string_where_a_number_belongs_is_one_line(tmp_path, capsys, source, where, value):
    document = json.loads(source.read_text(encoding="utf-8"))
    if where == ("scores", "total"):
        document["dataset"].pop("entry_count", None)  # then total is what counts the entries
    bad = replaced(document, where, value)
    path = tmp_path / "foreign.json"
    path.write_text(json.dumps(rehashed(bad) if source == FOREIGN_CARD else bad), "utf-8")
    for command in commands(path, tmp_path):
        code = main(command)
        captured = capsys.readouterr()
        one_line_or_ok(code, captured.out, captured.err)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_any_field_of_a_foreign_file_replaced_is_read_or_refused_in_one_line(
    tmp_path, capsys, data
):
    source = data.draw(st.sampled_from([FOREIGN_CARD, FOREIGN_REPORT]))
    document = json.loads(source.read_text(encoding="utf-8"))
    where = data.draw(st.sampled_from(paths(document)))
    bad = replaced(document, where, data.draw(JSON_VALUES))
    path = tmp_path / "foreign.json"
    path.write_text(json.dumps(rehashed(bad) if source == FOREIGN_CARD else bad), "utf-8")
    command = data.draw(st.sampled_from(commands(path, tmp_path)))
    code = main(command)
    captured = capsys.readouterr()
    one_line_or_ok(code, captured.out, captured.err)


# --- reproduce -----------------------------------------------------------------------------


def _card(corpus: Path) -> dict[str, Any]:
    return {
        "temperature": 0.0,
        "condition": "naive",
        "batch_size": 4,
        "dataset": {"path": str(corpus), "filters": {"domain": ["news"]}},
        "method": {"name": "identity", "run_config": {"method_args": {"mode": "x"}}},
    }


@pytest.mark.parametrize(
    ("where", "value", "says"),
    [
        (("method", "run_config", "method_args"), ["a", "b"], "method_args': must be an object"),
        (("method", "run_config", "method_args"), {"k": {"x": 1}}, "method_args.k': must be"),
        (("method", "run_config"), "fast", "'method.run_config': must be an object"),
        (("dataset", "filters"), ["news"], "'dataset.filters': must be an object"),
        (("dataset", "filters", "domain"), "news", "'dataset.filters.domain': must be a list"),
        (("dataset", "filters", "difficulty"), [{"a": 1}], "filters.difficulty': must be a list"),
        (("dataset", "segments"), 3, "'dataset.segments': must be an object"),
        (("method",), [], "'method': must be an object"),
    ],
)
def test_reproduce_refuses_an_odd_card_field_by_name(tmp_path, where, value, says):
    corpus = tmp_path / "c.json"
    corpus.write_text("{}", encoding="utf-8")
    with pytest.raises(ReproductionError, match=f"card.json: field .*{says[:12]}") as raised:
        reproduction_args(replaced(_card(corpus), where, value), "card.json", None)
    assert says in str(raised.value)
    assert "\n" not in str(raised.value)


@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_reproduction_args_of_any_card_is_options_or_one_line(tmp_path_factory, data):
    corpus = tmp_path_factory.mktemp("r") / "c.json"
    corpus.write_text("{}", encoding="utf-8")
    card = _card(corpus)
    where = data.draw(st.sampled_from([p for p in paths(card) if p[0] != "dataset" or
                                       p[:2] != ("dataset", "path")]))  # fmt: skip
    said = ""
    try:
        args = reproduction_args(replaced(card, where, data.draw(JSON_VALUES)), "card.json", None)
    except ReproductionError as exc:
        said, args = str(exc), []
    assert "\n" not in said
    assert all(isinstance(a, str) and "\n" not in a for a in args)


# --- deep files: review open, steward authorisation ------------------------------------------


def deep(depth: int = DEEP) -> bytes:
    return b'{"kind": ' + b"[" * depth + b"]" * depth + b"}"


def test_review_open_of_a_100k_deep_sealed_file_is_one_line(tmp_path):
    """`review open` parses a sealed file only once a trusted card names it (issue 41): the
    reader it then calls ends a 100k-deep document in one line, no RecursionError."""
    public = generate_key_pair(tmp_path / "steward.key")
    sealed = tmp_path / "review-x.sealed"
    sealed.write_bytes(seal(deep(), load_public_key(public)))
    with pytest.raises(MtevalError) as raised:
        open_sample(sealed, load_private_key(tmp_path / "steward.key"))
    said = str(raised.value)
    assert "\n" not in said
    assert str(sealed) in said
    assert "nested deeper than" in said


def test_review_open_without_the_card_that_names_the_file_is_a_usage_error(tmp_path):
    public = generate_key_pair(tmp_path / "steward.key")
    sealed = tmp_path / "review-x.sealed"
    sealed.write_bytes(seal(deep(), load_public_key(public)))
    done = subprocess.run(
        [sys.executable, "-m", "pytest_mteval.cli.main", "review", "open", str(sealed), "--key",
         str(tmp_path / "steward.key"), "--out", str(tmp_path / "sheets")],
        capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 2
    assert "Traceback" not in done.stderr + done.stdout
    assert "--card" in done.stderr
    assert not (tmp_path / "sheets").exists()


@settings(max_examples=40, deadline=None)
@given(document=JSON_VALUES)
def test_review_open_of_any_sealed_json_is_one_line(tmp_path_factory, document):
    folder = tmp_path_factory.mktemp("sealed")
    public = generate_key_pair(folder / "steward.key")
    sealed = folder / "review-x.sealed"
    sealed.write_bytes(seal(json.dumps(document).encode(), load_public_key(public)))
    with pytest.raises(MtevalError) as raised:
        open_sample(sealed, load_private_key(folder / "steward.key"))
    assert "\n" not in str(raised.value)


def test_a_200k_deep_steward_authorisation_is_a_usage_error(pytester, world, server):  # noqa: F811
    forged = pytester.path / "deep.json"
    forged.write_bytes(deep(200_000))
    result, card = run(
        pytester, world, server, f"--mteval-steward-authorisation={forged}",
        f"--mteval-steward-key={world['dir'] / 'steward.key.pub'}",
    )  # fmt: skip
    assert card is None
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "nested deeper than" in result.stderr.str()


@settings(max_examples=60, deadline=None)
@given(document=JSON_VALUES)
def test_any_steward_document_is_refused_in_one_line(tmp_path_factory, document):
    folder = tmp_path_factory.mktemp("auth")
    path = folder / "auth.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    key = folder / "steward.pub"
    key.write_text("not a key", encoding="utf-8")
    with pytest.raises(StewardError) as raised:
        check_authorisation(path, key, "0" * 64, "1" * 64, datetime.now(UTC), "this run")
    assert "\n" not in str(raised.value)


# --- gateway bodies --------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(document=JSON_VALUES)
def test_any_gateway_body_is_a_request_or_a_one_line_refusal(document):
    said = ""
    try:
        parse_request(json.dumps(document).encode(), ["allowed/model"], 4096)
    except BadRequest as exc:
        said = str(exc)
    assert "\n" not in said


def test_a_9_mib_chunked_body_gets_a_413_not_a_broken_pipe(tmp_path):
    """A client that writes its whole body before reading (as most do): the gateway reads
    and drops the rest after its 413, so the write completes and the answer is read."""
    from chat_server import ChatServer
    from gateway_raw import Reader, connect, request, start

    chunk = b"x" * (1024 * 1024)
    framed = f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n"
    with ChatServer() as upstream:
        gateway = start(tmp_path, upstream.url)
        try:
            with connect(gateway) as sock:
                sock.sendall(request(b"", chunked=True))
                for _ in range(9):
                    sock.sendall(framed)  # BrokenPipeError here was the attack
                sock.sendall(b"0\r\n\r\n")
                answer = Reader(sock).answer()
        finally:
            gateway.close()
        assert answer is not None
        assert answer.status == 413
        assert "over the gateway's" in answer.json()["error"]["message"]
        assert upstream.requests == []


def test_httpx_streaming_a_9_mib_body_reads_the_413(tmp_path):
    from chat_server import ChatServer
    from gateway_raw import start

    def body():  # chunked: no Content-Length to refuse up front
        for _ in range(9):
            yield b"x" * (1024 * 1024)

    with ChatServer() as upstream:
        gateway = start(tmp_path, upstream.url)
        try:
            with httpx.Client(transport=httpx.HTTPTransport(uds=str(gateway.socket_path))) as c:
                answer = c.post("http://gateway/v1/chat/completions", content=body())
        finally:
            gateway.close()
    assert answer.status_code == 413


# --- the other readers of evidence: a validation record beside a card, the runs index ------


def test_a_deep_human_validation_record_beside_a_card_earns_nothing(tmp_path, capsys):
    """The one verifier reads no plain record beside a card (issue 41): a 100k-deep one is
    neither parsed into a RecursionError nor worth a tier."""
    from leaderboard_cards import session_card

    from pytest_mteval.cards.verification_tier import sidecar_path

    card = tmp_path / "card.json"
    card.write_bytes(session_card("haiku").read_bytes())
    sidecar_path(card).write_bytes(deep())
    code = main(["leaderboard", str(card)])
    captured = capsys.readouterr()
    assert code == 0
    assert "Traceback" not in captured.out + captured.err
    assert "community-validated" not in captured.out
    assert "plain human-validation record is not signed by a governance key" in captured.out


def test_a_deep_line_in_the_runs_index_is_left_out(tmp_path, capsys):
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "index.jsonl").write_bytes(deep() + b"\n")
    assert main(["runs", "--dir", str(runs)]) in (0, 1)
    assert "Traceback" not in capsys.readouterr().err
