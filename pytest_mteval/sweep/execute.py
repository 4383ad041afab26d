"""Run a sweep: estimate every combination, refuse an over-budget sweep, reuse complete cards,
run the rest as ordinary pytest sessions side by side, and index the cards.

Each combination is a separate ``pytest`` process with its own options, card, junit file and
``--lf`` cache, so it is exactly the run a person would make by hand (and can re-run by hand
from the command in its log). Processes run side by side so that runs which wait on services
overlap; the sweep's ``concurrency`` (requests in flight) is shared between them.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import os
import shlex
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_mteval.sweep.dask_runs import run_on_cluster
from pytest_mteval.sweep.log_reason import log_reason
from pytest_mteval.sweep.plan import Combination, SweepPlan
from pytest_mteval.sweep.resume import failed_cards, reusable_card
from pytest_mteval.sweep.shards import index_name

#: Exit codes of a sweep, pytest's where they mean the same.
OK, FAILED, INTERRUPTED, USAGE, NOTHING_RAN = 0, 1, 2, 4, 5


@dataclass
class Outcome:
    """What became of one combination."""

    combination: Combination
    estimate: dict[str, Any] = field(default_factory=dict)
    #: planned | reused | passed | failed | nothing selected | error | interrupted
    status: str = "planned"
    exit_code: int | None = None
    card: str | None = None
    #: The cluster worker (host:pid) whose run gave the card; None on this machine.
    worker: str | None = None

    def to_json(self) -> dict[str, Any]:
        combo = self.combination
        return {
            "label": combo.label,
            "corpus": str(combo.corpus),
            "method": combo.method,
            "values": {"corpus": combo.corpus.stem, "method": Path(combo.method).name}
            | combo.values,
            "pytest_args": combo.pytest_args(),
            "fingerprint": self.estimate.get("fingerprint"),
            "estimated_cost_usd": self.estimate.get("estimated_cost_usd"),
            "configuration": combo.configuration or combo.label,
            "repeat": combo.repeat,
            "status": self.status,
            "exit_code": self.exit_code,
            "card": self.card,
            "worker": self.worker,
        }


@dataclass(frozen=True)
class SweepOptions:
    extra_args: Sequence[str] = ()
    dry_run: bool = False
    allow_over_budget: bool = False
    cwd: Path = field(default_factory=Path.cwd)
    python: str = sys.executable
    #: A Dask scheduler's address (``tcp://HOST:PORT``): its workers run the combinations.
    scheduler: str | None = None


def run_sweep(plan: SweepPlan, options: SweepOptions, say: Callable[[str], None]) -> int:
    """Run (or estimate) every combination; the exit code of the sweep as a whole."""
    outcomes = [Outcome(combo) for combo in plan.combinations]
    at_once = min(len(outcomes), plan.runs_at_once or default_runs_at_once())
    for folder in ("estimates", "cards", "logs", "junit", "pytest-cache"):
        (plan.output / folder).mkdir(parents=True, exist_ok=True)
    share = (
        "" if plan.shard is None else f" (shard {plan.shard.text} of {len(plan.planned_labels)})"
    )
    say(
        f"sweep {plan.path}: {len(outcomes)} runs{share}, {at_once} at a time, output {plan.output}"
    )
    try:
        problem = asyncio.run(_estimate_all(plan, outcomes, options, at_once))
        if problem:
            say(problem)
            return USAGE
        total = _say_estimates(outcomes, say)
        if options.dry_run:
            say("nothing was translated: this was a dry run")
            return OK
        refusal = _budget_refusal(plan.budget_usd, total, options.allow_over_budget)
        if refusal:
            say(refusal)
            return USAGE
        failed = failed_cards(plan.output / index_name(plan.shard))
        for outcome in outcomes:
            card = reusable_card(
                plan.output / "cards" / outcome.combination.label,
                outcome.estimate.get("fingerprint"),
                outcome.estimate.get("entries"),
            )
            if card is not None and str(card) in failed:
                say(f"  rerun    {outcome.combination.label}  (its last run failed: {card.name})")
            elif card is not None:
                outcome.status, outcome.card = "reused", str(card)
                say(f"  reused   {outcome.combination.label}  ({card.name})")
        if options.scheduler:
            pending = [o for o in outcomes if o.status == "planned"]
            if pending:
                run_on_cluster(plan, pending, options, options.scheduler, say)
        else:
            asyncio.run(_run_all(plan, outcomes, options, at_once, say))
    except KeyboardInterrupt:
        for outcome in outcomes:
            if outcome.status == "planned":
                outcome.status = "interrupted"
        say("sweep interrupted: rerun the same command to resume where it stopped")
        return INTERRUPTED
    finally:
        _write_index(plan, outcomes)
    if any(o.status in ("error", "interrupted") for o in outcomes):
        return INTERRUPTED if any(o.status == "interrupted" for o in outcomes) else USAGE
    if any(o.status == "failed" for o in outcomes):
        return FAILED
    return NOTHING_RAN if all(o.status == "nothing selected" for o in outcomes) else OK


def default_runs_at_once() -> int:
    """Twice the cores: enough overlap for runs that wait on endpoints, while each pytest
    process (metrics, perhaps an embedder) still fits in memory beside the others."""
    return max(4, 2 * (os.cpu_count() or 1))


async def _estimate_all(
    plan: SweepPlan, outcomes: list[Outcome], options: SweepOptions, at_once: int
) -> str | None:
    """Dry-run every combination (nothing is translated): cost and planned fingerprint."""
    gate = asyncio.Semaphore(max(at_once, 2))

    async def one(outcome: Outcome) -> str | None:
        combo = outcome.combination
        target = plan.output / "estimates" / f"{combo.label}.json"
        target.unlink(missing_ok=True)
        log = plan.output / "logs" / f"{combo.label}.estimate.log"
        args = [
            *combo.pytest_args(),
            "--mteval-dry-run",
            f"--mteval-estimate-json={target}",
            "-p",
            "no:cacheprovider",
            "-q",
            *_estimate_args(options.extra_args),
        ]
        async with gate:
            code = await _pytest(options, args, log)
        if code not in (0, 5) or not target.is_file():  # 5: -k left nothing selected
            return f"run {combo.label} cannot start (exit {code}): {log_reason(log)}"
        outcome.estimate = json.loads(target.read_text(encoding="utf-8"))
        return None

    problems = await asyncio.gather(*(one(o) for o in outcomes))
    return next((p for p in problems if p), None)


def _estimate_args(args: Sequence[str]) -> list[str]:
    """The invocation's arguments that can change a run's configuration reach its estimate
    too (``--mteval-batch-size`` changes the fingerprint); xdist's ``-n`` is left out."""
    out: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg in ("-n", "--numprocesses", "--dist"):
            skip = True
        elif not arg.startswith(("-n", "--numprocesses=", "--dist=", "--junitxml")):
            out.append(arg)
    return out


