"""The leaderboard (benchmark spec §9.7): verified cards, ranked by composite on boards of like
cards (``board_rules.py``: track, corpus version, profile, composite metrics), with the ranks
a card could hold given the confidence intervals.

Official (gold-standard, complete, sandboxed) boards come first. A card the one ranking rule
(``board_rules.ranking_reasons``) does not rank is listed apart under "Not ranked" with the
reason; class X cards are left out (counted in a note). A card that does not verify (schema,
fingerprint, hash) is refused with the reason.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from pytest_mteval.cards import runcard
from pytest_mteval.cards.card_view import CardView
from pytest_mteval.cards.foreign_view import read_verified
from pytest_mteval.cards.verification_tier import (
    SIDECAR_SUFFIX,
    TrustRoots,
    honoured_parents,
    shown_quality_tier,
    verification_tiers,
)
from pytest_mteval.reports.board_rules import (
    OFFICIAL,
    BoardKey,
    board_key,
    board_order,
    rank_spans,
    ranking_reasons,
    unlisted,
)
from pytest_mteval.reports.domain_slice import domain_slice
from pytest_mteval.reports.method_columns import checked_class, method_columns
from pytest_mteval.reports.segment_views import segment_views
from pytest_mteval.reports.validation_records import review_verdict
from pytest_mteval.scoring import composite as scoring

PROXY_NOTE = (
    "All scores shown are automated proxy measurements. They indicate the relative performance "
    "of methods under controlled conditions and are no guarantee of quality. Community-validated "
    "methods are marked in the Verification column (benchmark spec §9.7)."
)


@dataclass
class Row:
    """One card's line on a board (§9.7 fields)."""

    path: str
    run_id: str
    method: str
    method_class: str | None
    dependency_class: str | None
    model: str
    condition: str
    composite: float | None
    lower: float | None
    upper: float | None
    chrf_plus_plus: float | None
    fst_acceptance_rate: float | None
    exact_match_rate: float | None
    semantic_score: float | None
    cost_per_entry_usd: float | None
    avg_latency_seconds: float | None
    cost_adjusted: float | None
    quality_tier: str
    verification: str
    verification_reason: str
    date: str
    entries: int
    corpus: str = ""
    #: The segment the row's scores are of ("" when the card records none).
    segment: str = ""
    #: Why the card is listed apart, not ranked (``board_rules.ranking_reasons``).
    not_ranked: str = ""
    rank_low: int = 0
    rank_high: int = 0
    timestamp: str = ""
    #: What tells this run from others of the same method and model on its board (their
    #: conditions, else their times, else run ids); "" when it is the only one.
    run_label: str = ""
    #: The method-interface columns (``method_columns.py``): tools used, open source, prompt
    #: version, temperature.
    tools_used: str = "–"
    open_source: str = "–"
    prompt_version: str = "–"
    temperature: str = "–"

    @property
    def shown(self) -> str:
        """The method as a board shows it: with the run's label when that is needed."""
        return f"{self.method} [{self.run_label}]" if self.run_label else self.method

    def rank_text(self) -> str:
        if self.rank_low == self.rank_high:
            return str(self.rank_low)
        return f"{self.rank_low}–{self.rank_high}"


@dataclass
class Board:
    """The ranked cards of one track, corpus version, scoring profile and metric set."""

    key: BoardKey
    language_pair: str
    domain: str | None
    rows: list[Row] = field(default_factory=list)

    @property
    def dataset_id(self) -> str:
        return self.key.dataset_id

    @property
    def version(self) -> str:
        return self.key.version

    @property
    def sha256(self) -> str:
        return self.key.sha256

    @property
    def official(self) -> bool:
        return self.key.track == OFFICIAL

    def title(self) -> str:
        where = f", domain {self.domain}" if self.domain else ""
        if not self.official and self.key.segment not in ("", "development"):
            where = f", segment {self.key.segment}{where}"
        track = "Official (gold standard)" if self.official else "Development"
        metrics = ", ".join(self.key.metrics) or "none"
        return (
            f"{track}: {self.dataset_id} v{self.version} ({self.language_pair}){where}, "
            f"dataset sha256 {self.sha256[:12]}, profile {self.key.profile}, "
            f"composite over {metrics}"
        )


@dataclass
class Leaderboard:
    boards: list[Board]
    refused: list[str]
    notes: list[str]
    #: Verified cards listed apart, never ranked (``board_rules.ranking_reasons``).
    not_ranked: list[Row] = field(default_factory=list)


def card_paths(arguments: Iterable[str]) -> list[Path]:
    """Cards named on the command line: files as given, folders searched for ``*.json``
    (human-validation records beside cards excluded)."""
    out: list[Path] = []
    for argument in arguments:
        path = Path(argument)
        if path.is_dir():
            found = sorted(path.rglob("*.json"))
            out.extend(p for p in found if not p.name.endswith(SIDECAR_SUFFIX))
        else:
            out.append(path)
    return out


