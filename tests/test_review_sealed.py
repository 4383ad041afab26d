"""A gold run reviewed by the community (spec §7.3, §8.2, §9.4): a real session on a
gold-standard copy of the eng→sna corpus seals its review sample to the steward's X25519 key;
only the steward's key opens it, a changed byte is refused, no sampled text is in any other
file the run wrote or in its terminal output, and the steward's reviewers' ratings make the
gold card community-validated on the leaderboard."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import pytest
from replayed_runs import GPT55, REPLAY, SNA_CORPUS
from test_leaderboard import tables
from test_review import mteval, rate
from text_forms import texts_found
from trust_keys import private, public

from pytest_mteval.cards import runcard
from pytest_mteval.cli.main import main
from pytest_mteval.review import sample
from pytest_mteval.review.sealed_box import SealedBoxError, load_private_key
from pytest_mteval.review.sealed_sample import open_sample

SIZE = 30


def session(folder: Path, corpus: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """A real pytest-mteval session replaying GPT-5.5's outputs, run in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    return subprocess.run(
        [
            sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
            f"--mteval-corpus={corpus}", f"--mteval-method={REPLAY}",
            f"--mteval-method-arg=predictions={GPT55}", "--mteval-model=openai/gpt-5.5",
            "--mteval-run-card=card.json", *extra,
        ],
        cwd=folder, capture_output=True, text=True, check=False,
    )  # fmt: skip


@pytest.fixture(scope="module")
def gold(tmp_path_factory):
    """The steward's keys, a gold corpus, and one real gold run sealing a sample of 30."""
    base = tmp_path_factory.mktemp("gold")
    keys = base / "keys"
    keys.mkdir()
    assert mteval("review", "keygen", keys / "steward").returncode == 0
    assert mteval("review", "keygen", keys / "other").returncode == 0
    document = json.loads(SNA_CORPUS.read_text(encoding="utf-8"))
    for entry in document["entries"]:
        entry["segment"] = "gold_standard"
    corpus = base / "inputs" / "sna-gold.json"
    corpus.parent.mkdir()
    corpus.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    run = base / "run"
    done = session(
        run,
        corpus,
        f"--mteval-review-sample-key={keys / 'steward.pub'}",
        f"--mteval-review-sample-size={SIZE}",
        "--mteval-html=report.html",
        f"--mteval-sign-key={private('maintainer')}",  # the gold run is the maintainers'
    )
    card = runcard.load(run / "card.json")
    [sealed] = run.glob("*.sealed")
    return SimpleNamespace(
        run=run, card_path=run / "card.json", card=card, sealed=sealed, keys=keys,
        terminal=done.stdout + done.stderr, entries={e["id"]: e for e in document["entries"]},
        corpus=corpus,
    )  # fmt: skip


def predictions() -> dict[str, str]:
    """GPT-5.5's outputs by entry id, read from the upstream report the run replayed."""
    report = json.loads(GPT55.read_text(encoding="utf-8"))
    return {e["id"]: e["predicted"] for e in report["entries"]}


