"""``score --baseline A --bounds``: the exact range of the change candidate - baseline over every
0/1 labelling of the unjudged pairs, each pair labelled once for both runs.

Two separate ranges (bounds.py) cannot bound a change: a document in both runs' top k is one
pair, and its one label moves both runs. Here a query's labelling is a set of relevant unjudged
documents; the change of each metric depends only on which documents in the union of the two
top k are relevant (``top``) and on how many of the other unjudged documents are (``outside``:
in neither top k, they move Recall's denominator, the ideal DCG and eligibility, nothing else).

The extremes are found among a few candidate labellings, each scored by the evaluator's own
``score_query`` for both runs (no metric is computed here); why each family holds the extremes:

* P, Recall, nDCG: the change is (c + sum of w_d over relevant d) / g(R), with w_d the
  candidate's discount of d minus the baseline's (1 for a top-k document in P and Recall) and
  g(R) > 0 depending only on the number R of relevant documents (k, R, the ideal DCG of R).
  For a fixed number r of relevant ``top`` documents, the r largest (smallest) w_d give the
  highest (lowest) numerator; for fixed numerator the value is monotone in R, so the number of
  relevant ``outside`` documents is 0 or all. 4(u + 1) labellings for u ``top`` documents.
* RR, Success: the change depends only on each run's first relevant rank. Every pair (first of
  the baseline, first of the candidate) that some labelling realises is tried, with only what it
  forces: the documents above either first are not relevant, the two firsts are.
* AP: the change is not linear in the labels; every labelling of ``top`` is enumerated (with 0
  or all ``outside`` relevant: AP's denominator is R for both runs), up to ``MAX_AP_ENUMERATED``
  ``top`` documents per query; beyond that the bounds are refused, never approximated.

Each family also tries the all-zero labelling, so a query that can be left without a relevant
document (excluded from the means) is found as such. tests/core/test_delta_bounds.py checks
every claim against brute force over every labelling.

The mean: queries share no pair, so each query's extreme is chosen independently, except that
a query with no judged relevant document is excluded under some labellings (the evaluator's
rule: 0/0 is not a score, the mean is over the queries with a relevant document, the same
queries for both runs). ``bounds.mean_bound`` is exact for that ratio of sums.

Labels are 0/1 here. Graded labels would replace the relevant set by a label per document and
``w_d`` by the gain times the discount; the candidate families stay, the enumeration grows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations

from rankeval_tui.core.errors import ContractError, describe_id
from rankeval_tui.core.evaluation.bounds import Bound, extremes, mean_bound
from rankeval_tui.core.evaluation.evaluate import Run, check_run, score_rows
from rankeval_tui.core.evaluation.gaps import run_gap
from rankeval_tui.core.evaluation.metrics import PRIMARY, MetricId, discount, label, ordered_metrics
from rankeval_tui.core.evaluation.protocol import Protocol, ProtocolDefinition

MAX_AP_ENUMERATED = 14
"""AP's change is bounded by enumerating 2^u labellings of a query's ``top`` documents: u at most this."""

Labelling = tuple[frozenset[str], int]
"""The relevant ``top`` documents and how many ``outside`` documents are relevant."""


@dataclass(frozen=True)
class QueryCase:
    """One query of a comparison, as far as it is known: both rankings (top k used), the
    documents judged relevant, the unjudged documents in either top k (``top``, in order of
    first appearance) and the unjudged ones in neither (``outside``)."""

    query: str
    baseline: Sequence[str]
    candidate: Sequence[str]
    relevant: frozenset[str]
    top: tuple[str, ...]
    outside: tuple[str, ...] = ()
    baseline_missing: bool = False
    candidate_missing: bool = False

    @property
    def unjudged(self) -> int:
        return len(self.top) + len(self.outside)

    @property
    def optional(self) -> bool:
        """Without a judged relevant document: valued only under a labelling that adds one."""
        return not self.relevant


@dataclass(frozen=True)
class QueryDelta:
    """One query's range of change per metric, with the unjudged pairs it ranges over."""

    query: str
    top: tuple[str, ...]
    outside: int
    optional: bool
    bounds: tuple[tuple[MetricId, Bound], ...]

    def bound(self, metric: MetricId) -> Bound:
        return dict(self.bounds)[metric]


@dataclass(frozen=True)
class DeltaReport:
    """A candidate's change against the baseline: per query of the split that can have a value, and the mean."""

    baseline: str
    candidate: str
    k: int
    metrics: tuple[MetricId, ...]
    rows: tuple[QueryDelta, ...]
    means: tuple[tuple[MetricId, Bound], ...]

    @property
    def unjudged_pairs(self) -> int:
        return sum(len(row.top) + row.outside for row in self.rows)

    def mean(self, metric: MetricId) -> Bound:
        return dict(self.means)[metric]


