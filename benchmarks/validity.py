"""Issue 15: do the composite and each metric move the way expert human judgment moves?

    python benchmarks/validity.py DATA_DIR... [--reference NAME] [--semantic] [--keep DIR [--reuse]]

DATA_DIR holds a data set in any public WMT MQM format (google/wmt-mqm-human-evaluation: per
annotation, side by side, or averaged scores with separate system outputs; see
``mqm_data.py``), e.g. ../shared/data/wmt21-ted-mqm-zhen or ../shared/data/wmt23-sxs-mqm-ende.
Every MT system of the file (not the reference chosen, not other human translations: names
starting with ``ref`` or ``human``) is replayed through a real pytest-mteval session (the
shipped replay method, a real run card), scored against ``--reference`` (by default the human
translation the experts rated best). The default metrics run; ``--semantic`` adds the
semantic score (a model load and several times the time). Printed per metric and for the
composite:

- system level: Pearson and Kendall (tau-b) between the card's value and the system's mean
  MQM score over the same segments, each with a 95 % bootstrap interval over segments, and
  the WMT pairwise accuracy (``agreement.py``);
- segment level: Kendall tau-b over every (system, segment) pair, pooled ("no grouping"),
  and the mean over segments of the tau-b between the systems' translations of that one
  segment ("per segment": which translation of the same source is better, the question a
  gate asks; the pooled figure also rewards knowing that long segments collect more MQM
  penalty); the composite of one segment is the run's composite over that entry alone;
- for the per-entry detectors: precision and recall of "fired" against "some rater marked an
  error of the matching MQM categories" on the same output.

Given several data sets, a last table pools system pairwise accuracy over every set's system
pairs (a pair lies within one set): on few systems per set, the steadier system-level figure;
beside it, each set's system Pearson and pooled segment Kendall, per metric and composite.

Lower-is-better metrics (TER, code-switching and hallucination rates) are negated first, so a
positive correlation always means agreement with the experts. There is no ratio here: the
figures are correlations, the reference being chrF++'s on the same run.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import re
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import agreement
import mqm_data
import pytest

from pytest_mteval.cards.comparable_card import from_card
from pytest_mteval.cards.runcard import built
from pytest_mteval.corpus import describe_reference_quality
from pytest_mteval.metrics import catalog
from pytest_mteval.metrics.entry_record import number
from pytest_mteval.metrics.text import words
from pytest_mteval.scoring.bootstrap import Statistic
from pytest_mteval.scoring.run_judgement import group_composite, statistics_of

REPO = Path(__file__).resolve().parents[1]
REPLAY = REPO / "methods" / "replay"
HUMAN = re.compile(r"^(ref|human)", re.IGNORECASE)
#: Per-entry card fields of each reported metric.
ENTRY_FIELDS = {
    "chrf_plus_plus": "chrf_score",
    "bleu": "bleu_score",
    "ter": "ter_score",
    "semantic_score": "semantic_score",
    "exact_match_rate": "exact_match",
    "code_switching_rate": "code_switching_detected",
    "hallucination_rate": "hallucination_detected",
}
#: Detector -> MQM categories (prefixes) and severities that count as what it detects.
DETECTORS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "code_switching_rate": (
        ("Accuracy/Untranslated text", "Accuracy/Source language fragment", "Non-translation"),
        (),
    ),
    "hallucination_rate": (
        ("Accuracy/Addition", "Accuracy/Omission", "Accuracy/Mistranslation", "Non-translation"),
        ("major",),
    ),
}


@dataclass
class SystemRun:
    system: str
    card: dict[str, Any]
    #: seg_id -> value of each metric on that entry alone (higher is better)
    entries: dict[str, dict[str, float | None]]
    #: metric -> per-entry statistics, rows in the order of ``entries``
    statistics: dict[str, Statistic]


def reference_quality(
    data: mqm_data.MQMData, reference: str, systems: Sequence[str]
) -> dict[str, str]:
    """The corpus envelope's ``reference_quality``: how the experts' MQM scores of the reference
    itself compare with the MT systems' over the same segments (better than the best system,
    worse than the worst, or in between)."""
    refs = data.systems[reference]
    segments = [s for s in refs if refs[s].target.strip()]
    own = _mean([refs[s].score() for s in segments])
    theirs = [
        _mean([data.systems[m][s].score() for s in segments if s in data.systems[m]])
        for m in systems
    ]
    if own > max(theirs):
        judgment = "better_than_outputs"
    elif own < min(theirs):
        judgment = "worse_than_outputs"
    else:
        judgment = "comparable_to_outputs"
    return {
        "reference": f"{reference} of {data.path.name}",
        "judgment": judgment,
        "judged_by": "the data set's MQM expert raters",
        "evidence": (
            f"mean MQM {own:.2f}; MT systems {min(theirs):.2f} to {max(theirs):.2f} "
            "on the same segments"
        ),
    }


def corpus_file(
    data: mqm_data.MQMData,
    reference: str,
    pair: tuple[str, str],
    out: Path,
    quality: Mapping[str, str] | None = None,
) -> Path:
    """The segments that the reference translates, as a corpus in the spec's envelope."""
    source_language, target_language = pair
    refs = data.systems[reference]
    entries = [
        {
            "id": seg_id,
            "source": data.sources[seg_id],
            "reference": refs[seg_id].target,
            "metadata": {"doc": refs[seg_id].doc},
        }
        for seg_id in sorted(refs, key=_seg_order)
        if refs[seg_id].target.strip()
    ]
    corpus = {
        "dataset": {
            "id": f"mqm-{data.path.stem}-{reference}",
            "version": "1",
            "language_pair": f"{source_language.upper()}→{target_language.upper()}",
            "source_language": source_language,
            "target_language": target_language,
            "created": date.today().isoformat(),  # when this corpus file was made
            "license": "Apache-2.0",
            "provenance": [str(data.path)],
            **({"reference_quality": dict(quality)} if quality else {}),
        },
        "entries": entries,
    }
    path = out / "corpus.json"
    path.write_text(json.dumps(corpus, ensure_ascii=False), encoding="utf-8")
    return path


