"""Turn a pytest configuration into a RunState: options, corpus, method, baseline, cache.

Runs on the controller and on every xdist worker alike, so each process holds the same
batches, the same baseline rows and the same method fingerprint.
"""

from __future__ import annotations

import dataclasses
import functools
import sys
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

import pytest_mteval
from pytest_mteval.cards.baseline import BaselineError, load_baseline
from pytest_mteval.cards.steward import run_authorisation
from pytest_mteval.corpus import CorpusError
from pytest_mteval.errors import MtevalError, SettingsError, SigningError
from pytest_mteval.llm.pricing import PriceError, load_prices
from pytest_mteval.methods.audit import AuditError, audit_method
from pytest_mteval.methods.champollion import champollion_choice
from pytest_mteval.methods.loader import (
    MethodLoadError,
    MethodSource,
    PackagedFolder,
    Registered,
    find_method,
    method_card_for,
)
from pytest_mteval.methods.manifest import ManifestError, MethodCard
from pytest_mteval.methods.preflight import run_preflight
from pytest_mteval.methods.protocol import RunConfig
from pytest_mteval.metrics import catalog
from pytest_mteval.metrics.base import Metric, MetricContext
from pytest_mteval.metrics.equivalence import Judge
from pytest_mteval.metrics.fst import FstError
from pytest_mteval.metrics.multilingual_embedder import share_cores
from pytest_mteval.metrics.registry import builtin_metrics, not_computed
from pytest_mteval.metrics.resources import corpus_resources
from pytest_mteval.metrics.selection import MetricSelection, MetricSelectionError
from pytest_mteval.output_paths import check_output_path
from pytest_mteval.plugin.method_checks import check_method, check_method_fields
from pytest_mteval.plugin.options import read_settings
from pytest_mteval.plugin.run_stash import WORD_PREFETCH
from pytest_mteval.plugin.xdist_internals import (
    distributes,
    handed_to_worker,
    is_worker,
    worker_count,
)
from pytest_mteval.run.cache import TranslationCache, fingerprint_components, method_fingerprint
from pytest_mteval.run.code_inputs import bind_code
from pytest_mteval.run.entry_selection import run_corpus
from pytest_mteval.run.isolation import GATEWAY_SOCKET_KEY, start_isolation
from pytest_mteval.run.method_args import check_method_args, public_config, secret_names
from pytest_mteval.run.redaction import secrecy_of
from pytest_mteval.run.run_settings import Settings
from pytest_mteval.run.run_state import RunState
from pytest_mteval.run.sandbox_policy import check_in_process

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PublicKey

#: Every error that stops a run before it starts, each with a message shown as is.
StartError = (
    SettingsError,
    CorpusError,
    ManifestError,
    MethodLoadError,
    BaselineError,
    FstError,
    MtevalError,
    SigningError,
)


@dataclasses.dataclass(frozen=True)
class Contributions:
    """What other plugins and conftest files contribute to a run: their methods, metric
    families and equivalence judge. ``hooks.py``, the only file that knows hook names, asks
    for them; each is asked once, when the run starts."""

    methods: Callable[[], Iterable[Mapping[str, Registered] | None]]
    metrics: Callable[[MetricContext], Iterable[Iterable[Metric] | None]]
    judge: Judge | None = None


