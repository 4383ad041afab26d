"""The plugin's command-line options and ini keys, declared once: importing this costs
nothing beyond pytest, so a session that never names a corpus pays only for this table."""

from __future__ import annotations

import pytest

#: (option suffix, help, default) for options that take one value.
VALUE_OPTIONS: tuple[tuple[str, str, str | None], ...] = (
    ("corpus", "corpus file to evaluate (spec envelope or reference-harness shape)", None),
    ("method", "method folder (with method.json) or a registered method name", None),
    ("method-card", "method card JSON to validate and embed in the run card", None),
    ("batch-size", "entries per method call (default 25)", "25"),
    ("concurrency", "requests in flight at most, handed to the method (default 8)", "8"),
    ("timeout", "seconds one batch's translation may take (default 300)", "300"),
    ("score-timeout", "seconds the metrics may take on one entry (default 60)", "60"),
    ("model", "model slug handed to the method (e.g. google/gemini-2.5-flash)", None),
    ("temperature", "sampling temperature handed to the method (default 0.0)", "0.0"),
    ("condition", "experiment label recorded on the run card (default baseline)", None),
    ("run-card", "where to write the run card (default .mteval/runs/<time>-<id>.json)", None),
    ("fst", "target-language morphological analyzer (HFST optimized lookup)", None),
    ("prices", "price table JSON overriding the shipped one (USD per million tokens)", None),
    ("request-timeout", "seconds one request of an LLM method may take", None),
    ("baseline", "run card (or reference-harness report) to gate against; none: no gate", None),
    ("max-drop", "largest allowed drop of the composite against the baseline (0.0)", "0.0"),
    ("fail-under", "fail when the composite is below this floor", None),
    ("significance", "a drop fails only when paired bootstrap p < this (0.05; 0 = off)", "0.05"),
    ("entry-max-drop", "an entry fails when its chrF++ drops by more than this (10)", "10"),
    ("entry-min-chrf", "without a baseline, an entry fails below this chrF++", None),
    ("label", "name of this run inside a sweep: a node level of its item ids", None),
    ("estimate-json", "with --mteval-dry-run, also write the estimate as JSON to this file", None),
    ("sweep", "sweep file (TOML): run every combination of its axes as its own run", None),
    ("compare", "compare with a saved run (latest, a run id or a card) without gating", None),
    ("keep-runs", "keep only this many newest cards in .mteval/runs (default: all)", None),
    ("html", "write the run's HTML report (charts, sortable entries) to this path", None),
    ("runner", "where the method runs: process (default) or inprocess (for a debugger)", None),
    ("sandbox", "auto (default: netns where the kernel allows), netns or none", "auto"),
    ("runtime", "which of the method's entry points runs: python or node (method.json's)", None),
    ("gateway-requests", "most requests the sandbox's LLM gateway forwards in a run", None),
    ("corpus-key-file", "file holding an encrypted corpus's key (mteval corpus encrypt)", None),
    ("corpus-key-env", "environment variable holding the key of an encrypted corpus", None),
    ("sign-key", "Ed25519 private key (mteval keygen) that signs the run card", None),
    ("source-field", "entry field read as the source (default source)", None),
    ("reference-field", "entry field read as the reference (default reference; target)", None),
    ("review-sample-key", "secret runs: seal a review sample to this steward X25519 key", None),
    ("review-sample-size", "entries in that sealed review sample (default 50)", "50"),
    ("steward-authorisation", "steward-signed file allowing an A1 run on secret data", None),
    ("steward-key", "the steward's Ed25519 public key that checks that authorisation", None),
)
#: Options that may be given several times (and are space-separated lists as ini keys).
LIST_OPTIONS: tuple[tuple[str, str], ...] = (
    ("method-arg", "KEY=VALUE handed to the method as config.method_args (repeatable)"),
    ("segment", "only entries of this segment (repeatable)"),
    ("domain", "only entries of this domain code (repeatable)"),
    ("difficulty", "only entries of this difficulty 1-5 (repeatable)"),
    ("gate", "METRIC:MAX_DROP, e.g. chrf_plus_plus:1.0 (repeatable)"),
    ("entry", "only the entry with this id, ids in a range 1-3, or a list 1-3,7 (repeatable)"),
    ("metrics", "only these optional metrics; 'default' and 'all' expand (repeatable)"),
    ("skip-metric", "leave out this optional metric (repeatable)"),
)
#: On/off switches.
FLAG_OPTIONS: tuple[tuple[str, str], ...] = (
    ("allow-dataset-change", "compare with a baseline made on a different corpus version"),
    ("update-baseline", "after a passing run, write its card to the baseline path"),
    ("no-cache", "do not read or write the translation cache (.mteval/cache)"),
    ("dry-run", "collect and estimate tokens and cost without calling the method"),
    ("allow-over-budget", "run a sweep whose estimated cost exceeds its budget"),
    ("activate-held-out", "collect held_out entries (reserved, never used unless activated)"),
    ("scores-only", "card and terminal carry ids, scores and flags, never corpus or output text"),
)


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("mteval", "machine-translation evaluation (pytest-mteval)")
    for name, help_text, default in VALUE_OPTIONS:
        dest = option_dest(name)
        group.addoption(f"--mteval-{name}", dest=dest, default=None, help=help_text)
        parser.addini(dest, help_text, type="string", default=default)
    for name, help_text in LIST_OPTIONS:
        dest = option_dest(name)
        group.addoption(f"--mteval-{name}", dest=dest, action="append", default=[], help=help_text)
        parser.addini(dest, help_text, type="args", default=[])
    for name, help_text in FLAG_OPTIONS:
        dest = option_dest(name)
        group.addoption(f"--mteval-{name}", dest=dest, action="store_true", help=help_text)
        parser.addini(dest, help_text, type="bool", default=False)


def option_dest(name: str) -> str:
    """The option's attribute and ini key: ``batch-size`` is ``mteval_batch_size``."""
    return "mteval_" + name.replace("-", "_")
