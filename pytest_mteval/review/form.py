"""The review sheet: one self-contained HTML form, and the same sample as a CSV template.

The HTML needs no server and no network: the page is rendered by Jinja2 with autoescaping
(``templates/review_form.html``), the sample travels inside it as JSON in a
``<script type="application/json">`` block (Jinja2's ``tojson``, which escapes ``<``, ``>``,
``&`` and quotes, so no text can close the element), and the page's script shows every text
with ``textContent``: a method's output is untrusted and must show as text, never run.
"Export CSV" builds the ratings file in the browser. Both files produce the same columns,
which ``ingest`` reads, and both write a cell a spreadsheet could run with a leading quote
(``cells``).
"""

from __future__ import annotations

import csv
import functools
import io
from typing import Final

import jinja2

from pytest_mteval.review.csv_cells import neutralise
from pytest_mteval.review.sample import Sample

RATINGS: Final = ("reject", "gist", "acceptable", "excellent")
#: What each rating means (spec §7.3), shown to reviewers.
MEANINGS: Final = {
    "reject": "wrong or unusable",
    "gist": "the meaning is clear but the wording is wrong",
    "acceptable": "correct, with minor problems",
    "excellent": "indistinguishable from a human translation",
}
COLUMNS: Final = (
    "sample_id",
    "entry_id",
    "stratum",
    "reviewer",
    "date",
    "rating",
    "note",
    "source",
    "prediction",
    "reference",
)


@functools.cache
def _templates() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("pytest_mteval.review", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )


def csv_template(sample: Sample, with_reference: bool = True) -> str:
    """The sample as a CSV to fill in a spreadsheet (reviewer, date, rating, note empty)."""
    out = io.StringIO()
    # every cell quoted: a carriage return inside one would otherwise end the row
    writer = csv.writer(out, lineterminator="\n", quoting=csv.QUOTE_ALL)
    writer.writerow(COLUMNS)
    for item in sample.items:
        row = [
            sample.sample_id,
            item.entry_id,
            item.stratum,
            "",
            "",
            "",
            "",
            item.source,
            item.prediction,
            item.reference if with_reference else "",
        ]
        writer.writerow([neutralise(cell) for cell in row])
    return out.getvalue()


def html_form(sample: Sample, title: str, with_reference: bool = True) -> str:
    """The self-contained review page."""
    payload = {
        "sample_id": sample.sample_id,
        "columns": list(COLUMNS),
        "ratings": list(RATINGS),
        "meanings": MEANINGS,
        "items": [
            {
                "entry_id": item.entry_id,
                "stratum": item.stratum,
                "source": item.source,
                "prediction": item.prediction,
                "reference": item.reference if with_reference else "",
            }
            for item in sample.items
        ],
    }
    page = _templates().get_template("review_form.html")
    return page.render(title=title, sample_id=sample.sample_id, meanings=MEANINGS, data=payload)
