"""Every collected entry gets a row: the ledger of which entries were collected, which
reported, and why the others did not.

A card that silently drops entries is worse than no card: its scores are over fewer entries
than the run claims. So the controller remembers the entries it collected (its own items, or
the ids each xdist worker collected), and at the end every entry without a record gets one,
as an error that says why (``lost: worker gw1 crashed``, ``not run: interrupted``), and the
card is marked incomplete.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

#: How a row's error begins when the run never translated the entry (not a method fault):
#: a card records the reason as text, and ``sweep/resume.py`` reads it back with ``never_ran``.
LOST: Final = "lost: "
NOT_RUN: Final = "not run: "

#: ``test_x[entry-42]``: the entry of a user's test parametrized over the corpus.
_PARAM: Final = re.compile(r"\[([^\[\]]+)\]$")


@dataclass
class Ledger:
    """Collected entries (by key, in corpus order) and the fate of those without a record."""

    #: item name (``entry-42``) -> entry key, from the run's state
    key_of_name: Mapping[str, str]
    collected: dict[str, None] = field(default_factory=dict)
    #: entry key -> why its item reported no record (a crash, an internal error)
    reasons: dict[str, str] = field(default_factory=dict)
    #: workers that went down with an error
    crashed_workers: list[str] = field(default_factory=list)
    stop_reason: str | None = None

    def collect_ids(self, nodeids: Iterable[str]) -> None:
        """Entries of collected entry items (``...::batch-0001::entry-4``); a user's test
        over an entry may or may not ask for its result, so it does not count here."""
        for nodeid in nodeids:
            key = self.key_of_name.get(nodeid.rsplit("::", 1)[-1])
            if key is not None:
                self.collected.setdefault(key, None)

    def entry_of(self, nodeid: str) -> str | None:
        last = nodeid.rsplit("::", 1)[-1]
        if last in self.key_of_name:
            return self.key_of_name[last]
        found = _PARAM.search(last)
        if found is not None:
            param = found.group(1)
            parts = param.split("-")
            for end in range(len(parts), 1, -1):  # entry-7-x: other parameters follow
                key = self.key_of_name.get("-".join(parts[:end]))
                if key is not None:
                    return key
        return None

    def no_record(self, nodeid: str, reason: str) -> None:
        """An item of this entry finished without a record; the first reason is kept."""
        key = self.entry_of(nodeid)
        if key is not None:
            self.reasons.setdefault(key, reason)

    def worker_crashed(self, worker: str, nodeid: str | None) -> None:
        if worker not in self.crashed_workers:
            self.crashed_workers.append(worker)
        if nodeid is not None:
            key = self.entry_of(nodeid)
            if key is not None:
                self.reasons[key] = f"{LOST}worker {worker} crashed"

    def missing(self, recorded: Iterable[str]) -> dict[str, str]:
        """Collected entries without a record, each with the reason it has none."""
        have = set(recorded)
        return {key: self.reason_for(key) for key in self.collected if key not in have}

    def reason_for(self, key: str) -> str:
        if key in self.reasons:
            return self.reasons[key]
        if self.stop_reason is not None:
            return f"{NOT_RUN}{self.stop_reason}"
        if self.crashed_workers:
            crashes = len(self.crashed_workers)
            plural = "es" if crashes > 1 else ""
            return f"{NOT_RUN}xdist stopped after {crashes} worker crash{plural}"
        return f"{NOT_RUN}its item never reported a result"


def never_ran(error: object) -> bool:
    """Whether a card row's error says the run never translated its entry."""
    return isinstance(error, str) and error.startswith((LOST, NOT_RUN))


def stop_reason(interrupted: bool, *flags: object) -> str | None:
    """Why a session ended before running every item, in words for a row. ``flags`` are
    pytest's (and xdist's) shouldstop/shouldfail: under xdist, -x ends the session as
    interrupted, so the flags' words decide first."""
    for flag in flags:
        if isinstance(flag, str) and flag:
            if "interrupt" in flag:
                return "interrupted"
            if "failure" in flag:
                return "stopped by -x"
            return f"stopped ({flag})"
    if interrupted:
        return "interrupted"
    if any(flags):
        return "stopped by -x"
    return None


def incompleteness(missing: Mapping[str, str]) -> str | None:
    """The card's ``incomplete_reason``: counts per reason, or None for a complete run."""
    if not missing:
        return None
    counts: dict[str, int] = {}
    for reason in missing.values():
        counts[reason] = counts.get(reason, 0) + 1
    parts = [f"{n} entr{'y' if n == 1 else 'ies'} {reason}" for reason, n in counts.items()]
    return "; ".join(parts)


def in_order(keys: Iterable[str], order: Sequence[str]) -> list[str]:
    position = {key: i for i, key in enumerate(order)}
    return sorted(keys, key=lambda k: position.get(k, len(position)))