def build(
    paths: Sequence[Path],
    domain: str | None = None,
    maintainer_keys: Sequence[Ed25519PublicKey] = (),
    governance_keys: Sequence[Ed25519PublicKey] = (),
) -> Leaderboard:
    """Verify, group and rank the cards at ``paths``; ``domain`` ranks on one domain; tiers
    come from the keys given only (spec §9.4, ``verification_tier.py``)."""
    roots = TrustRoots(maintainer=tuple(maintainer_keys), governance=tuple(governance_keys))
    cards: list[tuple[Path, CardView]] = []
    refused: list[str] = []
    notes: list[str] = []
    for path in paths:
        try:
            card, _ = read_verified(path)  # a foreign card or report ranks marked as such
        except runcard.RunCardError as exc:
            refused.append(f"REFUSED {exc}")
            continue
        cards.append((path, card))
    verdicts = [review_verdict(card, path, roots) for path, card in cards]
    parents = honoured_parents(verdicts)
    for path, card in cards:
        if card.run_card_hash in parents:
            notes.append(f"{path}: left out, a card on the board extends it with its review")
    kept_cards = [
        (pc, v) for pc, v in zip(cards, verdicts, strict=True) if pc[1].run_card_hash not in parents
    ]
    cards = [pc for pc, _ in kept_cards]
    validations = [v for _, v in kept_cards]
    for verdict in validations:
        if verdict is not None and not verdict.honoured:
            notes.append(f"human validation ignored: {verdict.reason}")
    closed = [c for c in cards if unlisted(c[1])]
    if closed:
        notes.append(
            f"{len(closed)} card(s) of class X methods left out: class X methods are not "
            "listed (method interface; X is inadmissible in every track)"
        )
    kept = [(pc, v) for pc, v in zip(cards, validations, strict=True) if not unlisted(pc[1])]
    if not maintainer_keys:
        notes.append("no maintainer key given (--maintainer-key): no card is maintainer-verified")
    tiers = verification_tiers([c.raw for (_, c), _ in kept], [v for _, v in kept], roots)
    boards: dict[BoardKey, Board] = {}
    apart: list[Row] = []
    # a run mixing segments is ranked per segment: each segment's view is one listing
    views = [
        (path, whole, view, verdict, tier)
        for ((path, whole), verdict), tier in zip(kept, tiers, strict=True)
        for view in segment_views(whole)
    ]
    reasons = ranking_reasons([(str(path), view) for path, _, view, _, _ in views])
    for (path, whole, card, verdict, tier), reason in zip(views, reasons, strict=True):
        row = _row(path, card, tier.name, tier.reason, domain)
        if row is None:
            notes.append(f"{path}: no entry of domain {domain!r}, left out")
            continue
        if card is whole and card.foreign is None:  # "(community validated)" only when earned
            row.quality_tier = shown_quality_tier(card.raw, verdict)
        if reason is not None:
            row.not_ranked = reason
            apart.append(row)
            continue
        key = board_key(card)
        language_pair = str(card.dataset.language_pair)
        board = boards.setdefault(key, Board(key, language_pair, domain))
        board.rows.append(row)
    for board in boards.values():
        rank(board.rows)
        tell_apart(board.rows)
    ordered = sorted(boards.values(), key=lambda b: board_order(b.key))
    return Leaderboard(ordered, refused, notes, apart)


def rank(rows: list[Row]) -> None:
    """Sort by composite (unscored last) and give each row the span of ranks its interval
    allows (``board_rules.rank_spans``): overlapping intervals are ties."""
    rows.sort(key=lambda r: (r.composite is None, -(r.composite or 0.0), r.method, r.run_id))
    for row, (low, high) in zip(rows, rank_spans([_span(r) for r in rows]), strict=True):
        row.rank_low, row.rank_high = low, high


def tell_apart(rows: list[Row]) -> None:
    """Label the runs that share a method and model, so that a board and its legend do not
    show the same name twice: by condition where those differ, else by time, else run id."""
    groups: dict[tuple[str, str], list[Row]] = {}
    for row in rows:
        groups.setdefault((row.method, row.model), []).append(row)
    for group in groups.values():
        if len(group) < 2:
            continue
        choices: tuple[Callable[[Row], str], ...] = (
            lambda r: r.condition,
            lambda r: r.timestamp[:16].replace("T", " "),
            lambda r: r.run_id[:8],  # runs of one minute: the run id alone tells them apart
        )
        for choose in choices:
            labels = [choose(r) for r in group]
            if len(set(labels)) == len(labels):
                break
        for row, label in zip(group, labels, strict=True):
            row.run_label = label


def _span(row: Row) -> tuple[float | None, float | None]:
    if row.composite is None:
        return None, None
    low = row.lower if row.lower is not None else row.composite
    high = row.upper if row.upper is not None else row.composite
    return low, high


def _row(path: Path, card: CardView, tier: str, reason: str, domain: str | None) -> Row | None:
    scores, totals = card.scores, card.totals
    interval = scores.interval("composite")
    composite = scores.composite
    lower = interval.lower if interval is not None else None
    upper = interval.upper if interval is not None else None
    chrf, exact = scores.chrf_plus_plus, scores.exact_match_rate
    cost_adjusted = scores.cost_adjusted
    if domain is not None:
        found = domain_slice(card, domain)
        if found is None:
            return None
        composite, lower, upper = found.composite, found.lower, found.upper
        chrf, exact = found.chrf_plus_plus, found.exact_match_rate
        cost_adjusted = scoring.cost_adjusted(composite, totals.cost_per_entry_usd)
    return Row(
        path=str(path),
        run_id=str(card.run_id),
        method=card.board_name,
        method_class=checked_class(card),
        dependency_class=card.dependency_class,
        model=str(card.model),
        condition=str(card.condition),
        composite=composite,
        lower=lower,
        upper=upper,
        chrf_plus_plus=chrf,
        fst_acceptance_rate=scores.fst_acceptance_rate,
        exact_match_rate=exact,
        semantic_score=scores.semantic_score,
        cost_per_entry_usd=totals.cost_per_entry_usd,
        avg_latency_seconds=scores.avg_latency_seconds,
        cost_adjusted=cost_adjusted,
        quality_tier=str(scores.quality_tier or "unscored"),
        verification=tier,
        verification_reason=reason,
        date=str(card.timestamp)[:10],
        timestamp=str(card.timestamp),
        entries=int(card.dataset.entry_count),
        corpus=f"{card.dataset.id} v{card.dataset.version}",
        **method_columns(card),
        segment="+".join(card.dataset.covered_segments or ()),
    )