def _seg_order(seg_id: str) -> tuple[int, str]:
    return (int(seg_id), "") if seg_id.isdigit() else (sys.maxsize, seg_id)


def replay(
    system: str,
    data: mqm_data.MQMData,
    corpus: Path,
    out: Path,
    reuse: bool = False,
    semantic: bool = False,
) -> dict[str, Any]:
    """One real pytest-mteval session replaying ``system``; its run card. With ``reuse``, a
    card that an earlier run left in ``out`` for the same corpus is read instead."""
    card = out / f"{_slug(system)}.card.json"
    if reuse and card.exists():
        kept: dict[str, Any] = json.loads(card.read_text(encoding="utf-8"))
        measured = kept.get("scores", {}).get("semantic_score") is not None
        if kept.get("dataset", {}).get("sha256") == _sha256(corpus) and measured == semantic:
            return kept
    card.unlink(missing_ok=True)  # a card is never overwritten: a stale one would be read
    predictions = out / f"{_slug(system)}.jsonl"
    with predictions.open("w", encoding="utf-8") as handle:
        for seg_id, segment in data.systems[system].items():
            row = {"id": seg_id, "predicted": segment.target}
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    args = [
        "-q",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:asyncio",
        f"--mteval-corpus={corpus}",
        f"--mteval-method={REPLAY}",
        f"--mteval-method-arg=predictions={predictions}",
        f"--mteval-run-card={card}",
        f"--mteval-model=replay:{system}",
        f"--mteval-metrics={'all' if semantic else 'default'}",  # semantic: off by default
    ]
    log = io.StringIO()
    with contextlib.redirect_stdout(log), contextlib.chdir(out):
        pytest.main(args)
    if not card.exists():
        raise SystemExit(f"{system}: the session wrote no card:\n{log.getvalue()[-3000:]}")
    loaded: dict[str, Any] = json.loads(card.read_text(encoding="utf-8"))
    return loaded


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name)


def per_entry(
    card: Mapping[str, Any],
) -> tuple[dict[str, dict[str, float | None]], dict[str, Statistic]]:
    """Each entry's value of every metric and of the composite on that entry alone, and the
    run's per-entry statistics (rows in the same order)."""
    comparable = from_card(built(card), "card")
    rows = list(comparable.rows.values())
    scores = card["scores"]
    profile = str(scores["scoring_profile"])
    statistics = statistics_of(rows, scores, profile, comparable.hallucinated)
    out: dict[str, dict[str, float | None]] = {}
    for position, row in enumerate(rows):
        values: dict[str, float | None] = {}
        for metric, key in ENTRY_FIELDS.items():
            value = number(row, key)
            if metric == "hallucination_rate" and value is not None:
                value = float(bool(value) or row["entry_id"] in comparable.hallucinated)
            values[metric] = None if value is None else _oriented(metric, value)
        values["composite"] = group_composite(statistics, [position], profile)
        out[str(row["entry_id"])] = values
    return out, statistics


