"""Run a method over one batch, whatever the method does, and always come back with one
result per entry.

The harness owns the event loop, in a thread of its own: a method that blocks the loop or
hangs is abandoned after the timeout (its entries become errors) and later batches get a fresh
loop. Results are checked against the batch: a missing, duplicated or malformed result is an
error on that entry, never a crash of the session.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import Counter
from collections.abc import Coroutine, Sequence
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from typing import Any

from pytest_mteval.corpus import Entry
from pytest_mteval.methods.protocol import (
    SOURCE_SIDE_FIELDS,
    MethodEntry,
    MethodResult,
    RunConfig,
    TranslationMethod,
)
from pytest_mteval.run.method_traceback import describe, raised
from pytest_mteval.run.result_model import ResultProblem, cut_for_scoring, validate_result


def method_view(entry: Entry) -> MethodEntry:
    """The entry as a method may see it: source-side fields only, never the reference."""
    dumped = entry.model_dump(by_alias=True, exclude_none=True)
    view = {key: dumped[key] for key in SOURCE_SIDE_FIELDS if key in dumped}
    if not view.get("terms"):
        view.pop("terms", None)
    return view  # type: ignore[return-value]


class HarnessTimeout(Exception):
    """The harness gave up waiting for a method that wedged its event loop."""


#: How long past its timeout a method gets to honour cancellation before its loop is abandoned.
_GRACE_S = 1.0


class MethodRunner:
    """An event loop in a daemon thread, replaced when a method wedges it."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None

    def submit(self, coro: Coroutine[Any, Any, Any], timeout_s: float) -> Future[Any]:
        """Start ``coro`` on the loop, bounded by ``timeout_s``; returns at once."""
        return asyncio.run_coroutine_threadsafe(
            asyncio.wait_for(coro, timeout_s), self._ensure_loop()
        )

    def result(self, future: Future[Any], deadline: float, timeout_s: float) -> Any:
        """The submitted coroutine's result, waiting until ``deadline`` (perf_counter) plus a
        grace period; a loop still busy then is wedged by a blocking method: abandon it."""
        try:
            return future.result(max(0.0, deadline - time.perf_counter()) + _GRACE_S)
        except FutureTimeout:
            if future.done():
                raise  # the method's own TimeoutError, or wait_for's: the loop is healthy
            future.cancel()
            self._loop = None
            raise HarnessTimeout(f"method did not return within {timeout_s:g}s") from None

    def close(self) -> None:
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._loop = None

    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        if self._loop is None or self._loop.is_closed():
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="mteval-loop", daemon=True).start()
            self._loop = loop
        return self._loop


@dataclass
class PendingBatch:
    """A batch handed to the method and not yet collected."""

    entries: list[Entry]
    future: Future[Any] | None
    started: float
    timeout_s: float
    failure: str | None = None
    ticket: int | None = None  # the batch's number in a runner process (run/runner_client.py)
    traceback: dict[str, str] | None = None  # where the method raised, with ``failure``


def submit_batch(
    runner: MethodRunner, method: TranslationMethod, entries: Sequence[Entry], config: RunConfig
) -> PendingBatch:
    """Start translating a batch without waiting, so several batches can be in flight."""
    started = time.perf_counter()
    pending = PendingBatch(list(entries), None, started, config.timeout_s)
    if not entries:
        return pending
    try:
        coro = method.translate([method_view(e) for e in entries], config)
        pending.future = runner.submit(coro, config.timeout_s)
    except Exception as exc:
        pending.failure = raised(exc)
        pending.traceback = describe(exc)
    return pending


