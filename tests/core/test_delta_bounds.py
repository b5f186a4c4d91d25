"""``score --baseline A --bounds``: the change candidate - baseline against brute force over every
0/1 labelling of the unjudged pairs, each labelled once for both runs, scored by the evaluator."""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.evaluation.bounds import Bound, bounds
from rankeval_tui.core.evaluation.delta_bounds import (
    MAX_AP_ENUMERATED,
    QueryCase,
    compare_bounds,
    query_delta,
    verdict,
    verdict_text,
)
from rankeval_tui.core.evaluation.delta_gate import gate_on_gap
from rankeval_tui.core.evaluation.evaluate import Run, evaluate, score_query
from rankeval_tui.core.evaluation.metrics import METRIC_IDS, PRIMARY
from tests.core.test_bounds import pooled_protocol

DOCS = [f"d{i}" for i in range(9)]


def expected(values):
    defined = [v for v in values if v is not None]
    if not defined:
        return (None, None, True)
    return (min(defined), max(defined), len(defined) != len(values))


def as_tuple(bound: Bound):
    return (bound.low, bound.high, bound.undefined_possible)


def brute_query(case: QueryCase, k: int, metrics):
    unjudged = (*case.top, *case.outside)
    changes = {m: [] for m in metrics}
    extra = [m for m in metrics if m not in PRIMARY]
    for labels in itertools.product((0, 1), repeat=len(unjudged)):
        relevant = case.relevant | {d for d, label in zip(unjudged, labels) if label}
        old = score_query(case.query, case.baseline, frozenset(relevant), k, case.baseline_missing, extra)
        new = score_query(case.query, case.candidate, frozenset(relevant), k, case.candidate_missing, extra)
        for m in metrics:
            a, b = old.value(m), new.value(m)
            changes[m].append(None if a is None else b - a)
    return changes


@st.composite
def query_cases(draw):
    k = draw(st.integers(1, 5))
    baseline = draw(st.lists(st.sampled_from(DOCS), unique=True, max_size=6))
    candidate = draw(st.lists(st.sampled_from(DOCS), unique=True, max_size=6))
    in_top = list(dict.fromkeys((*baseline[:k], *candidate[:k])))
    statuses = {d: draw(st.sampled_from(("relevant", "not", "unjudged"))) for d in DOCS}
    top = tuple(d for d in in_top if statuses[d] == "unjudged")
    outside = tuple(d for d in DOCS if d not in in_top and statuses[d] == "unjudged")[: draw(st.integers(0, 3))]
    relevant = frozenset(d for d in DOCS if statuses[d] == "relevant")
    case = QueryCase("q", baseline, candidate, relevant, top, outside, draw(st.booleans()), draw(st.booleans()))
    return k, case


@settings(max_examples=400, deadline=None)
@given(query_cases())
def test_query_change_equals_brute_force(drawn):
    k, case = drawn
    metrics = tuple(METRIC_IDS)
    changes = brute_query(case, k, metrics)
    together = query_delta(case, k, metrics)
    for m in metrics:  # each metric alone too: its own labellings must hold its extremes
        assert as_tuple(together.bound(m)) == expected(changes[m]), m
        assert as_tuple(query_delta(case, k, (m,)).bound(m)) == expected(changes[m]), m


def random_protocol_case(rng: random.Random):
    k = rng.randint(1, 3)
    pools, qrels, runs = {}, {}, ({}, {})
    for q in (f"q{i}" for i in range(rng.randint(1, 3))):
        pool = rng.sample(DOCS[:6], rng.randint(0, 4))
        pools[q] = pool
        qrels[q] = {d: rng.randint(0, 1) for d in pool}
        for rankings in runs:
            if rng.random() < 0.85:
                rankings[q] = rng.sample(DOCS[:6], rng.randint(0, 4))
    return k, pools, qrels, runs


def gap_pairs(pools, k, *rankings):
    """The runs' top-k pairs outside the pools, each once, in order."""
    return list(dict.fromkeys((q, d) for q in pools for r in rankings for d in r.get(q, [])[:k] if d not in pools[q]))


def every_labelling(pools, qrels, gap, k):
    """The protocol grown by ``gap`` under each 0/1 labelling of its pairs: the brute force."""
    for labels in itertools.product((0, 1), repeat=len(gap)):
        grown_pools = {q: list(pool) for q, pool in pools.items()}
        grown_qrels = {q: dict(row) for q, row in qrels.items()}
        for (q, d), label in zip(gap, labels):
            grown_pools[q].append(d)
            grown_qrels[q][d] = label
        yield pooled_protocol(grown_pools, grown_qrels, k)