def opened(gold, folder: Path, *extra: object) -> list[dict[str, str]]:
    """`mteval review open` of the gold run's sealed sample, with its card, signed by the
    maintainer key the steward trusts."""
    done = mteval(
        "review", "open", gold.sealed, "--key", gold.keys / "steward", "--out", folder,
        "--card", gold.card_path, "--maintainer-key", public("maintainer"), *extra,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    [template] = folder.glob("*.csv")
    return list(csv.DictReader(template.open(encoding="utf-8")))


def test_the_sealed_sample_opens_with_the_steward_key_and_holds_the_sampled_texts(gold, tmp_path):
    block = gold.card["review_sample"]
    assert block["file"] == gold.sealed.name
    assert block["scheme"] == "X25519-HKDF-SHA256-ChaCha20-Poly1305"
    assert gold.sealed.read_bytes()[:8] == b"MTEVRSMP"
    rows = opened(gold, tmp_path / "sheets")
    ids = [row["entry_id"] for row in rows]
    assert len(ids) == len(set(ids)) == SIZE == block["entries"]
    # the texts are the corpus's and the replayed outputs', read here from the inputs
    outputs = predictions()
    for row in rows:
        entry = gold.entries[row["entry_id"]]
        assert (row["source"], row["reference"]) == (entry["source"], entry["reference"])
        assert row["prediction"] == outputs[row["entry_id"]]
    # stratified by difficulty: 37 and 10 entries -> 23.6 and 6.4 of 30 -> 24 and 6
    assert Counter(gold.entries[i]["difficulty"] for i in ids) == {1: 24, 2: 6}
    # the same draw `mteval review ingest` makes from the gold card itself
    assert sample.draw(gold.card, SIZE).entry_ids() == ids
    assert {row["sample_id"] for row in rows} == {block["sample_id"]}


def test_attack_no_sampled_text_leaves_the_sealed_file(gold):
    """Look for every sampled source, reference and output (6 characters or more) in every
    file the run wrote but the sealed sample (card, HTML report, .mteval: cache, index, logs)
    and in its terminal output."""
    outputs = predictions()
    card_ids = {row["entry_id"] for row in gold.card["results"]}
    drawn = sample.draw(gold.card, SIZE).entry_ids()
    texts = {
        text.strip()
        for i in drawn
        for text in (gold.entries[i]["source"], gold.entries[i]["reference"], outputs[i])
        if len(text.strip()) >= 6
    }
    assert len(texts) > 2 * SIZE
    assert set(drawn) <= card_ids
    # the search finds them where they are: the inputs the run read
    inputs = gold.corpus.read_text(encoding="utf-8") + GPT55.read_text(encoding="utf-8")
    assert texts_found(texts, inputs) == texts
    written = [p for p in gold.run.rglob("*") if p.is_file() and p != gold.sealed]
    assert gold.run / "card.json" in written
    assert gold.run / "report.html" in written
    for path in written:
        data = path.read_bytes().decode("utf-8", errors="replace")
        assert texts_found(texts, data) == set(), path
    assert texts_found(texts, gold.terminal) == set()
    assert "review sample" in gold.terminal
    assert gold.sealed.name in gold.terminal
    # and the sealed file itself holds none of them in the clear
    assert texts_found(texts, gold.sealed.read_bytes().decode("latin-1")) == set()


def test_a_wrong_key_fails_in_one_line(gold, tmp_path):
    done = mteval(
        "review", "open", gold.sealed, "--key", gold.keys / "other", "--out", tmp_path,
        "--card", gold.card_path, "--maintainer-key", public("maintainer"),
    )  # fmt: skip
    assert done.returncode == 1
    assert done.stdout.count("\n") == 1
    assert "not to the given key" in done.stdout
    assert list(tmp_path.iterdir()) == []
    loose = tmp_path / "loose"
    loose.write_bytes((gold.keys / "steward").read_bytes())
    os.chmod(loose, 0o644)
    done = mteval(
        "review", "open", gold.sealed, "--key", loose, "--card", gold.card_path,
        "--maintainer-key", public("maintainer"),
    )  # fmt: skip
    assert done.returncode == 1
    assert "readable by others" in done.stdout


@pytest.mark.parametrize("offset", [9, 41, 80, -1], ids=["key-id", "ephemeral", "nonce", "tag"])
def test_a_tampered_sealed_sample_is_refused(gold, tmp_path, offset):
    data = bytearray(gold.sealed.read_bytes())
    data[offset] ^= 0x01
    tampered = tmp_path / gold.sealed.name
    tampered.write_bytes(bytes(data))
    with pytest.raises(SealedBoxError, match=r"altered|not to the given key"):
        open_sample(tampered, load_private_key(gold.keys / "steward"))
    # against the card, the changed file is refused before it is decrypted
    done = mteval(
        "review", "open", tampered, "--key", gold.keys / "steward", "--card", gold.card_path,
        "--maintainer-key", public("maintainer"), "--out", tmp_path,
    )  # fmt: skip
    assert done.stdout.count("\n") == 1
    assert not list(tmp_path.glob("*.csv"))
    assert done.returncode == 1
    assert "is not the card's review_sample.sha256" in done.stdout


def test_review_sample_refuses_the_gold_card_and_an_edited_block_does_not_verify(gold, tmp_path):
    done = mteval("review", "sample", gold.card_path, "-n", SIZE, "--out", tmp_path)
    assert done.returncode == 1
    assert "mteval review open" in done.stdout
    assert main(["verify", str(gold.card_path)]) == 0
    card = json.loads(gold.card_path.read_text(encoding="utf-8"))
    card["review_sample"]["drawn_from"] = "0" * 64  # choose another draw, and re-seal
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(runcard.seal(card)), encoding="utf-8")
    assert main(["verify", str(edited)]) == 1


