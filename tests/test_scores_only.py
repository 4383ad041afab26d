"""Scores-only cards (`--mteval-scores-only`, secret segments): ids, scores and flags come
back, no text; the gate, the per-entry regressions and `mteval compare` still work on them."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import CORPORA, DATA, METHODS, envelope, flores_entries
from methods_for_tests import write_probe
from test_gate_session import failed_entry_ids, regressed_ids

pytest_plugins = ["pytester"]

RUNS = DATA / "upstream-runs"
GPT55 = RUNS / "run_20260612_124749_openai_gpt55_naive_all_b25_7dda70_report.json"
HAIKU = RUNS / "run_20260612_124749_anthropic_claudehaiku45_naive_all_b25_ebf42b_report.json"
SNA = CORPORA / "eng-sna-tatoeba-dev.json"


def mteval(*args):
    return subprocess.run(
        [sys.executable, "-m", "pytest_mteval.cli.main", *args], capture_output=True, text=True
    )


def replay(pytester, predictions, *args):
    return pytester.runpytest(
        f"--mteval-corpus={SNA}",
        f"--mteval-method={METHODS / 'replay'}",
        f"--mteval-method-arg=predictions={predictions}",
        *args,
    )


def texts():
    """Every source and reference of the corpus, and every prediction of both reports."""
    out = set()
    for entry in json.loads(SNA.read_text(encoding="utf-8"))["entries"]:
        out |= {entry["source"], entry["reference"]}
    for report in (GPT55, HAIKU):
        for entry in json.loads(report.read_text(encoding="utf-8"))["entries"]:
            if entry.get("predicted"):
                out.add(entry["predicted"])
    return {t for t in out if len(t) >= 4}  # shorter strings occur in any JSON by chance


def leaked(blob: str) -> list[str]:
    return sorted(t for t in texts() if t in blob or json.dumps(t)[1:-1] in blob)


@pytest.fixture
def cards(pytester):
    """Both runs as plain cards and as scores-only cards."""
    out = {}
    for name, report in (("a", GPT55), ("b", HAIKU)):
        for mode in ("plain", "secret"):
            path = pytester.path / f"{name}-{mode}.json"
            extra = ["--mteval-scores-only"] if mode == "secret" else []
            replay(pytester, report, f"--mteval-run-card={path}", *extra)
            out[name, mode] = path
    return out


def test_a_scores_only_card_holds_no_text_and_the_same_scores(cards):
    plain = json.loads(cards["b", "plain"].read_text(encoding="utf-8"))
    raw = cards["b", "secret"].read_text(encoding="utf-8")
    secret = json.loads(raw)
    assert leaked(raw) == []
    assert leaked(cards["b", "plain"].read_text(encoding="utf-8"))  # the plain card has them
    assert secret["redaction"]["reasons"] == ["--mteval-scores-only"]
    for key in ("composite", "chrf_plus_plus", "bleu", "ter", "exact_match_rate", "errors"):
        assert secret["scores"][key] == plain["scores"][key]
    assert [r["entry_id"] for r in secret["results"]] == [r["entry_id"] for r in plain["results"]]
    for mine, theirs in zip(secret["results"], plain["results"], strict=True):
        assert mine["source"] is mine["expected"] is mine["predicted"] is None
        assert mine["text_withheld"] is True
        assert mine["chrf_score"] == theirs["chrf_score"]
        assert (mine["error"] is None) == (theirs["error"] is None)
    assert secret["flags"] == plain["flags"]
    assert mteval("verify", str(cards["b", "secret"])).returncode == 0


def _table(stdout: str, *paths) -> list[str]:
    """The metric table and verdict of `mteval compare`, card paths left out."""
    lines = []
    for line in stdout.splitlines():
        if line.startswith("entries that"):
            break
        for path in paths:
            line = line.replace(str(path), "<card>")
        lines.append(line)
    return lines


def test_compare_gives_the_same_verdict_on_scores_only_cards(cards):
    plain = mteval("compare", str(cards["a", "plain"]), str(cards["b", "plain"]))
    secret = mteval("compare", str(cards["a", "secret"]), str(cards["b", "secret"]))
    assert plain.returncode == secret.returncode == 1  # HAIKU regresses GPT-5.5
    assert _table(secret.stdout, *cards.values()) == _table(plain.stdout, *cards.values())
    assert "(text withheld)" in secret.stdout  # the entry listing says so instead of quoting
    assert leaked(secret.stdout) == []
    mixed = mteval("compare", str(cards["a", "secret"]), str(cards["b", "plain"]))
    assert _table(mixed.stdout, *cards.values()) == _table(plain.stdout, *cards.values())


def test_the_gate_and_its_entries_work_against_a_scores_only_baseline(pytester):
    baseline = pytester.path / "baseline.json"
    first = replay(
        pytester,
        GPT55,
        "--mteval-scores-only",
        f"--mteval-baseline={baseline}",
        "--mteval-update-baseline",
    )
    assert first.ret == 0
    assert leaked(baseline.read_text(encoding="utf-8")) == []
    result = replay(pytester, HAIKU, "--mteval-scores-only", f"--mteval-baseline={baseline}", "-rf")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*mteval gate*", "*composite*FAIL*"])
    expected = regressed_ids(GPT55, HAIKU)
    assert expected
    assert failed_entry_ids(result) == expected
    output = result.stdout.str()
    result.stdout.fnmatch_lines(["*regressed:*", "*chrF++ dropped*", "*withheld (secret run*"])
    assert "Traceback" not in output
    assert leaked(output) == []
    # a run in the clear is gated against the scores-only baseline alike
    clear = replay(pytester, HAIKU, f"--mteval-baseline={baseline}")
    assert clear.ret == pytest.ExitCode.TESTS_FAILED
    assert failed_entry_ids(clear) == expected


def test_secret_segments_withhold_text_without_the_option(pytester):
    entries = flores_entries(4)
    entries[0]["segment"] = "held_out"
    corpus = pytester.path / "mixed.json"
    corpus.write_text(json.dumps(envelope(entries), ensure_ascii=False), encoding="utf-8")
    card = pytester.path / "card.json"
    pytester.runpytest(
        f"--mteval-corpus={corpus}",
        f"--mteval-method={METHODS / 'identity'}",
        f"--mteval-run-card={card}",
        "--mteval-activate-held-out",  # reserved otherwise (spec §2.3)
    ).assert_outcomes(passed=4)
    loaded = json.loads(card.read_text(encoding="utf-8"))
    assert loaded["redaction"]["reasons"] == ["secret segment(s) held_out"]
    assert all(row["source"] is None for row in loaded["results"])
    # the development entries alone are not secret
    dev = pytester.path / "dev.json"
    pytester.runpytest(
        f"--mteval-corpus={corpus}",
        f"--mteval-method={METHODS / 'identity'}",
        f"--mteval-run-card={dev}",
        "--mteval-segment=development",
    ).assert_outcomes(passed=3)
    assert "redaction" not in json.loads(dev.read_text(encoding="utf-8"))


#: A method answering every entry with one sentence: the run's flags quote that output.
CONSTANT = """
class Probe:
    async def translate(self, entries, config):
        return [{"id": e["id"], "predicted": "Le chat dort sur le canapé."} for e in entries]
