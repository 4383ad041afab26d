"""A steward's authorisation to send a secret corpus's sources to a model provider (spec §8.6).

A class A1 method (LLM inference through a provider; A2, an external API, alike) discloses
every source sentence it translates to that provider. Whether that is acceptable for a secret
corpus is the steward's decision, taken per run: the run needs a file the steward signed,
naming the corpus (the sha256 the card records: of the plaintext, for an encrypted corpus),
the method's code (``method.code``'s sha256, ``code_hash.py``: its folder, interpreter and
path-arg files), the endpoint the sources go to, the model, and an expiry. Any other code,
corpus, endpoint or model, a lapsed date or a signature that is not the steward key's refuses
the run. Version 1 documents named no endpoint nor model: they are refused.

The document (JSON), signed like a run card (``signing.py``) under its own domain string, so a
card's signature is never an authorisation's nor the reverse::

    {"kind": "pytest-mteval steward authorisation", "version": 2,
     "corpus": {"id", "version", "sha256"}, "method": {"method_id", "code_sha256"},
     "provider": {"base_url", "model"},
     "issued": "…Z", "expires": "…Z",
     "signature": {"algorithm": "ed25519", "public_key_sha256", "value"}}

The steward's public key is given to the run (``--mteval-steward-key``); a key inside the
document or the corpus would be chosen by whoever wrote them, so it is never read from there.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from pytest_mteval.errors import MtevalError, SigningError
from pytest_mteval.json_files import parse_json, read_bytes
from pytest_mteval.methods.loader import MethodSource
from pytest_mteval.run.redaction import Secrecy
from pytest_mteval.run.run_settings import Settings

if TYPE_CHECKING:  # signing imports cryptography: only where a document is signed or checked
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

KIND: Final = "pytest-mteval steward authorisation"
VERSION: Final = 2
DOMAIN: Final = b"pytest-mteval steward authorisation v1\n"
#: Dependency classes whose runs disclose sources to a third party.
DISCLOSING: Final = frozenset({"A1", "A2"})


class StewardError(MtevalError):
    """An authorisation that is missing or does not hold; one line naming what is wrong."""


def parse_expiry(raw: str) -> datetime:
    """``YYYY-MM-DD`` (valid to the end of that day, UTC) or an ISO date-time with a zone."""
    try:
        if len(raw) == 10:
            return datetime.combine(datetime.fromisoformat(raw).date(), time.max, UTC)
        moment = datetime.fromisoformat(raw)
    except ValueError:
        raise StewardError(f"expiry {raw!r} is not YYYY-MM-DD or an ISO date-time") from None
    if moment.tzinfo is None:
        raise StewardError(f"expiry {raw!r} has no time zone (add Z or +00:00)")
    return moment.astimezone(UTC)


def _stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def authorise(
    corpus: dict[str, str],
    method_id: str,
    code_sha256: str,
    provider: dict[str, str | None],
    expires: datetime,
    key: Ed25519PrivateKey,
    now: datetime,
) -> dict[str, Any]:
    """The signed document (see the module docstring)."""
    if expires <= now:
        raise StewardError(f"expiry {_stamp(expires)} is not in the future")
    document: dict[str, Any] = {
        "kind": KIND,
        "version": VERSION,
        "corpus": corpus,
        "method": {"method_id": method_id, "code_sha256": code_sha256},
        "provider": {"base_url": provider.get("base_url"), "model": provider.get("model")},
        "issued": _stamp(now),
        "expires": _stamp(expires),
    }
    from pytest_mteval.cards.signing import sign

    return sign(document, key, DOMAIN)


def needs_authorisation(dependency_class: str | None, secret_reasons: tuple[str, ...]) -> bool:
    """Whether the run sends secret sources to a provider: a disclosing class on an
    encrypted corpus or secret segments (``--mteval-scores-only`` alone hides no data)."""
    secret = [r for r in secret_reasons if r != "--mteval-scores-only"]
    return dependency_class in DISCLOSING and bool(secret)


def check_authorisation(
    path: Path | None,
    steward_key: Path | None,
    corpus_sha256: str,
    code_sha256: str | None,
    now: datetime,
    why: str,
    provider: dict[str, str | None] | None = None,
) -> dict[str, Any]:
    """The card's record of a valid authorisation, or StewardError saying what is wrong."""
    prefix = f"{why}: refused"
    if path is None:
        raise StewardError(
            f"{prefix}: no steward authorisation (--mteval-steward-authorisation; a steward "
            "writes one with `mteval steward authorise`)"
        )
    if steward_key is None:
        raise StewardError(f"{prefix}: no --mteval-steward-key to check {path} with")
    raw = read_bytes(path, "steward authorisation", StewardError)  # bounded, one line
    document = parse_json(raw, f"{prefix}: {path}", StewardError)
    if not isinstance(document, dict) or document.get("kind") != KIND:
        raise StewardError(f"{prefix}: {path}: not a steward authorisation (field 'kind')")
    if document.get("version") != VERSION:
        raise StewardError(
            f"{prefix}: {path}: field 'version' is not {VERSION} (a version 1 file names no "
            "endpoint nor model; the steward signs a new one)"
        )
    if not isinstance(document.get("signature"), dict):
        raise StewardError(f"{prefix}: {path}: not signed (no 'signature' object)")
    from pytest_mteval.cards.signing import load_public_key
    from pytest_mteval.cards.verification_tier import authorisation_signer

    try:  # accepted only under the steward key the run is given, never one in the file
        public = load_public_key(steward_key)
        fingerprint = authorisation_signer(document, path, public, DOMAIN)
    except SigningError as exc:
        raise StewardError(f"{prefix}: {exc}") from None
    found = _content(document, path, prefix, corpus_sha256, code_sha256, now, fingerprint, raw)
    return {**found, "provider": _provider(document, path, prefix, provider or {})}


