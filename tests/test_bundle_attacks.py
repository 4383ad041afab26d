"""Hostile submitters against ``mteval bundle`` (issue 21, part 3): a card made by code that
read the references bundled with innocent code, a bundle that carries the references, and a
BUNDLE.json of the wrong shape. Each is refused in one line naming the file."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tarfile

import pytest
from leaderboard_cards import RUNS
from test_bundle import analyzer, method, rewrite, run  # noqa: F401  # fixtures

from pytest_mteval.cards import runcard
from pytest_mteval.cards.bundle import BundleError, check_bundle, cost_report, make_bundle
from pytest_mteval.cli.main import main
from pytest_mteval.methods.code_hash import combined_sha256, folder_hash

CORPUS = RUNS["haiku"][2]
#: Northern Sami: references with letters JSON escapes as \\uXXXX.
SAMI = RUNS["gemini-sme"][2]

#: Appended to the replay method: it answers with the corpus's own references.
CHEAT = f"""

_REFERENCES = {{
    str(e["id"]): e["reference"]
    for e in json.loads(Path({str(CORPUS)!r}).read_text(encoding="utf-8"))["entries"]
}}


async def _peek(self, entries, config):
    return [{{"id": e["id"], "predicted": _REFERENCES[str(e["id"])]}} for e in entries]


