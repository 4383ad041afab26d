"""Encrypted corpora: `mteval corpus encrypt|decrypt`, and a run of one that leaves its
plaintext in no file it writes (card, cache, pytest's cache) and not in its terminal output."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import stat
import subprocess
import sys

import pytest
from conftest import METHODS, envelope, flores_entries
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from methods_for_tests import write_probe

pytest_plugins = ["pytester"]

#: A cacheable method whose output is its source: a cache would hold the corpus's text.
ECHO = """
class Probe:
    async def translate(self, entries, config):
        return [{"id": e["id"], "predicted": e["source"], "latency_s": 0.01} for e in entries]
"""


def mteval(*args, env=None):
    return subprocess.run(
        [sys.executable, "-m", "pytest_mteval.cli.main", *args],
        capture_output=True,
        text=True,
        env=env,
    )


@pytest.fixture
def clear(tmp_path_factory):
    """Eight real FLORES entries, in the clear, in a folder no run writes to."""
    entries = flores_entries(8)
    for entry in entries[:4]:
        entry["segment"] = "development"
    path = tmp_path_factory.mktemp("clear") / "corpus.json"
    path.write_text(json.dumps(envelope(entries), ensure_ascii=False), encoding="utf-8")
    return path


@pytest.fixture
def sealed(clear, tmp_path_factory):
    """The corpus encrypted with a new key: (encrypted file, key file)."""
    folder = tmp_path_factory.mktemp("sealed")
    key, out = folder / "corpus.key", folder / "corpus.json.enc"
    made = mteval("corpus", "encrypt", str(clear), str(out), "--key-file", str(key), "--new-key")
    assert made.returncode == 0, made.stdout
    return out, key


def test_the_format_is_as_documented(clear, sealed):
    out, key = sealed
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    raw_key = base64.b64decode(key.read_text().strip())
    assert len(raw_key) == 32
    data = out.read_bytes()
    assert data[:8] == b"MTEVCORP"
    assert data[8] == 1
    header, nonce, body = data[:9], data[9:21], data[21:]
    # decrypted with the cryptography package directly, from the documented layout
    assert AESGCM(raw_key).decrypt(nonce, body, header) == clear.read_bytes()
    for entry in json.loads(clear.read_text(encoding="utf-8"))["entries"]:
        assert entry["source"].encode() not in data


def test_decrypt_round_trip_by_file_and_by_environment(clear, sealed, tmp_path):
    out, key = sealed
    back = tmp_path / "back.json"
    assert mteval("corpus", "decrypt", str(out), str(back), "--key-file", str(key)).returncode == 0
    assert back.read_bytes() == clear.read_bytes()
    env = {**os.environ, "CORPUS_KEY": key.read_text()}
    piped = mteval("corpus", "decrypt", str(out), "-", "--key-env", "CORPUS_KEY", env=env)
    assert piped.returncode == 0
    assert piped.stdout.encode() == clear.read_bytes()


def test_wrong_key_tampering_and_bad_keys_are_one_line(sealed, tmp_path):
    out, key = sealed
    other = tmp_path / "other.key"
    other.write_text(base64.b64encode(AESGCM.generate_key(bit_length=256)).decode())
    wrong = mteval("corpus", "decrypt", str(out), "-", "--key-file", str(other))
    assert wrong.returncode == 1
    assert (
        wrong.stdout
        == f"mteval corpus decrypt: {out}: cannot decrypt: wrong key, or the file was altered\n"
    )
    for offset in (5, 8, 15, 40, len(out.read_bytes()) - 1):  # magic, version, nonce, body, tag
        data = bytearray(out.read_bytes())
        data[offset] ^= 1
        bad = tmp_path / f"bad{offset}.enc"
        bad.write_bytes(bytes(data))
        result = mteval("corpus", "decrypt", str(bad), "-", "--key-file", str(key))
        assert result.returncode == 1, offset
        assert result.stdout.count("\n") == 1
        assert str(bad) in result.stdout
    short = tmp_path / "short.key"
    short.write_text(base64.b64encode(b"x" * 16).decode())
    result = mteval("corpus", "decrypt", str(out), "-", "--key-file", str(short))
    assert "has 16 bytes, not 32" in result.stdout
    unset = mteval("corpus", "decrypt", str(out), "-", "--key-env", "NO_SUCH_VARIABLE_SET")
    assert "NO_SUCH_VARIABLE_SET is not set" in unset.stdout


def test_encrypt_refuses_to_overwrite_and_to_encrypt_an_invalid_corpus(clear, sealed, tmp_path):
    out, key = sealed
    before = out.read_bytes()
    again = mteval("corpus", "encrypt", str(clear), str(out), "--key-file", str(key))
    assert again.returncode == 1
    assert "cannot create" in again.stdout
    assert out.read_bytes() == before
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(envelope([{"id": 1, "source": "a"}])), encoding="utf-8")
    refused = mteval(
        "corpus", "encrypt", str(broken), str(tmp_path / "b.enc"), "--key-file", str(key)
    )
    assert refused.returncode == 1
    assert "entry 0 (id 1): field 'reference': required field is missing" in refused.stdout
    assert not (tmp_path / "b.enc").exists()


def _needles(clear):
    """Every source and reference, as UTF-8 and as JSON would escape it."""
    found = []
    for entry in json.loads(clear.read_text(encoding="utf-8"))["entries"]:
        for text in (entry["source"], entry["reference"]):
            found.append(text.encode("utf-8"))
            found.append(json.dumps(text)[1:-1].encode("ascii"))  # ensure_ascii form
            found.append(json.dumps(text, ensure_ascii=False)[1:-1].encode("utf-8"))
    return found


def _files(folder):
    return [p for p in folder.rglob("*") if p.is_file()]


def test_an_encrypted_corpus_runs_and_its_plaintext_is_written_nowhere(pytester, clear, sealed):
    out, key = sealed
    card = pytester.path / "cards" / "run.json"
    result = pytester.runpytest(
        f"--mteval-corpus={out}",
        f"--mteval-corpus-key-file={key}",
        f"--mteval-method={write_probe(pytester.path, ECHO)}",
        f"--mteval-run-card={card}",
        "-rA",
    )
    result.assert_outcomes(passed=8)
    written = _files(pytester.path)
    assert card in written
    assert any(".pytest_cache" in p.parts for p in written)  # the scan covers pytest's cache
    needles = _needles(clear)
    for path in written:
        data = path.read_bytes()
        leaked = [n for n in needles if n in data]
        assert not leaked, f"{path} holds corpus text {leaked[0][:40]!r}"
    output = (result.stdout.str() + result.stderr.str()).encode("utf-8")
    assert not [n for n in needles if n in output]
    loaded = json.loads(card.read_text(encoding="utf-8"))
    assert loaded["redaction"]["reasons"] == ["encrypted corpus"]
    assert loaded["cache"]["method_fingerprint"] is None  # no cache for a secret run
    assert not (pytester.path / ".mteval" / "cache").exists()
    # the dataset is the plaintext's: the card compares with runs of the corpus in the clear
    assert loaded["dataset"]["sha256"] == hashlib.sha256(clear.read_bytes()).hexdigest()
    assert loaded["scores"]["chrf_plus_plus"] is not None
    assert mteval("verify", str(card)).returncode == 0


def test_an_encrypted_corpus_without_its_key_and_a_key_without_encryption(pytester, clear, sealed):
    out, key = sealed
    missing = pytester.runpytest(
        f"--mteval-corpus={out}", f"--mteval-method={METHODS / 'identity'}"
    )
    assert missing.ret == pytest.ExitCode.USAGE_ERROR
    missing.stderr.fnmatch_lines(
        [f"*{out}: the corpus is encrypted: give --mteval-corpus-key-file*"]
    )
    plain = pytester.runpytest(
        f"--mteval-corpus={clear}",
        f"--mteval-corpus-key-file={key}",
        f"--mteval-method={METHODS / 'identity'}",
    )
    assert plain.ret == pytest.ExitCode.USAGE_ERROR
    plain.stderr.fnmatch_lines(["*a corpus key was given but the corpus is not encrypted*"])
    for result in (missing, plain):
        assert "Traceback" not in result.stderr.str()


def test_the_key_from_the_environment_runs_under_xdist(pytester, clear, sealed, monkeypatch):
    out, key = sealed
    monkeypatch.setenv("MY_CORPUS_KEY", key.read_text())
    result = pytester.runpytest(
        f"--mteval-corpus={out}",
        "--mteval-corpus-key-env=MY_CORPUS_KEY",
        f"--mteval-method={METHODS / 'identity'}",
        "-n",
        "2",
    )
    result.assert_outcomes(passed=8)
