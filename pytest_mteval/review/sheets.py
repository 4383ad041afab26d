"""The sheets a review is rated on: the HTML form, the CSV template and the sample record,
written alike for a drawn sample (``mteval review sample``) and an opened sealed one
(``mteval review open``)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pytest_mteval.review import form, sample_record
from pytest_mteval.review.sample import Sample


def write_sheets(
    drawn: Sample, title: str, card: Mapping[str, Any], out: Path, with_reference: bool
) -> tuple[Path, Path, Path]:
    """The review form, the CSV template and the sample record, in ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    stem = f"review-{drawn.sample_id}"
    html, template = out / f"{stem}.html", out / f"{stem}.csv"
    html.write_text(form.html_form(drawn, title, with_reference), encoding="utf-8")
    template.write_text(form.csv_template(drawn, with_reference), encoding="utf-8")
    kept = sample_record.path_for(out, drawn)
    sample_record.write(kept, drawn, card)
    return html, template, kept
