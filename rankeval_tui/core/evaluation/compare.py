"""Paired per-query comparison of two reports scored under the same protocol.

A better mean can hide a regression on one query (the seed: fixture_B beats fixture_A on the
mean, 5/6 vs 1/2, yet q2's first relevant document fell from rank 1 to rank 2). This module
makes each query's delta explicit so views can mark it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction

from rankeval_tui.core.evaluation.evaluate import QueryRow, Report
from rankeval_tui.core.evaluation.metrics import DEFINITIONS, PRIMARY, MetricId

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: every command pays for its imports at start-up
if TYPE_CHECKING:
    from typing import Literal, TypeAlias

Metric = MetricId
METRICS: tuple[Metric, ...] = PRIMARY
"""The default metrics of a comparison (the seed's pair); ``Comparison.metrics`` are the ones compared."""
METRIC_LABELS = {metric: definition.label for metric, definition in DEFINITIONS.items()}
Outcome: TypeAlias = "Literal['win', 'tie', 'loss', 'n/a']"


@dataclass(frozen=True)
class PairedRow:
    """One query under both runs. ``delta`` is None where the query has no relevant document."""

    query: str
    baseline: QueryRow
    candidate: QueryRow
    metrics: tuple[Metric, ...] = METRICS
    """The metrics the verdict weighs: the comparison's."""
    known: Mapping[Metric, tuple[Fraction | None, Outcome]] = field(default_factory=dict, compare=False, repr=False)
    """Delta and outcome per compared metric, worked out once by ``compare`` (the views ask for
    them again and again: counts, regressions, sort, cells; Fraction arithmetic each time was
    seconds at 10,000 queries). Anything not in it is computed on demand."""

    def value(self, metric: Metric, side: Literal["baseline", "candidate"]) -> Fraction | None:
        row: QueryRow = getattr(self, side)
        return row.value(metric)

    def delta(self, metric: Metric) -> Fraction | None:
        known = self.known.get(metric)
        if known is not None:
            return known[0]
        return delta_of(self.value(metric, "baseline"), self.value(metric, "candidate"))

    def outcome(self, metric: Metric) -> Outcome:
        known = self.known.get(metric)
        return known[1] if known is not None else outcome_of(self.delta(metric))

    def missing_sides(self) -> tuple[Literal["baseline", "candidate"], ...]:
        """The sides with no ranking for this query: their 0 is a pipeline gap, not a bad ranking."""
        sides: tuple[Literal["baseline", "candidate"], ...] = ("baseline", "candidate")
        return tuple(side for side in sides if getattr(self, side).missing)

    def verdict(self) -> Literal["regression", "improved", "same", "n/a"]:
        """Every compared metric in one word: a loss on any is a regression, even beside a win."""
        outcomes = {self.outcome(m) for m in self.metrics}
        if outcomes == {"n/a"}:
            return "n/a"
        return "regression" if "loss" in outcomes else "improved" if "win" in outcomes else "same"


@dataclass(frozen=True)
class Comparison:
    """A candidate report against a baseline report, query by query."""

    baseline: Report
    candidate: Report
    rows: tuple[PairedRow, ...]

    @property
    def metrics(self) -> tuple[Metric, ...]:
        """The metrics both reports computed, in the baseline's order."""
        return tuple(m for m in self.baseline.metrics if m in self.candidate.metrics)

    def counts(self, metric: Metric) -> dict[str, int]:
        """Win / tie / loss over the eligible queries."""
        counts = {"win": 0, "tie": 0, "loss": 0}
        for row in self.rows:
            outcome = row.outcome(metric)
            if outcome != "n/a":
                counts[outcome] += 1
        return counts

    def regressions(self, metric: Metric) -> list[str]:
        return [row.query for row in self.rows if row.outcome(metric) == "loss"]

    def improvements(self, metric: Metric) -> list[str]:
        return [row.query for row in self.rows if row.outcome(metric) == "win"]

    def mean_delta(self, metric: Metric) -> Fraction | None:
        base, cand = self.baseline.mean(metric), self.candidate.mean(metric)
        return None if base is None or cand is None else cand - base


def delta_of(base: Fraction | None, cand: Fraction | None) -> Fraction | None:
    return None if base is None or cand is None else cand - base


def outcome_of(delta: Fraction | None) -> Outcome:
    if delta is None:
        return "n/a"
    return "win" if delta > 0 else "loss" if delta < 0 else "tie"


def compare(baseline: Report, candidate: Report, like: Comparison | None = None) -> Comparison:
    """Pair two reports; they must come from the same protocol (hash) or the pairing is meaningless.

    Each row's deltas and outcomes are worked out here, once per distinct pair of values: the
    evaluator shares one Fraction per value (``exact_ratio``), so 10,000 queries hold a few
    hundred pairs, looked up by identity (the rows keep the values alive while ``seen`` lives).
    ``like``: an earlier comparison (the scoring screen's, before a k change); its paired row of
    a query is kept where both query rows are the very same objects and the metrics the same
    (the evaluator keeps most rows at a k change), since it would be built equal.
    """
    if baseline.protocol_sha256 != candidate.protocol_sha256:
        raise ValueError("reports were scored under different protocols; refusing to compare")
    metrics = tuple(m for m in baseline.metrics if m in candidate.metrics)
    seen: dict[tuple[int, int], tuple[Fraction | None, Outcome]] = {}

    def worked_out(base: Fraction | None, cand: Fraction | None) -> tuple[Fraction | None, Outcome]:
        key = (id(base), id(cand))
        known = seen.get(key)
        if known is None:
            delta = delta_of(base, cand)
            known = seen[key] = (delta, outcome_of(delta))
        return known

    earlier = {row.query: row for row in like.rows} if like is not None and like.metrics == metrics else {}
    rows = tuple(
        kept
        if (kept := earlier.get(b.query)) is not None and kept.baseline is b and kept.candidate is c
        else PairedRow(b.query, b, c, metrics, {m: worked_out(b.value(m), c.value(m)) for m in metrics})
        for b, c in zip(baseline.rows, candidate.rows)
    )
    return Comparison(baseline, candidate, rows)
