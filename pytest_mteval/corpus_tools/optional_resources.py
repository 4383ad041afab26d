"""What the optional resources of spec §11.2 a corpus has, and what each one enables here.

A pointer to a file that is missing or unusable is an error: the run would fail on it later.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pytest_mteval.corpus import CorpusError, Dataset, Entry
from pytest_mteval.corpus_tools.checks import Finding
from pytest_mteval.metrics.resources import load_resources
from pytest_mteval.scoring.guards import DEFAULT_THRESHOLDS


@dataclass(frozen=True)
class Resource:
    name: str
    found: bool
    detail: str
    enables: str


def optional_resources(
    path: Path, dataset: Dataset | None, entries: Sequence[Entry], findings: list[Finding]
) -> list[Resource]:
    """One row per §11.2 resource; problems with named files are appended to ``findings``."""
    fst_detail, orthography_detail = (
        "no dataset.language_resources",
        "no dataset.language_resources",
    )
    has_fst = has_orthography = False
    if dataset is not None and dataset.language_resources:
        resources_path = (path.parent / dataset.language_resources).resolve()
        try:
            loaded = load_resources(resources_path)
        except CorpusError as exc:
            findings.append(Finding("error", "resources", str(exc)))
            fst_detail = orthography_detail = f"{dataset.language_resources}: unusable"
        else:
            has_fst = loaded.fst is not None
            has_orthography = loaded.orthography is not None
            fst_detail = (
                loaded.fst.name if loaded.fst else f"{dataset.language_resources} names no 'fst'"
            )
            orthography_detail = (
                loaded.orthography.name
                if loaded.orthography
                else f"{dataset.language_resources} names no 'orthography'"
            )
    glossary_detail, has_glossary = "no dataset.glossary and no entry terms", False
    with_terms = sum(1 for e in entries if e.terms)
    if dataset is not None and dataset.glossary:
        glossary = (path.parent / dataset.glossary).resolve()
        if glossary.is_file():
            glossary_detail, has_glossary = dataset.glossary, True
        else:
            findings.append(
                Finding(
                    "error",
                    "resources",
                    f"dataset.glossary {dataset.glossary!r}: no such file ({glossary})",
                )
            )
            glossary_detail = f"{dataset.glossary}: missing"
    elif with_terms:
        glossary_detail, has_glossary = f"terms on {with_terms} entries", True
    analysed = sum(1 for e in entries if e.morphological_analysis)
    with_variants = sum(1 for e in entries if e.variants)
    classes = {e.variant_class for e in entries if e.variant_class}
    guard_min = DEFAULT_THRESHOLDS.variants_min_entries
    guard = (
        f"; the run-time guard suspiciously_perfect_variants (spec §9.3.1) judges runs with "
        f"{guard_min}+ such entries"
        + ("" if with_variants >= guard_min else f" (this corpus has {with_variants})")
    )
    return [
        Resource(
            "FST analyzer",
            has_fst,
            fst_detail,
            "fst_acceptance_rate, composite Profile A, morphological_accuracy with gold analyses",
        ),
        Resource("orthography", has_orthography, orthography_detail, "orthographic_accuracy"),
        Resource(
            "bilingual dictionary/glossary",
            has_glossary,
            glossary_detail,
            "terminology_adherence; dictionary-based methods (methods/dictionary)",
        ),
        Resource(
            "gold morphological analyses",
            analysed > 0,
            f"on {analysed} entries",
            "morphological_accuracy (needs an FST analyzer too)",
        ),
        Resource(
            "variants / variant classes",
            with_variants > 0 or bool(classes),
            f"variants on {with_variants} entries, {len(classes)} variant classes",
            "equivalent_match_rate" + guard,
        ),
        Resource("governance organisation", False, "not recorded in a corpus file (spec §8.4)", ""),
    ]
