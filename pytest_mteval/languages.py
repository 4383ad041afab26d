"""Language codes: corpora use BCP 47 (spec §2.1), method manifests and older corpora often use
ISO 639-3. Both name the same language, so comparisons go through one canonical form."""

from __future__ import annotations

#: ISO 639-3 codes of languages that also have an ISO 639-1 code (BCP 47 prefers the shorter).
_TO_BCP47 = {
    "amh": "am", "ara": "ar", "arb": "ar", "bos": "bs", "cat": "ca", "cym": "cy", "dan": "da",
    "deu": "de", "eng": "en", "eus": "eu", "fao": "fo", "fra": "fr", "fry": "fy", "glg": "gl",
    "guj": "gu", "hau": "ha", "ibo": "ig", "ita": "it", "jpn": "ja", "kan": "kn", "kaz": "kk",
    "lao": "lo", "lug": "lg", "ltz": "lb", "mal": "ml", "mlt": "mt", "mon": "mn", "mya": "my",
    "nld": "nl", "pan": "pa", "por": "pt", "rus": "ru", "sin": "si", "sme": "se", "sna": "sn",
    "spa": "es", "tam": "ta", "tel": "te", "tha": "th", "tir": "ti", "tuk": "tk", "uzb": "uz",
    "xho": "xh", "yor": "yo", "zsm": "ms", "zul": "zu",
}  # fmt: skip


def canonical(code: str) -> str:
    """Lower-cased primary subtag, in its shortest standard form ('eng' and 'en-CA' -> 'en')."""
    primary = code.strip().lower().replace("_", "-").split("-", 1)[0]
    return _TO_BCP47.get(primary, primary)