def _provider(
    document: dict[str, Any], path: Path, prefix: str, provider: dict[str, str | None]
) -> dict[str, str | None]:
    """The endpoint and model the document names, when they are this run's."""
    named = _block(document, "provider")
    for field, label in (("base_url", "endpoint"), ("model", "model")):
        own, given = named.get(field), provider.get(field)
        if field == "base_url":
            own, given = _endpoint(own), _endpoint(given)
        if own != given:
            raise StewardError(
                f"{prefix}: {path} authorises {label} {own!r}, not this run's ({given!r})"
            )
    return {"base_url": named.get("base_url"), "model": named.get("model")}


def _endpoint(url: Any) -> str | None:
    return str(url).rstrip("/") if url else None


def run_provider(
    source: MethodSource, method_args: dict[str, str], model: str | None
) -> dict[str, str | None]:
    """Where a run sends its sources: the ``base_url`` arg (an external API's ``url`` or
    ``endpoint``; an LLM method's default when it has none) and the model."""
    from pytest_mteval.llm.chat_settings import DEFAULT_BASE_URL

    klass = source.manifest.dependency_class if source.manifest else None
    default = DEFAULT_BASE_URL if klass == "A1" else None
    named = (method_args.get(name) for name in ("base_url", "url", "endpoint"))
    return {"base_url": next((url for url in named if url), default), "model": model}


def _block(document: dict[str, Any], name: str) -> dict[str, Any]:
    found = document.get(name)
    return found if isinstance(found, dict) else {}


def _content(
    document: dict[str, Any],
    path: Path,
    prefix: str,
    corpus_sha256: str,
    code_sha256: str | None,
    now: datetime,
    fingerprint: str,
    raw: bytes,
) -> dict[str, Any]:
    """What a correctly signed document says, checked against this run."""
    corpus, method = _block(document, "corpus"), _block(document, "method")
    named = str(corpus.get("sha256"))
    if named != corpus_sha256:
        raise StewardError(
            f"{prefix}: {path} authorises corpus sha256 {named[:16]}…, not this corpus "
            f"({corpus_sha256[:16]}…)"
        )
    code = str(method.get("code_sha256"))
    if code_sha256 is None or code != code_sha256:
        raise StewardError(
            f"{prefix}: {path} authorises method code {code[:16]}…, not the code that runs "
            f"({str(code_sha256)[:16]}…)"
        )
    try:
        expires = parse_expiry(str(document.get("expires")))
    except StewardError as exc:
        raise StewardError(f"{prefix}: {path}: field 'expires': {exc}") from None
    if expires <= now:
        raise StewardError(f"{prefix}: {path} expired at {_stamp(expires)}")
    return {
        "file_sha256": hashlib.sha256(raw).hexdigest(),
        "steward_key_sha256": fingerprint,
        "corpus_sha256": named,
        "method_id": method.get("method_id"),
        "code_sha256": code,
        "issued": document.get("issued"),
        "expires": _stamp(expires),
    }


def steward_fingerprint(key: Ed25519PrivateKey) -> str:
    from pytest_mteval.cards.signing import key_fingerprint

    return key_fingerprint(key.public_key())


def run_authorisation(
    settings: Settings, secrecy: Secrecy, source: MethodSource, corpus_sha256: str
) -> dict[str, Any] | None:
    """The card's ``steward_authorisation`` of a run that needs one (None for any other run);
    StewardError, one line, when it needs one and has none that holds."""
    manifest = source.manifest
    klass = manifest.dependency_class if manifest else None
    if not needs_authorisation(klass, secrecy.reasons):
        return None
    why = (
        f"class {klass} method {source.name!r} would send secret sources to its provider "
        f"({'; '.join(secrecy.reasons)})"
    )
    code = source.code or {}
    sha = code.get("sha256") or (code.get("distribution") or {}).get("sha256")
    return check_authorisation(
        settings.steward_authorisation,
        settings.steward_key,
        corpus_sha256,
        sha,
        datetime.now(UTC),
        why,
        run_provider(source, dict(settings.method_args), settings.model),
    )
