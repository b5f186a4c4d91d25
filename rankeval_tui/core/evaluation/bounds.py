"""``score --bounds``: the exact range of every value over the 0/1 labels a run's gap could get.

Under a pooled protocol, a run whose top k leaves a query's pool has unjudged pairs there (its
gap, ``gaps.run_gap``). They are never read as 0; instead each metric's lowest and highest value
over every 0/1 assignment of the gap is computed, per query and for the mean, and shown as
bounds, never as one number.

Per query, with the gap's ranks g_1 < ... < g_u: for a given number m of gap documents made
relevant, every metric here (P, Success, Recall, RR, AP, nDCG at k) is highest with the m
earliest and lowest with the m latest (moving a relevant document up never lowers any of them,
and the ideal DCG and Recall's denominator depend on m only), so the 2(u + 1) assignments
"earliest m" and "latest m" hold both extremes. Each is scored by the evaluator's own
``score_query`` with the assumed labels added to the query's relevant set, so Recall's
denominator counts them too (tests/core/test_bounds.py checks all this against brute force).

The mean: queries share no pair, so each query's extreme can be chosen independently, except
that a query with no relevant document in its pool is excluded unless some gap document is
assumed relevant. For the lowest mean such a query joins only if its lowest value (with m >= 1)
pulls the mean down: the j lowest of them for the best j, every j tried, which is exact for a
ratio of sums. The highest mean is the same with the highest values.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from rankeval_tui.core.evaluation.evaluate import Run, check_run, score_query
from rankeval_tui.core.evaluation.gaps import run_gap
from rankeval_tui.core.evaluation.metrics import PRIMARY, MetricId, ordered_metrics
from rankeval_tui.core.evaluation.protocol import Protocol


@dataclass(frozen=True)
class Bound:
    """The lowest and highest value; ``None`` for both when no assignment gives a value.
    ``undefined_possible``: some assignment leaves no relevant document (no value, excluded)."""

    low: Fraction | None
    high: Fraction | None
    undefined_possible: bool = False

    @property
    def exact(self) -> bool:
        return self.low == self.high and not self.undefined_possible


@dataclass(frozen=True)
class QueryBounds:
    query: str
    missing: bool
    gap: tuple[str, ...]
    """The run's top-k documents outside the query's pool, in rank order (unjudged)."""
    bounds: tuple[tuple[MetricId, Bound], ...]

    def bound(self, metric: MetricId) -> Bound:
        return dict(self.bounds)[metric]


@dataclass(frozen=True)
class BoundsReport:
    run: str
    protocol_sha256: str
    k: int
    metrics: tuple[MetricId, ...]
    rows: tuple[QueryBounds, ...]
    means: tuple[tuple[MetricId, Bound], ...]

    @property
    def gap_pairs(self) -> int:
        return sum(len(row.gap) for row in self.rows)

    def mean(self, metric: MetricId) -> Bound:
        return dict(self.means)[metric]


def query_values(
    query: str,
    ranking: Sequence[str],
    relevant: frozenset[str],
    gap: tuple[str, ...],
    k: int,
    missing: bool,
    metrics: tuple[MetricId, ...],
) -> list[tuple[int, dict[MetricId, Fraction | None]]]:
    """(m, values) of the 2(u + 1) extreme assignments: the m earliest and the m latest gap
    documents assumed relevant, each scored by the evaluator."""
    extra = tuple(metric for metric in metrics if metric not in PRIMARY)
    candidates = []
    for m in range(len(gap) + 1):
        for chosen in {gap[:m], gap[len(gap) - m :]}:
            row = score_query(query, ranking, relevant | frozenset(chosen), k, missing, extra)
            candidates.append((m, {metric: row.value(metric) for metric in metrics}))
    return candidates


def extremes(values: Iterable[Fraction | None]) -> Bound:
    listed = list(values)
    defined = [value for value in listed if value is not None]
    if not defined:
        return Bound(None, None, True)
    return Bound(min(defined), max(defined), len(defined) != len(listed))


def mean_bound(fixed: list[Bound], optional: list[Bound]) -> Bound:
    """The mean's range: ``fixed`` queries always have a value; an ``optional`` one (no relevant
    document in its pool) has one only when a gap document is assumed relevant."""
    low = best_mean([b.low for b in fixed], sorted(b.low for b in optional if b.low is not None), True)
    high = best_mean(
        [b.high for b in fixed], sorted((b.high for b in optional if b.high is not None), reverse=True), False
    )
    return Bound(low, high, not fixed)


def best_mean(fixed: list[Fraction | None], ordered: list[Fraction], lowest: bool) -> Fraction | None:
    """The lowest (or highest) mean of ``fixed`` with a prefix of ``ordered`` (optional values,
    best first) joined, every prefix length tried; None when no query has a value."""
    total = sum((value for value in fixed if value is not None), Fraction(0))
    count = len(fixed)
    means = [total / count] if count else []
    for value in ordered:
        total += value
        count += 1
        means.append(total / count)
    if not means:
        return None
    return min(means) if lowest else max(means)


def bounds(protocol: Protocol, run: Run, metrics: Iterable[MetricId] = PRIMARY) -> BoundsReport:
    """Every metric's exact range for ``run``, per query of the split and for the mean."""
    chosen = ordered_metrics(metrics) or PRIMARY
    check_run(protocol.definition, run)
    k = protocol.k
    gap = run_gap(protocol.definition, run.rankings, k, protocol.qrels)  # its rows are the pools
    rows = []
    per_metric_fixed: dict[MetricId, list[Bound]] = {metric: [] for metric in chosen}
    per_metric_optional: dict[MetricId, list[Bound]] = {metric: [] for metric in chosen}
    for query in protocol.selected_queries:
        relevant = protocol.relevant[query]
        ranking = run.rankings.get(query, [])
        unjudged = gap.get(query, ())
        candidates = query_values(query, ranking, relevant, unjudged, k, query not in run.rankings, chosen)
        row_bounds = []
        for metric in chosen:
            row_bounds.append((metric, extremes(values[metric] for _, values in candidates)))
            if relevant:
                per_metric_fixed[metric].append(row_bounds[-1][1])
            elif unjudged:  # valued only when some gap document is assumed relevant (m >= 1)
                per_metric_optional[metric].append(extremes(values[metric] for m, values in candidates if m >= 1))
        rows.append(QueryBounds(query, query not in run.rankings, unjudged, tuple(row_bounds)))
    means = tuple((metric, mean_bound(per_metric_fixed[metric], per_metric_optional[metric])) for metric in chosen)
    return BoundsReport(run.name, protocol.protocol_sha256, k, chosen, tuple(rows), means)
