"""Peak memory and wall time of a session whose method answers one 4 MB prediction (and one
with four 1 MB predictions), as ratios against the same session answering normally.

    python benchmarks/huge_prediction.py [--entries 8] [--timeout 600] [--pythonpath DIR]

Each case is a fresh ``pytest`` process (the controller) in a temporary folder, on the first
entries of the shipped FLORES eng->fra corpus, batch size 2, the default runner; its peak RSS
comes from ``wait4`` (the controller's own, the runner process aside). ``--pythonpath`` runs
another checkout of the harness (before/after figures). Nothing here is a test: timings depend
on the machine, so they are reported, never asserted (issue 21, item 5).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

MANIFEST = {
    "name": "huge",
    "method_id": "huge",
    "class": "custom-plugin",
    "entry_point": "huge:Huge",
    "supported_pairs": ["*"],
    "dependency_class": "S",
    "dependencies": [],
    "args": {"chars": {"type": "string"}, "count": {"type": "string"}},
}

#: ``count`` entries answer ``chars`` characters of garbage words; the others their source.
METHOD = """
import random

class Huge:
    async def translate(self, entries, config):
        chars = int(config.method_args.get("chars", "0"))
        count = int(config.method_args.get("count", "0"))
        words = "le la les un une de du et est dans pour sur avec".split()
        out = []
        for e in entries:
            text = e["source"].upper()
            if chars and int(str(e["id"]).removeprefix("e-")) < count:
                rng = random.Random(e["id"])
                text = " ".join(rng.choice(words) for _ in range(chars // 3))[:chars]
            out.append({"id": e["id"], "predicted": text})
        return out
"""

CASES = {
    "normal": {"chars": "0", "count": "0"},
    "one 4 MB prediction": {"chars": str(4_000_000), "count": "1"},
    "four 1 MB predictions": {"chars": str(1_000_000), "count": "4"},
}


def _corpus(folder: Path, entries: int) -> Path:
    root = Path(__file__).resolve().parents[1] / "pytest_mteval" / "corpora"
    data = json.loads((root / "eng-fra-flores-devtest.json").read_text(encoding="utf-8"))
    data["entries"] = [
        {**entry, "id": f"e-{i}"} for i, entry in enumerate(data["entries"][:entries])
    ]
    path = folder / "corpus.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def run_case(
    folder: Path, args: dict[str, str], timeout_s: float, pythonpath: str | None
) -> dict[str, Any]:
    """One session: wall time, the controller's peak RSS (MB), and its card's flags."""
    card = folder / f"card-{time.monotonic_ns()}.json"
    argv = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:randomly",
        "-p",
        "no:cacheprovider",
        f"--mteval-corpus={folder / 'corpus.json'}",
        f"--mteval-method={folder / 'huge'}",
        "--mteval-batch-size=2",
        "--mteval-no-cache",
        f"--mteval-run-card={card}",
        *(f"--mteval-method-arg={k}={v}" for k, v in args.items()),
    ]
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    started = time.perf_counter()
    proc = subprocess.Popen(
        argv, cwd=folder, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = started + timeout_s
    usage = None
    while time.perf_counter() < deadline:
        pid, _, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        time.sleep(0.05)
    else:
        proc.kill()
        _, _, usage = os.wait4(proc.pid, 0)
        return {"wall_s": None, "rss_mb": usage.ru_maxrss / 1024, "note": "timed out"}
    wall = time.perf_counter() - started
    note = "no card"
    if card.exists():
        flags = [f["code"] for f in json.loads(card.read_text(encoding="utf-8"))["flags"]]
        note = ", ".join(flags) or "no flags"
    assert usage is not None
    return {"wall_s": wall, "rss_mb": usage.ru_maxrss / 1024, "note": note}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=8)
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per case")
    parser.add_argument("--pythonpath", help="run this checkout of pytest_mteval instead")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "huge").mkdir()
        (folder / "huge" / "method.json").write_text(json.dumps(MANIFEST), encoding="utf-8")
        (folder / "huge" / "huge.py").write_text(METHOD, encoding="utf-8")
        (folder / "conftest.py").write_text("", encoding="utf-8")
        _corpus(folder, options.entries)
        results = {
            name: run_case(folder, args, options.timeout, options.pythonpath)
            for name, args in CASES.items()
        }
    base = results["normal"]
    print(f"{'case':<24}{'wall s':>9}{'x normal':>10}{'peak RSS MB':>13}{'x normal':>10}  card")
    for name, got in results.items():
        wall = got["wall_s"]
        wall_text = (
            f"{wall:9.2f}{wall / base['wall_s']:10.2f}" if wall else f"{'>limit':>9}{'':>10}"
        )
        rss = got["rss_mb"]
        print(f"{name:<24}{wall_text}{rss:13.0f}{rss / base['rss_mb']:10.2f}  {got['note']}")


if __name__ == "__main__":
    main()
