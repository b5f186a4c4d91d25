"""Which holes to judge first: ``judge --holes-first top-k``.

A hole inside some run's top k decides a numerator (a hit of Recall@k, the first relevant rank
of RR@k); a hole outside every top k only moves a denominator. Judging those first makes the
scores of the runs at hand final soonest. The order is: queries in protocol order, and within a
query the pairs by their best rank in any run, then corpus order. Runs are only read for this
order; the judging screen still never shows a run, rank or score.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from rankeval_tui.core.evaluation.protocol import ProtocolDefinition

HOLE_ORDERS = ("top-k",)


def top_k_pairs(
    definition: ProtocolDefinition, rankings: Iterable[Mapping[str, Sequence[str]]], k: int
) -> list[tuple[str, str]]:
    """Every (query, document) in some run's top ``k`` that the protocol judges (pooled kind: in
    the query's pool; a pair outside is a gap, added by ``grow --gap``), best rank first within
    each query."""
    pools = definition.pool_sets
    corpus = definition.document_ids

    def judged_for(query: str) -> frozenset[str]:
        return pools[query] if definition.pools is not None else corpus

    best: dict[str, dict[str, int]] = {}
    for run in rankings:
        for query, ranking in run.items():
            if query not in definition.queries:
                continue
            row = best.setdefault(query, {})
            for rank, doc in enumerate(ranking[:k], 1):
                if doc in judged_for(query) and rank < row.get(doc, k + 1):
                    row[doc] = rank
    corpus_position = {doc: i for i, doc in enumerate(definition.documents)}
    pairs: list[tuple[str, str]] = []
    for query in definition.queries:
        row = best.get(query, {})
        position = (
            corpus_position if definition.pools is None else {d: i for i, d in enumerate(definition.pools[query])}
        )
        pairs.extend((query, doc) for doc in sorted(row, key=lambda d: (row[d], position[d])))
    return pairs


class HoleQueue:
    """Priority pairs to visit while they are holes; a scan pointer keeps each look-up cheap."""

    def __init__(self, pairs: Sequence[tuple[str, str]]) -> None:
        self.pairs = tuple(pairs)
        self.start = 0
        """Every pair before ``start`` was judged when last looked at (an undo resets it)."""

    def next_hole(self, labels: Mapping[str, Mapping[str, int]]) -> tuple[str, str] | None:
        while self.start < len(self.pairs):
            query, doc = self.pairs[self.start]
            if doc not in labels.get(query, {}):
                return query, doc
            self.start += 1
        return None

    def reopened(self) -> None:
        """A label was taken away (undo): holes before the pointer may exist again."""
        self.start = 0

    def remaining(self, labels: Mapping[str, Mapping[str, int]]) -> int:
        return sum(1 for query, doc in self.pairs if doc not in labels.get(query, {}))

    def status(self, labels: Mapping[str, Mapping[str, int]]) -> str | None:
        """What the order has to say on the status line after a judgment (``decide_order``); nothing here."""
        return None
