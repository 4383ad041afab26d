"""benchmarks/validity.py on an excerpt of the WMT21 TED zh->en MQM data (tests/data, see its
SOURCE.md): real replayed sessions, figures checked against an independent computation."""

from __future__ import annotations

import csv
import importlib
import io
import re
import subprocess
import sys
import tarfile
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
    first, _, system_level = out.partition("bootstrap resamples of the segments:")
    rows = {line.split()[0]: line.split() for line in first.splitlines() if line.strip()}
    wide = {line.split()[0]: line.split() for line in system_level.splitlines() if line.strip()}
    for system, expected_mqm, expected_chrf in zip(SYSTEMS, mqm, chrf, strict=True):
        assert float(wide[system][1]) == round(expected_mqm, 3)
        assert float(wide[system][3]) == round(expected_chrf, 2)
    pearson = np.corrcoef(chrf, mqm)[0, 1]
    kendall = kendalltau(chrf, mqm)[0]
    assert rows["chrf_plus_plus"][1:3] == [f"{pearson:.3f}", f"{kendall:.3f}"]
    assert rows["hallucination_rate"][-1] == str(marked)
    # system level again, with its bootstrap interval and the pairwise
    # accuracy, counted here over the three system pairs
    assert wide["chrf_plus_plus"][1] == f"{pearson:.3f}"
    low, high = (float(x.strip("[],")) for x in wide["chrf_plus_plus"][2:4])
    assert -1.0 <= low <= high <= 1.0
    pairs = [(a, b) for a in range(3) for b in range(a + 1, 3)]
    right = sum((chrf[a] - chrf[b]) * (mqm[a] - mqm[b]) > 0 for a, b in pairs)
    assert wide["chrf_plus_plus"][-1] == f"{right / 3:.3f}"
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


SXS = DATA / "wmt23-sxs-mqm-ende-excerpt"


@pytest.fixture
def benchmarks(monkeypatch):
    monkeypatch.syspath_prepend(str(REPO / "benchmarks"))
    return importlib.import_module("mqm_data"), importlib.import_module("agreement")


def sxs_rows():
    with tarfile.open(next(SXS.glob("*.tar.gz"))) as archive:
        member = next(m for m in archive.getmembers() if m.name.endswith(".tsv"))
        text = archive.extractfile(member).read().decode("utf-8")
    return list(csv.DictReader(io.StringIO(text), delimiter="\t", quoting=csv.QUOTE_NONE))


def test_the_side_by_side_format_is_read_without_its_quality_control_rows(benchmarks):
    mqm_data, _ = benchmarks
    data = mqm_data.read(SXS)
    rows = sxs_rows()
    # By hand from the rows: per rater Major 5, Minor 1 (punctuation 0.1), Source issue 0,
    # HOTW-test rows (planted errors) left out; capped at 25, averaged over raters, negated.
    penalty = defaultdict(lambda: defaultdict(float))
    for row in rows:
        key = (row["system"], row["globalSegId"])
        cost = {"Major": 5.0, "Minor": 1.0}.get(row["severity"], 0.0)
        if row["severity"] == "Minor" and row["category"] == "Fluency/Punctuation":
            cost = 0.1
        if row["category"] == "Source issue" or row["severity"] == "HOTW-test":
            cost = 0.0
        if row["severity"] != "HOTW-test":
            penalty[key][row["rater"]] += cost
    assert set(data.systems) == {r["system"] for r in rows}
    assert sorted(data.sources, key=int) == ["1", "4", "5", "11", "12"]
    for (system, seg), by_rater in penalty.items():
        expected = -sum(min(25.0, p) for p in by_rater.values()) / len(by_rater)
        assert data.systems[system][seg].score() == pytest.approx(expected), (system, seg)
        assert len(data.systems[system][seg].raters()) == 3
    hotw = [r for r in rows if r["severity"] == "HOTW-test"]
    assert hotw  # the excerpt does hold planted errors, and none of them was read
    assert all(
        (r["rater"], r["category"], r["severity"])
        not in data.systems[r["system"]][r["globalSegId"]].annotations
        for r in hotw
    )
    spans = defaultdict(set)
    for r in rows:
        if r["category"] == "Accuracy/Source language fragment" and r["severity"] != "HOTW-test":
            for text in re.findall(r"<v>(.*?)</v>", r["target"]):
                spans[(r["system"], r["globalSegId"])] |= {
                    w.casefold() for w in re.findall(r"[\w'’-]+", text)
                }
    for (system, seg), expected_words in spans.items():
        got = data.systems[system][seg].marked_words(("Accuracy/Source language fragment",))
        assert got == expected_words, (system, seg)
    marked = {
        (r["system"], r["globalSegId"])
        for r in rows
        if r["category"] == "Accuracy/Source language fragment"
    }
    assert marked == {
        (system, seg)
        for system, segments in data.systems.items()
        for seg, segment in segments.items()
        if segment.has(("Accuracy/Source language fragment",))
    }