ReplayMethod.translate = _peek
"""


def cheat_then_restore(pytester, tmp_path, method):  # noqa: F811
    """The card of the cheating code; the folder holds the innocent code again afterwards."""
    code = method / "replay.py"
    innocent = code.read_bytes()
    code.write_bytes(innocent + CHEAT.encode())
    # the plain runner: the sandboxed default hides the corpus file from the method
    card = run(pytester, method, tmp_path / "card.json", "--mteval-sandbox=none")
    assert card["scores"]["exact_match_rate"] == 1.0  # it did read the references
    code.write_bytes(innocent)
    return innocent


def test_a_card_bundled_with_other_code_is_refused_when_packed(
    pytester,
    tmp_path,
    method,  # noqa: F811
    analyzer,  # noqa: F811
):
    cheat_then_restore(pytester, tmp_path, method)
    with pytest.raises(BundleError, match=r"code sha256 \w+ differs from the card's") as caught:
        make_bundle(method, tmp_path / "card.json", tmp_path / "b.tar.gz", [analyzer])
    assert "\n" not in str(caught.value)


def reindexed(bundle, name, data):
    """Replace member ``name`` and rewrite BUNDLE.json to match, as a forger would."""
    index = {}

    def swap(member, content):
        if member == name:
            return data
        if member == "BUNDLE.json":
            index.update(json.loads(content))
            return content
        return content

    rewrite(bundle, swap)
    index["files"][name] = {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    rewrite(bundle, lambda m, c: json.dumps(index).encode() if m == "BUNDLE.json" else c)


def test_a_card_bundled_with_other_code_fails_the_check(
    pytester,
    tmp_path,
    method,  # noqa: F811
    analyzer,  # noqa: F811
    capsys,
):
    code = method / "replay.py"
    innocent = code.read_bytes()
    code.write_bytes(innocent + CHEAT.encode())
    run(pytester, method, tmp_path / "card.json", "--mteval-sandbox=none")  # see above
    bundle = make_bundle(method, tmp_path / "card.json", tmp_path / "b.tar.gz", [analyzer])
    assert check_bundle(bundle) == []
    reindexed(bundle, "method/replay.py", innocent)
    capsys.readouterr()
    assert main(["bundle", "check", str(bundle)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 1, out
    assert "method/: code sha256" in out[0]
    assert "differs from the card's" in out[0]


def predictions_only(tmp_path):
    """The recorded run's predictions alone: its report also holds the corpus's references,
    and the bundle carries the file a path arg handed the method (method.code.inputs). The
    predictions equal to their reference are left out too: the leak check cannot tell them
    from a copied reference."""
    predictions = RUNS["haiku"][0]
    rows = json.loads(predictions.read_text(encoding="utf-8"))["entries"]
    references = {e["reference"] for e in json.loads(CORPUS.read_text("utf-8"))["entries"]}
    kept = "".join(
        json.dumps({"id": r["id"], "predicted": r["predicted"]}) + "\n"
        for r in rows
        if r["predicted"] not in references
    )
    path = tmp_path / "predictions.jsonl"
    path.write_text(kept, encoding="utf-8")
    return f"--mteval-method-arg=predictions={path}"


def honest(pytester, tmp_path, method, analyzer, extra=()):  # noqa: F811
    run(pytester, method, tmp_path / "card.json", predictions_only(tmp_path))
    return make_bundle(method, tmp_path / "card.json", tmp_path / "b.tar.gz", [analyzer, *extra])


def test_an_honest_bundle_passes_the_corpus_check(pytester, tmp_path, method, analyzer, capsys):  # noqa: F811
    bundle = honest(pytester, tmp_path, method, analyzer)
    capsys.readouterr()
    assert main(["bundle", "check", str(bundle), "--corpus", str(CORPUS)]) == 0
    assert "no reference of" in capsys.readouterr().out


def references_tsv(folder):
    """Some of the corpus's references, rewritten into a word list of the method's own."""
    entries = json.loads(CORPUS.read_text(encoding="utf-8"))["entries"]
    rows = [f"{e['source']}\t{e['reference']}\n" for e in entries if len(e["reference"]) > 30]
    (folder / "phrases.tsv").write_text("".join(rows[:2]), encoding="utf-8")


def short_corpus(tmp_path):
    """A corpus of short references only: none is searched for, only a copy is found."""
    data = json.loads(CORPUS.read_text(encoding="utf-8"))
    data["entries"] = [e for e in data["entries"] if len(e["reference"]) < 16]
    path = tmp_path / "short.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


HOW = ["copy", "rewritten", "hard-link", "include", "escaped-json", "short-copy"]


@pytest.mark.parametrize("how", HOW)
def test_a_bundle_holding_references_is_refused(pytester, tmp_path, method, analyzer, how, capsys):  # noqa: F811
    extra = []
    if how == "copy":
        shutil.copy(CORPUS, method / "notes.json")
    elif how == "rewritten":
        references_tsv(method)
    elif how == "hard-link":
        local = tmp_path / "corpus.json"
        shutil.copy(CORPUS, local)
        os.link(local, method / "data.json")
    elif how == "include":
        extra = [CORPUS]
    elif how == "escaped-json":
        data = json.loads(SAMI.read_text(encoding="utf-8"))
        data["entries"] = [e for e in data["entries"] if not e["reference"].isascii()]
        (method / "cache.json").write_text(json.dumps(data, ensure_ascii=True, indent=None))
    elif how == "short-copy":
        shutil.copy(short_corpus(tmp_path), method / "short.json")
    corpus = {"hard-link": tmp_path / "corpus.json", "escaped-json": SAMI}.get(how, CORPUS)
    corpus = tmp_path / "short.json" if how == "short-copy" else corpus
    bundle = honest(pytester, tmp_path, method, analyzer, extra)
    capsys.readouterr()
    assert main(["bundle", "check", str(bundle), "--corpus", str(corpus)]) == 1
    out = capsys.readouterr().out
    assert "holds" in out, out
    assert "of the corpus" in out, out
    assert str(bundle) in out
    packing = ["bundle", str(method), str(tmp_path / "card.json"), "-o", str(tmp_path / "c.tgz")]
    packing += [f"--include={path}" for path in [analyzer, *extra]]
    assert main([*packing, "--corpus", str(corpus)]) == 1  # nor is one made
    assert "of the corpus" in capsys.readouterr().err
    assert not (tmp_path / "c.tgz").exists()


def index_bundle(tmp_path, index_bytes, extra=None):
    """A bundle of only a BUNDLE.json (and ``extra`` members): what check must read first."""
    import io
    import tarfile

    bundle = tmp_path / "odd.tar.gz"
    with tarfile.open(bundle, "w:gz") as tar:
        for name, data in {"BUNDLE.json": index_bytes, **(extra or {})}.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return bundle


ODD_INDEXES = {
    "files-null": b'{"files": null, "run_card_hash": ""}',
    "files-list": b'{"files": [], "run_card_hash": ""}',
    "files-string": b'{"files": "card.json", "run_card_hash": ""}',
    "entry-null": b'{"files": {"card.json": null}, "run_card_hash": ""}',
    "size-text": b'{"files": {"card.json": {"size": "12", "sha256": "' + b"0" * 64 + b'"}}}',
    "size-true": b'{"files": {"card.json": {"size": true, "sha256": "' + b"0" * 64 + b'"}}}',
    "sha-number": b'{"files": {"card.json": {"size": 1, "sha256": 7}}}',
    "hash-number": b'{"files": {}, "run_card_hash": 5}',
    "top-list": b"[1, 2]",
    "top-null": b"null",
    "deep-lists": b"[" * 100_000 + b"]" * 100_000,
    "deep-objects": b'{"files": ' + b'{"a": ' * 50_000 + b"1" + b"}" * 50_000 + b"}",
    "huge-number": b'{"files": {}, "run_card_hash": "", "n": 1' + b"0" * 5000 + b"}",
    "not-utf8": b'{"files": {"\xff": 1}}',
    "nan": b'{"files": {}, "run_card_hash": NaN}',
    "truncated": b'{"files": {',
}


@pytest.mark.parametrize("odd", ODD_INDEXES, ids=list(ODD_INDEXES))
def test_a_bundle_index_of_the_wrong_shape_is_one_line(tmp_path, capsys, odd):
    bundle = index_bundle(tmp_path, ODD_INDEXES[odd])
    assert main(["bundle", "check", str(bundle)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 1, out
    assert out[0].startswith(f"PROBLEM {bundle}:"), out
    assert "BUNDLE.json" in out[0], out


@pytest.mark.parametrize(
    "report", [b"[]", b"null", b"[" * 100_000, b'{"totals": ' * 10_000], ids=str
)
def test_a_cost_report_of_the_wrong_shape_is_one_line(
    pytester,
    tmp_path,
    method,  # noqa: F811
    analyzer,  # noqa: F811
    capsys,
    report,
):
    bundle = honest(pytester, tmp_path, method, analyzer)
    reindexed(bundle, "cost-report.json", report)
    capsys.readouterr()
    assert main(["bundle", "check", str(bundle)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 1, out
    assert "cost-report.json" in out[0], out


def test_a_bundle_holding_an_encrypted_corpus_s_references_is_refused(
    pytester,
    tmp_path,
    method,  # noqa: F811
    analyzer,  # noqa: F811
    capsys,
):
    """The corpus given encrypted, with its key: its references are searched for, and a
    bundled copy of the plaintext or of the encrypted file is found."""
    secret, key = tmp_path / "secret.mtevalenc", tmp_path / "corpus.key"
    assert (
        main(["corpus", "encrypt", str(CORPUS), str(secret), f"--key-file={key}", "--new-key"]) == 0
    )
    references_tsv(method)
    shutil.copy(CORPUS, method / "plain.json")
    bundle = honest(pytester, tmp_path, method, analyzer, [secret])
    capsys.readouterr()
    check = ["bundle", "check", str(bundle), "--corpus", str(secret)]
    assert main(check) == 2  # no key: refused in one line, nothing searched
    assert "--corpus" in capsys.readouterr().err
    assert main([*check, f"--corpus-key-file={key}"]) == 1
    out = capsys.readouterr().out
    assert "method/phrases.tsv: holds 2 reference(s)" in out
    assert "method/plain.json: holds a copy of the corpus" in out
    assert "vendor/secret.mtevalenc: holds a copy of the corpus" in out


def test_a_card_from_before_code_hashes_cannot_be_bundled(
    pytester,
    tmp_path,
    method,  # noqa: F811
    analyzer,  # noqa: F811
    capsys,
):
    bundle = honest(pytester, tmp_path, method, analyzer)
    card = json.loads((tmp_path / "card.json").read_text(encoding="utf-8"))
    del card["method"]["code"]
    old = tmp_path / "old.json"
    old.write_text(json.dumps(runcard.seal(card)), encoding="utf-8")
    with pytest.raises(BundleError, match="records no hash of the method's code"):
        make_bundle(method, old, tmp_path / "old.tar.gz", [analyzer])
    reindexed(bundle, "card.json", old.read_bytes())
    problems = check_bundle(bundle)
    assert any("card.json: the card records no hash of the method's code" in p for p in problems)


def test_a_resealed_code_hash_passes_only_without_the_signing_key(
    pytester,
    tmp_path,
    method,  # noqa: F811
    analyzer,  # noqa: F811
    capsys,
):
    """The forger's last move: rewrite method.code.sha256 to the innocent code's and seal the
    card again. An unsigned card cannot tell (said in docs/reports.md); a signed one can."""
    private = tmp_path / "keys" / "ci"
    private.parent.mkdir()
    assert main(["keygen", str(private)]) == 0
    predictions, model, corpus = RUNS["haiku"]
    code = method / "replay.py"
    innocent = code.read_bytes()
    # other code than the bundle's (a signed run is sandboxed: it could not read the corpus)
    code.write_bytes(innocent + b"\n# not the code that gets bundled\n")
    pytester.runpytest(
        f"--mteval-corpus={corpus}",
        f"--mteval-method={method}",
        f"--mteval-method-arg=predictions={predictions}",
        f"--mteval-model={model}",
        f"--mteval-run-card={tmp_path / 'card.json'}",
        f"--mteval-sign-key={private}",
    )
    bundle = make_bundle(method, tmp_path / "card.json", tmp_path / "b.tar.gz", [analyzer])
    pub = ["--public-key", f"{private}.pub"]
    capsys.readouterr()
    assert main(["bundle", "check", str(bundle), *pub]) == 0
    assert "signature verifies" in capsys.readouterr().out
    code.write_bytes(innocent)
    card = json.loads((tmp_path / "card.json").read_text(encoding="utf-8"))
    code = card["method"]["code"]  # rule 2: the folder's hash, then the inputs' (code_hash.py)
    code["folder_sha256"] = folder_hash(method)["sha256"]
    code["sha256"] = combined_sha256(
        code["folder_sha256"], [(i["role"], i["sha256"]) for i in code["inputs"]]
    )
    forged = json.dumps(runcard.seal(card)).encode()  # the old signature no longer matches
    reindexed(bundle, "method/replay.py", innocent)
    reindexed(bundle, "card.json", forged)
    reindexed(bundle, "cost-report.json", json.dumps(cost_report(card)).encode())
    index = "BUNDLE.json"
    rewrite(bundle, lambda m, c: _rehash(c, card) if m == index else c)
    capsys.readouterr()
    assert main(["bundle", "check", str(bundle)]) == 0  # unsigned trust: the forgery holds
    capsys.readouterr()
    assert main(["bundle", "check", str(bundle), *pub]) == 1
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 1, out
    assert "card.json: signature does not match the content" in out[0]


def _rehash(index_bytes, card):
    index = json.loads(index_bytes)
    index["run_card_hash"] = card["run_card_hash"]
    return json.dumps(index).encode()


def test_attack_a_bundle_carries_the_path_arg_file_that_ran(
    pytester,
    tmp_path,
    method,  # noqa: F811
    analyzer,  # noqa: F811
    capsys,
):
    """Issue 41: a bundle held the method folder only, while the outputs came from a file a
    path arg named; the card's code hash covers it (rule 2) and the bundle carries it."""
    bundle = honest(pytester, tmp_path, method, analyzer)
    code = json.loads((tmp_path / "card.json").read_text("utf-8"))["method"]["code"]
    given = tmp_path / "predictions.jsonl"
    assert code["rule"] == "pytest-mteval-code/2"
    assert code["inputs"][0]["sha256"] == hashlib.sha256(given.read_bytes()).hexdigest()
    member = "inputs/arg-predictions/predictions.jsonl"
    with tarfile.open(bundle) as tar:
        assert tar.extractfile(member).read() == given.read_bytes()
    capsys.readouterr()
    assert main(["bundle", "check", str(bundle)]) == 0
    assert "code hash matches" in capsys.readouterr().out
    swapped = given.read_bytes().replace(b'"predicted": "', b'"predicted": "x')
    reindexed(bundle, member, swapped)
    assert main(["bundle", "check", str(bundle)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 1, out
    assert "method.code.inputs" in out[0]
    assert "the card was made with other files" in out[0]
