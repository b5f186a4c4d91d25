"""``score --bounds`` against brute force: every 0/1 assignment of a run's gap scored by the
evaluator with the gap judged, on small random pooled protocols (queries with and without a
relevant document in their pool, missing queries, gaps at any rank)."""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

import pytest

from rankeval_tui.core.evaluation.bounds import bounds
from rankeval_tui.core.evaluation.evaluate import Run, evaluate
from rankeval_tui.core.evaluation.metrics import METRIC_IDS
from rankeval_tui.core.evaluation.protocol import Protocol, ProtocolDefinition, Query


def pooled_definition(pools, k):
    """A pooled protocol's definition: its queries and pools, no texts."""
    return ProtocolDefinition(
        name="b",
        k=k,
        split="test",
        relevance="r",
        documents={},
        queries={q: Query(text=None, split="test") for q in pools},
        pools={q: tuple(pool) for q, pool in pools.items()},
    )


def pooled_protocol(pools, qrels, k):
    return Protocol(pooled_definition(pools, k), qrels)


def random_case(rng: random.Random):
    k = rng.randint(1, 4)
    documents = [f"msmarco_v2.1_doc_00_{i}" for i in range(8)]
    pools, qrels, rankings = {}, {}, {}
    for q in (f"q:{1000 + i}" for i in range(rng.randint(1, 3))):
        pool = rng.sample(documents, rng.randint(0, 4))
        pools[q] = pool
        qrels[q] = {d: rng.randint(0, 1) for d in pool}
        if rng.random() < 0.85:  # else the query is missing from the run
            rankings[q] = rng.sample(documents, rng.randint(0, 6))
    return k, pools, qrels, rankings


def brute_force(k, pools, qrels, rankings, metrics):
    protocol = pooled_protocol(pools, qrels, k)
    run = Run("r", rankings)
    gap = [(q, d) for q in pools for d in rankings.get(q, [])[:k] if d not in pools[q]]
    per_query = {q: {m: [] for m in metrics} for q in pools}
    means = {m: [] for m in metrics}
    for labels in itertools.product((0, 1), repeat=len(gap)):
        grown_pools = {q: list(pool) for q, pool in pools.items()}
        grown_qrels = {q: dict(row) for q, row in qrels.items()}
        for (q, d), label in zip(gap, labels):
            grown_pools[q].append(d)
            grown_qrels[q][d] = label
        report = evaluate(pooled_protocol(grown_pools, grown_qrels, k), run, metrics)
        for row in report.rows:
            for m in metrics:
                per_query[row.query][m].append(row.value(m))
        for m in metrics:
            means[m].append(report.mean(m))
    return protocol, run, per_query, means, len(gap)


def expected(values):
    defined = [v for v in values if v is not None]
    if not defined:
        return (None, None, True)
    return (min(defined), max(defined), len(defined) != len(values))


@pytest.mark.parametrize("seed", range(150))
def test_bounds_equal_brute_force(seed):
    rng = random.Random(seed)
    k, pools, qrels, rankings = random_case(rng)
    metrics = METRIC_IDS
    protocol, run, per_query, means, gap_size = brute_force(k, pools, qrels, rankings, metrics)
    result = bounds(protocol, run, metrics)
    assert result.gap_pairs == gap_size
    for row in result.rows:
        for m in metrics:
            b = row.bound(m)
            assert (b.low, b.high, b.undefined_possible) == expected(per_query[row.query][m]), (row.query, m)
    for m in metrics:
        b = result.mean(m)
        assert (b.low, b.high, b.undefined_possible) == expected(means[m]), m


def test_no_gap_bounds_are_the_evaluators_values():
    protocol = pooled_protocol({"q:1": ["a", "b"], "q:2": ["c"]}, {"q:1": {"a": 1, "b": 0}, "q:2": {"c": 0}}, 2)
    run = Run("r", {"q:1": ["b", "a"], "q:2": ["c"]})
    report, result = evaluate(protocol, run, METRIC_IDS), bounds(protocol, run, METRIC_IDS)
    for row in report.rows:
        for m in METRIC_IDS:
            b = next(r for r in result.rows if r.query == row.query).bound(m)
            assert b.low == b.high == row.value(m)
            assert b.exact or row.value(m) is None
    assert result.mean("rr").low == result.mean("rr").high == Fraction(1, 2)


def test_recall_denominator_counts_assumed_relevant_gap_documents():
    # one relevant in the pool, ranked 2nd; the gap document at rank 1: relevant -> 2/2, not -> 1/1
    protocol = pooled_protocol({"q:1": ["a"]}, {"q:1": {"a": 1}}, 2)
    result = bounds(protocol, Run("r", {"q:1": ["gap", "a"]}), ["recall", "rr"])
    assert (result.mean("recall").low, result.mean("recall").high) == (1, 1)
    assert (result.mean("rr").low, result.mean("rr").high) == (Fraction(1, 2), 1)