def test_averaged_scores_with_separate_system_outputs(benchmarks, tmp_path):
    # mt-metrics-eval's layout, built from the real TED excerpt: line n is segment n.
    mqm_data, _ = benchmarks
    per_annotation = mqm_data.read(EXCERPT)
    segments = sorted(per_annotation.sources, key=int)
    (tmp_path / "sources").mkdir()
    (tmp_path / "system-outputs" / "zh-en").mkdir(parents=True)
    (tmp_path / "sources" / "zh-en.txt").write_text(
        "\n".join(per_annotation.sources[s] for s in segments), "utf-8"
    )
    lines = ["system mqm_avg_score seg_id"]
    for system, by_seg in per_annotation.systems.items():
        texts = [by_seg[s].target if s in by_seg else "" for s in segments]
        (tmp_path / "system-outputs" / "zh-en" / f"{system}.txt").write_text(
            "\n".join(texts), "utf-8"
        )
        for line, seg in enumerate(segments, start=1):
            score = f"{by_seg[seg].score()}" if seg in by_seg else "None"
            lines.append(f"{system}\t{score}\t{line}")
    (tmp_path / "mqm_ted_zhen.avg_seg_scores.tsv").write_text("\n".join(lines) + "\n", "utf-8")
    averaged = mqm_data.read(tmp_path)
    assert mqm_data.language_pair(averaged.path) == ("zh", "en")
    for system, by_seg in per_annotation.systems.items():
        for line, seg in enumerate(segments, start=1):
            if seg in by_seg:
                got = averaged.systems[system][str(line)]
                assert got.score() == pytest.approx(by_seg[seg].score())
                assert got.target == by_seg[seg].target
                assert averaged.sources[str(line)] == per_annotation.sources[seg]


def test_pairwise_accuracy_counted_by_hand(benchmarks):
    _, agreement = benchmarks
    # pairs (0,1) and (0,2) in the experts' order, (1,2) reversed: 2 of 3
    assert agreement.pairwise_accuracy([1.0, 2.0, 3.0], [-3.0, -1.0, -2.0]) == pytest.approx(2 / 3)
    # a metric tie is a wrong order; an expert tie is left out; an unknown value too
    assert agreement.pairwise_accuracy([1.0, 1.0, 3.0], [-3.0, -1.0, -1.0]) == pytest.approx(1 / 2)
    assert agreement.pairwise_accuracy([None, 1.0, 3.0], [-3.0, -2.0, -1.0]) == 1.0


def test_pairwise_accuracy_pools_the_pairs_of_several_sets(benchmarks):
    validity = importlib.import_module("validity")
    # set one: 2 of 3 pairs right; set two: 1 of 1; an expert tie is not a pair
    assert validity.pairwise_counts([1.0, 2.0, 3.0], [-3.0, -1.0, -2.0]) == (2, 3)
    assert validity.pairwise_counts([5.0, 1.0], [0.0, -1.0]) == (1, 1)
    assert validity.pairwise_counts([5.0, 1.0], [0.0, 0.0]) == (0, 0)


def test_two_sets_print_a_pooled_pairwise_accuracy():
    args = [sys.executable, str(REPO / "benchmarks" / "validity.py"), str(EXCERPT), str(EXCERPT)]
    done = subprocess.run(
        [*args, *(f"--system={s}" for s in SYSTEMS), "--resamples=20"],
        capture_output=True,
        text=True,
        check=False,
        cwd=REPO,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    _, _, pooled = done.stdout.partition("pooled over 2 sets")
    rows = {line.split()[0]: line.split() for line in pooled.splitlines() if line.strip()}
    mqm, chrf, _, _ = independent_figures()
    pairs = [(a, b) for a in range(3) for b in range(a + 1, 3)]
    right = sum((chrf[a] - chrf[b]) * (mqm[a] - mqm[b]) > 0 for a, b in pairs)
    # the same set twice: twice the pairs, the same share
    assert rows["chrf_plus_plus"][1:3] == [f"{right / 3:.3f}", f"({2 * right}/6)"]
    pearson = np.corrcoef(chrf, mqm)[0, 1]
    assert rows["chrf_plus_plus"][3] == rows["chrf_plus_plus"][5] == f"{pearson:.3f}"
    assert "composite" in rows
