"""The on-disk translation cache: never pay twice for the same translation.

Key. A result is stored under the METHOD'S FINGERPRINT (method id, the code hash the card
records, dot-files, interpreter and path-arg files included (``methods/code_hash.py``), the
RunConfig that can change an output, the model's endpoint, the runner, runtime and sandbox
mode, the harness version) and a hash of
the SOURCE SIDE the method saw (the source text, plus context, domain, terms... but never the
entry id). Keying by model alone serves one configuration's outputs to another
(lm-evaluation-harness issues 2715, 4063); keying by entry id serves a stale output after the
corpus text changes.

Storage. One JSON file per key, ``<root>/<fingerprint>/<key[:2]>/<key>.json``, written to a
temporary file in the same folder and moved into place with ``os.replace``, which is atomic:
xdist workers writing at once never leave a torn file, two writers of one key both leave a
valid file, and readers need no lock. Chosen over SQLite-with-WAL because WAL needs shared
memory (it fails on network filesystems that CI runners mount), a writer holds a database-wide
lock, and a folder of small files is what CI caches (actions/cache) save and restore well and
what a person can inspect or prune (delete one fingerprint's folder). Only successful results
are stored, with their original latency, usage and cost; a hit comes back marked
``cached: True`` so the run card can count hits and still report what they cost.

Authentication. Only the harness writes entries, each with an HMAC-SHA256 under a key kept
outside the project and the sandbox (``cache_secret.py``): an entry whose HMAC does not
verify is a miss, counted as rejected. A plain checksum could be recomputed by whoever edits
the entry.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from pytest_mteval.corpus import Entry
from pytest_mteval.errors import MtevalError
from pytest_mteval.json_files import parse_json
from pytest_mteval.methods.code_hash import folder_hash
from pytest_mteval.methods.protocol import MethodResult, RunConfig
from pytest_mteval.metrics.entry_record import EntryRecord
from pytest_mteval.run.batch_translation import method_view
from pytest_mteval.run.result_model import ResultProblem, truncation_note, validate_result

#: RunConfig fields that cannot change an output (scheduling, and where the folder lives:
#: its content is hashed instead, so a checkout elsewhere hits the same cache).
VOLATILE_CONFIG: Final = frozenset({"concurrency", "timeout_s", "method_dir"})
#: Method args that tune the harness's client, not what the model is asked: changing them
#: (a longer timeout after timeouts, a corrected price file) must not discard paid results.
VOLATILE_ARGS: Final = frozenset(
    {"request_timeout_s", "prices", "max_attempts", "retry_after_max_s", "api_key_env"}
)
FORMAT: Final = 3


def fingerprint_components(
    method_id: str,
    method_dir: Path | None,
    run_config: RunConfig | Mapping[str, Any],
    harness_version: str,
    code_sha256: str | None = None,
    runner: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """What a method's outputs depend on, as JSON.

    ``code_sha256`` is the card's code hash (its inputs included); without it, the folder's
    (rule 1, dot-files counted). ``runner``: mode, runtime, sandbox and isolation, so outputs
    made without the sandbox never reach a sandboxed run. A config value naming an existing
    file stands for its content hash, not its path. A method registered by a plugin has no
    folder: its code is identified by its id and the harness version only.
    """
    raw = run_config.to_json() if isinstance(run_config, RunConfig) else dict(run_config)
    config = {k: _content(v) for k, v in sorted(raw.items()) if k not in VOLATILE_CONFIG}
    args = config.get("method_args")
    if isinstance(args, Mapping):
        config["method_args"] = {
            k: _content(v) for k, v in sorted(args.items()) if k not in VOLATILE_ARGS
        }
    return {
        "format": FORMAT,
        "method_id": method_id,
        "code_sha256": code_sha256 or _folder_sha256(method_dir),
        "run_config": config,
        "endpoint": _endpoint(raw),
        "runner": dict(runner) if runner is not None else None,
        "harness_version": harness_version,
    }


def method_fingerprint(
    method_id: str,
    method_dir: Path | None,
    run_config: RunConfig | Mapping[str, Any],
    harness_version: str,
    code_sha256: str | None = None,
    runner: Mapping[str, Any] | None = None,
) -> str:
    """sha256 of :func:`fingerprint_components` as canonical JSON."""
    components = fingerprint_components(
        method_id, method_dir, run_config, harness_version, code_sha256, runner
    )
    return _sha256(_canonical(components))


def _folder_sha256(folder: Path | None) -> str | None:
    return str(folder_hash(folder)["sha256"]) if folder and folder.is_dir() else None


def _endpoint(config: Mapping[str, Any]) -> str | None:
    """Where an LLM method sends its requests: its ``base_url`` arg, even when the args
    volatile for the key leave it out."""
    args = config.get("method_args")
    url = args.get("base_url") if isinstance(args, Mapping) else None
    return str(url).rstrip("/") if url else None


def source_key(source: str | Mapping[str, Any]) -> str:
    """sha256 of the source side a method sees; a plain string is ``{"source": text}``.

    The entry id is left out on purpose: the same text gets the same translation.
    """
    view = {"source": source} if isinstance(source, str) else dict(source)
    view.pop("id", None)
    return _sha256(_canonical(view))


class TranslationCache:
    """Results on disk under ``root`` (normally ``<rootdir>/.mteval/cache``)."""

    def __init__(self, root: Path, secret: bytes | None = None) -> None:
        """``secret``: the HMAC key (by default the user's, ``cache_secret.py``)."""
        self.root = root
        if secret is None:
            from pytest_mteval.run.cache_secret import cache_secret

            secret = cache_secret()
        self._secret = secret
        #: Source keys whose stored file was corrupt or edited (ignored and re-translated).
        self.rejected: set[str] = set()

    def path_for(self, fingerprint: str, source: str | Mapping[str, Any]) -> Path:
        key = source_key(source)
        return self.root / fingerprint / key[:2] / f"{key}.json"

    def get(self, fingerprint: str, source: str | Mapping[str, Any]) -> MethodResult | None:
        """The stored result marked ``cached``, or None (a missing or unreadable file is a miss).

        A file that is there but does not check out (its checksum, its key, its fields) is
        a miss too, and is remembered in :attr:`rejected` so the run card can count it.
        """
        path = self.path_for(fingerprint, source)
        try:
            data = path.read_bytes()
        except OSError:
            return None
        result = _checked_payload(data, fingerprint, source_key(source), self._secret)
        if result is None:
            self.rejected.add(source_key(source))
            return None
        result["cached"] = True
        return result

    def put(self, fingerprint: str, source: str | Mapping[str, Any], result: MethodResult) -> bool:
        """Store a successful result atomically; errors are never stored. True when written."""
        if result.get("error") or not isinstance(result.get("predicted"), str):
            return False
        kept = {k: v for k, v in result.items() if k not in ("id", "cached", "cache_rejected")}
        key = source_key(source)
        payload = {
            "fingerprint": fingerprint,
            "key": key,
            "result": kept,
            "hmac": _seal(self._secret, fingerprint, key, kept),
        }
        path = self.path_for(fingerprint, source)
        self._ignore_in_git()
        _atomic_write(path, json.dumps(payload, ensure_ascii=False, allow_nan=False))
        return True

    def describe(self, fingerprint: str, components: Mapping[str, Any]) -> None:
        """Leave the fingerprint's components beside its results, for people."""
        target = self.root / fingerprint / "fingerprint.json"
        if not target.exists():
            _atomic_write(target, json.dumps(components, ensure_ascii=False, indent=2))

    def _ignore_in_git(self) -> None:
        marker = self.root / ".gitignore"
        if not marker.exists():
            _atomic_write(marker, "# created by pytest-mteval: the cache is not versioned\n*\n")


def split_cached(
    cache: TranslationCache | None, fingerprint: str, entries: Sequence[Entry]
) -> tuple[dict[str, MethodResult], list[Entry]]:
    """Results already on disk (keyed by entry key), and the entries still to translate."""
    if cache is None:
        return {}, list(entries)
    found: dict[str, MethodResult] = {}
    missing: list[Entry] = []
    for entry in entries:
        result = cache.get(fingerprint, method_view(entry))
        if result is None:
            missing.append(entry)
        else:
            result["id"] = entry.id
            found[entry.key] = result
    return found, missing


def store(
    cache: TranslationCache | None,
    fingerprint: str,
    entries: Sequence[Entry],
    results: Mapping[str, MethodResult],
) -> None:
    """Keep fresh results on disk (the cache itself refuses errors)."""
    if cache is None:
        return
    for entry in entries:
        result = results.get(entry.key)
        if result is None:
            continue
        view = method_view(entry)
        if source_key(view) in cache.rejected:  # re-translated: its stored file was bad
            result["cache_rejected"] = True
        cache.put(fingerprint, view, result)


def cache_totals(records: Sequence[EntryRecord]) -> dict[str, Any]:
    """Cache hits of a run, and what those results cost when they were first made."""
    hits = [r for r in records if r.get("cached")]
    costs = [r.get("cost_usd") for r in hits]
    return {
        "cache_rejected": sum(1 for r in records if r.get("cache_rejected")),
        "cache_hits": len(hits),
        "cached_cost_usd": sum(float(c) for c in costs if c is not None) if hits else 0.0,
        "cached_latency_s": sum(float(r.get("latency_s") or 0.0) for r in hits),
    }


def _seal(secret: bytes, fingerprint: str, key: str, result: Mapping[str, Any]) -> str:
    """HMAC-SHA256 over what a cache file says: only a holder of the key makes one."""
    message = _canonical([FORMAT, fingerprint, key, result])
    return hmac.new(secret, message, hashlib.sha256).hexdigest()


def _checked_payload(data: bytes, fingerprint: str, key: str, secret: bytes) -> MethodResult | None:
    """The result stored in ``data`` when it is intact and well-typed, else None."""
    try:
        stored = parse_json(data, "cache file")
    except MtevalError:
        return None
    if not isinstance(stored, dict) or stored.get("fingerprint") != fingerprint:
        return None
    result = stored.get("result")
    if stored.get("key") != key or not isinstance(result, dict):
        return None
    seal = stored.get("hmac")
    expected = _seal(secret, fingerprint, key, result)
    if not isinstance(seal, str) or not hmac.compare_digest(seal, expected):
        return None
    try:
        checked = validate_result(key, result)
    except ResultProblem:
        return None
    if checked.get("error") or not isinstance(checked.get("predicted"), str):
        return None
    note = truncation_note(result.get("truncated_for_scoring"))
    if note is not None:  # stored cut: the flag comes back with the cut text
        checked["truncated_for_scoring"] = note
    return checked


def _content(value: Any) -> Any:
    if isinstance(value, str) and value and len(value) < 4096:
        try:
            path = Path(value)
            if path.is_file():
                return {"file_sha256": _sha256(path.read_bytes())}
        except (OSError, ValueError):
            pass
    return value


def _canonical(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode()


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _atomic_write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".json", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
