"""Re-run a card's configuration and measure how far the repeats land from it (spec §1.3:
"anyone with the same method, corpus and configuration must reach scores within ±2%,
allowing for LLM sampling at temperature > 0"; §9.2.3).

Each repeat is an ordinary pytest session with the card's corpus, method, model, temperature,
condition, batch size, method args and filters, and the translation cache OFF, so every entry
is translated again. The report gives, for each headline score, the card's value, every
repeat's, their mean and spread, and the largest relative gap to the card; the ±2 % holds when
every repeat's composite is within 2 % of the card's (relative to the larger, as the
verification tier counts it) and the repeats ran the card's configuration (same fingerprint)
and its code (same code hash, ``cards/code_identity.py``).

A card is a stranger's file: where its sources go and which key goes with them are the
maintainer's choice (``MaintainerEndpoint``), never the card's. The card's ``api_key_env`` is
never used, and a card whose endpoint is not the maintainer's is refused unless asked for.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from pytest_mteval.cards import runcard
from pytest_mteval.cards.code_identity import code_problem
from pytest_mteval.cards.fingerprint import same_configuration
from pytest_mteval.cards.verification_tier import REPRODUCTION_TOLERANCE
from pytest_mteval.errors import MtevalError
from pytest_mteval.option_catalog import int_default
from pytest_mteval.run.method_args import REDACTED

#: The scores a reproduction is judged on, when the card has them.
HEADLINE: Final = (
    "composite",
    "chrf_plus_plus",
    "bleu",
    "exact_match_rate",
    "fst_acceptance_rate",
    "semantic_score",
)


#: A card that records no batch size is re-run with the one an unset option gives.
_BATCH_SIZE: Final = int_default("batch-size")


class ReproductionError(MtevalError):
    """A card whose configuration cannot be re-run; the message names the card and field."""


#: Method args the card may not choose: where sources go and which variable holds the key.
ENDPOINT_ARGS: Final = ("base_url", "api_key_env")


@dataclass(frozen=True)
class MaintainerEndpoint:
    """The endpoint and key variable of a reproduction, from the maintainer's own options;
    ``use_card_endpoint`` sends the sources where the card's run sent them."""

    base_url: str | None = None
    api_key_env: str | None = None
    use_card_endpoint: bool = False


def card_asks(card: Mapping[str, Any]) -> dict[str, str | None]:
    """What the card's run used: model, endpoint and key variable (shown, not obeyed)."""
    method: Mapping[str, Any] = card.get("method") or {}
    config: Mapping[str, Any] = method.get("run_config") or {}
    args = config.get("method_args")
    args = args if isinstance(args, Mapping) else {}
    shown = {"model": config.get("model")}
    return {**shown, **{name: args.get(name) for name in ENDPOINT_ARGS}}


def _card_args(card: Mapping[str, Any]) -> Mapping[str, Any]:
    method: Mapping[str, Any] = card.get("method") or {}
    config: Mapping[str, Any] = method.get("run_config") or {}
    args = config.get("method_args")
    return args if isinstance(args, Mapping) else {}


def _endpoint_args(card: Mapping[str, Any], where: str, own: MaintainerEndpoint) -> list[str]:
    """The endpoint and key options of the reproduction; ReproductionError when the card's
    endpoint is not the maintainer's and the maintainer did not choose the card's."""
    asked = card_asks(card)
    theirs = str(asked["base_url"]).rstrip("/") if asked["base_url"] else None
    mine = own.base_url.rstrip("/") if own.base_url else None
    args: list[str] = []
    if own.use_card_endpoint:
        chosen = asked["base_url"]
    elif theirs != mine:
        raise ReproductionError(
            f"{where}: field 'method.run_config.method_args.base_url': the card's run sent its "
            f"sources to {_shown(theirs)}, not to {_shown(mine)} (--base-url); pass "
            "--use-card-endpoint to send "
            "your sources there"
        )
    else:
        chosen = own.base_url
    if chosen:
        args.append(f"--mteval-method-arg=base_url={chosen}")
    if own.api_key_env:
        args.append(f"--mteval-method-arg=api_key_env={own.api_key_env}")
    return args


