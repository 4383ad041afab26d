"""``mteval corpus lint CORPUS``: is this corpus ready for a benchmark? Exit 0 when no error
was found, 1 when some were (each named), 2 when the file cannot be read as a corpus at all.

Unlike the loader, which stops at the first bad entry, lint validates every entry with the
loader's own models and reports them all, then checks the valid ones.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from pytest_mteval.corpus import CorpusError, Dataset, Entry, read_document, validation_message
from pytest_mteval.corpus_tools.checks import (
    Finding,
    Minimum,
    content_findings,
    diagnostic_findings,
    duplicate_findings,
    envelope_findings,
    minimums,
    value_findings,
)
from pytest_mteval.corpus_tools.optional_resources import Resource, optional_resources

#: Findings of one code listed in text output before "... and N more" (JSON has them all).
SHOWN_PER_CODE = 10


@dataclass
class LintReport:
    path: Path
    sha256: str
    shape: str
    entries: int
    minimums: list[Minimum]
    findings: list[Finding]
    resources: list[Resource]

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error"]

    @property
    def ok(self) -> bool:
        return all(m.ok for m in self.minimums) and not self.errors

    def as_json(self) -> dict[str, Any]:
        return {
            "corpus": str(self.path),
            "sha256": self.sha256,
            "shape": self.shape,
            "entries": self.entries,
            "ok": self.ok,
            "minimums": [asdict(m) for m in self.minimums],
            "findings": [asdict(f) for f in self.findings],
            "resources": [asdict(r) for r in self.resources],
        }


def lint(path: Path) -> LintReport:
    """Every check on one corpus file; CorpusError only when it is no corpus at all."""
    raw, raw_bytes, shape, _ = read_document(path)
    findings: list[Finding] = []
    dataset: Dataset | None = None
    if not isinstance(raw.get("dataset"), dict):
        findings.append(
            Finding("error", "schema", "missing the 'dataset' envelope object (spec §2.1)")
        )
    else:
        try:
            dataset = Dataset.model_validate(raw["dataset"])
        except ValidationError as exc:
            for error in exc.errors():
                where = ".".join(str(p) for p in error["loc"])
                findings.append(Finding("error", "schema", f"dataset.{where}: {error['msg']}"))
    entries = _valid_entries(raw["entries"], findings)
    if dataset is not None:
        findings.extend(envelope_findings(dataset, entries))
    findings.extend(value_findings(entries))
    findings.extend(duplicate_findings(entries))
    findings.extend(content_findings(entries))
    findings.extend(diagnostic_findings(entries))
    resources = optional_resources(path, dataset, entries, findings)
    return LintReport(
        path=path,
        sha256=hashlib.sha256(raw_bytes).hexdigest(),
        shape=shape,
        entries=len(raw["entries"]),
        minimums=minimums(dataset, entries, len(raw["entries"])),
        findings=findings,
        resources=resources,
    )


def _valid_entries(raw_entries: list[Any], findings: list[Finding]) -> list[Entry]:
    entries: list[Entry] = []
    seen: dict[str, int] = {}
    for index, raw in enumerate(raw_entries):
        label = f"entry {index}" + (
            f" (id {raw.get('id')!r})" if isinstance(raw, dict) and "id" in raw else ""
        )
        if not isinstance(raw, dict):
            findings.append(Finding("error", "schema", f"{label}: an entry is a JSON object"))
            continue
        try:
            entry = Entry.model_validate(raw)
        except (ValidationError, ValueError) as exc:
            message = validation_message(exc) if isinstance(exc, ValidationError) else str(exc)
            findings.append(Finding("error", "schema", f"{label}: {message}", _ids(raw)))
            continue
        if entry.key in seen:
            findings.append(
                Finding(
                    "error",
                    "schema",
                    f"{label}: duplicate id, first used by entry {seen[entry.key]}",
                    [entry.key],
                )
            )
            continue
        seen[entry.key] = index
        entries.append(entry)
    return entries


def _ids(raw: dict[str, Any]) -> list[str]:
    return [str(raw["id"])] if "id" in raw else []


def text_report(report: LintReport, show_all: bool = False) -> list[str]:
    lines = [
        f"mteval corpus lint {report.path}: {report.entries} entries, {report.shape} shape, "
        f"sha256 {report.sha256[:12]}",
        "",
        "Minimums (spec §11.1)",
    ]
    width = max(len(m.name) for m in report.minimums)
    lines.append(f"  {'#':<2} {'requirement':<{width}}  {'have':>5}  {'need':>5}  ok")
    for m in report.minimums:
        mark = "ok" if m.ok else "MISSING"
        lines.append(f"  {m.number:<2} {m.name:<{width}}  {m.have!s:>5}  {m.need!s:>5}  {mark}")
    errors, warnings = len(report.errors), len(report.findings) - len(report.errors)
    lines += ["", f"Problems: {errors} errors, {warnings} warnings"]
    shown: dict[str, int] = {}
    for finding in sorted(report.findings, key=lambda f: f.severity != "error"):
        count = shown[finding.code] = shown.get(finding.code, 0) + 1
        if count <= SHOWN_PER_CODE or show_all:
            lines.append(f"  {finding.severity:<7} {finding.code}: {finding.message}")
    for code, count in shown.items():
        if count > SHOWN_PER_CODE and not show_all:
            lines.append(
                f"  ... and {count - SHOWN_PER_CODE} more {code} (--all, or --format json)"
            )
    lines += ["", "Optional resources (spec §11.2)"]
    width = max(len(r.name) for r in report.resources)
    for r in report.resources:
        state = "found" if r.found else "none"
        enables = f" -> {r.enables}" if r.found else ""
        lines.append(f"  {r.name:<{width}}  {state:<5}  {r.detail}{enables}")
    missed = [f"§11.1.{m.number} {m.name}" for m in report.minimums if not m.ok]
    lines += [
        "",
        "OK: meets every minimum, no errors"
        if report.ok
        else "NOT READY: " + "; ".join(missed + ([f"{errors} errors"] if errors else [])),
    ]
    return lines


def run_lint(path: Path, fmt: str, show_all: bool, strict: bool) -> int:
    try:
        report = lint(path)
    except CorpusError as exc:
        message = str(exc)
        if path.suffix.lower() in {".csv", ".tsv", ".tab", ".txt"}:
            message += f" (a sheet? make it a corpus first: mteval corpus import {path} -o ...)"
        if fmt == "json":
            print(json.dumps({"corpus": str(path), "ok": False, "error": message}))
        else:
            print(f"mteval corpus lint: {message}")
        return 2
    if fmt == "json":
        print(json.dumps(report.as_json(), ensure_ascii=False, indent=2))
    else:
        print("\n".join(text_report(report, show_all)))
    failed = not report.ok or (strict and bool(report.findings))
    return 1 if failed else 0
