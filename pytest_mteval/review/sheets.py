"""The sheets a review is rated on: the HTML form, the CSV template and the sample record,
written alike for a drawn sample (``mteval review sample``) and an opened sealed one
(``mteval review open``).

A sealed file names its own sample id, and that id builds the sheets' names: it must be a
sample id and nothing else, and every sheet must land in the output folder itself, never
beside or above it.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pytest_mteval.review import form, sample_record
from pytest_mteval.review.sample import Sample, SampleError, parse_sample_id


def confined(out: Path, name: str) -> Path:
    """``out / name``, refused unless it is a plain file name directly inside ``out``."""
    target = out / name
    if Path(name).name != name or target.resolve().parent != out.resolve():
        raise SampleError(f"sheet name {name!r} would be written outside {out}")
    return target


def write_sheets(
    drawn: Sample, title: str, card: Mapping[str, Any], out: Path, with_reference: bool
) -> tuple[Path, Path, Path]:
    """The review form, the CSV template and the sample record, in ``out``; SampleError
    when the sample's id could name a path."""
    parse_sample_id(drawn.sample_id)
    if drawn.sample_id.strip() != drawn.sample_id:
        raise SampleError(f"{drawn.sample_id!r} is not a sample id")
    out.mkdir(parents=True, exist_ok=True)
    stem = f"review-{drawn.sample_id}"
    html, template = confined(out, f"{stem}.html"), confined(out, f"{stem}.csv")
    kept = confined(out, sample_record.path_for(out, drawn).name)
    html.write_text(form.html_form(drawn, title, with_reference), encoding="utf-8")
    template.write_text(form.csv_template(drawn, with_reference), encoding="utf-8")
    sample_record.write(kept, drawn, card)
    return html, template, kept
