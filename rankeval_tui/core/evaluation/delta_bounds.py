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
queries for both runs). ``ranges.mean_bound`` is exact for that ratio of sums.

On a graded protocol every grade labelling is ranged over (tests/core/test_graded_bounds.py
checks both claims below against brute force over every grade labelling):

* the binary measures (P, Recall, RR, Success, AP) and each query's eligibility depend on a
  label only through "grade >= relevant_from", and every 0/1 labelling at that threshold is some
  grade labelling's, so the families above, on the labels binarized, hold their extremes;
* nDCG with grade gains is a ratio whose ideal depends on every grade, and its extremes are not
  at the lowest and highest grade of each pair (one between can be the highest: a document
  matching a judged one's grade keeps the ideal's order). They are among the labellings where
  each unjudged ``top`` document takes a grade of ``candidate_grades``: 0, relevant_from - 1,
  relevant_from, the top grade, or a grade judged on the query no lower than its k-th highest
  judged grade. (Shift all unjudged documents of one grade outside that set together: while no
  document passes another within the ideal's top k, the ideal DCG and the change's numerator
  are both linear in the shift, so the change is monotone in it and one end is no worse; the
  ends are grades of the set or of other documents, merging with which leaves fewer grades
  outside the set; a grade below the k-th highest judged one never enters the ideal's top k;
  relevant_from - 1 and relevant_from bound the shift, so eligibility is kept.) The ``outside`` documents move
  only the ideal, which grows with each of their grades: all 0, one at relevant_from (the least
  ideal that makes an otherwise ineligible query eligible) or all at the top grade. Every such
  labelling is enumerated, up to ``MAX_GRADED_ENUMERATED`` per query; beyond that the bounds
  are refused, never approximated.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations, product

from rankeval_tui.core.errors import ContractError, describe_id
from rankeval_tui.core.evaluation.evaluate import Run, check_run, score_rows
from rankeval_tui.core.evaluation.gaps import run_gap
from rankeval_tui.core.evaluation.metrics import PRIMARY, MetricId, discount, label, ordered_metrics
from rankeval_tui.core.evaluation.protocol import Protocol
from rankeval_tui.core.evaluation.ranges import Bound, extremes, mean_bound

MAX_AP_ENUMERATED = 14
"""AP's change is bounded by enumerating 2^u labellings of a query's ``top`` documents: u at most this."""

MAX_GRADED_ENUMERATED = 2**14
"""Graded nDCG's change is bounded by enumerating the grade labellings of a query's ``top``
documents over ``candidate_grades``: at most this many."""

Labelling = tuple[frozenset[str], int]
"""The relevant ``top`` documents and how many ``outside`` documents are relevant."""


@dataclass(frozen=True)
class JudgedGrades:
    """A query's judged labels on a graded scale (more than two grades): what nDCG's gains and
    the grades an unjudged document may take need beyond the relevant set."""

    gains: Mapping[str, int]
    """Each judged document's grade above 0 (``Protocol.gains_of``)."""
    top: int
    relevant_from: int


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
    grades: JudgedGrades | None = None
    """None on a binary scale (also a graded one of two grades: its gain is the 0/1 label)."""

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
    grades = case.grades if "ndcg" in metrics else None
    binary = tuple(metric for metric in metrics if grades is None or metric != "ndcg")
    found = dict(binary_bounds(case, k, binary)) if binary else {}
    if grades is not None:
        found["ndcg"] = graded_ndcg_bound(case, grades, k)
    return QueryDelta(case.query, case.top, len(case.outside), case.optional, tuple((m, found[m]) for m in metrics))


def binary_bounds(case: QueryCase, k: int, metrics: tuple[MetricId, ...]) -> list[tuple[MetricId, Bound]]:
    """The metrics' ranges over the 0/1 labellings (on a graded scale: at relevant_from)."""
    labellings = sorted(candidate_labellings(case, k, metrics), key=lambda item: (sorted(item[0]), item[1]))
    extra = tuple(metric for metric in metrics if metric not in PRIMARY)
    relevant_sets = [case.relevant | docs | frozenset(case.outside[:outside]) for docs, outside in labellings]
    return changes_by_metric(case, k, metrics, relevant_sets, extra, None)


def changes_by_metric(
    case: QueryCase,
    k: int,
    metrics: tuple[MetricId, ...],
    relevant_sets: list[frozenset[str]],
    extra: tuple[MetricId, ...],
    gains: list[Mapping[str, int]] | None,
) -> list[tuple[MetricId, Bound]]:
    """Both runs scored by the evaluator under each labelling; each metric's range of the change."""
    count = len(relevant_sets)
    queries = [case.query] * count
    before = score_rows(
        queries, [case.baseline] * count, relevant_sets, k, [case.baseline_missing] * count, extra, gains
    )
    after = score_rows(
        queries, [case.candidate] * count, relevant_sets, k, [case.candidate_missing] * count, extra, gains
    )
    bounds = []
    for metric in metrics:
        changes = []
        for old, new in zip(before, after):
            old_value, new_value = old.value(metric), new.value(metric)
            changes.append(None if old_value is None or new_value is None else new_value - old_value)
        bounds.append((metric, extremes(changes)))
    return bounds


