"""The metrics: their names, definitions and per-query arithmetic over binary labels.

Recall@k and RR@k are the protocol's primary pair (the seed's, computed for every report);
P@k, Success@k, AP@k and nDCG@k are computed only when asked for. Every metric follows the
seed's rules: the denominator of a mean is the split's queries, a query missing from the run
scores 0, a query with no relevant document is null (``None``) and excluded, k is explicit.

Names follow ir_measures (``R@10``, ``RR@10``, ``P@10``, ``Success@10``, ``AP@10``, ``nDCG@10``).
Every value is an exact ``Fraction``. nDCG's discounts ``1 / log2(i + 1)`` are irrational, so
each is first rounded to a decimal of ``DISCOUNT_PLACES`` places (see ``discount``); from there
on nDCG is exact: DCG and ideal DCG are sums of those decimals, nDCG their exact ratio.
"""

from __future__ import annotations

import decimal
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache, lru_cache

from rankeval_tui.core.errors import ContractError, quote

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: every command pays for its imports at start-up
if TYPE_CHECKING:
    from typing import Literal, TypeAlias

MetricId: TypeAlias = "Literal['recall', 'rr', 'p', 'success', 'ap', 'ndcg']"
"""Quoted, as the other ``Literal`` aliases of the score path: an alias to type checkers, a plain
string at run time, so that no command imports typing to start."""
PRIMARY: tuple[MetricId, ...] = ("recall", "rr")
"""The seed's pair: always computed, the default of every view."""

DISCOUNT_PLACES = 12
"""nDCG discounts are decimals with this many places: 1/log2(i+1) rounded half-even."""
DISCOUNT_SCALE = 10**DISCOUNT_PLACES
_DISCOUNT_CONTEXT = decimal.Context(prec=50, rounding=decimal.ROUND_HALF_EVEN)


@dataclass(frozen=True)
class MetricDefinition:
    """What a metric is called and what it means; the arithmetic is in ``extra_values``."""

    id: MetricId
    prefix: str
    """The ir_measures name without the cutoff: ``nDCG`` for ``nDCG@10``."""
    label: str
    """The per-query column heading, with ``@k`` standing for the cutoff."""
    mean_label: str
    """The heading of the mean over the eligible queries (``MRR@k`` for RR@k, as the seed says)."""
    definition: str
    formula: str
    """The short formula the drill-down writes its terms into (``hits / relevant``)."""
    trec_eval: str | None
    """trec_eval's measure at a cutoff (``P`` for ``P.10``, read back as ``P_10``), which the
    cross-checks compare with; None where trec_eval has no such measure (its ``recip_rank``
    ignores the cutoff). The ir_measures name is ``prefix@k``."""

    def name(self, k: int) -> str:
        """``nDCG@10``: the name a user types and reads."""
        return f"{self.prefix}@{k}"


DEFINITIONS: dict[MetricId, MetricDefinition] = {
    d.id: d
    for d in (
        MetricDefinition(
            "recall",
            "R",
            "Recall@k",
            "Recall@k",
            "distinct relevant documents in the top k / all relevant documents of the query",
            formula="hits / relevant",
            trec_eval="recall",
        ),
        MetricDefinition(
            "rr",
            "RR",
            "RR@k",
            "MRR@k",
            "1 / rank of the first relevant document within the top k, else 0",
            formula="1 / first relevant rank",
            trec_eval=None,
        ),
        MetricDefinition(
            "p",
            "P",
            "P@k",
            "P@k",
            "relevant documents in the top k / k (k, even if fewer were returned)",
            formula="hits / k",
            trec_eval="P",
        ),
        MetricDefinition(
            "success",
            "Success",
            "Success@k",
            "Success@k",
            "1 if a relevant document is in the top k, else 0",
            formula="1 if a relevant document is in the top k",
            trec_eval="success",
        ),
        MetricDefinition(
            "ap",
            "AP",
            "AP@k",
            "MAP@k",
            "sum of P@r over the ranks r <= k of relevant documents / all relevant documents of the query "
            "(trec_eval's map_cut)",
            formula="Σ precision at each relevant rank / relevant",
            trec_eval="map_cut",
        ),
        MetricDefinition(
            "ndcg",
            "nDCG",
            "nDCG@k",
            "nDCG@k",
            "DCG@k / ideal DCG@k, gain 1 per relevant document (on a graded protocol: the grade, as trec_eval's "
            "ndcg_cut), discount 1/log2(rank+1) rounded half-even to "
            f"{DISCOUNT_PLACES} decimal places; ideal: the best gains at ranks 1..k",
            formula="DCG / ideal DCG",
            trec_eval="ndcg_cut",
        ),
    )
}
METRIC_IDS: tuple[MetricId, ...] = tuple(DEFINITIONS)

MAX_CUTOFF_DIGITS = 9

_ALIASES: dict[str, MetricId] = {
    **{d.prefix.lower(): d.id for d in DEFINITIONS.values()},
    **{d.id: d.id for d in DEFINITIONS.values()},
    "mrr": "rr",
    "map": "ap",
    "hit": "success",
    "hits": "success",
}


