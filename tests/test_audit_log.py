"""The gateway's audit log: each line carries the sha256 of the line before, so an edit, a
removal or a move is found; the card's head hash and count catch the last lines too."""

from __future__ import annotations

import hashlib
import json

import pytest
from leaderboard_cards import load, session_card

from pytest_mteval.cards import runcard
from pytest_mteval.cli.main import main as mteval
from pytest_mteval.run.gateway_audit_log import GENESIS, AuditLog, verify_log


@pytest.fixture
def log(tmp_path):
    path = tmp_path / "audit.jsonl"
    writer = AuditLog(path)
    for n in range(5):
        writer.append({"request": {"body": {"n": n}}, "response": {"status": 200}})
    writer.close()
    return path, writer.head, writer.count


def sealed_card(folder, head, count, name="card.json"):
    """A real session's card whose runner block names this log's head, sealed again."""
    card = load(session_card("haiku"))
    card["runner"] = {
        **(card.get("runner") or {}),
        "gateway": {"head_sha256": head, "lines": count},
    }
    path = folder / name
    path.write_text(json.dumps(runcard.seal(card)), encoding="utf-8")
    return path


def lines(path):
    return path.read_text(encoding="utf-8").splitlines(keepends=True)


def test_the_chain_is_sha256_of_each_previous_line(log):
    path, head, count = log
    raw = [line.rstrip("\n").encode() for line in lines(path)]
    prevs = [json.loads(line)["prev"] for line in raw]
    assert prevs == [GENESIS] + [hashlib.sha256(line).hexdigest() for line in raw[:-1]]
    assert head == hashlib.sha256(raw[-1]).hexdigest()
    assert count == 5
    checked = verify_log(path, head, count)
    assert checked.problems == []
    assert checked.lines == 5


def test_the_log_is_never_written_over(log):
    path, _, _ = log
    with pytest.raises(FileExistsError):
        AuditLog(path)


@pytest.mark.parametrize(
    "tamper",
    [
        lambda ls: [ls[0], ls[1].replace('"n": 1', '"n": 7'), *ls[2:]],  # edited
        lambda ls: [ls[0], *ls[2:]],  # removed
        lambda ls: [ls[0], ls[2], ls[1], *ls[3:]],  # reordered
        lambda ls: [*ls[:-1], ls[-1].replace("200", "201")],  # last line edited
        lambda ls: ls[:-1],  # last line removed
    ],
    ids=["edit", "remove", "reorder", "edit-last", "remove-last"],
)
def test_tampering_is_detected(log, tamper, tmp_path, capsys):
    path, head, count = log
    path.write_text("".join(tamper(lines(path))), encoding="utf-8")
    assert verify_log(path, head, count).problems
    card = sealed_card(tmp_path, head, count)
    assert mteval(["audit-log", "verify", str(path), "--card", str(card)]) == 1
    assert "INVALID" in capsys.readouterr().out


def test_an_intact_log_verifies_with_and_without_the_card(log, tmp_path, capsys):
    path, head, count = log
    assert mteval(["audit-log", "verify", str(path), "--head", head]) == 0
    card = sealed_card(tmp_path, head, count)
    assert mteval(["audit-log", "verify", str(path), "--card", str(card)]) == 0
    assert f"OK {path}: 5 lines chained" in capsys.readouterr().out


def forged_log(tmp_path):
    """Another chain, intact in itself: what a forger writes to hide requests."""
    path = tmp_path / "forged.jsonl"
    writer = AuditLog(path)
    writer.append({"request": {"body": {"n": 0}}, "response": {"status": 200}})
    writer.close()
    return path, writer.head, writer.count


@pytest.mark.parametrize("edit", ["head", "scores", "unsealed"])
def test_a_card_that_no_longer_verifies_is_refused_before_its_head(log, tmp_path, capsys, edit):
    """The forger points the card at a log of their own (or forges a score): the chain checks
    out against the head the card names, but the card's own hash does not."""
    _, head, count = log
    forged, forged_head, forged_count = forged_log(tmp_path)
    card_path = sealed_card(tmp_path, head, count)
    card = json.loads(card_path.read_text(encoding="utf-8"))
    if edit == "head":
        card["runner"]["gateway"] = {"head_sha256": forged_head, "lines": forged_count}
    elif edit == "scores":
        card["runner"]["gateway"] = {"head_sha256": forged_head, "lines": forged_count}
        card["scores"]["composite"] = 0.999
    else:  # no card hash at all, as the old tests wrote
        card = {"runner": {"gateway": {"head_sha256": forged_head, "lines": forged_count}}}
    card_path.write_text(json.dumps(card), encoding="utf-8")
    capsys.readouterr()
    assert mteval(["audit-log", "verify", str(forged), "--card", str(card_path)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 1, out
    assert out[0].startswith(f"INVALID {card_path}"), out
    assert "OK" not in out[0]
