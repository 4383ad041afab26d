"""``pytest --mteval-sweep=FILE [pytest args]``: run a sweep from the pytest command line.

The invocation's other arguments (``-k``, ``-n 2``, ``--lf``, ``-x`` ...) reach every run of
the sweep; the sweep's own options do not.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from pytest_mteval.sweep.execute import SweepOptions, run_sweep
from pytest_mteval.sweep.merge import gather, merged_markdown
from pytest_mteval.sweep.plan import load_plan
from pytest_mteval.sweep.shards import parse_shard, sharded

#: Options of the outer invocation that belong to the sweep, not to its runs.
_SWEEP_ONLY = (
    "--mteval-sweep",
    "--mteval-allow-over-budget",
    "--mteval-dry-run",
    "--mteval-shard",
    "--mteval-dask-scheduler",
)
#: Those of them that take a value.
_VALUED = ("--mteval-sweep", "--mteval-shard", "--mteval-dask-scheduler")


def run_requested_sweep(config: pytest.Config) -> int | None:
    """The sweep's exit code, or None when no sweep was asked for (a normal session)."""
    raw = config.getoption("mteval_sweep") or config.getini("mteval_sweep")
    if not raw:
        return None
    base = config.invocation_params.dir
    shard = config.getoption("mteval_shard")
    plan = sharded(load_plan(base / str(raw), base), parse_shard(shard) if shard else None)
    options = SweepOptions(
        extra_args=run_args(config.invocation_params.args),
        dry_run=bool(config.getoption("mteval_dry_run")),
        allow_over_budget=bool(config.getoption("mteval_allow_over_budget")),
        cwd=base,
        scheduler=config.getoption("mteval_dask_scheduler") or None,
    )
    code = run_sweep(plan, options, _say)
    if not options.dry_run and code in (0, 1):
        _say("")
        merged = gather([plan.output])
        if plan.shard is not None:
            merged.missing = []  # the other shards' runs, on other machines
        for line in merged_markdown(merged):
            _say(line)
    return code


def _say(line: str) -> None:
    """Plain lines: pytest's terminal reporter does not exist before a session configures."""
    print(line, flush=True)


def run_args(args: Sequence[str]) -> list[str]:
    """The invocation's arguments less the sweep's own options."""
    out: list[str] = []
    skip_value = False
    for arg in args:
        if skip_value:
            skip_value = False
            continue
        name = arg.split("=", 1)[0]
        if name in _SWEEP_ONLY:
            skip_value = "=" not in arg and name in _VALUED
            continue
        out.append(arg)
    return out
