// CSV cells for "Export CSV", the same rules as pytest_mteval/review/csv_cells.py: a cell a
// spreadsheet could read as a formula (first character = + - @, tab or carriage return)
// gets a leading single quote, and so does one that already starts with a quote or a line
// feed, so that `mteval review ingest` reads back the exact text.
const QUOTED_STARTS = ["=", "+", "-", "@", "\t", "\r", "'", "\n"];
function neutralise(value) {
  const text = String(value);
  return QUOTED_STARTS.some((start) => text.startsWith(start)) ? "'" + text : text;
}
function cell(value) {
  const text = neutralise(value);
  return /[",\r\n]/.test(text) ? '"' + text.replace(/"/g, '""') + '"' : text;
}