def _oriented(metric: str, value: float) -> float:
    return -value if catalog.lower_is_better(metric) else value


def system_value(card: Mapping[str, Any], metric: str) -> float | None:
    value = card["scores"].get(metric)
    return None if value is None else _oriented(metric, float(value))


correlation = agreement.correlation


def detector_agreement(
    runs: Sequence[SystemRun], data: mqm_data.MQMData, metric: str
) -> tuple[int, int, int]:
    """(fired, annotated, both) over every (system, segment) pair."""
    categories, severities = DETECTORS[metric]
    fired = annotated = both = 0
    for run in runs:
        for seg_id, values in run.entries.items():
            value = values.get(metric)
            if value is None:
                continue
            hit = value < 0  # oriented: -1 when the detector fired
            marked = data.systems[run.system][seg_id].has(categories, severities)
            fired += hit
            annotated += marked
            both += hit and marked
    return fired, annotated, both


def flagged_words(row: Mapping[str, Any]) -> set[str]:
    """The words the code-switching check blamed in one card row (all of an output that has
    no text of its own)."""
    if row.get("no_target_text"):
        return {w.casefold() for w in words(str(row.get("predicted") or ""))}
    blamed = [*(row.get("leaked_tokens") or ()), *(row.get("wrong_script_tokens") or ())]
    return {str(w).casefold() for w in blamed}


def word_agreement(runs: Sequence[SystemRun], data: mqm_data.MQMData) -> str:
    """Code-switching at word level: a blamed word is right when it lies in a span that some
    rater marked with the detector's categories on that output; recall over marked words."""
    categories, _ = DETECTORS["code_switching_rate"]
    blamed = right = marked = found = 0
    for run in runs:
        for row in run.card["results"]:
            segment = data.systems[run.system].get(str(row["entry_id"]))
            if segment is None:
                continue
            got, spans = flagged_words(row), segment.marked_words(categories)
            blamed += len(got)
            marked += len(spans)
            right += len(got & spans)
            found += len(spans & got)
    return (
        f"code_switching words: {blamed} blamed, {right} inside marked spans (precision "
        f"{_cell(right / blamed if blamed else None)}); {marked} marked, {found} found (recall "
        f"{_cell(found / marked if marked else None)})"
    )


def table(runs: Sequence[SystemRun], data: mqm_data.MQMData) -> list[str]:
    mqm_system = [_mean([data.systems[r.system][s].score() for s in r.entries]) for r in runs]
    pairs = [(r, s) for r in runs for s in r.entries]
    mqm_segment = [data.systems[r.system][s].score() for r, s in pairs]
    metrics = ["composite", *ENTRY_FIELDS]
    lines = [
        f"{'':<22}{'system':>12}{'system':>12}{'segment':>12}{'segment':>12}",
        f"{'metric':<22}{'Pearson':>12}{'Kendall':>12}{'pooled tau':>12}{'per seg tau':>12}"
        f"{'precision':>11}{'recall':>8}{'fired':>7}{'marked':>8}",
    ]
    for metric in metrics:
        system_values = [system_value(r.card, metric) for r in runs]
        segment_values = [r.entries[s].get(metric) for r, s in pairs]
        cells = [
            correlation(system_values, mqm_system, "pearson"),
            correlation(system_values, mqm_system, "kendall"),
            correlation(segment_values, mqm_segment, "kendall"),
            per_segment(runs, data, metric),
        ]
        line = f"{metric:<22}" + "".join(f"{_cell(c):>12}" for c in cells)
        if metric in DETECTORS:
            fired, marked, both = detector_agreement(runs, data, metric)
            precision = both / fired if fired else None
            recall = both / marked if marked else None
            line += f"{_cell(precision):>11}{_cell(recall):>8}{fired:>7}{marked:>8}"
        lines.append(line)
    return lines


