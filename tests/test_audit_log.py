"""The gateway's audit log: each line carries the sha256 of the line before, so an edit, a
removal or a move is found; the card's head hash and count catch the last lines too."""

from __future__ import annotations

import hashlib
import json

import pytest

from pytest_mteval.cli.main import main as mteval
from pytest_mteval.run.audit_log import GENESIS, AuditLog, verify_log


@pytest.fixture
def log(tmp_path):
    path = tmp_path / "audit.jsonl"
    writer = AuditLog(path)
    for n in range(5):
        writer.append({"request": {"body": {"n": n}}, "response": {"status": 200}})
    writer.close()
    return path, writer.head, writer.count


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
    card = tmp_path / "card.json"
    card.write_text(json.dumps({"runner": {"gateway": {"head_sha256": head, "lines": count}}}))
    assert mteval(["audit-log", "verify", str(path), "--card", str(card)]) == 1
    assert "INVALID" in capsys.readouterr().out


def test_an_intact_log_verifies_with_and_without_the_card(log, tmp_path, capsys):
    path, head, count = log
    assert mteval(["audit-log", "verify", str(path), "--head", head]) == 0
    card = tmp_path / "card.json"
    card.write_text(json.dumps({"runner": {"gateway": {"head_sha256": head, "lines": count}}}))
    assert mteval(["audit-log", "verify", str(path), "--card", str(card)]) == 0
    assert f"OK {path}: 5 lines chained" in capsys.readouterr().out
