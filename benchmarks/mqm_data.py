"""Read a data set in the public WMT MQM format (google/wmt-mqm-human-evaluation): one TSV row
per error annotation, or ``No-error``, with the columns ``system doc doc_id seg_id rater source
target category severity``; the marked span is ``<v>...</v>`` inside source or target.

Segment scores are computed from the annotations with the weights of Freitag et al. (2021),
the ones behind the data set's own ``*.avg_seg_scores.tsv``: per rater a Major error costs 5
(25 for a non-translation), a Minor one 1 (0.1 for punctuation), summed and capped at 25;
averaged over the segment's raters and negated, so 0 is best. On the shared zh->en file this
reproduces all 7,935 published segment averages exactly.
"""

from __future__ import annotations

import csv
import re
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

COLUMNS = ("system", "doc", "doc_id", "seg_id", "rater", "source", "target", "category", "severity")
_MARK = re.compile(r"</?v>")
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

    def raters(self) -> set[str]:
        return {rater for rater, _, _ in self.annotations}

    def score(self) -> float:
        """The MQM score: minus the mean over raters of each rater's capped penalty."""
        penalty: defaultdict[str, float] = defaultdict(float)
        for rater, category, severity in self.annotations:
            penalty[rater] += weight(category, severity)
        if not penalty:
            return 0.0
        return -sum(min(MAX_PENALTY, p) for p in penalty.values()) / len(penalty)

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
    """The folder's annotation TSV (the one whose header has category and severity)."""
    if folder.is_file():
        return folder
    for path in sorted(folder.glob("*.tsv")):
        with path.open(encoding="utf-8") as handle:
            header = handle.readline().split("\t")
        if {"category", "severity", "seg_id"} <= {h.strip() for h in header}:
            return path
    raise MQMError(f"{folder}: no TSV with MQM columns ({', '.join(COLUMNS)})")


def read(folder: Path) -> MQMData:
    path = annotation_file(folder)
    sources: defaultdict[str, Counter[str]] = defaultdict(Counter)
    targets: defaultdict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    segments: dict[str, dict[str, Segment]] = defaultdict(dict)
    csv.field_size_limit(sys.maxsize)
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            raise MQMError(f"{path}: missing column(s) {', '.join(missing)}")
        for number, row in enumerate(reader, start=2):
            if any(row.get(c) is None for c in COLUMNS):
                raise MQMError(f"{path}: line {number}: fewer than {len(COLUMNS)} columns")
            system, seg_id = row["system"], row["seg_id"]
            sources[seg_id][_MARK.sub("", row["source"])] += 1
            targets[(system, seg_id)][_MARK.sub("", row["target"])] += 1
            segment = segments[system].setdefault(
                seg_id, Segment(system, seg_id, row["doc"], target="")
            )
            segment.annotations.append((row["rater"], row["category"], row["severity"]))
    for (system, seg_id), texts in targets.items():
        segments[system][seg_id].target = texts.most_common(1)[0][0]
    return MQMData(
        path=path,
        sources={seg: texts.most_common(1)[0][0] for seg, texts in sources.items()},
        systems=dict(segments),
    )


def language_pair(path: Path) -> tuple[str, str] | None:
    """("zh", "en") from a name such as ``mqm_ted_zhen.tsv``, when it ends in two codes."""
    match = re.search(r"_([a-z]{2})([a-z]{2})(?:\.|$)", path.name)
    return (match.group(1), match.group(2)) if match else None
