"""What a failed entry's report says: the error on its first line (``-rf`` shows it after
the entry's node id), the entry and its source, and, when the method raised, its traceback
in the ``--tb`` style asked for.

A method that raises fails its whole batch with one error. Repeating it 25 times hides what
matters, so the first entry of the batch to report shows the traceback and the others name
that entry.
"""

from __future__ import annotations

from pytest_mteval.corpus import Entry
from pytest_mteval.run.method_traceback import BatchFailure


def entry_failure(entry: Entry, error: str, failure: BatchFailure | None, style: str) -> str:
    """The report of an entry whose translation failed with ``error``."""
    if style == "line":
        where = failure.traceback["line"] if failure and failure.traceback else ""
        return f"{error} ({where})" if where else error
    lines = [error, f"  translation failed for entry {entry.key!r}", f"  source: {entry.source}"]
    if failure is None or failure.message != error:
        return "\n".join(lines)
    if failure.shown_by not in (None, entry.key):
        lines.append(
            f"  the same error as entry {failure.shown_by!r} of batch {failure.batch}"
            + (": its report shows the traceback" if failure.traceback else "")
        )
        return "\n".join(lines)
    failure.shown_by = entry.key
    if failure.size > 1:
        lines.append(f"  all {failure.size} entries of batch {failure.batch} failed with it")
    if failure.traceback is not None and style != "no":
        text = failure.traceback["short" if style == "short" else "long"]
        lines += ["", "the method's traceback:", text]
    return "\n".join(lines)
