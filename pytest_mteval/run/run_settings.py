"""The run's settings: every ``--mteval-*`` option and ini key after merging and type checks.

Plain data below the pytest layer, so that the run (``run/run_state.py``) reads them without
importing pytest; ``plugin/options.py`` builds this from the options, and the defaults are the
option table's (``option_catalog.py``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path

from pytest_mteval.errors import SettingsError
from pytest_mteval.option_catalog import float_default, int_default, str_default
from pytest_mteval.scoring.gate_options import EntryGateOptions, GateOptionError, GateOptions


@dataclass(frozen=True)
class Settings:
    """The run's options after ini/command-line merging and type checks."""

    corpus: Path | None
    method: str | None
    method_base: Path = Path()
    method_card: Path | None = None
    method_args: dict[str, str] = field(default_factory=dict)
    segments: tuple[str, ...] = ()
    #: ``--mteval-activate-held-out``: collect the reserved held-out entries (spec §2.3).
    activate_held_out: bool = False
    domains: tuple[str, ...] = ()
    difficulties: tuple[int, ...] = ()
    batch_size: int = int_default("batch-size")
    concurrency: int = int_default("concurrency")
    timeout_s: float = float_default("timeout")
    #: Seconds the metrics may spend on one entry (``--mteval-score-timeout``).
    score_timeout_s: float = float_default("score-timeout")
    model: str | None = None
    temperature: float = float_default("temperature")
    condition: str | None = None
    run_card: Path | None = None
    fst: Path | None = None
    prices: Path | None = None
    request_timeout_s: float | None = None
    baseline: Path | None = None
    no_gate: bool = False  # --mteval-baseline=none: no baseline, and not the ini's gate
    gate: GateOptions = field(default_factory=GateOptions)
    #: ``--mteval-gate`` as given; checked and moved into ``gate`` once plugins registered
    #: their metrics (``with_metric_gates``).
    metric_gates: tuple[tuple[str, float], ...] = ()
    entry_gate: EntryGateOptions = field(default_factory=EntryGateOptions)
    allow_dataset_change: bool = False
    update_baseline: bool = False
    no_cache: bool = False
    dry_run: bool = False
    label: str | None = None
    estimate_json: Path | None = None
    entries: tuple[str, ...] = ()
    metrics: tuple[str, ...] = ()
    skip_metrics: tuple[str, ...] = ()
    compare: str | None = None
    keep_runs: int | None = None
    html: Path | None = None
    runner: str = str_default("runner")
    sandbox: str = str_default("sandbox")
    #: ``--mteval-runtime``: which of the method's entry points runs (None: its method.json's).
    runtime: str | None = None
    gateway_requests: int | None = None
    corpus_key_file: Path | None = None
    corpus_key_env: str | None = None
    sign_key: Path | None = None
    #: ``--mteval-review-sample-key``: the steward's public key a secret run's review sample
    #: is sealed to (review/sealed_sample.py)
    review_sample_key: Path | None = None
    review_sample_size: int = int_default("review-sample-size")
    #: A steward's signed consent to an A1 run on secret data, and the key that checks it.
    steward_authorisation: Path | None = None
    steward_key: Path | None = None
    scores_only: bool = False
    #: The entry fields read as source and reference (``--mteval-source-field``...).
    source_field: str = str_default("source-field")
    reference_field: str = str_default("reference-field")

    def with_metric_gates(self) -> Settings:
        """The ``--mteval-gate`` metrics checked against every registered definition, plugins'
        included, and moved into the gate's options (call once plugins have registered)."""
        try:
            gate = dataclasses.replace(self.gate, metric_gates=dict(self.metric_gates))
        except GateOptionError as exc:
            raise SettingsError(f"mteval gate option: {exc}") from None
        return dataclasses.replace(self, gate=gate, metric_gates=())