def candidate_grades(grades: JudgedGrades, k: int) -> tuple[int, ...]:
    """The grades an unjudged ``top`` document takes in graded nDCG's extreme labellings: 0,
    relevant_from - 1, relevant_from, the top grade, and the judged grades from the k-th highest
    judged one up (a grade below it never enters the ideal's top k, so it bends nothing)."""
    judged = sorted(grades.gains.values(), reverse=True)
    floor = judged[k - 1] if len(judged) >= k else 0
    ends = {0, grades.relevant_from - 1, grades.relevant_from, grades.top}
    return tuple(sorted(ends | {grade for grade in judged if grade >= floor}))


def graded_labellings(case: QueryCase, grades: JudgedGrades, k: int) -> list[dict[str, int]]:
    """Every grade labelling of the unjudged documents that graded nDCG's extremes need."""
    choices = candidate_grades(grades, k)
    if len(choices) ** len(case.top) > MAX_GRADED_ENUMERATED:
        raise ContractError(
            f"the exact bounds on the change of graded {label('ndcg', k)} enumerate the grade labellings of a "
            f"query's unjudged top-k documents ({len(choices)} grades each: {', '.join(map(str, choices))}), "
            f"at most {MAX_GRADED_ENUMERATED}; this query has {len(case.top)} documents, "
            f"{len(choices) ** len(case.top)} labellings (judge some first: judge --decide, or leave the metric out)",
            where=describe_id("query", case.query),
        )
    outside = case.outside
    ends = [dict.fromkeys(outside, 0), dict.fromkeys(outside, grades.top)]
    if outside:
        ends.append({**dict.fromkeys(outside, 0), outside[0]: grades.relevant_from})
    return [{**dict(zip(case.top, chosen)), **end} for chosen in product(choices, repeat=len(case.top)) for end in ends]


def graded_ndcg_bound(case: QueryCase, grades: JudgedGrades, k: int) -> Bound:
    """nDCG's range of change over the grade labellings (``graded_labellings``), with the grade as gain."""
    labellings = graded_labellings(case, grades, k)
    lowest = grades.relevant_from
    relevant_sets = [
        case.relevant | frozenset(doc for doc, grade in chosen.items() if grade >= lowest) for chosen in labellings
    ]
    gains: list[Mapping[str, int]] = [
        {**grades.gains, **{doc: grade for doc, grade in chosen.items() if grade}} for chosen in labellings
    ]
    return changes_by_metric(case, k, ("ndcg",), relevant_sets, ("ndcg",), gains)[0][1]


def mean_delta(rows: Sequence[QueryDelta], metric: MetricId) -> Bound:
    """The mean change's exact range; a query without a judged relevant document joins the mean
    only under labellings that give it one (``ranges.mean_bound``)."""
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


def judged_grades(protocol: Protocol, query: str) -> JudgedGrades | None:
    """The query's ``JudgedGrades`` on a scale of more than two grades, else None (0/1 labels)."""
    scale = protocol.definition.scale
    gains = protocol.gains_of(query)
    if scale is None or scale.top == 1 or gains is None:
        return None
    return JudgedGrades(gains, scale.top, scale.relevant_from)


def protocol_cases(
    protocol: Protocol, baseline: Run, candidate: Run, holes: Mapping[str, Sequence[str]] | None = None
) -> list[QueryCase]:
    """The queries of a scored pooled protocol: its qrels are complete inside the pools, so the
    unjudged pairs are the two runs' gaps (top-k documents outside a pool), each pair once.
    ``holes``: the unjudged pairs of a protocol judged part of the way (``partial_labels``), its
    pools then holding the judged pairs only; a hole in neither top k is an ``outside`` one."""
    k = protocol.k
    gap_b = run_gap(protocol.definition, baseline.rankings, k, protocol.qrels)
    gap_c = run_gap(protocol.definition, candidate.rankings, k, protocol.qrels)
    cases = []
    for query in protocol.selected_queries:
        top = tuple(dict.fromkeys((*gap_b.get(query, ()), *gap_c.get(query, ()))))
        outside = tuple(doc for doc in (holes or {}).get(query, ()) if doc not in top)
        cases.append(
            QueryCase(
                query,
                baseline.rankings.get(query, ()),
                candidate.rankings.get(query, ()),
                protocol.relevant[query],
                top,
                outside,
                baseline_missing=query not in baseline.rankings,
                candidate_missing=query not in candidate.rankings,
                grades=judged_grades(protocol, query),
            )
        )
    return cases


def compare_bounds(
    protocol: Protocol,
    baseline: Run,
    candidate: Run,
    metrics: Iterable[MetricId] = PRIMARY,
    holes: Mapping[str, Sequence[str]] | None = None,
) -> DeltaReport:
    """Every metric's exact range of change candidate - baseline, per query of the split and for
    the mean (``holes``: as ``protocol_cases``)."""
    chosen = ordered_metrics(metrics) or PRIMARY
    check_run(protocol.definition, baseline)
    check_run(protocol.definition, candidate)
    return delta_report(
        baseline.name, candidate.name, protocol.k, chosen, protocol_cases(protocol, baseline, candidate, holes)
    )