def weight_order(case: QueryCase, k: int, weight_of_rank: Callable[[int], int]) -> list[str]:
    """``top`` by the candidate's weight minus the baseline's, highest first."""
    rank_b = {doc: rank for rank, doc in enumerate(case.baseline[:k], 1)}
    rank_c = {doc: rank for rank, doc in enumerate(case.candidate[:k], 1)}

    def weight(doc: str) -> int:
        def at(ranks: dict[str, int]) -> int:
            return weight_of_rank(ranks[doc]) if doc in ranks else 0

        return at(rank_c) - at(rank_b)

    return sorted(case.top, key=weight, reverse=True)


def linear_labellings(case: QueryCase, k: int, weight_of_rank: Callable[[int], int]) -> set[Labelling]:
    """P, Recall (weight 1) and nDCG (the discount): r best and r worst documents, r = 0..u."""
    ordered = weight_order(case, k, weight_of_rank)
    ends = {0, len(case.outside)}
    chosen: set[Labelling] = set()
    for r in range(len(ordered) + 1):
        for docs in (ordered[:r], ordered[len(ordered) - r :]):
            chosen.update((frozenset(docs), outside) for outside in ends)
    return chosen


def first_labellings(case: QueryCase, k: int) -> set[Labelling]:
    """RR and Success: every realisable pair of first relevant ranks, forcing only what it must."""
    unjudged = set(case.top)

    def firsts(ranking: Sequence[str]) -> list[tuple[str | None, frozenset[str]]]:
        """(the first relevant document or None, the unjudged documents above it)."""
        options: list[tuple[str | None, frozenset[str]]] = []
        above: list[str] = []
        for doc in ranking[:k]:
            if doc in case.relevant:
                options.append((doc, frozenset(above)))
                return options
            if doc in unjudged:
                options.append((doc, frozenset(above)))
                above.append(doc)
        options.append((None, frozenset(above)))
        return options

    chosen: set[Labelling] = {(frozenset(), 0)}
    for first_b, above_b in firsts(case.baseline):
        for first_c, above_c in firsts(case.candidate):
            ones = frozenset(d for d in (first_b, first_c) if d is not None and d in unjudged)
            zeros = above_b | above_c
            if ones & zeros:
                continue
            chosen.add((ones, 0))
            if not ones and not case.relevant and case.outside:
                # Neither run has a relevant top k: every top document is forced 0, so only an
                # outside one can keep the query valued.
                chosen.add((ones, 1))
    return chosen


def every_labelling(case: QueryCase, k: int, metric: MetricId) -> set[Labelling]:
    if len(case.top) > MAX_AP_ENUMERATED:
        raise ContractError(
            f"the exact bounds on the change of {label(metric, k)} enumerate every labelling of a "
            f"query's unjudged top-k documents, at most {MAX_AP_ENUMERATED}; this query has {len(case.top)} "
            "(judge some first: judge --decide, or leave the metric out)",
            where=describe_id("query", case.query),
        )
    ends = {0, len(case.outside)}
    return {
        (frozenset(docs), outside)
        for size in range(len(case.top) + 1)
        for docs in combinations(case.top, size)
        for outside in ends
    }


def candidate_labellings(case: QueryCase, k: int, metrics: Iterable[MetricId]) -> set[Labelling]:
    """A set of labellings holding, for each metric, a lowest and a highest change."""
    wanted = set(metrics)
    chosen: set[Labelling] = {(frozenset(), 0)}
    if wanted & {"p", "recall"}:
        chosen |= linear_labellings(case, k, lambda rank: 1)
    if "ndcg" in wanted:
        chosen |= linear_labellings(case, k, discount)
    if wanted & {"rr", "success"}:
        chosen |= first_labellings(case, k)
    if "ap" in wanted:
        chosen |= every_labelling(case, k, "ap")
    return chosen


def query_delta(case: QueryCase, k: int, metrics: tuple[MetricId, ...]) -> QueryDelta:
    """The exact range of each metric's change on one query (``None`` where no labelling values it)."""
    labellings = sorted(candidate_labellings(case, k, metrics), key=lambda item: (sorted(item[0]), item[1]))
    extra = tuple(metric for metric in metrics if metric not in PRIMARY)
    relevant_sets = [case.relevant | docs | frozenset(case.outside[:outside]) for docs, outside in labellings]
    count = len(labellings)
    queries = [case.query] * count
    before = score_rows(queries, [case.baseline] * count, relevant_sets, k, [case.baseline_missing] * count, extra)
    after = score_rows(queries, [case.candidate] * count, relevant_sets, k, [case.candidate_missing] * count, extra)
    bounds = []
    for metric in metrics:
        changes = []
        for old, new in zip(before, after):
            old_value, new_value = old.value(metric), new.value(metric)
            changes.append(None if old_value is None or new_value is None else new_value - old_value)
        bounds.append((metric, extremes(changes)))
    return QueryDelta(case.query, case.top, len(case.outside), case.optional, tuple(bounds))