def start_run(
    config: pytest.Config, contributions: Contributions
) -> tuple[RunState | None, MethodCard | None]:
    """The run's state, or (None, None) when no corpus is configured."""
    settings = read_settings(config)
    if settings.corpus is None:
        return None, None
    if not settings.method:
        raise SettingsError("--mteval-corpus needs --mteval-method (a folder or a name)")
    _check_output_paths(settings)
    corpus = run_corpus(settings)
    method, base = champollion_choice(settings.method, settings.method_base, corpus.dataset)
    settings = dataclasses.replace(settings, method=method, method_base=base)
    existed = settings.run_card is not None and settings.run_card.exists()
    registered = _registered(contributions.methods())
    # before the method's code is imported (and could rewrite itself)
    audit = _audit(settings, registered)
    # only the controller seals cards: an xdist worker, where methods run, never holds the key
    on_worker = is_worker(config)
    if on_worker:
        share_cores()  # the semantic score's runtime: one thread per worker
    signer, steward_key = _run_keys(settings, on_worker)
    in_process = settings.runner == "inprocess"
    secrecy = secrecy_of(corpus, settings.scores_only)
    if in_process:
        check_in_process(settings, secrecy)  # before the method's code enters the harness
    source = find_method(method, base, registered, load=in_process, runtime=settings.runtime)
    ds = corpus.dataset
    if source.manifest and not source.manifest.supports(ds.source_language, ds.target_language):
        raise SettingsError(
            f"method {source.name!r} supports {source.manifest.supported_pairs}, "
            f"not {ds.source_language}>{ds.target_language}"
        )
    check_method_args(settings.method_args, source.manifest, source.name)
    source = bind_code(source, settings.method_args)  # interpreter, path args: what runs
    steward = run_authorisation(settings, secrecy, source, corpus.sha256)  # §8.6
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
    prefetch = config.stash.get(WORD_PREFETCH, None)
    words = functools.partial(prefetch.take, corpus.sha256) if prefetch else None
    context = MetricContext(corpus=corpus, fst_path=settings.fst, prefetched_words=words)
    judge = contributions.judge
    found = contributions.metrics(context)
    plugin_metrics = [metric for metrics in found for metric in metrics or []]
    catalog.register_families(plugin_metrics)  # their run-level metrics, like the built-ins
    settings = settings.with_metric_gates()
    selection = _selection(settings)
    state = RunState(settings, corpus, source, run_config, plugin_metrics=plugin_metrics)
    state.secrecy, state.steward = secrecy, steward
    state.audit, state.signer, state.card_path_existed = audit, signer, existed
    state.steward_key = steward_key
    preflight = _runs_here(config, settings)
    given_socket = handed_to_worker(config, GATEWAY_SOCKET_KEY)  # the controller's gateway
    state.isolation = start_isolation(state, config.rootpath, given_socket, preflight=preflight)
    try:  # the metrics are built while the runner boots; then its method is built in it
        state.builtin_metrics = builtin_metrics(context, judge, selection)
        state.metrics_not_computed = not_computed(context, selection, state.builtin_metrics)
        scores_soon = preflight and not distributes(config)  # a worker's scorer: never wanted
        state.score_beside_pytest(on_worker, runner_process=not in_process, start=scores_soon)
        state.isolation.wait_ready(state)
        return _finish_start(state, config, settings, run_config, source, on_worker, preflight)
    except BaseException:
        state.scoring.close()
        state.isolation.close()  # a run refused here leaves no runner, gateway or guard, no scorer
        raise


def _finish_start(
    state: RunState,
    config: pytest.Config,
    settings: Settings,
    run_config: RunConfig,
    source: MethodSource,
    on_worker: bool,
    preflight: bool,
) -> tuple[RunState, MethodCard | None]:
    """What follows the runner's start: checks that may still refuse the run, the cache, the
    baseline and the method card."""
    in_process = settings.runner == "inprocess"
    if (warning := state.isolation.choice.warning()) and not on_worker:
        print(warning, file=sys.stderr, flush=True)
    if in_process:
        check_method(state)
        if preflight:
            run_preflight(state.method, run_config, source.name)
    else:
        check_method_fields(state, state.method)
    # a secret run keeps no outputs on disk: an output may quote its source
    cached = not settings.no_cache and not state.secrecy.withheld
    if cached and getattr(state.method, "cacheable", True):
        cache = TranslationCache(config.rootpath / ".mteval" / "cache")
        public = public_config(run_config, secret_names(source.manifest))
        code_sha256 = (source.code or {}).get("sha256")
        runner = _runner_identity(state)
        key = (source.cache_name, source.directory, public, pytest_mteval.__version__)
        state.translator.cache = cache
        state.translator.fingerprint = method_fingerprint(*key, code_sha256, runner)
        cache.describe(
            state.translator.fingerprint, fingerprint_components(*key, code_sha256, runner)
        )
    if settings.baseline is not None:
        state.baseline_load = load_baseline(
            settings.baseline, state.corpus, settings.allow_dataset_change
        )
    card = method_card_for(source, settings.method_card, settings.model)
    return state, card


