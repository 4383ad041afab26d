"""Submission bundles: made from a real session's card, checked, unpacked, and run again."""

from __future__ import annotations

import hashlib
import io
import json
import shutil
import tarfile

import pytest
from conftest import METHODS
from leaderboard_cards import RUNS, load

from pytest_mteval.cards.bundle import BundleError, check_bundle, make_bundle
from pytest_mteval.cli.main import main


@pytest.fixture
def analyzer(tmp_path):
    """A mirrored artefact outside the method folder (stands in for an FST binary)."""
    path = tmp_path / "elsewhere" / "analyzer.hfstol"
    path.parent.mkdir()
    path.write_bytes(bytes(range(256)) * 64)
    return path


@pytest.fixture
def method(tmp_path, analyzer):
    """The replay method as a submission: a README, a licence, a bundled prompt (named by
    path), a bundled word list (named in its notes, its source a URL, as the shipped dictionary
    method does) and a mirrored analyzer pinned by sha256."""
    folder = tmp_path / "replay-method"
    shutil.copytree(METHODS / "replay", folder)
    (folder / "README.md").write_text("# Replay\nReplays recorded predictions. Limits: none.\n")
    (folder / "LICENSE").write_text("Apache-2.0\n")
    (folder / "prompts").mkdir()
    (folder / "prompts" / "system.txt").write_text("Translate faithfully.\n")
    (folder / "words.tsv").write_text("dog\tatim\n")
    manifest = json.loads((folder / "method.json").read_text())
    manifest["dependency_class"] = "O"
    manifest["dependencies"] = [
        {
            "id": "prompt",
            "kind": "data",
            "license": "CC0-1.0",
            "access": "bundled",
            "source": "prompts/system.txt",
            "redistributable": True,
            "transferable": True,
        },
        {
            "id": "wordlist",
            "kind": "data",
            "license": "Apache-2.0",
            "access": "bundled",
            "source": "https://example.org/wordlist",
            "redistributable": True,
            "transferable": True,
            "notes": "words.tsv, derived from the upstream list",
        },
        {
            "id": "analyzer",
            "kind": "software",
            "license": "AGPL-3.0-or-later",
            "access": "mirrored",
            "source": "https://example.org/lang-xx",
            "pin": "sha256:" + hashlib.sha256(analyzer.read_bytes()).hexdigest(),
            "redistributable": True,
            "transferable": True,
        },
    ]
    (folder / "method.json").write_text(json.dumps(manifest, indent=2))
    return folder


def run(pytester, method, card, *more):
    predictions, model, corpus = RUNS["haiku"]
    result = pytester.runpytest(
        f"--mteval-corpus={corpus}",
        f"--mteval-method={method}",
        f"--mteval-method-arg=predictions={predictions}",
        f"--mteval-model={model}",
        f"--mteval-run-card={card}",
        *more,
    )
    assert card.exists(), result.stdout.str()
    return load(card)


def test_round_trip(pytester, tmp_path, method, analyzer, capsys):
    card = run(pytester, method, tmp_path / "card.json")
    bundle = tmp_path / "out" / "bundle.tar.gz"
    command = ["bundle", str(method), str(tmp_path / "card.json"), "-o", str(bundle)]
    assert main(command) == 1  # the mirrored analyzer is not vendored yet
    assert "no file in the bundle has sha256" in capsys.readouterr().err
    assert main([*command, "--include", str(analyzer)]) == 0
    assert main(["bundle", "check", str(bundle)]) == 0
    assert capsys.readouterr().out.strip().endswith("licences")
    with tarfile.open(bundle) as tar:
        names = set(tar.getnames())
        tar.extractall(tmp_path / "unpacked", filter="data")
    assert {"card.json", "cost-report.json", "BUNDLE.json", "method/README.md"} <= names
    assert {"method/prompts/system.txt", "method/words.tsv", "vendor/analyzer.hfstol"} <= names
    cost = json.loads((tmp_path / "unpacked" / "cost-report.json").read_text())
    assert cost["totals"] == card["totals"]
    assert sum(c for c in cost["per_entry_cost_usd"].values() if c) == pytest.approx(
        card["totals"]["total_cost_usd"]
    )
    again = run(pytester, tmp_path / "unpacked" / "method", tmp_path / "again.json")
    assert again["fingerprint"] == card["fingerprint"]
    assert again["run_id"] != card["run_id"]
    assert again["scores"]["composite"] == card["scores"]["composite"]


def bundled(pytester, tmp_path, method, analyzer):
    run(pytester, method, tmp_path / "card.json")
    return make_bundle(method, tmp_path / "card.json", tmp_path / "b.tar.gz", [analyzer])


def rewrite(bundle, change):
    """The bundle with its members passed through ``change(name, data) -> data | None``."""
    with tarfile.open(bundle) as tar:
        members = {m.name: tar.extractfile(m).read() for m in tar.getmembers()}
    with tarfile.open(bundle, "w:gz") as tar:
        for name, data in members.items():
            data = change(name, data)
            if data is None:
                continue
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def test_check_names_every_problem(pytester, tmp_path, method, analyzer):
    bundle = bundled(pytester, tmp_path, method, analyzer)
    assert check_bundle(bundle) == []

    def tamper(name, data):
        if name == "method/replay.py":
            return data + b"\n# changed\n"
        if name in ("method/prompts/system.txt", "method/words.tsv"):
            return None
        if name == "vendor/analyzer.hfstol":
            return b"another analyzer"
        return data

    rewrite(bundle, tamper)
    problems = check_bundle(bundle)
    assert any("method/replay.py: size or sha256 differs" in p for p in problems)
    assert any("prompts/system.txt: listed in BUNDLE.json but missing" in p for p in problems)
    assert any("dependency 'prompt': bundled, but neither" in p for p in problems)
    assert any("dependency 'wordlist': bundled, but neither" in p for p in problems)
    assert any("dependency 'analyzer': mirrored, but no file" in p for p in problems)
    assert all(str(bundle) in p for p in problems)


def test_a_forged_card_fails_the_check(pytester, tmp_path, method, analyzer):
    bundle = bundled(pytester, tmp_path, method, analyzer)

    def forge(name, data):
        if name != "card.json":
            return data
        card = json.loads(data)
        card["scores"]["composite"] = 0.95
        return json.dumps(card).encode()

    rewrite(bundle, forge)
    problems = check_bundle(bundle)
    assert any("card.json: run_card_hash does not match" in p for p in problems)


def test_hostile_members_are_not_extracted(tmp_path):
    bundle = tmp_path / "evil.tar.gz"
    with tarfile.open(bundle, "w:gz") as tar:
        info = tarfile.TarInfo("../escape.txt")
        info.size = 3
        tar.addfile(info, io.BytesIO(b"bad"))
        link = tarfile.TarInfo("method/passwd")
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
        tar.addfile(link)
    problems = check_bundle(bundle)
    assert any("'../escape.txt': path leaves the bundle" in p for p in problems)
    assert any("'method/passwd': links and devices are not allowed" in p for p in problems)
    assert not (tmp_path.parent / "escape.txt").exists()


def test_a_method_without_readme_or_made_by_another_method_is_refused(pytester, tmp_path, method):
    run(pytester, METHODS / "replay", tmp_path / "card.json")
    (method / "README.md").unlink()
    with pytest.raises(BundleError) as caught:
        make_bundle(method, tmp_path / "card.json", tmp_path / "b.tar.gz")
    message = str(caught.value)
    assert "no README" in message
    assert "the card was not made by this method" in message
    assert not (tmp_path / "b.tar.gz").exists()
