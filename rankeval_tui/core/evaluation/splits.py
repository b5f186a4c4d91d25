"""Runs that cover several splits: set the other splits' queries aside, and say so.

Every retriever writes one run file for dev and test queries alike. The evaluator rejects a
query of another split (the seed's rule: a wrong-split query usually means a mixed-up file),
so scoring one split of such a run takes an explicit choice, ``score --ignore-other-splits``.
Only queries the protocol knows under another split are set aside; a query the protocol does
not know at all still rejects the run in ``check_run``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

from rankeval_tui.core.evaluation.evaluate import Report, Run, evaluate
from rankeval_tui.core.evaluation.metrics import PRIMARY, MetricId
from rankeval_tui.core.evaluation.protocol import Protocol


def set_aside_other_splits(protocol: Protocol, run: Run) -> tuple[Run, dict[str, int]]:
    """The run without the protocol's queries of other splits, and how many of each split."""
    queries = protocol.queries
    split = protocol.split
    counts: dict[str, int] = {}
    kept: dict[str, Sequence[str]] = {}
    for query, ranking in run.rankings.items():
        meta = queries.get(query)
        if meta is not None and meta.split != split:
            counts[meta.split] = counts.get(meta.split, 0) + 1
        else:
            kept[query] = ranking
    if not counts:
        return run, {}
    return replace(run, rankings=kept), dict(sorted(counts.items()))


def evaluate_split_of(protocol: Protocol, run: Run, metrics: Iterable[MetricId] = PRIMARY) -> Report:
    """``evaluate`` of the run's queries of the protocol's split; the report names what was set aside."""
    kept, counts = set_aside_other_splits(protocol, run)
    return replace(evaluate(protocol, kept, metrics), set_aside=counts)


def set_aside_words(set_aside: Mapping[str, int]) -> str:
    """``3 queries of split 'dev', 1 query of split 'train'``: a report's ``set_aside``, in words."""
    return ", ".join(f"{n} {'query' if n == 1 else 'queries'} of split {split!r}" for split, n in set_aside.items())
