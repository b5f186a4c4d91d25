"""The one evaluator: Recall@k and RR@k per query (and, when asked, P@k, Success@k, AP@k,
nDCG@k: core/evaluation/metrics.py), macro means over a fixed denominator.

Every number a user sees (CLI table, JSON, Markdown, scoring screen) comes from ``evaluate``.
Renderers and screens format a ``Report``; they never recompute a metric.
"""

from __future__ import annotations

from collections import Counter, namedtuple
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import partial
from itertools import compress, repeat
from operator import attrgetter, itemgetter, not_
from pathlib import Path

from rankeval_tui.core.evaluation.gaps import refuse_gap, unlisted_pairs
from rankeval_tui.core.evaluation.metrics import PRIMARY, MetricId, exact_ratio, extra_values, ordered_metrics
from rankeval_tui.core.evaluation.protocol import Protocol

# Run and the run checks live in run_check.py; imported from here by most of the package.
from rankeval_tui.core.evaluation.run_check import Run as Run
from rankeval_tui.core.evaluation.run_check import check_run as check_run
from rankeval_tui.core.evaluation.run_check import first_duplicate as first_duplicate
from rankeval_tui.core.evaluation.run_check import in_tie_order

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: every command pays for its imports at start-up
if TYPE_CHECKING:
    from typing import Any, NamedTuple, TypeVar

    T = TypeVar("T")


def metric_value(
    metric: MetricId,
    recall: Fraction | None,
    rr: Fraction | None,
    extra: Iterable[tuple[MetricId, Fraction | None]],
) -> Fraction | None:
    """Pick ``metric`` out of a row's or a report's values (Recall@k and RR@k are always there,
    the others only when asked for); ``KeyError`` if it was not computed."""
    if metric == "recall":
        return recall
    if metric == "rr":
        return rr
    for name, value in extra:
        if name == metric:
            return value
    raise KeyError(metric)


QUERY, MISSING, RELEVANT, RECALL, RR = map(attrgetter, ("query", "missing", "relevant", "recall", "rr"))
"""A row's fields as functions, for maps over every row in C."""
ROW_JSON_KEYS = ("query", "missing", "returned", "relevant", "hits", "first_relevant_rank", "recall", "rr")
"""The seed's row keys, in order: each the ``QueryRow`` attribute of that name, a Fraction as its text."""


ROW_FIELDS = ("query", "missing", "returned", "relevant", "hits", "first_relevant_rank", "recall", "rr", "extra")
"""``QueryRow``'s fields, in order (the seed's row keys, then the other metrics' values)."""

if TYPE_CHECKING:  # the typed view of the fields; at run time the same tuple, without importing typing

    class _RowFields(NamedTuple):
        query: str
        missing: bool
        returned: int
        relevant: int
        hits: int
        first_relevant_rank: int | None
        recall: Fraction | None
        rr: Fraction | None
        extra: tuple[tuple[MetricId, Fraction | None], ...] = ()
        """The other metrics' values, only those the evaluation asked for (``Report.metrics``)."""

else:
    _RowFields = namedtuple("_RowFields", ROW_FIELDS, defaults=((),))


class QueryRow(_RowFields):
    """The evaluator's facts about one query of the split.

    ``recall`` and ``rr`` are ``None`` when the query has no relevant document: 0/0 is not
    a score, and such a query is excluded from both means.

    A named tuple (immutable like the frozen dataclass it was): made in C, where a frozen
    dataclass sets each of its nine fields through ``object.__setattr__``, which a tall protocol's
    many rows pay for. ``collections.namedtuple`` at run time: ``typing.NamedTuple`` would
    import typing on every start-up (tests/core/test_query_row.py checks both views agree).
    """

    __slots__ = ()

    @property
    def eligible(self) -> bool:
        return self.relevant > 0

    def value(self, metric: MetricId) -> Fraction | None:
        """The query's value of ``metric``; ``KeyError`` if it was not computed (None means
        "no relevant document", so it cannot also mean "not asked for")."""
        return metric_value(metric, self.recall, self.rr, self.extra)

    def to_json(self) -> dict[str, Any]:
        return {key: json_value(getattr(self, key)) for key in ROW_JSON_KEYS}