def test_a_public_run_seals_nothing(gold, tmp_path):
    done = session(tmp_path, SNA_CORPUS, f"--mteval-review-sample-key={gold.keys / 'steward.pub'}")
    assert "review sample    not sealed: the run is not secret" in done.stdout
    assert not list(tmp_path.glob("*.sealed"))
    assert "review_sample" not in runcard.load(tmp_path / "card.json")


def test_gold_run_open_ingest_leaderboard_is_community_validated(gold, tmp_path, capsys):
    sheets = tmp_path / "sheets"
    opened(gold, sheets)
    [template] = sheets.glob("*.csv")
    [kept] = sheets.glob("*.sample.json")
    good = ["excellent"] * 20 + ["acceptable"] * 10
    a = rate(tmp_path / "a.csv", template, "Alice Example", good)
    b = rate(tmp_path / "b.csv", template, "Bob Example", good, "2026-12-02")
    board = tmp_path / "board"
    board.mkdir()
    validated = board / "gold-validated.json"
    done = mteval(
        "review", "ingest", gold.card_path, a, b, "--sample", kept, "--out", validated,
        "--sign-key", private("governance"), "--maintainer-key", public("maintainer"),
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "meets the threshold" in done.stdout
    card = runcard.load(validated)
    assert card["human_validation"]["extends"]["run_card_hash"] == gold.card["run_card_hash"]
    assert (
        card["human_validation"]["sample"]["sample_id"] == gold.card["review_sample"]["sample_id"]
    )
    assert main(["verify", str(validated)]) == 0
    (board / "gold.json").write_bytes(gold.card_path.read_bytes())
    capsys.readouterr()
    assert main(["leaderboard", str(board), f"--governance-key={public('governance')}"]) == 0
    printed = capsys.readouterr().out
    rows = [row for board_rows in tables(printed).values() for row in board_rows]
    assert [row["Verification"] for row in rows] == ["community-validated"]
    assert "human validation ignored" not in printed
    # ratings of another sample (an entry the gold card's draw did not pick) are refused
    other = tmp_path / "c.csv"
    text = a.read_text(encoding="utf-8")
    outside = next(i for i in gold.entries if i not in text)
    first = next(csv.DictReader(a.open(encoding="utf-8")))["entry_id"]
    other.write_text(text.replace(first, outside, 1), encoding="utf-8")
    done = mteval(
        "review", "ingest", gold.card_path, other, b, "--sample", kept,
        "--sign-key", private("governance"), "--maintainer-key", public("maintainer"),
    )  # fmt: skip
    assert done.returncode == 1
    assert "is not in the sample" in done.stdout


def test_a_sample_too_small_to_validate_is_not_sealed_and_the_card_says_why(gold, tmp_path):
    key = gold.keys / "steward.pub"
    done = session(
        tmp_path, gold.corpus, f"--mteval-review-sample-key={key}", "--mteval-review-sample-size=5"
    )
    assert "review sample    NOT SEALED" in done.stdout
    assert not list(tmp_path.glob("*.sealed"))
    card = runcard.load(tmp_path / "card.json")
    [flag] = [f for f in card["flags"] if f["code"] == "review_sample_not_written"]
    assert "needs at least 30 entries" in flag["message"]
    assert "review_sample" not in card
    assert main(["verify", str(tmp_path / "card.json")]) == 0