"""


def test_flags_keep_their_code_and_entries_but_quote_no_output(pytester):
    corpus = pytester.path / "c.json"
    corpus.write_text(json.dumps(envelope(flores_entries(6)), ensure_ascii=False), "utf-8")
    method = write_probe(pytester.path, CONSTANT)
    cards = {}
    for mode in ("plain", "secret"):
        cards[mode] = pytester.path / f"{mode}.json"
        result = pytester.runpytest(
            f"--mteval-corpus={corpus}",
            f"--mteval-method={method}",
            f"--mteval-run-card={cards[mode]}",
            *(["--mteval-scores-only"] if mode == "secret" else []),
        )
    plain = json.loads(cards["plain"].read_text(encoding="utf-8"))
    secret_raw = cards["secret"].read_text(encoding="utf-8")
    secret = json.loads(secret_raw)
    codes = {flag["code"] for flag in plain["flags"]}
    assert "repeated_output" in codes
    assert any("Le chat dort" in flag["message"] for flag in plain["flags"])  # it does quote
    assert {flag["code"] for flag in secret["flags"]} == codes
    assert [f["entry_ids"] for f in secret["flags"]] == [f["entry_ids"] for f in plain["flags"]]
    assert "chat dort" not in secret_raw.lower()  # nor its normalized form (hallucination)
    groups = plain["hallucination"]["same_output_for_different_sources"]  # output -> ids
    assert groups
    assert secret["hallucination"]["same_output_for_different_sources"] == sorted(
        sorted(ids) for ids in groups.values()
    )
    assert "Le chat dort" not in result.stdout.str()


#: A method smuggling the sources it saw into the card's method-reported fields.
SMUGGLER = """
class Probe:
    seen = []

    async def translate(self, entries, config):
        self.seen.extend(e["source"] for e in entries)
        return [
            {"id": e["id"], "predicted": "x", "metadata": {"model_id": e["source"]}}
            for e in entries
        ]

    def run_card_fields(self, config):
        return {"notes": list(self.seen), "by": {s: 1 for s in self.seen}}
