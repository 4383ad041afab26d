"""Every ``--mteval-*`` option once (``option_spec.OptionSpec``): pytest's options and ini keys,
the run settings' defaults, the ``mteval`` subcommands that share an option and docs/options.md
(``scripts/gen_options_doc.py``) are all read from this table."""

from __future__ import annotations

from typing import Final

from pytest_mteval.option_spec import OptionSpec

#: The longest timeout accepted (a day): larger values overflow the event loop's timers.
MAX_TIMEOUT_S: Final = 86_400.0

#: The sections of docs/options.md, in their order.
WHAT, ENTRIES, RUNNING, METRICS, GATE, CARDS, SWEEPS, SECRET = (
    "What runs",
    "Which entries",
    "How it runs",
    "Metrics",
    "The gate",
    "Cards and reports",
    "Sweeps",
    "Secret data",
)
TOPICS: Final = (WHAT, ENTRIES, RUNNING, METRICS, GATE, CARDS, SWEEPS, SECRET)
_REF = "run card (or reference-harness report)"

# fmt: off
# (a table: one option per entry, its arguments filled in line by line)
OPTIONS: Final[tuple[OptionSpec, ...]] = (
    OptionSpec(
        "corpus", "corpus file to evaluate (spec envelope or reference-harness shape)", WHAT,
        metavar="PATH|shipped:NAME",
        details="`shipped:NAME` is a corpus installed with the package (`mteval corpora`)",
    ),
    OptionSpec(
        "method", "method folder (with method.json) or a registered method name", WHAT,
        metavar="PATH|NAME|champollion:CONFIG",
        details="an installed name is shipped (`identity`, `replay`, `dictionary`, `lookup`, "
        "`raw-llm`, `coached-llm`, `fst-gated`) or registered by a package (`mteval methods`); "
        "`champollion:PATH` picks the `methodPlugin` of the corpus's pair in a "
        "`champollion.config.json`",
    ),
    OptionSpec(
        "method-card", "method card JSON to validate and embed in the run card", WHAT,
        metavar="PATH",
    ),
    OptionSpec(
        "batch-size", "entries per method call", RUNNING, default="25", type="int", low=1,
        metavar="N",
    ),
    OptionSpec(
        "concurrency", "requests in flight at most, handed to the method", RUNNING, default="8",
        type="int", low=1, metavar="N",
        details="a serial run starts the next batches early so that up to this many entries "
        "are in flight across batches (`concurrency // batch_size` batches at once); under "
        "xdist each worker gets `concurrency // workers` and translates one batch at a time",
    ),
    OptionSpec(
        "timeout", "seconds one batch's translation may take", RUNNING, default="300",
        type="float", low=0.001, high=MAX_TIMEOUT_S, metavar="S",
        details="a method that blocks its event loop is abandoned",
    ),
    OptionSpec(
        "score-timeout", "seconds the metrics may take on one entry", RUNNING, default="60",
        type="float", low=0.001, high=MAX_TIMEOUT_S, metavar="S",
        details="an entry over it is an error, the rest are scored",
    ),
    OptionSpec(
        "model", "model slug handed to the method (e.g. google/gemini-2.5-flash)", WHAT,
        metavar="SLUG", details="recorded on the card",
    ),
    OptionSpec(
        "temperature", "sampling temperature handed to the method", WHAT, default="0.0",
        type="float", low=0.0, high=2.0, metavar="T", details="recorded on the card",
    ),
    OptionSpec(
        "condition", "experiment label recorded on the run card", WHAT, default_text="baseline",
        metavar="LABEL", details="handed to the method",
    ),
    OptionSpec(
        "run-card", "where to write the run card", CARDS, metavar="PATH", type="path",
        default_text=".mteval/runs/<time>-<id>.json",
        details="an existing file is never overwritten: the card goes to "
        "`<name>-<run id>.json` beside it",
    ),
    OptionSpec(
        "fst", "target-language morphological analyzer (HFST optimized lookup)", METRICS,
        metavar="PATH", type="path", details="else the corpus's language resources name one",
    ),
    OptionSpec(
        "prices", "price table JSON overriding the shipped one (USD per million tokens)", WHAT,
        metavar="PATH", type="path",
    ),
    OptionSpec(
        "request-timeout", "seconds one request of an LLM method may take", WHAT, type="float",
        low=0.001, high=MAX_TIMEOUT_S, metavar="S",
    ),
    OptionSpec(
        "baseline", f"{_REF} to gate against; none: no gate", GATE, metavar="PATH|none",
        type="path",
        details="a missing file is a note, not an error; `none` (or empty): no baseline and "
        "none of the ini's gate settings (`fail_under`, `gate`, `entry_min_chrf`, "
        "`update_baseline`), for an ad-hoc run in a repository with a configured gate",
    ),
    OptionSpec(
        "max-drop", "largest allowed drop of the composite (0-1) against the baseline", GATE,
        default="0.0", type="float", metavar="X",
    ),
    OptionSpec(
        "fail-under", "fail when the composite is below this floor", GATE, type="float",
        metavar="X",
    ),
    OptionSpec(
        "significance", "a drop fails only when the paired bootstrap p < this; 0 = off", GATE,
        default="0.05", type="float", low=0.0, high=1.0, metavar="P",
    ),
    OptionSpec(
        "entry-max-drop", "an entry regressed when its chrF++ dropped by more than this", GATE,
        default="10", type="float", low=0.0, metavar="X",
    ),
    OptionSpec(
        "entry-min-chrf", "without a baseline, an entry fails below this chrF++", GATE,
        type="float", low=0.0, high=100.0, metavar="X",
    ),
    OptionSpec(
        "label", "name of this run inside a sweep: a node level of its item ids", SWEEPS,
        metavar="NAME", details="what a sweep hands each run: named after the combination",
    ),
    OptionSpec(
        "estimate-json", "with --mteval-dry-run, also write the estimate as JSON to this file",
        RUNNING, metavar="PATH", type="path", details="the estimate and planned fingerprint",
    ),
    OptionSpec(
        "sweep", "sweep file (TOML): run every combination of its axes as its own run", SWEEPS,
        metavar="FILE", type="path", details="the same as `mteval sweep FILE`",
    ),
    OptionSpec(
        "compare", "compare with a saved run (latest, a run id or a card) without gating", GATE,
        metavar="latest|RUN|PATH",
        details="latest is the newest complete run; the comparison is a \"mteval compare\" "
        "section of the terminal summary",
    ),
    OptionSpec(
        "keep-runs", "keep only this many newest cards in .mteval/runs", CARDS, type="int",
        low=1, metavar="N", default_text="all",
    ),
    OptionSpec(
        "html", "write the run's HTML report (charts, sortable entries) to this path", CARDS,
        metavar="PATH", type="path",
        details="a path not ending in `.html` is a folder: the page goes to "
        "`<folder>/<run id>.html`",
    ),
    OptionSpec(
        "runner", "where the method runs: process or inprocess (for a debugger)", WHAT,
        default="process", choices=("process", "inprocess"),
        details="`process`: its own runner process; `inprocess`: this process",
    ),
    OptionSpec(
        "sandbox", "where the runner is confined: auto, netns or none", WHAT, default="auto",
        choices=("auto", "netns", "none"),
        details="`auto`: the runner in new namespaces (bubblewrap) where the kernel allows, else "
        "the plain runner with a warning; `netns`: the sandbox or stop; `none`: the plain runner",
    ),
    OptionSpec(
        "runtime", "which of the method's entry points runs: python or node", WHAT,
        choices=("python", "node"), default_text="its method.json's runtime",
        details="see [the runner protocol](runner-protocol.md)",
    ),
    OptionSpec(
        "gateway-requests", "most requests the sandbox's LLM gateway forwards in a run", WHAT,
        type="int", low=1, metavar="N", default_text="4 per entry",
    ),
    OptionSpec(
        "corpus-key-file", "file holding an encrypted corpus's key (mteval corpus encrypt)",
        SECRET, metavar="PATH", type="path",
    ),
    OptionSpec(
        "corpus-key-env", "environment variable holding the key of an encrypted corpus", SECRET,
        metavar="VAR",
    ),
    OptionSpec(
        "sign-key", "Ed25519 private key (mteval keygen) that signs the run card", CARDS,
        metavar="PATH", type="path",
    ),
    OptionSpec(
        "source-field", "entry field read as the source", ENTRIES, default="source",
        metavar="NAME", details="recorded in `dataset.mapped_fields`",
    ),
    OptionSpec(
        "reference-field", "entry field read as the reference", ENTRIES, default="reference",
        metavar="NAME",
        details="a reference-harness corpus: `target`; recorded in `dataset.mapped_fields`",
    ),
    OptionSpec(
        "review-sample-key", "secret runs: seal a review sample to this steward X25519 key",
        SECRET, metavar="PUB", type="path", details="made with `mteval review keygen`",
    ),
    OptionSpec(
        "review-sample-size", "entries in that sealed review sample", SECRET, default="50",
        type="int", low=1, metavar="N",
    ),
    OptionSpec(
        "steward-authorisation", "steward-signed file allowing an A1 run on secret data", SECRET,
        metavar="PATH", type="path",
        details="a class A1/A2 method on secret data runs only with it "
        "(`mteval steward authorise`; spec §8.6)",
    ),
    OptionSpec(
        "steward-key", "the steward's Ed25519 public key that checks that authorisation",
        SECRET, metavar="PUB", type="path",
    ),
    OptionSpec(
        "method-arg", "KEY=VALUE handed to the method as config.method_args", WHAT, "list",
        metavar="KEY=VALUE",
    ),
    OptionSpec("segment", "only entries of this segment", ENTRIES, "list", metavar="NAME"),
    OptionSpec("domain", "only entries of this domain code", ENTRIES, "list", metavar="CODE"),
    OptionSpec(
        "difficulty", "only entries of this difficulty 1-5", ENTRIES, "list", type="int", low=1,
        high=5, metavar="N",
    ),
    OptionSpec(
        "gate", "a metric's largest allowed drop, in its own units, e.g. chrf_plus_plus:1.0",
        GATE, "list", metavar="METRIC:MAX_DROP",
    ),
    OptionSpec(
        "entry", "only the entry with this id, ids in a range 1-3, or a list 1-3,7", ENTRIES,
        "list", metavar="ID", details="the run is partial",
    ),
    OptionSpec(
        "metrics", "only these optional metrics; 'default' and 'all' expand", METRICS, "list",
        metavar="NAME",
        details="names: fst, morphology, equivalence, orthography, code_switching, "
        "hallucination, terminology, semantic; `semantic` is off unless named",
    ),
    OptionSpec("skip-metric", "leave out this optional metric", METRICS, "list", metavar="NAME"),
    OptionSpec(
        "allow-dataset-change",
        "compare with a baseline made on another corpus version, over its unchanged entries",
        GATE, "flag",
    ),
    OptionSpec(
        "update-baseline", "after a passing run, write its card to the baseline path", GATE,
        "flag", details="a full run only",
    ),
    OptionSpec(
        "no-cache", "do not read or write the translation cache (.mteval/cache)", RUNNING, "flag"
    ),
    OptionSpec(
        "dry-run", "collect and estimate tokens and cost without calling the method", RUNNING,
        "flag", details="spec §10",
    ),
    OptionSpec(
        "allow-over-budget", "run a sweep whose estimated cost exceeds its budget", SWEEPS, "flag"
    ),
    OptionSpec(
        "shard", "run only shard K of N of the sweep (a CI matrix job, an array task)", SWEEPS,
        metavar="K/N", details="shares are fixed by the sweep file; `mteval matrix` merges them",
    ),
    OptionSpec(
        "dask-scheduler", "run the sweep's combinations on this Dask cluster's workers", SWEEPS,
        metavar="tcp://HOST:PORT", details="needs `pytest-mteval[cluster]`; see docs/sweeps.md",
    ),
    OptionSpec(
        "activate-held-out", "collect held_out entries (reserved, never used unless activated)",
        ENTRIES, "flag", details="spec §2.3",
    ),
    OptionSpec(
        "scores-only",
        "card and terminal carry ids, scores and flags, never corpus or output text",
        CARDS, "flag",
        details="implied by an encrypted corpus and by `gold_standard`/`held_out` entries",
    ),
)
# fmt: on
_BY_NAME: Final = {option.name: option for option in OPTIONS}


def spec(name: str) -> OptionSpec:
    """The option ``--mteval-NAME``; KeyError for a name the table does not hold."""
    return _BY_NAME[name]


def _default(name: str) -> str:
    default = spec(name).default
    if default is None:
        raise KeyError(f"--mteval-{name} has no default")
    return default


def int_default(name: str) -> int:
    return int(_default(name))


def float_default(name: str) -> float:
    return float(_default(name))


def str_default(name: str) -> str:
    return _default(name)