def system_table(runs: Sequence[SystemRun], data: mqm_data.MQMData, resamples: int) -> list[str]:
    """System level with 95 % bootstrap intervals over segments, and pairwise accuracy."""
    metrics = ["composite", *ENTRY_FIELDS]
    mqm_system = [_mean([data.systems[r.system][s].score() for s in r.entries]) for r in runs]
    order = list(runs[0].entries)
    same_order = all(list(r.entries) == order for r in runs)
    found: dict[str, dict[str, tuple[float, float] | None]] = {}
    if same_order:
        resampled = [
            {
                **r.statistics,
                agreement.MQM: agreement.mqm_statistic(
                    [data.systems[r.system][s].score() for s in order]
                ),
            }
            for r in runs
        ]
        profile = str(runs[0].card["scores"]["scoring_profile"])
        found = agreement.intervals(resampled, profile, metrics, resamples)
    lines = [f"{'metric':<22}{'Pearson [95% CI]':>26}{'Kendall [95% CI]':>26}{'pairwise acc':>14}"]
    for metric in metrics:
        values = [system_value(r.card, metric) for r in runs]
        cells = []
        for kind in ("pearson", "kendall"):
            interval = found.get(metric, {}).get(kind)
            span = f"[{interval[0]:.2f}, {interval[1]:.2f}]" if interval else "[n/a]"
            cells.append(f"{_cell(correlation(values, mqm_system, kind))} {span}")
        accuracy = agreement.pairwise_accuracy(values, mqm_system)
        lines.append(f"{metric:<22}{cells[0]:>26}{cells[1]:>26}{_cell(accuracy):>14}")
    return lines


def default_reference(data: mqm_data.MQMData) -> str | None:
    """The human translation the experts rated best (highest mean MQM over its segments)."""
    humans = [s for s in data.systems if HUMAN.match(s)]
    scored = {h: _mean([seg.score() for seg in data.systems[h].values()]) for h in humans}
    return max(scored, key=lambda h: scored[h]) if scored else None


def per_segment(runs: Sequence[SystemRun], data: mqm_data.MQMData, metric: str) -> float | None:
    """The mean over segments of Kendall tau-b between the systems' values and MQM scores of
    that segment's translations (segments where either side is constant are skipped)."""
    taus = []
    for seg_id in runs[0].entries:
        values = [r.entries[seg_id].get(metric) for r in runs]
        scores = [data.systems[r.system][seg_id].score() for r in runs]
        if len(set(scores)) > 1:
            tau = correlation(values, scores, "kendall")
            if tau is not None:
                taus.append(tau)
    return _mean(taus) if taus else None


def _cell(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


@dataclass
class SetResult:
    """One data set's replayed systems and their experts' mean MQM scores."""

    name: str
    runs: list[SystemRun]
    data: mqm_data.MQMData


def pairwise_counts(xs: Sequence[float | None], ys: Sequence[float]) -> tuple[int, int]:
    """(right, counted) system pairs, as ``agreement.pairwise_accuracy`` counts them, so
    that pairs of several sets pool into one accuracy."""
    accuracy = agreement.pairwise_accuracy(xs, ys)
    counted = sum(
        1
        for a in range(len(ys))
        for b in range(a + 1, len(ys))
        if xs[a] is not None and xs[b] is not None and ys[a] != ys[b]
    )
    return (0, 0) if accuracy is None else (round(accuracy * counted), counted)


def pooled_table(results: Sequence[SetResult]) -> list[str]:
    """Per metric: system pairwise accuracy pooled over every set's pairs (pairs lie within a
    set), and each set's system Pearson and pooled segment Kendall."""
    header = f"{'metric':<22}{'pooled pair acc':>22}"
    for index, _ in enumerate(results, 1):
        header += f"{f'set {index} sys r':>14}{f'set {index} seg tau':>16}"
    lines = [header]
    for metric in ["composite", *ENTRY_FIELDS]:
        right = counted = 0
        cells = ""
        for result in results:
            runs, data = result.runs, result.data
            mqm = [_mean([data.systems[r.system][s].score() for s in r.entries]) for r in runs]
            values = [system_value(r.card, metric) for r in runs]
            got, pairs = pairwise_counts(values, mqm)
            right, counted = right + got, counted + pairs
            segments = [(r, s) for r in runs for s in r.entries]
            segment_values = [r.entries[s].get(metric) for r, s in segments]
            segment_mqm = [data.systems[r.system][s].score() for r, s in segments]
            cells += f"{_cell(correlation(values, mqm, 'pearson')):>14}"
            cells += f"{_cell(correlation(segment_values, segment_mqm, 'kendall')):>16}"
        pooled = f"{_cell(right / counted if counted else None)} ({right}/{counted})"
        lines.append(f"{metric:<22}{pooled:>22}{cells}")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "data", type=Path, nargs="+", help="folders (or TSV files) in the WMT MQM format"
    )
    parser.add_argument(
        "--reference", help="system used as reference (default: the best-rated human one)"
    )
    parser.add_argument(
        "--semantic", action="store_true", help="also run the semantic score (slow: a model)"
    )
    parser.add_argument(
        "--resamples", type=int, default=agreement.RESAMPLES, help="bootstrap resamples (1000)"
    )
    parser.add_argument("--pair", help="source and target language, e.g. zh-en (else from name)")
    parser.add_argument("--keep", type=Path, help="keep corpus, predictions and cards here")
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="with --keep: read the cards an earlier run left there (same corpus) instead of "
        "replaying those systems again",
    )
    parser.add_argument("--systems", action="store_true", help="also print one line per system")
    parser.add_argument(
        "--system", action="append", default=[], help="only this system (repeatable)"
    )
    args = parser.parse_args(argv)
    if len(args.data) > 1 and (args.reference or args.pair):
        print("validity: --reference and --pair name one data set's; give one DATA_DIR")
        return 2
    results = []
    for position, path in enumerate(args.data):
        keep = args.keep / str(position) if args.keep and len(args.data) > 1 else args.keep
        result = one_set(path, args, keep)
        if isinstance(result, int):
            return result
        results.append(result)
    if len(results) > 1:
        print(f"\npooled over {len(results)} sets (system pairs within each set):")
        for index, result in enumerate(results, 1):
            print(f"  set {index}: {result.name}")
        print("\n".join(pooled_table(results)))
    return 0