"""


def test_text_smuggled_into_method_fields_is_withheld(pytester):
    entries = flores_entries(5)
    corpus = pytester.path / "c.json"
    corpus.write_text(json.dumps(envelope(entries), ensure_ascii=False), "utf-8")
    card = pytester.path / "card.json"
    pytester.runpytest(
        f"--mteval-corpus={corpus}",
        f"--mteval-method={write_probe(pytester.path, SMUGGLER)}",
        f"--mteval-run-card={card}",
        "--mteval-scores-only",
        # in process the method's fields are asked after it saw the sources (a runner process
        # asks them when it starts, before any source): the harder case for redaction
        "--mteval-runner=inprocess",
    )
    raw = card.read_text(encoding="utf-8")
    for entry in entries:
        assert entry["source"] not in raw
        assert json.dumps(entry["source"])[1:-1] not in raw
    loaded = json.loads(raw)
    assert loaded["model_id"] == "(withheld: secret run)"
    assert loaded["method"]["fields"]["notes"] == ["(withheld: secret run)"] * 5
    assert sorted(loaded["method"]["fields"]["by"].values()) == [1] * 5  # keys withheld


#: A method failing with its sources in the error message.
LOUD = """
class Probe:
    async def translate(self, entries, config):
        raise RuntimeError("cannot translate " + " / ".join(e["source"] for e in entries))
"""


def test_a_failed_entry_reports_no_text(pytester):
    entries = flores_entries(3)
    corpus = pytester.path / "c.json"
    corpus.write_text(json.dumps(envelope(entries), ensure_ascii=False), "utf-8")
    card = pytester.path / "card.json"
    result = pytester.runpytest(
        f"--mteval-corpus={corpus}",
        f"--mteval-method={write_probe(pytester.path, LOUD)}",
        f"--mteval-run-card={card}",
        "--mteval-scores-only",
        "-rf",
    )
    result.assert_outcomes(failed=3)
    result.stdout.fnmatch_lines(["*translation failed for entry '1'*", "*message withheld*"])
    raw = card.read_text(encoding="utf-8")
    for entry in entries:
        assert entry["source"] not in result.stdout.str()
        assert json.dumps(entry["source"])[1:-1] not in raw
    rows = json.loads(raw)["results"]
    assert [row["error"] for row in rows] == ["error (message withheld: secret run)"] * 3