@dataclass
class Spread:
    """One headline score: the card's value against the repeats'."""

    name: str
    card: float
    repeats: list[float]

    @property
    def mean(self) -> float:
        return statistics.fmean(self.repeats)

    @property
    def spread(self) -> float:
        return max(self.repeats) - min(self.repeats)

    @property
    def stdev(self) -> float:
        return statistics.stdev(self.repeats) if len(self.repeats) > 1 else 0.0

    @property
    def worst_gap(self) -> float:
        """The largest gap of a repeat to the card, relative to the larger of the two."""
        return max(_relative(self.card, value) for value in self.repeats)


@dataclass
class Reproduction:
    card: Path
    repeats: list[Path]
    spreads: list[Spread] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def holds(self) -> bool:
        composite = next((s for s in self.spreads if s.name == "composite"), None)
        return (
            not self.problems
            and composite is not None
            and composite.worst_gap <= REPRODUCTION_TOLERANCE
        )


def _shown(url: str | None) -> str:
    return repr(url) if url else "the method's default endpoint"


def reproduction_args(
    card: Mapping[str, Any],
    where: str,
    corpus: Path | None,
    endpoint: MaintainerEndpoint | None = None,
) -> list[str]:
    """The pytest options that re-run ``card``'s configuration, cache off, with the
    maintainer's endpoint and key variable."""
    method = _object(card.get("method"), where, "method")
    config = _object(method.get("run_config"), where, "method.run_config")
    dataset = _object(card.get("dataset"), where, "dataset")
    corpus_path = corpus or (Path(str(dataset["path"])) if dataset.get("path") else None)
    if corpus_path is None or not corpus_path.is_file():
        raise ReproductionError(
            f"{where}: field 'dataset.path': corpus {corpus_path} not found (pass --corpus)"
        )
    name = config.get("method_dir") or method.get("name")
    if not isinstance(name, str) or not name:
        raise ReproductionError(f"{where}: field 'method.run_config.method_dir': not recorded")
    args = [f"--mteval-corpus={corpus_path}", f"--mteval-method={name}"]
    if config.get("model") is not None:
        args.append(f"--mteval-model={config['model']}")
    args += [
        f"--mteval-temperature={card['temperature']}",
        f"--mteval-condition={card['condition']}",
        f"--mteval-batch-size={card.get('batch_size') or config.get('batch_size') or _BATCH_SIZE}",
    ]
    args += _endpoint_args(card, where, endpoint or MaintainerEndpoint())
    method_args = _object(config.get("method_args"), where, "method.run_config.method_args")
    for key, value in method_args.items():
        if not isinstance(value, str | int | float) or "\n" in f"{key}{value}":
            raise ReproductionError(
                f"{where}: field 'method.run_config.method_args.{key}': must be one line of "
                f"text or a number, got {type(value).__name__}"
            )
        if key in ("prices", "request_timeout_s", *ENDPOINT_ARGS):
            continue  # harness options (given again as options) and the maintainer's endpoint
        if value == REDACTED:
            raise ReproductionError(
                f"{where}: field 'method.run_config.method_args.{key}': a secret the card "
                "does not keep; re-run by hand with it"
            )
        args.append(f"--mteval-method-arg={key}={value}")
    filters = _object(dataset.get("filters"), where, "dataset.filters")
    for option in ("segment", "domain", "difficulty"):
        values = filters.get(option) or []
        if not isinstance(values, list) or not all(
            isinstance(v, str | int) and not isinstance(v, bool) and "\n" not in str(v)
            for v in values
        ):
            raise ReproductionError(
                f"{where}: field 'dataset.filters.{option}': must be a list of names or numbers"
            )
        args += [f"--mteval-{option}={value}" for value in values]
    segments = _object(dataset.get("segments"), where, "dataset.segments")
    if segments.get("held_out_activated") is True:
        args.append("--mteval-activate-held-out")
    return [*args, "--mteval-no-cache", "-p", "no:cacheprovider", "-q"]


