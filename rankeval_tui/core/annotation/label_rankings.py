"""Do two label sets rank systems the same way? Each run scored under each set by the one
evaluator, then, per metric, the two orderings of the runs compared.

Why this and not kappa alone: labels that agree on 80% of pairs can still swap two systems whose
scores are close, and the question a user has about a model's labels is whether the conclusion
(which system is better) holds. So per metric: Kendall's tau-b between the two orderings (tau-b,
as ``scipy.stats.kendalltau``, since runs may tie), tau_AP (Yilmaz, Aslam and Robertson 2008:
swaps near the top weigh more), every pair of runs whose order changes with both deltas, and per
query the largest score change beside that query's kappa (where the labels disagree, scores move).

tau_AP is not symmetric: the runs are taken in B's order (ties by run name) and A is the
reference, so C(i) counts the runs above the i-th run in B's order that A also puts strictly above it:
tau_AP = 2 / (N - 1) * sum over i = 2..N of C(i) / (i - 1), minus 1. Values are exact fractions; tau-b
is one where its denominator is a perfect square (no ties), else a decimal.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations
from typing import Any

from rankeval_tui.core.annotation.agreement import Agreement
from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.evaluation.evaluate import Report, Run, evaluate, fraction_text
from rankeval_tui.core.evaluation.metrics import DEFINITIONS, MetricId
from rankeval_tui.core.evaluation.protocol import Protocol


def sign(value: Fraction) -> int:
    return (value > 0) - (value < 0)


@dataclass(frozen=True)
class KendallTau:
    """Kendall's tau-b between two orderings, with the pair counts it is made of."""

    concordant: int
    discordant: int
    tied_a: int
    tied_b: int
    pairs: int

    @classmethod
    def of(cls, a: Sequence[Fraction], b: Sequence[Fraction]) -> KendallTau:
        concordant = discordant = tied_a = tied_b = 0
        for i, j in combinations(range(len(a)), 2):
            sa, sb = sign(a[i] - a[j]), sign(b[i] - b[j])
            tied_a += sa == 0
            tied_b += sb == 0
            if sa and sb:
                concordant += sa == sb
                discordant += sa != sb
        return cls(concordant, discordant, tied_a, tied_b, len(a) * (len(a) - 1) // 2)

    @property
    def value(self) -> Fraction | float | None:
        """(C - D) / sqrt((n0 - ties in A) (n0 - ties in B)); None when either ordering is all ties."""
        product = (self.pairs - self.tied_a) * (self.pairs - self.tied_b)
        if not product:
            return None
        root = math.isqrt(product)
        if root * root == product:
            return Fraction(self.concordant - self.discordant, root)
        return (self.concordant - self.discordant) / math.sqrt(product)

    def to_json(self) -> dict[str, Any]:
        value = self.value
        return {
            "tau_b": str(value) if isinstance(value, Fraction) else None,
            "tau_b_decimal": None if value is None else float(value),
            "concordant": self.concordant,
            "discordant": self.discordant,
            "tied_a": self.tied_a,
            "tied_b": self.tied_b,
        }


def tau_ap(reference: Mapping[str, Fraction], candidate: Mapping[str, Fraction]) -> Fraction | None:
    """Yilmaz et al.'s tau_AP of ``candidate``'s ordering against ``reference`` (module docstring);
    None for fewer than two runs."""
    order = sorted(candidate, key=lambda run: (-candidate[run], run))
    if len(order) < 2:
        return None
    total = sum(
        (
            Fraction(sum(reference[above] > reference[run] for above in order[:i]), i)
            for i, run in enumerate(order)
            if i
        ),
        Fraction(0),
    )
    return 2 * total / (len(order) - 1) - 1


@dataclass(frozen=True)
class OrderChange:
    """Two runs whose order under B is not their order under A (opposite, or tied under one only)."""

    first: str
    second: str
    delta_a: Fraction
    """first's mean minus second's, under A."""
    delta_b: Fraction

    def to_json(self) -> dict[str, Any]:
        return {
            "runs": [self.first, self.second],
            "delta_a": str(self.delta_a),
            "delta_a_decimal": float(self.delta_a),
            "delta_b": str(self.delta_b),
            "delta_b_decimal": float(self.delta_b),
        }


@dataclass(frozen=True)
class QueryChange:
    """A query's largest score change between the label sets (over the runs), beside its kappa."""

    query: str
    run: str | None
    """The run whose score moved most; None when no run has a value under both (no relevant document)."""
    value_a: Fraction | None
    value_b: Fraction | None
    kappa: Fraction | None
    kappa_undefined_reason: str | None

    @property
    def change(self) -> Fraction | None:
        return None if self.value_a is None or self.value_b is None else self.value_b - self.value_a

    def to_json(self) -> dict[str, Any]:
        change = self.change
        return {
            "query": self.query,
            "run": self.run,
            "value_a": fraction_text(self.value_a),
            "value_b": fraction_text(self.value_b),
            "change": fraction_text(change),
            "change_decimal": None if change is None else float(change),
            "kappa": fraction_text(self.kappa),
            "kappa_decimal": None if self.kappa is None else float(self.kappa),
            "kappa_undefined_reason": self.kappa_undefined_reason,
        }


@dataclass(frozen=True)
class MetricOrdering:
    """One metric: each run's mean under A and under B, and how the two orderings compare."""

    metric: MetricId
    name: str
    means: tuple[Mapping[str, Fraction | None], Mapping[str, Fraction | None]]
    tau: KendallTau | None
    """None when a run has no mean under A or B (no query with a relevant document)."""
    tau_ap: Fraction | None
    changes: tuple[OrderChange, ...]
    queries: tuple[QueryChange, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "metric": self.name,
            "means_a": {run: fraction_text(v) for run, v in self.means[0].items()},
            "means_b": {run: fraction_text(v) for run, v in self.means[1].items()},
            "kendall_tau": None if self.tau is None else self.tau.to_json(),
            "tau_ap": fraction_text(self.tau_ap),
            "tau_ap_decimal": None if self.tau_ap is None else float(self.tau_ap),
            "order_changes": [c.to_json() for c in self.changes],
            "per_query": [q.to_json() for q in self.queries],
        }


@dataclass(frozen=True)
class LabelRankings:
    runs: tuple[str, ...]
    metrics: tuple[MetricOrdering, ...]

    def to_json(self) -> dict[str, Any]:
        return {"runs": list(self.runs), "metrics": [m.to_json() for m in self.metrics]}


def rank_under_both(
    under_a: Protocol, under_b: Protocol, runs: Sequence[Run], metrics: Sequence[MetricId], agreement: Agreement
) -> LabelRankings:
    """Score every run under each label set (the one evaluator, the protocol's split and k) and
    compare the orderings per metric. Both protocols hold the same definition, only the labels differ."""
    if len(runs) < 2:
        raise ContractError(f"ordering runs needs at least 2 runs, got {len(runs)}")
    reports_a = [evaluate(under_a, run, metrics) for run in runs]
    reports_b = [evaluate(under_b, run, metrics) for run in runs]
    names = tuple(run.name for run in runs)
    return LabelRankings(
        names, tuple(metric_ordering(metric, under_a.k, reports_a, reports_b, agreement) for metric in metrics)
    )


def metric_ordering(
    metric: MetricId, k: int, reports_a: Sequence[Report], reports_b: Sequence[Report], agreement: Agreement
) -> MetricOrdering:
    means_a = {r.run: r.mean(metric) for r in reports_a}
    means_b = {r.run: r.mean(metric) for r in reports_b}
    tau: KendallTau | None = None
    ap: Fraction | None = None
    changes: list[OrderChange] = []
    known_a = {run: v for run, v in means_a.items() if v is not None}
    known_b = {run: v for run, v in means_b.items() if v is not None}
    if len(known_a) == len(known_b) == len(means_a):
        runs = list(means_a)
        tau = KendallTau.of([known_a[r] for r in runs], [known_b[r] for r in runs])
        ap = tau_ap(known_a, known_b)
        changes = order_changes(known_a, known_b)
    queries = tuple(
        largest_change(metric, index, reports_a, reports_b, agreement) for index in range(len(reports_a[0].rows))
    )
    return MetricOrdering(metric, DEFINITIONS[metric].name(k), (means_a, means_b), tau, ap, tuple(changes), queries)


def order_changes(means_a: Mapping[str, Fraction], means_b: Mapping[str, Fraction]) -> list[OrderChange]:
    """Every pair of runs (in ``means_a``' order) whose order under B is not their order under A."""
    changes = []
    for first, second in combinations(means_a, 2):
        delta_a, delta_b = means_a[first] - means_a[second], means_b[first] - means_b[second]
        if sign(delta_a) != sign(delta_b):
            changes.append(OrderChange(first, second, delta_a, delta_b))
    return changes


def largest_change(
    metric: MetricId, index: int, reports_a: Sequence[Report], reports_b: Sequence[Report], agreement: Agreement
) -> QueryChange:
    """Row ``index`` (one query) across the runs: the run whose value moved most (the first on a
    tie), beside the query's kappa; a query no run can score under both (no relevant document) says so."""
    query = reports_a[0].rows[index].query
    best: tuple[Fraction, str, Fraction, Fraction] | None = None
    for report_a, report_b in zip(reports_a, reports_b, strict=True):
        value_a, value_b = report_a.rows[index].value(metric), report_b.rows[index].value(metric)
        if value_a is None or value_b is None:
            continue
        if best is None or abs(value_b - value_a) > best[0]:
            best = (abs(value_b - value_a), report_a.run, value_a, value_b)
    confusion = agreement.per_query.get(query)
    kappa = None if confusion is None else confusion.kappa
    reason = "not judged in both files" if confusion is None else confusion.undefined_reason
    if best is None:
        first_a, first_b = reports_a[0].rows[index].value(metric), reports_b[0].rows[index].value(metric)
        return QueryChange(query, None, first_a, first_b, kappa, reason)
    return QueryChange(query, best[1], best[2], best[3], kappa, reason)