def label(metric: MetricId, k: int | None = None) -> str:
    """``Recall@k``, or ``Recall@10`` with a cutoff: the heading the views print."""
    text = DEFINITIONS[metric].label
    return text if k is None else text.replace("@k", f"@{k}")


def mean_label(metric: MetricId, k: int | None = None) -> str:
    text = DEFINITIONS[metric].mean_label
    return text if k is None else text.replace("@k", f"@{k}")


def parse_metric_name(text: str) -> tuple[MetricId, int | None]:
    """``nDCG@10`` -> ("ndcg", 10); ``nDCG`` -> ("ndcg", None). Case-insensitive; ``Recall``,
    ``MRR``, ``MAP`` and ``Hit`` are accepted as the names people also use. ``ValueError`` with
    the known names otherwise."""
    name, sep, cutoff = text.strip().partition("@")
    metric = _ALIASES.get(name.lower())
    if metric is None:
        known = ", ".join(d.prefix for d in DEFINITIONS.values())
        raise ValueError(f"unknown metric {text!r} (known: {known}, each as NAME@k)")
    if not sep:
        return metric, None
    # ASCII digits only, as the TREC readers read numbers (``isdigit`` holds for ``²``, ``٢``, ``２``);
    # nine at most: a cutoff of more is no ranking depth, and its text would be an error line's bulk
    if not (cutoff.isascii() and cutoff.isdigit()) or len(cutoff) > MAX_CUTOFF_DIGITS or int(cutoff) < 1:
        raise ValueError(
            f"metric {quote(text)}: the cutoff after @ must be an integer >= 1 "
            f"(ASCII digits, at most {MAX_CUTOFF_DIGITS})"
        )
    return metric, int(cutoff)


def resolve_metrics(names: Iterable[str], k: int) -> tuple[MetricId, ...]:
    """Metric names as users type them (``nDCG@10``, ``nDCG``) -> ids, once each, in order.

    A cutoff is part of the protocol (and of its hash), so ``nDCG@10`` on a k = 2 protocol is a
    ``ContractError``, not a silent nDCG@2; a name without ``@`` means the protocol's k. (``score``
    takes cutoffs up to k in one call, each its own protocol: ``metrics_by_cutoff``.)
    """
    metrics: list[MetricId] = []
    for name in names:
        try:
            metric, cutoff = parse_metric_name(name)
        except ValueError as error:
            raise ContractError(str(error)) from None
        if cutoff is not None and cutoff > k:
            raise ContractError(
                f"metric {name.strip()!r}: cutoff {cutoff} is above k ({k}): a cutoff is at most k, "
                f"the depth the protocol was made complete at; score at that cutoff with --k {cutoff}"
            )
        if cutoff is not None and cutoff != k:
            raise ContractError(
                f"metric {name.strip()!r}: cutoff {cutoff} is not the protocol's k ({k}); "
                f"score at that cutoff with --k {cutoff}"
            )
        metrics.append(metric)
    return ordered_metrics(metrics)


def named_metrics(names: Iterable[str], k: int) -> tuple[tuple[MetricId, int | None], ...]:
    """``P@5,nDCG`` -> (("p", 5), ("ndcg", None)): each metric as named, with its cutoff or None
    for "the protocol's k", once each, in order. A cutoff above k is refused as
    ``resolve_metrics`` does: k is the depth the protocol was made complete at (a pooled
    protocol's top k judged), so a deeper one is its own protocol (``--k``)."""
    named: list[tuple[MetricId, int | None]] = []
    for name in names:
        try:
            metric, cutoff = parse_metric_name(name)
        except ValueError as error:
            raise ContractError(str(error)) from None
        if cutoff is not None and cutoff > k:
            resolve_metrics([name], k)  # raises the cutoff rule's one message
        if (metric, cutoff) not in named:
            named.append((metric, cutoff))
    return tuple(named)


def metrics_by_cutoff(names: Iterable[str], k: int) -> list[tuple[int, tuple[MetricId, ...]]]:
    """``P@5,P@10,nDCG@10`` -> [(5, ("p",)), (10, ("p", "ndcg"))]: the metrics asked per cutoff,
    cutoffs in the order first named (a name without ``@`` means ``k``). Each cutoff is a
    protocol of its own (k is hashed), scored by the same evaluator (``score``'s several cutoffs
    and the scoring screen's columns). Cutoffs above k are refused (``named_metrics``)."""
    groups: dict[int, list[MetricId]] = {}
    for metric, cutoff in named_metrics(names, k):
        groups.setdefault(k if cutoff is None else cutoff, []).append(metric)
    return [(cutoff, ordered_metrics(metrics)) for cutoff, metrics in groups.items()]