def _object(value: Any, where: str, name: str) -> Mapping[str, Any]:
    """A card's field that must be an object when present; ReproductionError naming it."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ReproductionError(
            f"{where}: field {name!r}: must be an object, got {type(value).__name__}"
        )
    return value


def reproduce(
    card_path: Path,
    repeats: int,
    output: Path,
    extra: Sequence[str] = (),
    corpus: Path | None = None,
    say: Callable[[str], None] = print,
    endpoint: MaintainerEndpoint | None = None,
) -> Reproduction:
    """Run the card's configuration ``repeats`` times and compare each run with the card."""
    card = runcard.load(card_path)
    runcard.verify(card, card_path)
    asked = ", ".join(f"{name}={value!r}" for name, value in card_asks(card).items())
    say(f"  the card's run used {asked}")
    others = {k: v for k, v in _card_args(card).items() if k not in ENDPOINT_ARGS}
    if others:  # a path among them is read on this machine: look before it runs
        say("  with method args " + ", ".join(f"{k}={v!r}" for k, v in others.items()))
    base = reproduction_args(card, str(card_path), corpus, endpoint)
    output.mkdir(parents=True, exist_ok=True)
    result = Reproduction(card_path, [])
    cards: list[dict[str, Any]] = []
    for number in range(1, repeats + 1):
        target = output / f"repeat-{number}.json"
        target.unlink(missing_ok=True)
        command = [sys.executable, "-m", "pytest", *base, f"--mteval-run-card={target}", *extra]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        (output / f"repeat-{number}.log").write_text(done.stdout + done.stderr, encoding="utf-8")
        if not target.is_file():
            tail = " | ".join((done.stdout + done.stderr).strip().splitlines()[-3:])
            raise ReproductionError(
                f"repeat {number} wrote no card (exit {done.returncode}): {tail}"
            )
        say(f"  repeat {number}/{repeats}: {target}")
        cards.append(runcard.load(target))
        result.repeats.append(target)
    result.problems = [
        f"repeat {i}: fingerprint differs from the card's (another configuration)"
        for i, other in enumerate(cards, 1)
        if not same_configuration(other, card)
    ]
    for number, other in enumerate(cards, 1):
        problem = code_problem(card, other)
        if problem is not None:
            result.problems.append(f"repeat {number}: {problem}")
    for name in HEADLINE:
        own = card["scores"].get(name)
        values = [other["scores"].get(name) for other in cards]
        if _number(own) and all(_number(v) for v in values):
            result.spreads.append(Spread(name, float(own), [float(v) for v in values]))
    return result


def report_lines(result: Reproduction) -> list[str]:
    lines = [f"{'score':<22} {'card':>9} {'mean':>9} {'spread':>9} {'stdev':>9} {'worst gap':>9}"]
    for s in result.spreads:
        lines.append(
            f"{s.name:<22} {s.card:>9.4f} {s.mean:>9.4f} {s.spread:>9.4f} {s.stdev:>9.4f} "
            f"{s.worst_gap:>8.2%}"
        )
    lines += [f"PROBLEM {p}" for p in result.problems]
    verdict = "holds" if result.holds else "does NOT hold"
    lines.append(
        f"±{REPRODUCTION_TOLERANCE:.0%} (spec §1.3) {verdict} for the composite over "
        f"{len(result.repeats)} uncached repeat(s)"
    )
    return lines


def _relative(a: float, b: float) -> float:
    larger = max(abs(a), abs(b))
    return 0.0 if larger == 0 else abs(a - b) / larger


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