@dataclass(frozen=True)
class Report:
    """A run scored under a protocol. Data only: renderers format it, never recompute it."""

    run: str
    protocol_sha256: str
    split: str
    k: int
    rows: tuple[QueryRow, ...]
    recall_at_k: Fraction | None
    mrr_at_k: Fraction | None
    adapter_sha256: str | None = None
    source: Path | None = field(default=None, compare=False)
    set_aside: Mapping[str, int] = field(default_factory=dict)
    """Queries of the run from other splits, per split, set aside by ``score --ignore-other-splits``."""
    metrics: tuple[MetricId, ...] = PRIMARY
    """The metrics asked for, in the order views show them (Recall@k and RR@k are always computed)."""
    extra_means: tuple[tuple[MetricId, Fraction | None], ...] = ()
    pooled: bool = False
    """Scored under a pooled protocol: a query without a relevant document has none *in its pool*
    (reported as such), and Recall@k's denominator is the relevant documents of the pool."""
    unlisted: int | None = None
    """Under a protocol that declares unlisted pairs 0: how many of the run's top-k pairs (over
    the split's queries) the qrels do not list, so are labelled 0 by that declaration, not by a
    judge. None when the protocol declares nothing (every pair scored was judged)."""

    def mean(self, metric: MetricId) -> Fraction | None:
        """The mean of ``metric`` over the eligible queries (None when none is eligible)."""
        return metric_value(metric, self.recall_at_k, self.mrr_at_k, self.extra_means)

    def values(self, metric: MetricId) -> list[Fraction | None]:
        """Every row's value of ``metric``, in row order (Recall@k's and RR@k's by a map in C)."""
        if metric in PRIMARY:
            return list(map(attrgetter(metric), self.rows))
        return [row.value(metric) for row in self.rows]

    @property
    def total_queries(self) -> int:
        return len(self.rows)

    @property
    def eligible_queries(self) -> int:
        return len(self.rows) - list(map(RELEVANT, self.rows)).count(0)

    @property
    def missing_queries(self) -> list[str]:
        return list(compress(map(QUERY, self.rows), map(MISSING, self.rows)))

    @property
    def no_relevant_queries(self) -> list[str]:
        return list(compress(map(QUERY, self.rows), map(not_, map(RELEVANT, self.rows))))

    def row(self, query: str) -> QueryRow:
        for row in self.rows:
            if row.query == query:
                return row
        raise KeyError(query)

    def to_json(self, rows: object = None) -> dict[str, Any]:
        """The seed's report keys with the seed's values; Fractions as "p/q", None as null.
        ``rows``: the rows' JSON value if given (the JSON text's columns, ``render.report_json``)."""
        data: dict[str, Any] = {
            "protocol_sha256": self.protocol_sha256,
            "split": self.split,
            "k": self.k,
            "total_queries": self.total_queries,
            "eligible_queries": self.eligible_queries,
            "no_relevant_queries": self.no_relevant_queries,
            "missing_queries": self.missing_queries,
            "recall_at_k": fraction_text(self.recall_at_k),
            "mrr_at_k": fraction_text(self.mrr_at_k),
            "rows": [row.to_json() for row in self.rows] if rows is None else rows,
        }
        if self.adapter_sha256 is not None:
            data["adapter_sha256"] = self.adapter_sha256
        if self.set_aside:
            data["set_aside_queries"] = dict(self.set_aside)
        if self.pooled:  # the same queries as no_relevant_queries, named for what they are here
            data["no_relevant_in_pool_queries"] = self.no_relevant_queries
        if self.unlisted is not None:
            data["unlisted_pairs"] = self.unlisted
        if self.source is not None:
            data["source"] = str(self.source)
        return data


def fraction_text(value: Fraction | None) -> str | None:
    """ "5/6", "1", "0" or None: exact at the JSON edge, as the seed prints them."""
    return None if value is None else str(value)


