"""Turn a pytest configuration into a RunState: options, corpus, method, baseline, cache.

Runs on the controller and on every xdist worker alike, so each process holds the same
batches, the same baseline rows and the same method fingerprint.
"""

from __future__ import annotations

from typing import Any

import pytest

import pytest_mteval
from pytest_mteval.baseline import BaselineError, load_baseline
from pytest_mteval.cache import TranslationCache, fingerprint_components, method_fingerprint
from pytest_mteval.cards.signing import SigningError, load_private_key
from pytest_mteval.corpus import CorpusError
from pytest_mteval.methods.audit import AuditError, audit_method
from pytest_mteval.methods.loader import MethodFactory, MethodLoadError, find_method
from pytest_mteval.methods.manifest import ManifestError, MethodCard, load_method_card
from pytest_mteval.methods.protocol import RunConfig
from pytest_mteval.metrics.base import MetricContext
from pytest_mteval.metrics.equivalence import Judge
from pytest_mteval.metrics.fst import FstError
from pytest_mteval.metrics.registry import builtin_metrics
from pytest_mteval.metrics.resources import corpus_resources
from pytest_mteval.options import Settings, SettingsError, read_settings
from pytest_mteval.pricing import PriceError, load_prices
from pytest_mteval.run.redaction import secrecy_of
from pytest_mteval.run.secret_corpus import open_corpus
from pytest_mteval.state import RunState

#: Every error that stops a run before it starts, each with a message shown as is.
StartError = (
    SettingsError,
    CorpusError,
    ManifestError,
    MethodLoadError,
    BaselineError,
    FstError,
    SigningError,
)


def start_run(config: pytest.Config) -> tuple[RunState | None, MethodCard | None]:
    """The run's state, or (None, None) when no corpus is configured."""
    settings = read_settings(config)
    if settings.corpus is None:
        return None, None
    if not settings.method:
        raise SettingsError("--mteval-corpus needs --mteval-method (a folder or a name)")
    corpus = open_corpus(
        settings.corpus.resolve(), settings.corpus_key_file, settings.corpus_key_env
    ).filtered(settings.segments, settings.domains, settings.difficulties)
    if not corpus.entries:
        raise SettingsError(
            f"{corpus.path}: no entry matches the segment/domain/difficulty filters"
        )
    existed = settings.run_card is not None and settings.run_card.exists()
    audit = _audit(settings)  # before the method's code is imported (and could rewrite itself)
    # only the controller seals cards: an xdist worker, where methods run, never holds the key
    on_worker = hasattr(config, "workerinput")
    signer = load_private_key(settings.sign_key) if settings.sign_key and not on_worker else None
    source = find_method(settings.method, settings.method_base, _registered(config))
    ds = corpus.dataset
    if source.manifest and not source.manifest.supports(ds.source_language, ds.target_language):
        raise SettingsError(
            f"method {source.name!r} supports {source.manifest.supported_pairs}, "
            f"not {ds.source_language}>{ds.target_language}"
        )
    if settings.prices is not None:
        try:
            load_prices(settings.prices)  # read and checked once, here, not per batch
        except PriceError as exc:
            raise SettingsError(f"--mteval-prices: {exc}") from None
    resources = corpus_resources(corpus)
    fst_path = settings.fst or (resources.fst if resources else None)
    run_config = RunConfig(
        source_language=ds.source_language,
        target_language=ds.target_language,
        model=settings.model,
        temperature=settings.temperature,
        condition=settings.condition or "baseline",
        batch_size=settings.batch_size,
        concurrency=_per_process(config, settings.concurrency),
        timeout_s=settings.timeout_s,
        method_args=_method_args(settings),
        method_dir=str(source.directory or ""),
        fst_path=str(fst_path) if fst_path else None,
    )
    context = MetricContext(corpus=corpus, fst_path=settings.fst)
    judge = _equivalence_judge(config)
    found = config.hook.pytest_mteval_metrics(context=context)
    state = RunState(
        settings,
        corpus,
        source,
        run_config,
        builtin_metrics=builtin_metrics(context, judge),
        plugin_metrics=[metric for metrics in found for metric in metrics or []],
    )
    state.secrecy = secrecy_of(corpus, settings.scores_only)
    state.audit, state.signer, state.card_path_existed = audit, signer, existed
    _check_method(state)
    # a secret run keeps no outputs on disk: an output may quote its source
    cached = not settings.no_cache and not state.secrecy.withheld
    if cached and getattr(state.method, "cacheable", True):
        cache = TranslationCache(config.rootpath / ".mteval" / "cache")
        key = (source.name, source.directory, run_config, pytest_mteval.__version__)
        state.translator.cache = cache
        state.translator.fingerprint = method_fingerprint(*key)
        cache.describe(state.translator.fingerprint, fingerprint_components(*key))
    if settings.baseline is not None:
        loaded = load_baseline(settings.baseline, corpus, settings.allow_dataset_change)
        state.baseline, state.baseline_note = loaded.comparable, loaded.note
    card = load_method_card(settings.method_card) if settings.method_card else None
    return state, card


def _audit(settings: Settings) -> dict[str, Any] | None:
    """The static audit of a method folder, as the card records it (None for a name)."""
    folder = (settings.method_base / str(settings.method)).resolve()
    if not (folder / "method.json").is_file():
        return None
    try:
        return audit_method(folder).to_json()
    except AuditError:
        return None  # a broken method.json: loading the method says what is wrong with it


def _check_method(state: RunState) -> None:
    """Build the method and let it check its setup now, so that a broken method stops the
    run with one message instead of failing every entry."""
    try:
        method = state.method
        prepare = getattr(method, "prepare", None)
        if callable(prepare):
            prepare(state.run_config)
    except MethodLoadError:
        raise
    except Exception as exc:
        raise MethodLoadError(f"method {state.source.name!r} cannot start: {exc}") from None
    if not callable(getattr(method, "translate", None)):
        raise MethodLoadError(f"method {state.source.name!r} has no translate(entries, config)")


def _per_process(config: pytest.Config, concurrency: int) -> int:
    """Each xdist worker gets its share of the allowed requests in flight."""
    workerinput = getattr(config, "workerinput", None)
    workers = int(workerinput.get("workercount", 1)) if isinstance(workerinput, dict) else 1
    return max(1, concurrency // max(workers, 1))


def _method_args(settings: Settings) -> dict[str, str]:
    """Method args, with the harness options that LLM methods read as args folded in."""
    args = dict(settings.method_args)
    if settings.prices is not None:
        args.setdefault("prices", str(settings.prices))
    if settings.request_timeout_s is not None:
        args.setdefault("request_timeout_s", str(settings.request_timeout_s))
    return args


def _equivalence_judge(config: pytest.Config) -> Judge | None:
    """The language plugins' equivalence hook, when any plugin implements it."""
    hook = config.hook.pytest_mteval_equivalent
    if not hook.get_hookimpls():
        return None
    return lambda entry, predicted: hook(entry=entry, predicted=predicted)


def _registered(config: pytest.Config) -> dict[str, MethodFactory]:
    registered: dict[str, MethodFactory] = {}
    for found in config.hook.pytest_mteval_methods(config=config):
        for name, factory in (found or {}).items():
            if name in registered:
                raise SettingsError(f"method name {name!r} is registered twice")
            registered[name] = factory
    return registered
