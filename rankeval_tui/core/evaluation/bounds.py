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

A protocol judged part of the way (``score --bounds`` while ``judge`` has an open journal) also
has unjudged pairs below the run's top k, its holes: they move only Recall's and AP's
denominator, the ideal DCG and eligibility, each metric lowest with all of them relevant and
highest with none, so each assignment above is taken with none and with all of them.
On a graded protocol the binary measures see only "grade >= relevant_from" (the 0/1
assignments at that threshold are every grade assignment's), and nDCG with grade gains is
bounded as the change from an empty ranking (``delta_bounds.graded_ndcg_bound``: enumerated).

The mean: queries share no pair, so each query's extreme can be chosen independently, except
that a query with no relevant document in its pool is excluded unless some gap document is
assumed relevant. For the lowest mean such a query joins only if its lowest value (with m >= 1)
pulls the mean down: the j lowest of them for the best j, every j tried, which is exact for a
ratio of sums. The highest mean is the same with the highest values.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from rankeval_tui.core.evaluation.delta_bounds import QueryCase, graded_ndcg_bound, judged_grades
from rankeval_tui.core.evaluation.evaluate import Run, check_run, score_query
from rankeval_tui.core.evaluation.gaps import run_gap
from rankeval_tui.core.evaluation.metrics import PRIMARY, MetricId, ordered_metrics
from rankeval_tui.core.evaluation.protocol import Protocol
from rankeval_tui.core.evaluation.ranges import Bound, extremes, mean_bound


@dataclass(frozen=True)
class QueryBounds:
    query: str
    missing: bool
    gap: tuple[str, ...]
    """The run's top-k documents outside the query's pool, in rank order (unjudged)."""
    bounds: tuple[tuple[MetricId, Bound], ...]
    holes_below: int = 0
    """Unjudged pool pairs of the query below the run's top k (a protocol judged part of the way)."""

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
    below: tuple[str, ...] = (),
) -> list[tuple[int, dict[MetricId, Fraction | None]]]:
    """(documents assumed relevant, values) of the extreme assignments: the m earliest and the m
    latest gap documents assumed relevant, with none or all of the holes ``below`` the top k,
    each scored by the evaluator."""
    extra = tuple(metric for metric in metrics if metric not in PRIMARY)
    candidates = []
    for m in range(len(gap) + 1):
        for chosen in {gap[:m], gap[len(gap) - m :]}:
            for holes in {(), below}:
                row = score_query(query, ranking, relevant | frozenset(chosen) | frozenset(holes), k, missing, extra)
                candidates.append((m + len(holes), {metric: row.value(metric) for metric in metrics}))
    return candidates


def bounds(
    protocol: Protocol,
    run: Run,
    metrics: Iterable[MetricId] = PRIMARY,
    holes: Mapping[str, Sequence[str]] | None = None,
) -> BoundsReport:
    """Every metric's exact range for ``run``, per query of the split and for the mean.
    ``holes``: the unjudged pool pairs of a protocol judged part of the way (its pools then
    hold the judged pairs only, so a hole in the top k is part of the run's gap)."""
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
        below = tuple(doc for doc in (holes or {}).get(query, ()) if doc not in unjudged)
        found = query_bounds(protocol, query, ranking, unjudged, below, query not in run.rankings, chosen)
        for metric, (row_bound, valued) in found.items():
            if relevant:
                per_metric_fixed[metric].append(row_bound)
            elif unjudged or below:  # valued only when some unjudged document is assumed relevant
                per_metric_optional[metric].append(valued)
        bounds_row = tuple((metric, found[metric][0]) for metric in chosen)
        rows.append(QueryBounds(query, query not in run.rankings, unjudged, bounds_row, len(below)))
    means = tuple((metric, mean_bound(per_metric_fixed[metric], per_metric_optional[metric])) for metric in chosen)
    return BoundsReport(run.name, protocol.protocol_sha256, k, chosen, tuple(rows), means)


def query_bounds(
    protocol: Protocol,
    query: str,
    ranking: Sequence[str],
    unjudged: tuple[str, ...],
    below: tuple[str, ...],
    missing: bool,
    metrics: tuple[MetricId, ...],
) -> dict[MetricId, tuple[Bound, Bound]]:
    """Per metric, the query's range and its range over the assignments that give it a value."""

    relevant = protocol.relevant[query]
    grades = judged_grades(protocol, query) if "ndcg" in metrics else None
    binary = tuple(metric for metric in metrics if grades is None or metric != "ndcg")
    candidates = query_values(query, ranking, relevant, unjudged, protocol.k, missing, binary, below)
    found = {
        metric: (
            extremes(values[metric] for _, values in candidates),
            extremes(values[metric] for added, values in candidates if added >= 1),
        )
        for metric in binary
    }
    if grades is not None:  # the change from an empty ranking is the run's own value
        case = QueryCase(query, (), ranking, relevant, unjudged, below, candidate_missing=missing, grades=grades)
        ndcg = graded_ndcg_bound(case, grades, protocol.k)
        found["ndcg"] = (ndcg, ndcg)
    return found