def json_value(value: object) -> object:
    """A row's value as the JSON holds it: a Fraction as its text, anything else as it is."""
    return str(value) if type(value) is Fraction else value


def decimal_value(value: Fraction | None) -> float | None:
    """The nearest double (``float(Fraction)`` rounds correctly, whatever the size of numerator
    and denominator), for tools that want a number."""
    return None if value is None else float(value)


def exact_fields(key: str, value: Fraction | None) -> dict[str, str | float | None]:
    """``{key: "5/6", key_decimal: 0.8333333333333334}``: the JSON's one shape for a value."""
    return {key: fraction_text(value), f"{key}_decimal": decimal_value(value)}


def distinct_objects(values: Iterable[T]) -> list[tuple[T, int]]:
    """Each distinct object of ``values`` with the number of times it occurs, in order of first
    occurrence, counted by identity in C (all are alive in the list meanwhile, so ids differ).

    Why: the evaluator shares one Fraction per value (``exact_ratio``) and ``compare`` one delta
    per pair of values, so 10,000 rows hold a few hundred objects; reading, comparing or adding
    10,000 Fractions one by one (Python-level arithmetic and properties) was the cost of means,
    statistics and table sizing. Equal values held by different objects stay separate entries,
    which suits every use: sums, counts and widths."""
    listed = list(values)
    objects = dict(zip(map(id, listed), listed))
    return [(objects[key], times) for key, times in Counter(map(id, listed)).items()]


def exact_mean(values: Iterable[Fraction]) -> Fraction | None:
    """Exact mean of fractions, or None for no values.

    Summing numerators per denominator keeps this integer arithmetic for the common case of a
    few distinct denominators, instead of one Fraction normalisation per addition, over each
    distinct value object once (``distinct_objects``).
    """
    by_denominator: dict[int, int] = {}
    count = 0
    for value, times in distinct_objects(values):
        by_denominator[value.denominator] = by_denominator.get(value.denominator, 0) + value.numerator * times
        count += times
    if not count:
        return None
    total = sum((Fraction(n, d) for d, n in by_denominator.items()), Fraction(0))
    return total / count


def score_query(
    query: str,
    ranking: Sequence[str],
    relevant: frozenset[str],
    k: int,
    missing: bool,
    extra: Sequence[MetricId] = (),
    gains: Mapping[str, int] | None = None,
) -> QueryRow:
    """One query's row: ``score_rows`` of that query alone."""
    return score_rows([query], [ranking], [relevant], k, [missing], extra, None if gains is None else [gains])[0]


def score_rows(
    queries: Sequence[str],
    rankings: Sequence[Sequence[str]],
    relevant: Sequence[frozenset[str]],
    k: int,
    missing: Sequence[bool],
    extra: Sequence[MetricId] = (),
    gains: Sequence[Mapping[str, int]] | None = None,
) -> list[QueryRow]:
    """The rows of ``queries`` (with their rankings, relevant sets and whether the run lacked
    them, position by position): column by column, each column one ``map`` or comprehension, so
    the work per query is a few C calls instead of a Python call with its locals
    (``benchmarks/bench_evaluator.py`` measures ``evaluate``). Only a query with a hit is scanned
    for its first one.
    Rankings no longer than k are their own tops (a run as deep as k: no copy of each).
    ``gains``: each query's grades on a graded protocol (nDCG's gains), None on the binary scale."""
    returned = list(map(len, rankings))
    tops = list(map(itemgetter(slice(None, k)), rankings)) if max(returned, default=0) > k else rankings
    hits = list(map(len, map(frozenset.intersection, relevant, tops)))
    sizes = list(map(len, relevant))
    firsts = [  # the rank of the first relevant document, for the queries with one in the top k
        top.index(next(filter(documents.__contains__, top))) + 1 if found else None
        for top, documents, found in zip(tops, relevant, hits)
    ]
    zero = exact_ratio(0, 1)
    recalls = [exact_ratio(found, size) if size else None for found, size in zip(hits, sizes)]
    rrs = [(exact_ratio(1, first) if first else zero) if size else None for first, size in zip(firsts, sizes)]
    extras: Iterable[tuple[tuple[MetricId, Fraction | None], ...]] = (
        map(partial(extra_values, extra), tops, relevant, repeat(k), hits, firsts, gains or repeat(None))
        if extra
        else repeat(())
    )
    fields = zip(queries, missing, returned, sizes, hits, firsts, recalls, rrs, extras)
    return list(map(tuple.__new__, repeat(QueryRow), fields))  # every field given: no Python __new__ a row


