"""Read a data set in any of the public WMT MQM formats (google/wmt-mqm-human-evaluation):

- per annotation: one TSV row per error annotation, or ``No-error``, with the columns ``system
  doc doc_id seg_id rater source target category severity``; the marked span is ``<v>...</v>``
  inside source or target;
- side by side (``sxs_mqm_*.tsv``, possibly still in its ``.tar.gz``): the same per annotation,
  with ``docSegId globalSegId`` for ``doc_id seg_id`` and a ``metadata`` column; the raters'
  quality-control rows (severity ``HOTW-test``, an error planted in the target) are left out;
- averaged: ``*.avg_seg_scores.tsv`` (``system mqm_avg_score seg_id``, ``None`` where unrated)
  with the texts in separate files, as in mt-metrics-eval: ``sources/*.txt`` and one file per
  system under ``system-outputs/`` (references under ``references/`` as ``PAIR.NAME.txt`` are
  systems too), line *n* being segment *n*. There are no categories then: detectors show n/a.

Segment scores are computed from the annotations with the weights of Freitag et al. (2021),
the ones behind the data set's own ``*.avg_seg_scores.tsv``: per rater a Major error costs 5
(25 for a non-translation), a Minor one 1 (0.1 for punctuation), summed and capped at 25;
averaged over the segment's raters and negated, so 0 is best; a "Source issue" costs nothing
(an error of the source, not of the translation). On the shared zh->en file this reproduces
all 7,935 published segment averages exactly.
"""

from __future__ import annotations

import csv
import io
import re
import sys
import tarfile
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from pytest_mteval.metrics.text import words

COLUMNS = ("system", "doc", "doc_id", "seg_id", "rater", "source", "target", "category", "severity")
#: The side-by-side format's names for two of them.
SXS_NAMES = {"docSegId": "doc_id", "globalSegId": "seg_id"}
QUALITY_CONTROL = "hotw-test"
_MARK = re.compile(r"</?v>")
_SPAN = re.compile(r"<v>(.*?)</v>", re.DOTALL)
MAX_PENALTY = 25.0


class MQMError(Exception):
    """A file that is not in the MQM format; the message names the file and the row."""


@dataclass
class Segment:
    """One system's output for one source segment, with every annotation made on it."""

    system: str
    seg_id: str
    doc: str
    target: str
    #: (rater, category, severity) for every row, No-error rows included.
    annotations: list[tuple[str, str, str]] = field(default_factory=list)
    #: (category, text of the marked span) for every annotation that marks a target span.
    spans: list[tuple[str, str]] = field(default_factory=list)
    #: The published average, for data that gives scores and no annotations.
    given_score: float | None = None

    def raters(self) -> set[str]:
        return {rater for rater, _, _ in self.annotations}

    def score(self) -> float:
        """The MQM score: minus the mean over raters of each rater's capped penalty."""
        if self.given_score is not None:
            return self.given_score
        penalty: defaultdict[str, float] = defaultdict(float)
        for rater, category, severity in self.annotations:
            penalty[rater] += weight(category, severity)
        if not penalty:
            return 0.0
        return -sum(min(MAX_PENALTY, p) for p in penalty.values()) / len(penalty)

    def marked_words(self, categories: tuple[str, ...]) -> set[str]:
        """The words (case-folded) inside target spans marked with one of ``categories``."""
        wanted = tuple(c.casefold() for c in categories)
        return {
            word.casefold()
            for category, text in self.spans
            if category.casefold().startswith(wanted)
            for word in words(text)
        }

    def has(self, categories: tuple[str, ...], severities: tuple[str, ...] = ()) -> bool:
        """Whether some rater marked an error of one of ``categories`` (prefix match, any case)."""
        wanted = tuple(c.casefold() for c in categories)
        return any(
            category.casefold().startswith(wanted)
            and (not severities or severity.casefold() in severities)
            for _, category, severity in self.annotations
        )


def weight(category: str, severity: str) -> float:
    level = severity.strip().casefold()
    name = category.strip().casefold()
    if name.startswith("source issue"):
        return 0.0
    if level == "major":
        return 25.0 if name.startswith("non-translation") else 5.0
    if level == "minor":
        return 0.1 if name == "fluency/punctuation" else 1.0
    return 0.0


@dataclass
class MQMData:
    path: Path
    sources: dict[str, str]
    #: system -> seg_id -> segment
    systems: dict[str, dict[str, Segment]]


def annotation_file(folder: Path) -> Path:
    """The folder's annotation TSV (per annotation or side by side, possibly in a
    ``.tsv.tar.gz``), else its ``*.avg_seg_scores.tsv``."""
    if folder.is_file():
        return folder
    candidates = sorted([*folder.glob("*.tsv"), *folder.glob("*.tsv.tar.gz")])
    for path in candidates:
        header = {h.strip() for h in _first_line(path).split("\t")}
        if {"category", "severity"} <= header and header & {"seg_id", "globalSegId"}:
            return path
    for path in candidates:
        if path.name.endswith(".avg_seg_scores.tsv"):
            return path
    raise MQMError(f"{folder}: no TSV with MQM columns ({', '.join(COLUMNS)})")