def collect_batch(
    runner: MethodRunner, pending: PendingBatch
) -> tuple[dict[str, MethodResult], list[str]]:
    """Wait for a submitted batch; return one result per entry key, and batch warnings."""
    entries = pending.entries
    if pending.failure is not None:
        return _all_failed(entries, pending.failure, pending.traceback), []
    if pending.future is None:
        return {}, []
    try:
        raw = runner.result(pending.future, pending.started + pending.timeout_s, pending.timeout_s)
    except HarnessTimeout as exc:
        return _all_failed(entries, f"timeout: {exc}"), []
    except TimeoutError as exc:
        if str(exc):  # the method's own timeout (an upstream call), with its message
            return _all_failed(entries, f"method raised TimeoutError: {exc}"), []
        message = f"timeout: method did not return within {pending.timeout_s:g}s"
        return _all_failed(entries, message), []
    except Exception as exc:
        return _all_failed(entries, raised(exc), describe(exc)), []
    return check_results(entries, raw, time.perf_counter() - pending.started)


def check_results(
    entries: Sequence[Entry], raw: Any, elapsed_s: float
) -> tuple[dict[str, MethodResult], list[str]]:
    """One checked result per entry from what a method returned for the batch, wherever the
    method ran (in this process or in a runner process)."""
    if not isinstance(raw, list):
        return _all_failed(entries, f"method returned {type(raw).__name__}, not a list"), []
    return _match_results(entries, raw, elapsed_s / max(len(entries), 1))


def _match_results(
    entries: Sequence[Entry], raw: list[Any], fallback_latency: float
) -> tuple[dict[str, MethodResult], list[str]]:
    keys = {e.key for e in entries}
    counts = Counter(str(r.get("id")) for r in raw if isinstance(r, dict))
    warnings: list[str] = []
    extra = sorted(k for k in counts if k not in keys)
    if extra:
        warnings.append(f"method returned results for ids not in the batch: {', '.join(extra)}")
    malformed = sum(1 for r in raw if not isinstance(r, dict))
    if malformed:
        warnings.append(f"method returned {malformed} result(s) that are not objects")
    by_key = {str(r.get("id")): r for r in raw if isinstance(r, dict)}
    out: dict[str, MethodResult] = {}
    for entry in entries:
        key = entry.key
        if counts[key] == 0:
            out[key] = _failed(entry, f"method returned no result for entry id {key!r}")
        elif counts[key] > 1:
            out[key] = _failed(entry, f"method returned {counts[key]} results for entry id {key!r}")
        else:
            out[key] = _checked(entry, by_key[key], fallback_latency)
    return out, warnings


def _checked(entry: Entry, result: dict[str, Any], fallback_latency: float) -> MethodResult:
    result = cut_for_scoring(entry.source, result)  # first: nothing keeps the whole text
    try:  # the one check of what a method returned (run/result_model.py)
        valid = validate_result(entry.key, result)
    except ResultProblem as exc:
        return _failed(entry, str(exc))
    checked: MethodResult = {**valid, "id": entry.id}
    error = valid.get("error")
    predicted = valid.get("predicted")
    if error:
        checked["error"] = str(error)
        checked["predicted"] = None
    elif not isinstance(predicted, str):
        checked["error"] = (
            f"method returned a non-string 'predicted' ({type(predicted).__name__}) "
            f"for entry id {entry.key!r}"
        )
        checked["predicted"] = None
    else:
        checked["error"] = None
        if "truncated_for_scoring" in result:
            checked["truncated_for_scoring"] = result["truncated_for_scoring"]
    if valid.get("latency_s") is None:
        checked["latency_s"] = fallback_latency
    return checked


def _failed(entry: Entry, message: str) -> MethodResult:
    return {"id": entry.id, "predicted": None, "error": message, "latency_s": None}


def all_failed(
    entries: Sequence[Entry], message: str, where: dict[str, str] | None = None
) -> dict[str, MethodResult]:
    """Every entry of a batch failed with the same message (and traceback, when it raised)."""
    return _all_failed(entries, message, where)


def _all_failed(
    entries: Sequence[Entry], message: str, where: dict[str, str] | None = None
) -> dict[str, MethodResult]:
    failed = {e.key: _failed(e, message) for e in entries}
    if where is not None:
        for result in failed.values():
            result["traceback"] = where
    return failed