async def _run_all(
    plan: SweepPlan,
    outcomes: list[Outcome],
    options: SweepOptions,
    at_once: int,
    say: Callable[[str], None],
) -> None:
    pending = [o for o in outcomes if o.status == "planned"]
    if not pending:
        return
    at_once = min(at_once, len(pending))
    share = max(1, plan.concurrency // at_once)
    gate = asyncio.Semaphore(at_once)

    async def one(outcome: Outcome) -> None:
        combo = outcome.combination
        stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%S%fZ")
        card = plan.output / "cards" / combo.label / f"{stamp}.json"
        card.parent.mkdir(parents=True, exist_ok=True)
        args = [
            *combo.pytest_args(),
            f"--mteval-label={combo.label}",
            f"--mteval-run-card={card}",
            f"--mteval-concurrency={share}",
            f"--junitxml={plan.output / 'junit' / f'{combo.label}.xml'}",
            "-o",
            f"cache_dir={plan.output / 'pytest-cache' / combo.label}",
            *options.extra_args,
        ]
        log = plan.output / "logs" / f"{combo.label}.log"
        async with gate:
            code = await _pytest(options, args, log)
        outcome.exit_code = code
        outcome.card = str(card) if card.is_file() else None
        outcome.status = {0: "passed", 1: "failed", 5: "nothing selected"}.get(code, "error")
        if outcome.status == "failed" and outcome.card is None:
            outcome.status = "error"
        why = "" if outcome.status in ("passed", "nothing selected") else f": {log_reason(log)}"
        say(f"  {outcome.status:<8} {combo.label}  (exit {code}){why}")

    await asyncio.gather(*(one(o) for o in pending))


async def _pytest(options: SweepOptions, args: list[str], log: Path) -> int:
    """One pytest process, its output in ``log`` (with the command on the first line)."""
    command = [options.python, "-m", "pytest", *args]
    with log.open("w", encoding="utf-8") as out:
        out.write(shlex.join(command) + "\n")  # pasted into a shell, it runs this argv
        out.flush()
        process = await asyncio.create_subprocess_exec(
            *command,
            cwd=options.cwd,
            stdout=out,
            stderr=asyncio.subprocess.STDOUT,
            stdin=asyncio.subprocess.DEVNULL,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        try:
            return await process.wait()
        except asyncio.CancelledError:
            process.kill()
            await process.wait()
            raise


def _say_estimates(outcomes: list[Outcome], say: Callable[[str], None]) -> float | None:
    """Print the per-run estimates; the total, or None when a price is unknown."""
    total: float | None = 0.0
    width = max(len(o.combination.label) for o in outcomes)
    for outcome in outcomes:
        cost = outcome.estimate.get("estimated_cost_usd")
        shown = "unknown" if cost is None else f"${cost:.4f}"
        say(f"  estimate {outcome.combination.label:<{width}}  {shown}")
        total = None if total is None or cost is None else total + float(cost)
    say(f"estimated total: {'unknown (a price is missing)' if total is None else f'${total:.4f}'}")
    return total


def _budget_refusal(budget: float | None, total: float | None, allowed: bool) -> str | None:
    if budget is None or allowed:
        return None
    if total is None:
        return (
            f"refused: the sweep's cost cannot be estimated against its budget ${budget:.2f} "
            "(a model has no price; add one with --mteval-prices, or pass "
            "--mteval-allow-over-budget)"
        )
    if total > budget:
        return (
            f"refused: estimated ${total:.4f} exceeds the sweep's budget ${budget:.2f} "
            "(pass --mteval-allow-over-budget to run anyway)"
        )
    return None


def _write_index(plan: SweepPlan, outcomes: list[Outcome]) -> None:
    index = {
        "sweep": str(plan.path),
        "axes": plan.axes,
        "budget_usd": plan.budget_usd,
        "concurrency": plan.concurrency,
        "shard": None if plan.shard is None else plan.shard.text,
        "planned_labels": list(plan.planned_labels),
        "runs": [o.to_json() for o in outcomes],
    }
    target = plan.output / index_name(plan.shard)
    partial = target.with_suffix(".json.tmp")
    partial.write_text(json.dumps(index, indent=2, ensure_ascii=False), encoding="utf-8")
    partial.replace(target)