def one_set(path: Path, args: argparse.Namespace, keep: Path | None) -> SetResult | int:
    """Replay and print one data set; its result, or the exit status of a one-line error."""
    try:
        data = mqm_data.read(path)
    except (OSError, mqm_data.MQMError) as exc:
        print(f"validity: {exc}", file=sys.stderr)
        return 2
    pair = tuple(args.pair.split("-")) if args.pair else mqm_data.language_pair(data.path)
    if pair is None or len(pair) != 2:
        print(f"validity: {data.path}: name has no language pair; give --pair xx-yy")
        return 2
    reference = args.reference or default_reference(data)
    if reference not in data.systems:
        print(f"validity: {data.path}: no system {reference!r}: {', '.join(data.systems)}")
        return 2
    systems = sorted(s for s in data.systems if s != reference and not HUMAN.match(s))
    unknown = sorted(set(args.system) - set(systems))
    if unknown and len(args.data) == 1:
        print(f"validity: {data.path}: no MT system {', '.join(unknown)}")
        return 2
    systems = [s for s in systems if not args.system or s in args.system]
    out = keep or Path(tempfile.mkdtemp(prefix="mteval-validity-"))
    out.mkdir(parents=True, exist_ok=True)
    quality = reference_quality(data, reference, systems)
    corpus = corpus_file(data, reference, (pair[0], pair[1]), out, quality)
    runs = []
    for system in systems:
        card = replay(system, data, corpus, out, reuse=args.reuse, semantic=args.semantic)
        runs.append(SystemRun(system, card, *per_entry(card)))
        print(f"  replayed {system}: composite {card['scores']['composite']:.4f}", flush=True)
    print(
        f"\n{data.path.name}: {len(systems)} systems x {len(runs[0].entries)} segments, "
        f"reference {reference}, profile {runs[0].card['scores']['scoring_profile']} "
        f"over {', '.join(runs[0].card['scores']['composite_metrics'])}"
    )
    card_reference = runs[0].card["dataset"].get("reference_quality")
    print(f"reference quality (on the cards): {describe_reference_quality(card_reference)}\n")
    print("\n".join(table(runs, data)))
    print(word_agreement(runs, data))
    print(f"\nsystem level, {args.resamples} bootstrap resamples of the segments:")
    print("\n".join(system_table(runs, data, args.resamples)))
    if args.systems:
        print(f"\n{'system':<16}{'MQM':>8}{'composite':>11}{'chrF++':>8}")
        for run in runs:
            mqm = _mean([data.systems[run.system][s].score() for s in run.entries])
            scores = run.card["scores"]
            print(
                f"{run.system:<16}{mqm:>8.3f}{scores['composite']:>11.4f}"
                f"{scores['chrf_plus_plus']:>8.2f}"
            )
    return SetResult(data.path.name, runs, data)


if __name__ == "__main__":
    sys.exit(main())