@pytest.mark.parametrize("seed", range(200))
def test_mean_change_equals_brute_force(seed):
    """Shared pairs labelled once; queries without a relevant document in their pool join the
    mean only under the labellings that give them one, for both runs alike."""
    rng = random.Random(seed)
    k, pools, qrels, (base, cand) = random_protocol_case(rng)
    metrics = tuple(METRIC_IDS)
    gap = gap_pairs(pools, k, base, cand)
    if len(gap) > 10:
        gap = gap[:10]
        pytest.skip("too many labellings for brute force")
    means = {m: [] for m in metrics}
    per_query = {q: {m: [] for m in metrics} for q in pools}
    for grown in every_labelling(pools, qrels, gap, k):
        old, new = evaluate(grown, Run("a", base), metrics), evaluate(grown, Run("b", cand), metrics)
        for m in metrics:
            a, b = old.mean(m), new.mean(m)
            means[m].append(None if a is None else b - a)
            for row_a, row_b in zip(old.rows, new.rows):
                va, vb = row_a.value(m), row_b.value(m)
                per_query[row_a.query][m].append(None if va is None else vb - va)
    result = compare_bounds(pooled_protocol(pools, qrels, k), Run("a", base), Run("b", cand), metrics)
    assert result.unjudged_pairs == len(gap)
    rows = {row.query: row for row in result.rows}
    for m in metrics:
        assert as_tuple(result.mean(m)) == expected(means[m]), m
        for q in pools:
            if q in rows:
                assert as_tuple(rows[q].bound(m)) == expected(per_query[q][m]), (q, m)
            else:  # never valued: no relevant document and nothing unjudged
                assert all(v is None for v in per_query[q][m])


def test_issue_example_shared_pairs_are_labelled_once():
    """Three queries, six unjudged top-3 pairs (three shared): one label moves both runs."""
    pools = {"q1": ["j1"], "q2": ["j2"], "q3": ["j3"]}
    qrels = {"q1": {"j1": 1}, "q2": {"j2": 1}, "q3": {"j3": 1}}
    base = {"q1": ["s1", "j1", "x"], "q2": ["j2", "s2", "a2"], "q3": ["s3", "a3", "j3"]}
    cand = {"q1": ["j1", "s1", "b1"], "q2": ["s2", "j2", "z"], "q3": ["j3", "s3", "y"]}
    protocol = pooled_protocol(pools, qrels, 3)
    result = compare_bounds(protocol, Run("A", base), Run("B", cand))
    assert result.unjudged_pairs == 9
    # Each run alone always has Recall@3 = 1 (its own gap in its own denominator only); with the
    # other run's unjudged documents possibly relevant, the change ranges over [-1/2, 1/2].
    assert (bounds(protocol, Run("A", base)).mean("recall"), bounds(protocol, Run("B", cand)).mean("recall")) == (
        Bound(Fraction(1), Fraction(1)),
        Bound(Fraction(1), Fraction(1)),
    )
    assert result.mean("recall") == Bound(Fraction(-1, 2), Fraction(1, 2))
    assert result.mean("rr") == Bound(Fraction(-1, 6), Fraction(7, 18))


def test_verdicts():
    assert verdict(Bound(Fraction(1, 4), Fraction(1, 2))) == "better"
    assert verdict(Bound(Fraction(-1, 2), Fraction(-1, 4))) == "worse"
    assert verdict(Bound(Fraction(0), Fraction(0))) == "no change"
    assert verdict(Bound(Fraction(0), Fraction(1, 2))) == "undecided"
    assert verdict(Bound(Fraction(1, 4), Fraction(1, 2), True)) == "undecided"
    assert verdict_text(Bound(Fraction(-1), Fraction(1)), 3) == "undecided (3 unjudged pairs can change it)"
    assert verdict_text(Bound(Fraction(1), Fraction(1)), 0) == "decided better"


def test_ap_refuses_a_query_too_large_to_enumerate():
    top = tuple(f"u{i}" for i in range(MAX_AP_ENUMERATED + 1))
    case = QueryCase("q:7", top[:8], top[8:], frozenset(), top)
    with pytest.raises(ContractError, match="AP@20 enumerate every labelling"):
        query_delta(case, 20, ("ap",))
    assert query_delta(case, 20, ("recall", "rr", "ndcg")).bound("recall").high == 1


@pytest.mark.parametrize("seed", range(120))
def test_gate_on_a_gap_never_passes_what_a_labelling_fails(seed):
    """Brute force: ``passed`` only if no labelling drops a query by more than DROP or lowers a
    mean (the significance test's precondition); ``failed`` only if every labelling drops one."""
    rng = random.Random(seed)
    k, pools, qrels, (base, cand) = random_protocol_case(rng)
    drop = rng.choice((Fraction(0), Fraction(1, 4), Fraction(1, 2)))
    metrics = ("recall", "rr")
    gap = gap_pairs(pools, k, base, cand)
    if len(gap) > 10:
        pytest.skip("too many labellings for brute force")
    drops, lowers = [], []
    for grown in every_labelling(pools, qrels, gap, k):
        old, new = evaluate(grown, Run("a", base), metrics), evaluate(grown, Run("b", cand), metrics)
        dropped = lowered = False
        for m in metrics:
            if old.mean(m) is not None and new.mean(m) - old.mean(m) < 0:
                lowered = True
            for row_a, row_b in zip(old.rows, new.rows):
                if row_a.value(m) is not None and row_a.value(m) - row_b.value(m) > drop:
                    dropped = True
        drops.append(dropped)
        lowers.append(lowered)
    report = compare_bounds(pooled_protocol(pools, qrels, k), Run("a", base), Run("b", cand), metrics)
    gate = gate_on_gap([report], drop)
    if gate.outcome == "passed":
        assert not any(drops) and not any(lowers)
    elif gate.outcome == "failed":
        assert all(drops)
    else:  # undecided: some labelling can fail, and not every one is shown to drop
        assert any(drops) or any(lowers)
        assert not all(drops) or not gate.certain
    assert (gate.outcome == "passed") == (not any(drops) and not any(lowers))