def mean_delta(rows: Sequence[QueryDelta], metric: MetricId) -> Bound:
    """The mean change's exact range; a query without a judged relevant document joins the mean
    only under labellings that give it one (``bounds.mean_bound``)."""
    fixed = [row.bound(metric) for row in rows if not row.optional]
    optional = [row.bound(metric) for row in rows if row.optional and row.bound(metric).low is not None]
    return mean_bound(fixed, optional)


def delta_report(
    baseline: str, candidate: str, k: int, metrics: tuple[MetricId, ...], cases: Iterable[QueryCase]
) -> DeltaReport:
    rows = tuple(query_delta(case, k, metrics) for case in cases if case.relevant or case.unjudged)
    return DeltaReport(baseline, candidate, k, metrics, rows, tuple((m, mean_delta(rows, m)) for m in metrics))


# ---------------------------------------------------------------- verdicts

BETTER, WORSE, NO_CHANGE, UNDECIDED = "better", "worse", "no change", "undecided"


def verdict(bound: Bound) -> str:
    """``better`` when every labelling raises the value, ``worse`` when every one lowers it,
    ``no change`` when every one leaves it equal, else ``undecided``. A value that some
    labelling leaves undefined (the query, or every query, without a relevant document) is
    undecided: that labelling has no change to compare. No value under any labelling: no change."""
    if bound.low is None or bound.high is None:
        return NO_CHANGE
    if bound.undefined_possible:
        return UNDECIDED
    if bound.low > 0:
        return BETTER
    if bound.high < 0:
        return WORSE
    if bound.low == bound.high == 0:
        return NO_CHANGE
    return UNDECIDED


def verdict_text(bound: Bound, pairs: int) -> str:
    """``decided better`` ... or ``undecided (3 unjudged pairs can change it)``."""
    said = verdict(bound)
    if said == UNDECIDED:
        return f"undecided ({pairs} unjudged pair{'s' if pairs != 1 else ''} can change it)"
    return f"decided {said}"


def open_pairs(report: DeltaReport, metric: MetricId) -> int:
    """The unjudged pairs of the queries whose change of ``metric`` is not yet one number: the
    labels that can still move the mean."""
    return sum(len(row.top) + row.outside for row in report.rows if not row.bound(metric).exact)


def protocol_cases(protocol: Protocol, baseline: Run, candidate: Run) -> list[QueryCase]:
    """The queries of a scored pooled protocol: its qrels are complete inside the pools, so the
    unjudged pairs are the two runs' gaps (top-k documents outside a pool), each pair once."""
    k = protocol.k
    gap_b = run_gap(protocol.definition, baseline.rankings, k, protocol.qrels)
    gap_c = run_gap(protocol.definition, candidate.rankings, k, protocol.qrels)
    cases = []
    for query in protocol.selected_queries:
        top = tuple(dict.fromkeys((*gap_b.get(query, ()), *gap_c.get(query, ()))))
        cases.append(
            QueryCase(
                query,
                baseline.rankings.get(query, ()),
                candidate.rankings.get(query, ()),
                protocol.relevant[query],
                top,
                baseline_missing=query not in baseline.rankings,
                candidate_missing=query not in candidate.rankings,
            )
        )
    return cases


def compare_bounds(
    protocol: Protocol, baseline: Run, candidate: Run, metrics: Iterable[MetricId] = PRIMARY
) -> DeltaReport:
    """Every metric's exact range of change candidate - baseline, per query of the split and for the mean."""
    chosen = ordered_metrics(metrics) or PRIMARY
    refuse_graded(protocol.definition)
    check_run(protocol.definition, baseline)
    check_run(protocol.definition, candidate)
    return delta_report(
        baseline.name, candidate.name, protocol.k, chosen, protocol_cases(protocol, baseline, candidate)
    )


def refuse_graded(definition: ProtocolDefinition) -> None:
    """The bounds on a change range over 0/1 labels; a graded protocol's holes could take any grade."""
    if definition.scale is not None:
        raise ContractError(
            f"bounds on a change range over 0/1 labels; this protocol is graded (0 to {definition.scale.top}): "
            "judge the pairs, then score",
            file=definition.source,
        )
