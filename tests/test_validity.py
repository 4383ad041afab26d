"""benchmarks/validity.py on an excerpt of the WMT21 TED zh->en MQM data (tests/data, see its
SOURCE.md): real replayed sessions, figures checked against an independent computation."""

from __future__ import annotations

import csv
import re
import subprocess
import sys
from collections import defaultdict

import numpy as np
import pytest
from conftest import DATA, REPO
from sacrebleu.metrics.chrf import CHRF

# scipy comes with the dev extra; a bare `pip install -e .` run must still collect this folder
kendalltau = pytest.importorskip("scipy.stats").kendalltau

EXCERPT = DATA / "wmt21-ted-mqm-zhen-excerpt"
SYSTEMS = ("DIDI-NLP", "SMU", "metricsystem3")


def independent_figures():
    """System MQM (Freitag et al. weights) and corpus chrF++ against refB, from the TSV."""
    penalty = defaultdict(lambda: defaultdict(float))
    texts = defaultdict(dict)
    accuracy = set()
    with (EXCERPT / "mqm_ted_zhen.tsv").open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE):
            major = row["severity"] == "Major"
            cost = {"Major": 5.0, "Minor": 1.0}.get(row["severity"], 0.0)
            if row["severity"] == "Minor" and row["category"] == "Fluency/Punctuation":
                cost = 0.1
            if major and row["category"].startswith("Non-translation"):
                cost = 25.0
            penalty[(row["system"], row["seg_id"])][row["rater"]] += cost
            kind = row["category"].split("/")[-1]
            if major and kind in {"Addition", "Omission", "Mistranslation"}:
                accuracy.add((row["system"], row["seg_id"]))
            texts[row["system"]][row["seg_id"]] = re.sub("</?v>", "", row["target"])
    segments = sorted(texts["refB"])
    mqm, chrf = [], []
    for system in (*SYSTEMS, "refB"):
        scores = [
            -sum(min(25.0, p) for p in penalty[(system, s)].values()) / len(penalty[(system, s)])
            for s in segments
        ]
        mqm.append(sum(scores) / len(scores))
        hyps = [texts[system][s] for s in segments]
        chrf.append(
            CHRF(word_order=2).corpus_score(hyps, [[texts["refB"][s] for s in segments]]).score
        )
    marked = sum(1 for system, _ in accuracy if system in SYSTEMS)
    return mqm[:-1], chrf[:-1], marked, mqm[-1]


def test_validity_table_on_the_excerpt():
    args = [sys.executable, str(REPO / "benchmarks" / "validity.py"), str(EXCERPT), "--systems"]
    done = subprocess.run(
        [*args, *(f"--system={s}" for s in SYSTEMS)],
        capture_output=True,
        text=True,
        check=False,
        cwd=REPO,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "3 systems x 40 segments, reference refB" in out
    mqm, chrf, marked, reference = independent_figures()
    # the corpus (and so every card) says how the experts rated the reference itself
    assert reference > max(mqm)
    assert (
        "reference quality (on the cards): refB of mqm_ted_zhen.tsv; judged better than machine "
        f"outputs by the data set's MQM expert raters (mean MQM {reference:.2f}; MT systems "
        f"{min(mqm):.2f} to {max(mqm):.2f} on the same segments)"
    ) in out
    rows = {line.split()[0]: line.split() for line in out.splitlines() if line.strip()}
    for system, expected_mqm, expected_chrf in zip(SYSTEMS, mqm, chrf, strict=True):
        assert float(rows[system][1]) == round(expected_mqm, 3)
        assert float(rows[system][3]) == round(expected_chrf, 2)
    pearson = np.corrcoef(chrf, mqm)[0, 1]
    kendall = kendalltau(chrf, mqm)[0]
    assert rows["chrf_plus_plus"][1:3] == [f"{pearson:.3f}", f"{kendall:.3f}"]
    assert rows["hallucination_rate"][-1] == str(marked)
    assert "composite" in rows


def test_a_file_without_mqm_columns_gets_one_line(tmp_path):
    bad = tmp_path / "mqm_x_zhen.tsv"
    bad.write_text("system\tseg_id\tcategory\tseverity\nA\t1\tNo-error\tNo-error\n", "utf-8")
    done = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "validity.py"), str(bad)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert (
        done.stderr.strip()
        == f"validity: {bad}: missing column(s) doc, doc_id, rater, source, target"
    )