def _runner_identity(state: RunState) -> dict[str, Any]:
    """What the cache key holds of how the method ran: outputs made without the sandbox (or
    in the harness's process) are never served to a sandboxed run."""
    isolation = state.isolation
    choice = isolation.choice if isolation is not None else None
    return {
        "mode": state.settings.runner,
        "runtime": state.source.runtime,
        "sandbox": isolation.sandbox if isolation is not None else "none",
        "isolated": bool(choice is not None and choice.isolated),
    }


def _audit(settings: Settings, registered: Mapping[str, Registered]) -> dict[str, Any] | None:
    """The static audit of the method's folder, as the card records it: the folder given by
    path, or the one a registered name stands for (a shipped method, a plugin's folder, an
    installed package's directory); None for a method registered as a bare factory."""
    folder = (settings.method_base / str(settings.method)).resolve()
    if not (folder / "method.json").is_file():
        found = registered.get(str(settings.method))
        if isinstance(found, MethodSource) and found.directory is not None:
            folder = found.directory
        elif isinstance(found, Path | PackagedFolder):
            folder = (found.folder if isinstance(found, PackagedFolder) else found).resolve()
        else:
            return None
    if not (folder / "method.json").is_file():
        return None
    try:
        return audit_method(folder).to_json()
    except AuditError:
        return None  # a broken method.json: loading the method says what is wrong with it


def _run_keys(
    settings: Settings, on_worker: bool
) -> tuple[Ed25519PrivateKey | None, X25519PublicKey | None]:
    """The key that signs the card and the steward's key a review sample is sealed to, read
    where asked (a bad key refuses the run) and never on a worker, which seals nothing.
    cryptography is imported then, not by every run (some 20 ms of its start)."""
    if on_worker:
        return None, None
    signer = steward_key = None
    if settings.sign_key:
        from pytest_mteval.cards.signing import load_private_key

        signer = load_private_key(settings.sign_key)
    if settings.review_sample_key:
        from pytest_mteval.review.sealed_box import load_public_key

        steward_key = load_public_key(settings.review_sample_key)
    return signer, steward_key


def _check_output_paths(settings: Settings) -> None:
    """Refuse now a card or baseline path the run could not write at its end."""
    checks = [("--mteval-run-card", settings.run_card)]
    if settings.update_baseline:
        checks.append(("--mteval-baseline", settings.baseline))
    for option, path in checks:
        problem = check_output_path(path, option) if path is not None else None
        if problem is not None:
            raise SettingsError(problem)


def _selection(settings: Settings) -> MetricSelection:
    try:
        return MetricSelection.parse(settings.metrics, settings.skip_metrics)
    except MetricSelectionError as exc:
        raise SettingsError(str(exc)) from None


def _runs_here(config: pytest.Config, settings: Settings) -> bool:
    """Whether this process is about to translate: not a worker (the controller checked), not
    a dry run, --collect-only or --help."""
    option = config.option
    quiet = getattr(option, "collectonly", False) or getattr(option, "help", False)
    return not (settings.dry_run or quiet or is_worker(config))


def _per_process(config: pytest.Config, concurrency: int) -> int:
    """Each xdist worker gets its share of the allowed requests in flight."""
    return max(1, concurrency // max(worker_count(config), 1))


def _method_args(settings: Settings) -> dict[str, str]:
    """Method args, with the harness options that LLM methods read as args folded in."""
    args = dict(settings.method_args)
    if settings.prices is not None:
        args.setdefault("prices", str(settings.prices))
    if settings.request_timeout_s is not None:
        args.setdefault("request_timeout_s", str(settings.request_timeout_s))
    return args


def _registered(contributed: Iterable[Mapping[str, Registered] | None]) -> dict[str, Registered]:
    registered: dict[str, Registered] = {}
    for found in contributed:
        for name, factory in (found or {}).items():
            if name in registered:
                raise SettingsError(f"method name {name!r} is registered twice")
            registered[name] = factory
    return registered