def ordered_metrics(metrics: Iterable[MetricId]) -> tuple[MetricId, ...]:
    """The metrics once each, in the order given; ``ValueError`` for an unknown id."""
    result: list[MetricId] = []
    for metric in metrics:
        if metric not in DEFINITIONS:
            raise ValueError(f"unknown metric id {metric!r} (known: {', '.join(METRIC_IDS)})")
        if metric not in result:
            result.append(metric)
    return tuple(result)


# ---------------------------------------------------------------- per-query arithmetic


@cache
def discount(rank: int) -> int:
    """``1 / log2(rank + 1)`` rounded half-even to ``DISCOUNT_PLACES`` decimal places, as an
    integer count of ``10**-DISCOUNT_PLACES``.

    Computed with the ``decimal`` module (its ``ln`` is correctly rounded) at 50 significant
    digits, then rounded once to the decimal places, so the result is the same on every platform;
    the C library's ``log2``, which is not required to be correctly rounded, is not used.
    """
    context = _DISCOUNT_CONTEXT
    value = context.divide(context.ln(decimal.Decimal(2)), context.ln(decimal.Decimal(rank + 1)))
    return int(value.scaleb(DISCOUNT_PLACES, context).to_integral_value(decimal.ROUND_HALF_EVEN, context))


@cache
def ideal_dcg(relevant: int) -> int:
    """The scaled DCG of ``relevant`` relevant documents at ranks 1..relevant."""
    return sum(discount(rank) for rank in range(1, relevant + 1))


@lru_cache(maxsize=4096)
def exact_ratio(numerator: int, denominator: int) -> Fraction:
    """``Fraction(n, d)``, shared: a run has few distinct (hits, relevant) and 1/rank values, and
    building (normalising) a Fraction per query cost more than the rest of the scoring.
    Fractions are immutable, so sharing one instance between rows is safe."""
    return Fraction(numerator, denominator)


def relevant_ranks(ranking: Sequence[str], relevant: frozenset[str]) -> list[int]:
    """The ranks (1-based) at which ``ranking`` holds a relevant document, in order."""
    return [rank for rank, doc in enumerate(ranking, 1) if doc in relevant]


def precision_at_ranks(ranks: Sequence[int]) -> list[Fraction]:
    """AP's terms: at the j-th relevant rank r_j of the top k, the precision j / r_j."""
    return [exact_ratio(j, rank) for j, rank in enumerate(ranks, 1)]


def dcg(ranks: Sequence[int]) -> int:
    """nDCG's numerator, scaled by ``DISCOUNT_SCALE``: the sum of the relevant ranks' discounts."""
    return sum(discount(rank) for rank in ranks)


def graded_dcg(top: Sequence[str], gains: Mapping[str, int]) -> int:
    """nDCG's numerator on a graded scale, scaled by ``DISCOUNT_SCALE``: each document's grade
    times its rank's discount (trec_eval's ndcg_cut: the label is the gain, 0 for the unlabelled)."""
    return sum(gains.get(doc, 0) * discount(rank) for rank, doc in enumerate(top, 1))


def graded_ideal_dcg(gains: Mapping[str, int], k: int) -> int:
    """The ideal graded DCG@k: the query's grades above 0, highest first, at ranks 1..k (every
    labelled document, whatever ``relevant_from``, as trec_eval's ndcg_cut builds its ideal)."""
    best = sorted(gains.values(), reverse=True)[:k]
    return sum(grade * discount(rank) for rank, grade in enumerate(best, 1))


def extra_values(
    metrics: Sequence[MetricId],
    top: Sequence[str],
    relevant: frozenset[str],
    k: int,
    hits: int,
    first: int | None,
    gains: Mapping[str, int] | None = None,
) -> tuple[tuple[MetricId, Fraction | None], ...]:
    """The values of the non-primary ``metrics`` for one query, from its top-k ranking.

    ``hits`` and ``first`` (the first relevant rank) are what the evaluator already counted;
    None for every metric when the query has no relevant document (0/0 is not a score).
    ``gains``: the query's grades above 0 on a graded protocol (nDCG's gains), None on the
    binary scale (gain 1 per relevant document).
    """
    if not relevant:
        return tuple((metric, None) for metric in metrics)
    ranks = relevant_ranks(top, relevant) if {"ap", "ndcg"} & set(metrics) else []
    values: list[tuple[MetricId, Fraction | None]] = []
    for metric in metrics:
        if metric == "p":
            value = exact_ratio(hits, k)
        elif metric == "success":
            value = exact_ratio(1 if first else 0, 1)
        elif metric == "ap":
            # sum over hits j = 1..: precision at the j-th hit's rank, j / rank_j; over all relevant.
            value = sum(precision_at_ranks(ranks), Fraction(0)) / len(relevant)
        elif metric == "ndcg" and gains is not None:
            value = Fraction(graded_dcg(top, gains), graded_ideal_dcg(gains, k))
        elif metric == "ndcg":
            value = exact_ratio(dcg(ranks), ideal_dcg(min(len(relevant), k)))
        else:
            raise ValueError(f"{metric!r} is a primary metric, computed by the evaluator itself")
        values.append((metric, value))
    return tuple(values)
