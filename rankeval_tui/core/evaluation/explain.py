"""Why a query's score is what it is: the terms of a metric, and how documents moved between runs.

Why in core: the drill-down shows these numbers beside the score, so they must be the ones the
evaluator used, not a second implementation that could drift. Hits, the relevant count and the
first relevant rank come from the evaluator's ``QueryRow``; the ranks of the relevant documents,
AP's precisions and nDCG's discounts come from the functions ``metrics.extra_values`` itself
calls (``relevant_ranks``, ``precision_at_ranks``, ``discount``, ``dcg``, ``ideal_dcg``). Each
``Explanation`` recomputes its value from its own terms (``numerator / denominator``), and
tests/core/test_explain.py checks it equals the report's value, as Fractions, on every query.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from rankeval_tui.core.evaluation.evaluate import QueryRow
from rankeval_tui.core.evaluation.metrics import (
    DISCOUNT_SCALE,
    MetricId,
    discount,
    graded_ideal_dcg,
    ideal_dcg,
    precision_at_ranks,
    relevant_ranks,
)


@dataclass(frozen=True)
class Term:
    """One addend of a metric's numerator: ``P@6 = 1/6``, ``1/log2(6+1) = 0.3562``."""

    label: str
    value: Fraction


@dataclass(frozen=True)
class Explanation:
    """A metric's value for one query as its parts: terms summed over a denominator."""

    metric: MetricId
    k: int
    relevant: int
    """Relevant documents of the query (the qrels'), the denominator of Recall and AP."""
    ranks: tuple[int, ...]
    """Ranks of the relevant documents within the top k (the ones that count)."""
    below: tuple[int, ...]
    """Ranks of relevant documents the run returned below k (they count for nothing at this k)."""
    never: tuple[str, ...]
    """Relevant documents the run did not return at all."""
    terms: tuple[Term, ...]
    denominator: Fraction
    ideal: tuple[Term, ...] = ()
    """nDCG: the ideal ranking's discounts (ranks 1..min(relevant, k)), summing to the denominator."""

    @property
    def numerator(self) -> Fraction:
        return sum((term.value for term in self.terms), Fraction(0))

    @property
    def value(self) -> Fraction | None:
        """The terms' sum over the denominator; None without a relevant document (0/0)."""
        return None if not self.relevant else self.numerator / self.denominator


def explain(
    row: QueryRow,
    ranking: Sequence[str] | None,
    relevant: frozenset[str],
    k: int,
    metric: MetricId,
    gains: Mapping[str, int] | None = None,
) -> Explanation:
    """``metric``'s parts for the query of ``row`` (the evaluator's row of the run's report);
    ``ranking`` is the run's full ranking for it (None: the run has none, scored 0); ``gains``:
    the query's grades on a graded protocol (nDCG's gains, ``Protocol.gains_of``)."""
    ranking = ranking or ()
    returned = relevant_ranks(ranking, relevant)
    ranks = tuple(rank for rank in returned if rank <= k)
    if len(ranks) != row.hits or (ranks[0] if ranks else None) != row.first_relevant_rank:
        raise ValueError(f"query {row.query!r}: the ranking given is not the one the report scored")
    below = tuple(rank for rank in returned if rank > k)
    never = tuple(sorted(relevant.difference(ranking)))
    terms: list[Term]
    ideal: list[Term] = []
    if metric == "recall":  # hits / relevant
        terms, denominator = [Term(f"rank {rank}", Fraction(1)) for rank in ranks], Fraction(row.relevant)
    elif metric == "rr":  # 1 / the first relevant rank
        first = row.first_relevant_rank
        terms, denominator = ([Term(f"1/{first}", Fraction(1, first))] if first else []), Fraction(1)
    elif metric == "p":  # hits / k
        terms, denominator = [Term(f"rank {rank}", Fraction(1)) for rank in ranks], Fraction(k)
    elif metric == "success":  # 1 if any relevant in the top k
        terms, denominator = ([Term(f"rank {ranks[0]}", Fraction(1))] if ranks else []), Fraction(1)
    elif metric == "ap":  # the precision at each relevant rank / relevant
        terms = [Term(f"P@{rank}", precision) for rank, precision in zip(ranks, precision_at_ranks(ranks))]
        denominator = Fraction(row.relevant)
    elif metric == "ndcg" and gains is not None:  # each grade times its rank's discount
        graded = [(rank, gains.get(doc, 0)) for rank, doc in enumerate(ranking[:k], 1)]
        terms = [gain_term(rank, gain) for rank, gain in graded if gain]
        ideal = [gain_term(rank, gain) for rank, gain in enumerate(sorted(gains.values(), reverse=True)[:k], 1)]
        denominator = Fraction(graded_ideal_dcg(gains, k), DISCOUNT_SCALE)
    elif metric == "ndcg":  # DCG / ideal DCG, discounts rounded as the evaluator rounds them
        terms = [Term(f"1/log2({rank}+1)", Fraction(discount(rank), DISCOUNT_SCALE)) for rank in ranks]
        best = min(row.relevant, k)
        ideal = [Term(f"1/log2({rank}+1)", Fraction(discount(rank), DISCOUNT_SCALE)) for rank in range(1, best + 1)]
        denominator = Fraction(ideal_dcg(best), DISCOUNT_SCALE)
    else:
        raise ValueError(f"unknown metric id {metric!r}")
    return Explanation(metric, k, row.relevant, ranks, below, never, tuple(terms), denominator, tuple(ideal))


Movement = Literal["up", "down", "same", "new", "gone"]


@dataclass(frozen=True)
class RankChange:
    """A document's rank in the baseline's and the candidate's ranking (None: not returned)."""

    document: str
    baseline: int | None
    candidate: int | None

    @property
    def movement(self) -> Movement:
        if self.baseline is None:
            return "new"
        if self.candidate is None:
            return "gone"
        return "up" if self.candidate < self.baseline else "down" if self.candidate > self.baseline else "same"

    @property
    def places(self) -> int:
        """How many ranks it moved (0 for new, gone or same)."""
        if self.baseline is None or self.candidate is None:
            return 0
        return abs(self.baseline - self.candidate)


def rank_changes(baseline: Sequence[str] | None, candidate: Sequence[str] | None) -> dict[str, RankChange]:
    """Every document of either ranking with its rank in both (the whole rankings, not only the
    top k: a document that moved from rank 12 to 3 entered the cutoff)."""
    base = {doc: rank for rank, doc in enumerate(baseline or (), 1)}
    cand = {doc: rank for rank, doc in enumerate(candidate or (), 1)}
    return {doc: RankChange(doc, base.get(doc), cand.get(doc)) for doc in {**base, **cand}}


def gain_term(rank: int, gain: int) -> Term:
    """A graded DCG's term: ``3/log2(2+1)``, the grade times the rank's rounded discount."""
    return Term(f"{gain}/log2({rank}+1)", Fraction(gain * discount(rank), DISCOUNT_SCALE))