NO_RANKING: tuple[str, ...] = ()
"""The ranking of a query the run lacks (scored 0)."""


def evaluate(
    protocol: Protocol, run: Run, metrics: Iterable[MetricId] = PRIMARY, *, at_other_k: Report | None = None
) -> Report:
    """Score ``run`` under ``protocol``. Raises ``ContractError`` before computing anything
    (under a pooled protocol also when a top-k pair of the run lies outside its query's pool,
    unless the protocol declares unlisted pairs 0: then they are counted, ``Report.unlisted``).
    A TREC run is scored in the protocol's tie order (``in_tie_order``).

    ``metrics`` are ids of core/evaluation/metrics.py; Recall@k and RR@k are computed whatever
    is asked (the seed's report keys), the others only when asked, so they cost nothing otherwise.
    ``at_other_k``: this run's report under this protocol at another k (the scoring screen's k
    change). ``check_run``, which does not depend on k, is not repeated, and with Recall@k and
    RR@k alone a query keeps its row when no relevant document lies between the two cutoffs
    (hits and the first relevant rank are then the same; every other metric depends on k):
    at 10,000 queries most rows, so a k change scores a few hundred queries, not all of them.
    """
    chosen = ordered_metrics(metrics)
    extra = tuple(metric for metric in chosen if metric not in PRIMARY)
    run = in_tie_order(protocol.definition, run)
    if at_other_k is None:
        check_run(protocol.definition, run)
    k = protocol.k
    unlisted = None
    if protocol.definition.unlisted_as_zero:  # no gap: what the qrels leave out is 0 by declaration
        unlisted = unlisted_pairs(protocol.selected_queries, run.rankings, k, protocol.qrels)
    else:
        refuse_gap(protocol.definition, run.name, run.rankings, run.source, k, protocol.qrels)  # rows: the pools
    relevant = protocol.relevant
    rankings = run.rankings
    if (
        at_other_k is not None
        and not extra
        and tuple(row.query for row in at_other_k.rows) == protocol.selected_queries
    ):
        low, high = sorted((at_other_k.k, k))
        rows = tuple(
            old
            if relevant[query].isdisjoint(rankings.get(query, ())[low:high])
            else score_query(query, rankings.get(query, NO_RANKING), relevant[query], k, query not in rankings)
            for query, old in zip(protocol.selected_queries, at_other_k.rows)
        )
    else:
        queries = protocol.selected_queries
        rows = tuple(
            score_rows(
                queries,
                list(map(rankings.get, queries, repeat(NO_RANKING))),
                list(map(relevant.__getitem__, queries)),
                k,
                list(map(not_, map(rankings.__contains__, queries))),
                extra,
                None if protocol.gains is None else list(map(protocol.gains.__getitem__, queries)),
            )
        )
    eligible = list(compress(rows, map(RELEVANT, rows)))
    extra_means = tuple(
        (metric, exact_mean(row.value(metric) for row in eligible))  # type: ignore[misc]
        for metric in extra
    )
    return Report(
        run=run.name,
        protocol_sha256=protocol.protocol_sha256,
        split=protocol.split,
        k=k,
        rows=rows,
        # An eligible row has a relevant document, so its recall and rr are Fractions, never None.
        recall_at_k=exact_mean(map(RECALL, eligible)),
        mrr_at_k=exact_mean(map(RR, eligible)),
        adapter_sha256=run.adapter_sha256,
        source=run.source,
        metrics=chosen or PRIMARY,
        extra_means=extra_means,
        pooled=protocol.definition.pools is not None,
        unlisted=unlisted,
    )
