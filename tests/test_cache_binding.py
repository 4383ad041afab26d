"""Issue 41, group 2: the translation cache key is the whole configuration and its entries are
the harness's alone. Attacks first, in real sessions: a changed dot-file served the old
outputs, outputs made without the sandbox served to a sandboxed run, and a plain-runner method
rewriting another method's entries with the check field recomputed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import envelope, flores_entries
from methods_for_tests import MANIFEST

from pytest_mteval.run.sandbox import sandbox_problem

pytest_plugins = ["pytester"]

COUNT = 4
needs_sandbox = pytest.mark.skipif(sandbox_problem() is not None, reason="no sandbox here")

#: Answers every entry with the WORD its dot-file ``.impl.py`` defines.
DOT_FILE_METHOD = """
from pathlib import Path
exec((Path(__file__).with_name(".impl.py")).read_text())

class Probe:
    async def translate(self, entries, config):
        return [{"id": e["id"], "predicted": WORD} for e in entries]
"""

#: Answers with what it can read outside its folder: the sandbox hides the file.
SEES_OUTSIDE_METHOD = """
from pathlib import Path
OUTSIDE = Path({outside!r})

class Probe:
    async def translate(self, entries, config):
        try:
            seen = "saw " + OUTSIDE.read_text().strip()
        except OSError:
            seen = "sealed"
        return [{{"id": e["id"], "predicted": seen}} for e in entries]
"""

#: A plain-runner method that rewrites every cache entry it finds, recomputing the entry's
#: check field the only way it can: a sha256 over what the entry says.
FORGER_METHOD = """
import hashlib, json
from pathlib import Path

def canonical(value):
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode()

class Probe:
    cacheable = False

    async def translate(self, entries, config):
        for path in (Path.cwd() / ".mteval" / "cache").rglob("*.json"):
            if len(path.stem) != 64:
                continue
            stored = json.loads(path.read_text())
            stored["result"]["predicted"] = "PWNED"
            check = hashlib.sha256(
                canonical([stored["fingerprint"], stored["key"], stored["result"]])
            ).hexdigest()
            for field in ("sha256", "hmac"):
                stored[field] = check
            path.write_text(json.dumps(stored))
        return [{"id": e["id"], "predicted": "x"} for e in entries]
"""


def _method(folder: Path, name: str, code: str) -> Path:
    method = folder / name
    method.mkdir(parents=True)
    (method / "probe.py").write_text(code, encoding="utf-8")
    manifest = {**MANIFEST, "method_id": name, "name": name}
    (method / "method.json").write_text(json.dumps(manifest), encoding="utf-8")
    return method


def _session(pytester: pytest.Pytester, method: Path, *args: str) -> dict:
    corpus = pytester.path / "corpus.json"
    if not corpus.exists():
        corpus.write_text(json.dumps(envelope(flores_entries(COUNT))), encoding="utf-8")
    card = pytester.path / "card.json"
    card.unlink(missing_ok=True)
    result = pytester.runpytest_subprocess(
        "-p", "no:randomly", f"--mteval-corpus={corpus}", f"--mteval-method={method}",
        f"--mteval-run-card={card}", *args,
    )  # fmt: skip
    assert card.exists(), result.stdout.str()[-2000:] + result.stderr.str()[-2000:]
    return json.loads(card.read_text("utf-8"))


def _predictions(card: dict) -> set[str]:
    return {row["predicted"] for row in card["results"]}


def test_attack_a_changed_dot_file_is_not_served_the_old_outputs(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    method = _method(tmp_path, "dotted", DOT_FILE_METHOD)
    (method / ".impl.py").write_text('WORD = "ancien"\n', encoding="utf-8")
    first = _session(pytester, method)
    assert _predictions(first) == {"ancien"}
    assert first["cache"]["cache_hits"] == 0
    again = _session(pytester, method)
    assert again["cache"]["cache_hits"] == COUNT  # the cache serves an unchanged method
    (method / ".impl.py").write_text('WORD = "nouveau"\n', encoding="utf-8")
    changed = _session(pytester, method)
    assert _predictions(changed) == {"nouveau"}
    assert changed["cache"]["cache_hits"] == 0
    assert changed["method"]["code"]["sha256"] != first["method"]["code"]["sha256"]


@needs_sandbox
def test_attack_outputs_made_without_the_sandbox_never_reach_a_sandboxed_run(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("a private note\n", encoding="utf-8")
    method = _method(tmp_path, "looker", SEES_OUTSIDE_METHOD.format(outside=str(outside)))
    plain = _session(pytester, method, "--mteval-sandbox=none")
    assert _predictions(plain) == {"saw a private note"}
    assert plain["runner"]["isolated"] is False
    sandboxed = _session(pytester, method)
    assert sandboxed["runner"]["isolated"] is True
    assert sandboxed["cache"]["cache_hits"] == 0
    assert _predictions(sandboxed) == {"sealed"}
    served = _session(pytester, method)  # the sandboxed run's own outputs are served again
    assert served["cache"]["cache_hits"] == COUNT
    assert _predictions(served) == {"sealed"}


def test_attack_a_plain_runner_method_cannot_forge_another_method_s_cache_entries(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    victim = _method(tmp_path, "dotted", DOT_FILE_METHOD)
    (victim / ".impl.py").write_text('WORD = "honnête"\n', encoding="utf-8")
    assert _predictions(_session(pytester, victim)) == {"honnête"}
    forger = _method(tmp_path, "forger", FORGER_METHOD)
    _session(pytester, forger, "--mteval-sandbox=none")
    stored = [p for p in (pytester.path / ".mteval" / "cache").rglob("*.json") if len(p.stem) == 64]
    assert len(stored) == COUNT
    assert all("PWNED" in p.read_text("utf-8") for p in stored)  # the forger did write them
    after = _session(pytester, victim)
    assert _predictions(after) == {"honnête"}
    assert after["cache"]["cache_hits"] == 0
    assert after["cache"]["cache_rejected"] == COUNT
    healed = _session(pytester, victim)  # re-translated entries were stored again, sealed
    assert healed["cache"]["cache_hits"] == COUNT
    assert _predictions(healed) == {"honnête"}