def _first_line(path: Path) -> str:
    with _open_text(path) as handle:
        return handle.readline()


def _open_text(path: Path) -> io.TextIOBase:
    """The file, or the one TSV inside a ``.tar.gz`` (read into memory), as text."""
    if not path.name.endswith(".tar.gz"):
        return io.StringIO(path.read_text(encoding="utf-8"), newline="")
    with tarfile.open(path, "r:gz") as archive:
        members = [m for m in archive.getmembers() if m.isfile() and m.name.endswith(".tsv")]
        if len(members) != 1:
            raise MQMError(f"{path}: expected one .tsv inside, found {len(members)}")
        raw = archive.extractfile(members[0])
        assert raw is not None  # a regular file member always has content
        return io.StringIO(raw.read().decode("utf-8"), newline="")


def read(folder: Path) -> MQMData:
    path = annotation_file(folder)
    if path.name.endswith(".avg_seg_scores.tsv") and folder.is_dir():
        return read_averaged(path, folder)
    sources: defaultdict[str, Counter[str]] = defaultdict(Counter)
    targets: defaultdict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    segments: dict[str, dict[str, Segment]] = defaultdict(dict)
    csv.field_size_limit(sys.maxsize)
    with _open_text(path) as handle:
        reader = csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        reader.fieldnames = [SXS_NAMES.get(f, f) for f in reader.fieldnames or []]
        missing = [c for c in COLUMNS if c not in reader.fieldnames]
        if missing:
            raise MQMError(f"{path}: missing column(s) {', '.join(missing)}")
        for number, row in enumerate(reader, start=2):
            if any(row.get(c) is None for c in COLUMNS):
                raise MQMError(f"{path}: line {number}: fewer than {len(COLUMNS)} columns")
            if row["severity"].strip().casefold() == QUALITY_CONTROL:
                continue
            system, seg_id = row["system"], row["seg_id"]
            sources[seg_id][_MARK.sub("", row["source"])] += 1
            targets[(system, seg_id)][_MARK.sub("", row["target"])] += 1
            segment = segments[system].setdefault(
                seg_id, Segment(system, seg_id, row["doc"], target="")
            )
            segment.annotations.append((row["rater"], row["category"], row["severity"]))
            segment.spans += [(row["category"], m) for m in _SPAN.findall(row["target"])]
    for (system, seg_id), texts in targets.items():
        segments[system][seg_id].target = texts.most_common(1)[0][0]
    return MQMData(
        path=path,
        sources={seg: texts.most_common(1)[0][0] for seg, texts in sources.items()},
        systems=dict(segments),
    )


def read_averaged(scores: Path, folder: Path) -> MQMData:
    """Published segment averages plus the texts in mt-metrics-eval's layout (line n of each
    file is segment n); an unrated segment (``None``) is left out of its system."""
    given: dict[str, dict[str, float]] = defaultdict(dict)
    with scores.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            cells = line.split()
            if number == 1 and cells[:1] == ["system"]:
                continue
            if len(cells) != 3:
                raise MQMError(f"{scores}: line {number}: expected system, score, seg_id")
            if cells[1] != "None":
                given[cells[0]][cells[2]] = float(cells[1])
    source_files = sorted(folder.glob("**/sources/*.txt"))
    if len(source_files) != 1:
        raise MQMError(f"{folder}: expected one sources/*.txt, found {len(source_files)}")
    outputs = {p.stem: p for p in sorted(folder.glob("**/system-outputs/**/*.txt"))}
    outputs |= {p.stem.split(".")[-1]: p for p in sorted(folder.glob("**/references/*.txt"))}
    systems: dict[str, dict[str, Segment]] = {}
    for system, rated in given.items():
        if system not in outputs:
            raise MQMError(f"{scores}: system {system!r} has no file under system-outputs/")
        lines = _lines(outputs[system])
        systems[system] = {
            seg: Segment(system, seg, "", _line(lines, seg, outputs[system]), given_score=value)
            for seg, value in rated.items()
        }
    lines = _lines(source_files[0])
    segments = {seg for rated in given.values() for seg in rated}
    return MQMData(scores, {seg: _line(lines, seg, source_files[0]) for seg in segments}, systems)


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n")


def _line(lines: list[str], seg_id: str, path: Path) -> str:
    if not seg_id.isdigit() or not 1 <= int(seg_id) <= len(lines):
        raise MQMError(f"{path}: no line {seg_id} (segment ids are line numbers)")
    return lines[int(seg_id) - 1]


def language_pair(path: Path) -> tuple[str, str] | None:
    """("zh", "en") from a name such as ``mqm_ted_zhen.tsv``, when it ends in two codes."""
    match = re.search(r"_([a-z]{2})([a-z]{2})(?:\.|$)", path.name)
    return (match.group(1), match.group(2)) if match else None
