"""What a secret, signed run costs next to a plain one.

The shipped FLORES-200 eng->fra devtest (1,012 entries) evaluated with the identity method in a
whole pytest session, three ways: the corpus in the clear; the same corpus encrypted with
``--mteval-scores-only`` redaction (implied) and a signed card; and the redaction step alone
(``redact_card`` on the plain run's card, timed in this process, given the per-entry
statistics the workers computed, as ``finish_run`` gives them). Reports wall times and
ratios against the plain session measured in the same run.
Usage: ``python benchmarks/secret_overhead.py [--runs 2]``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pytest_mteval.metrics.entry_record import as_records
from pytest_mteval.metrics.sacre import segment_stats
from pytest_mteval.run.redaction import Secrecy, redact_card
from pytest_mteval.run.secret_corpus import encode_key, encrypt, new_key

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpora" / "eng-fra-flores-devtest.json"


def session(folder: Path, name: str, *args: str) -> tuple[float, Path]:
    card = folder / f"{name}.json"
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        f"--mteval-method={ROOT / 'methods' / 'identity'}",
        f"--mteval-run-card={card}",
        *args,
    ]
    start = time.perf_counter()
    subprocess.run(command, cwd=folder, capture_output=True, check=False)
    elapsed = time.perf_counter() - start
    if not card.exists():
        raise SystemExit(f"{name}: no card written")
    return elapsed, card


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=2, help="best of this many sessions each")
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        key = new_key()
        (folder / "k").write_text(encode_key(key))
        (folder / "k").chmod(0o600)
        sealed = folder / "corpus.json.enc"
        sealed.write_bytes(encrypt(CORPUS.read_bytes(), key))
        subprocess.run(
            [sys.executable, "-m", "pytest_mteval.cli.main", "keygen", str(folder / "sign")],
            check=True,
            capture_output=True,
        )
        plain = min(
            session(folder, f"plain{i}", f"--mteval-corpus={CORPUS}")[0] for i in range(runs)
        )
        secret = min(
            session(
                folder,
                f"secret{i}",
                f"--mteval-corpus={sealed}",
                f"--mteval-corpus-key-file={folder / 'k'}",
                f"--mteval-sign-key={folder / 'sign'}",
            )[0]
            for i in range(runs)
        )
        card = json.loads((folder / "plain0.json").read_text(encoding="utf-8"))
        records = as_records(  # what the workers computed during the run
            {"entry_id": r["entry_id"], "stats": segment_stats(r["predicted"], r["expected"])}
            for r in card["results"]
        )
        start = time.perf_counter()
        redact_card(card, Secrecy(("benchmark",)), records)
        redaction = time.perf_counter() - start
    print(f"entries: {len(card['results'])}")
    print(f"plain session:                      {plain:7.2f} s  1.00x")
    print(f"encrypted + scores-only + signed:   {secret:7.2f} s  {secret / plain:.2f}x")
    print(f"redact_card alone:                  {redaction:7.3f} s  {redaction / plain:.3f}x")


if __name__ == "__main__":
    main()
