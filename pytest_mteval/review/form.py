"""The review sheet: one self-contained HTML form, and the same sample as a CSV template.

The HTML needs no server and no network: the sample travels inside it as JSON, the page
renders every text with ``textContent`` (a method's output is untrusted: a prediction holding
``<script>`` must show as text, never run), and "Export CSV" builds the ratings file in the
browser. Both files produce the same columns, which ``ingest`` reads.
"""

from __future__ import annotations

import csv
import io
import json
from typing import Final

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


def csv_template(sample: Sample, with_reference: bool = True) -> str:
    """The sample as a CSV to fill in a spreadsheet (reviewer, date, rating, note empty)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for item in sample.items:
        writer.writerow(
            [
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
        )
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
    # "<" escaped so no text in the data can close the script element.
    data = json.dumps(payload, ensure_ascii=False).replace("<", "\\u003c")
    heading = json.dumps(title, ensure_ascii=False).replace("<", "\\u003c")
    return _PAGE.replace("__DATA__", data).replace("__TITLE__", heading)


_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy"
      content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'">
<title>Translation review</title>
<style>
body { font-family: sans-serif; max-width: 60rem; margin: 1rem auto; padding: 0 1rem; }
.item { border: 1px solid #ccc; border-radius: 6px; padding: .8rem; margin: 1rem 0; }
.label { font-size: .8rem; color: #555; margin-top: .4rem; }
.text { white-space: pre-wrap; font-size: 1.1rem; }
.ratings label { margin-right: 1rem; }
textarea { width: 100%; }
#status { margin-left: 1rem; }
</style>
</head>
<body>
<h1 id="title"></h1>
<p>Rate each translation: <b>reject</b> (wrong or unusable), <b>gist</b> (the meaning is
clear but the wording is wrong), <b>acceptable</b> (correct, with minor problems),
<b>excellent</b> (indistinguishable from a human translation). Then press Export CSV and
send the file back.</p>
<p><label>Your name or pseudonym: <input id="reviewer" autocomplete="off"></label>
<span class="label">(only a pseudonymous id derived from it is recorded)</span></p>
<p>Sample <code id="sample"></code>, <span id="count"></span> translations.</p>
<div id="items"></div>
<p><button id="export" type="button">Export CSV</button><span id="status"></span></p>
<script id="data" type="application/json">__DATA__</script>
<script>
"use strict";
const data = JSON.parse(document.getElementById("data").textContent);
document.getElementById("title").textContent = __TITLE__;
document.getElementById("sample").textContent = data.sample_id;
document.getElementById("count").textContent = String(data.items.length);
const container = document.getElementById("items");
function block(parent, label, text) {
  const l = document.createElement("div"); l.className = "label"; l.textContent = label;
  const t = document.createElement("div"); t.className = "text"; t.textContent = text;
  parent.append(l, t);
}
data.items.forEach((item, index) => {
  const div = document.createElement("div");
  div.className = "item"; div.dataset.entry = item.entry_id;
  const head = document.createElement("div"); head.className = "label";
  head.textContent = `${index + 1}. entry ${item.entry_id}`;
  div.append(head);
  block(div, "Source", item.source);
  block(div, "Translation to rate", item.prediction);
  if (item.reference) block(div, "Reference (one human translation)", item.reference);
  const ratings = document.createElement("div"); ratings.className = "ratings";
  for (const rating of data.ratings) {
    const label = document.createElement("label");
    label.title = data.meanings[rating];
    const input = document.createElement("input");
    input.type = "radio"; input.name = `rating-${index}`; input.value = rating;
    label.append(input, " " + rating);
    ratings.append(label);
  }
  div.append(ratings);
  const note = document.createElement("textarea");
  note.className = "note"; note.rows = 2; note.placeholder = "note (optional)";
  div.append(note);
  container.append(div);
});
function cell(value) {
  const text = String(value);
  return /[",\\r\\n]/.test(text) ? '"' + text.replace(/"/g, '""') + '"' : text;
}
function exportCsv() {
  const reviewer = document.getElementById("reviewer").value.trim();
  const status = document.getElementById("status");
  if (!reviewer) { status.textContent = "Enter your name or pseudonym first."; return null; }
  const date = new Date().toISOString().slice(0, 10);
  const lines = [data.columns.join(",")];
  data.items.forEach((item, index) => {
    const picked = document.querySelector(`input[name="rating-${index}"]:checked`);
    const note = container.children[index].querySelector(".note").value;
    const row = {sample_id: data.sample_id, entry_id: item.entry_id, stratum: item.stratum,
                 reviewer: reviewer, date: date, rating: picked ? picked.value : "",
                 note: note, source: item.source, prediction: item.prediction,
                 reference: item.reference};
    lines.push(data.columns.map(c => cell(row[c])).join(","));
  });
  const csv = lines.join("\\n") + "\\n";
  const rated = document.querySelectorAll("input[type=radio]:checked").length;
  status.textContent = `${rated} of ${data.items.length} rated; CSV exported.`;
  document.body.dataset.csv = csv;
  const link = document.createElement("a");
  link.href = URL.createObjectURL(new Blob([csv], {type: "text/csv"}));
  link.download = `ratings-${data.sample_id}-${reviewer.replace(/[^A-Za-z0-9_-]+/g, "_")}.csv`;
  document.body.append(link); link.click(); link.remove();
  return csv;
}
document.getElementById("export").addEventListener("click", exportCsv);
</script>
</body>
</html>
"""
