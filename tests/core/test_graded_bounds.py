"""Bounds on graded protocols and on protocols judged part of the way, against brute force over
every grade labelling of the unjudged pairs, each scored by the evaluator (each pair labelled
once for both runs). A mutant that leaves grades out of the candidates must fail the same check."""

from __future__ import annotations

import dataclasses
import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankeval_tui.core.evaluation import delta_bounds
from rankeval_tui.core.evaluation.bounds import bounds
from rankeval_tui.core.evaluation.delta_bounds import JudgedGrades, QueryCase, compare_bounds, query_delta
from rankeval_tui.core.evaluation.evaluate import Run, evaluate, score_query
from rankeval_tui.core.evaluation.metrics import METRIC_IDS, PRIMARY
from rankeval_tui.core.evaluation.protocol import LabelScale, Protocol
from tests.core.test_bounds import pooled_protocol
from tests.core.test_delta_bounds import as_tuple, expected

DOCS = [f"d{i}" for i in range(7)]
BINARY = ("recall", "rr", "p", "success", "ap")


def brute_query(case: QueryCase, k: int, metrics, grade_values):
    """Every labelling of the unjudged documents with ``grade_values``, both runs scored."""
    grades = case.grades
    assert grades is not None
    unjudged = (*case.top, *case.outside)
    changes = {m: [] for m in metrics}
    extra = [m for m in metrics if m not in PRIMARY]
    for chosen in itertools.product(grade_values, repeat=len(unjudged)):
        given_grades = dict(zip(unjudged, chosen))
        relevant = case.relevant | {d for d, g in given_grades.items() if g >= grades.relevant_from}
        gains = {**grades.gains, **{d: g for d, g in given_grades.items() if g}}
        old = score_query(case.query, case.baseline, frozenset(relevant), k, case.baseline_missing, extra, gains)
        new = score_query(case.query, case.candidate, frozenset(relevant), k, case.candidate_missing, extra, gains)
        for m in metrics:
            a, b = old.value(m), new.value(m)
            changes[m].append(None if a is None else b - a)
    return changes


@st.composite
def graded_cases(draw):
    top_grade = draw(st.integers(2, 4))
    relevant_from = draw(st.integers(1, top_grade))
    k = draw(st.integers(1, 4))
    baseline = draw(st.lists(st.sampled_from(DOCS), unique=True, max_size=5))
    candidate = draw(st.lists(st.sampled_from(DOCS), unique=True, max_size=5))
    in_top = list(dict.fromkeys((*baseline[:k], *candidate[:k])))
    judged = {d: draw(st.integers(0, top_grade)) for d in DOCS if draw(st.booleans())}
    top = tuple(d for d in in_top if d not in judged)[:3]
    outside = tuple(d for d in DOCS if d not in in_top and d not in judged)[: draw(st.integers(0, 2))]
    judged |= {d: 0 for d in DOCS if d not in judged and d not in top and d not in outside}  # the rest judged 0
    relevant = frozenset(d for d, g in judged.items() if g >= relevant_from)
    grades = JudgedGrades({d: g for d, g in judged.items() if g}, top_grade, relevant_from)
    case = QueryCase("q", baseline, candidate, relevant, top, outside, draw(st.booleans()), draw(st.booleans()), grades)
    return k, case


@settings(max_examples=300, deadline=None)
@given(graded_cases())
def test_graded_change_equals_brute_force_over_every_grade(drawn):
    """Every metric, each alone and all together, per query: the binary measures from the 0/1
    labellings at relevant_from, nDCG from the enumerated candidate grades."""
    k, case = drawn
    changes = brute_query(case, k, METRIC_IDS, range(case.grades.top + 1))
    together = query_delta(case, k, METRIC_IDS)
    for m in METRIC_IDS:
        assert as_tuple(together.bound(m)) == expected(changes[m]), m
        assert as_tuple(query_delta(case, k, (m,)).bound(m)) == expected(changes[m]), m


@settings(max_examples=200, deadline=None)
@given(graded_cases())
def test_binary_measures_see_only_the_threshold(drawn):
    """The proof the binary families rest on: over every grade labelling, the binary measures
    take exactly the values of the 0/1 labellings at relevant_from (grades 0 and relevant_from
    alone give every value any grade gives)."""
    k, case = drawn
    threshold = case.grades.relevant_from
    every = brute_query(case, k, BINARY, range(case.grades.top + 1))
    two = brute_query(case, k, BINARY, (0, threshold))
    for m in BINARY:
        assert set(every[m]) == set(two[m]), m


def test_graded_ndcg_extremes_are_not_at_the_lowest_and_highest_grade():
    """Why nDCG is enumerated. Scale 0-3, k = 3: a ranking of j (grade 2) then the unjudged u,
    with i (grade 2) judged but not retrieved: nDCG is highest with u at grade 2, not 0 or 3
    (at 3, u overtakes both in the ideal). With relevant_from 3 and no judged relevant
    document, the lowest valued nDCG is at grade 3: 0 leaves the query without a value."""
    grades = JudgedGrades({"j": 2, "i": 2}, 3, 1)
    case = QueryCase("q", (), ("j", "u"), frozenset({"j", "i"}), ("u",), (), grades=grades)
    ends = brute_query(case, 3, ("ndcg",), (0, 3))["ndcg"]
    every = brute_query(case, 3, ("ndcg",), range(4))["ndcg"]
    assert max(every) > max(ends) and every.index(max(every)) == 2
    assert query_delta(case, 3, ("ndcg",)).bound("ndcg").high == max(every)

    grades = JudgedGrades({"j": 2}, 4, 3)
    case = QueryCase("q", (), ("u",), frozenset(), ("u",), (), grades=grades)
    ends = [v for v in brute_query(case, 2, ("ndcg",), (0, 4))["ndcg"] if v is not None]
    every = [v for v in brute_query(case, 2, ("ndcg",), range(5))["ndcg"] if v is not None]
    assert min(every) < min(ends)
    assert query_delta(case, 2, ("ndcg",)).bound("ndcg").low == min(every)


def mismatches(mutate, monkeypatch, cases, examples=400) -> int:
    """Random graded cases (``cases(rng)``) where ``query_delta`` under ``mutate`` differs from brute force."""
    with monkeypatch.context() as patch:
        mutate(patch)
        rng = random.Random(7)
        found = 0
        for _ in range(examples):
            k, case = cases(rng)
            changes = brute_query(case, k, ("ndcg",), range(case.grades.top + 1))
            found += as_tuple(query_delta(case, k, ("ndcg",)).bound("ndcg")) != expected(changes["ndcg"])
        return found


def random_wide_case(rng: random.Random):
    """Two unjudged top-k documents, every other document judged on a scale of up to 7 grades:
    many judged grades, so which of them bend the ideal matters."""
    docs = [f"d{i}" for i in range(9)]
    top_grade = rng.randint(3, 6)
    k = rng.randint(1, 4)
    baseline, candidate = rng.sample(docs, rng.randint(0, 5)), rng.sample(docs, rng.randint(0, 5))
    top = tuple(dict.fromkeys((*baseline[:k], *candidate[:k])))[:2]
    judged = {d: rng.randint(0, top_grade) for d in docs if d not in top}
    relevant_from = rng.randint(1, top_grade)
    relevant = frozenset(d for d, g in judged.items() if g >= relevant_from)
    grades = JudgedGrades({d: g for d, g in judged.items() if g}, top_grade, relevant_from)
    return k, QueryCase("q", baseline, candidate, relevant, top, (), grades=grades)


def random_graded_case(rng: random.Random):
    """As ``graded_cases``; in half of them every judged grade is below relevant_from, so only
    an unjudged document can give the query a value."""
    top_grade = rng.randint(2, 4)
    relevant_from = rng.randint(1, top_grade)
    highest_judged = top_grade if rng.random() < 0.5 else relevant_from - 1
    k = rng.randint(1, 4)
    baseline, candidate = rng.sample(DOCS, rng.randint(0, 5)), rng.sample(DOCS, rng.randint(0, 5))
    in_top = list(dict.fromkeys((*baseline[:k], *candidate[:k])))
    judged = {d: rng.randint(0, highest_judged) for d in DOCS if rng.random() < 0.5}
    top = tuple(d for d in in_top if d not in judged)[:3]
    outside = tuple(d for d in DOCS if d not in in_top and d not in judged)[: rng.randint(0, 2)]
    judged |= {d: rng.randint(0, highest_judged) for d in DOCS if d not in judged and d not in top and d not in outside}
    relevant = frozenset(d for d, g in judged.items() if g >= relevant_from)
    grades = JudgedGrades({d: g for d, g in judged.items() if g}, top_grade, relevant_from)
    return k, QueryCase("q", baseline, candidate, relevant, top, outside, grades=grades)


def test_the_random_cases_agree_and_restricted_candidates_fail(monkeypatch):
    """Negative controls: the same random cases pass as they are, and fail when the candidate
    grades are only the lowest and the highest, when only the highest judged grade is kept of
    the judged ones (not those from the k-th highest up), or when the outside documents lose
    their "one at relevant_from" labelling."""
    assert mismatches(lambda patch: None, monkeypatch, random_graded_case) == 0
    assert mismatches(lambda patch: None, monkeypatch, random_wide_case, examples=3000) == 0
    ends_only = lambda g, k: (0, g.top)  # noqa: E731
    assert mismatches(
        lambda patch: patch.setattr(delta_bounds, "candidate_grades", ends_only), monkeypatch, random_graded_case
    )

    def highest_judged_only(grades, k):
        ends = {0, grades.relevant_from - 1, grades.relevant_from, grades.top}
        return tuple(sorted(ends | {max(grades.gains.values(), default=0)}))

    assert mismatches(
        lambda patch: patch.setattr(delta_bounds, "candidate_grades", highest_judged_only),
        monkeypatch,
        random_wide_case,
        examples=3000,
    )
    original = delta_bounds.graded_labellings

    def without_one_at_threshold(case, grades, k):
        ends = ({0}, {grades.top}, set())
        return [chosen for chosen in original(case, grades, k) if {chosen[d] for d in case.outside} in ends]

    assert mismatches(
        lambda patch: patch.setattr(delta_bounds, "graded_labellings", without_one_at_threshold),
        monkeypatch,
        random_graded_case,
    )


def test_too_many_grade_labellings_are_refused_in_one_line():
    from rankeval_tui.core.errors import ContractError

    top = tuple(f"u{i}" for i in range(8))
    case = QueryCase("q:7", top[:4], top[4:], frozenset(), top, grades=JudgedGrades({}, 3, 2))
    with pytest.raises(
        ContractError, match=r"graded nDCG@8 enumerate .*\(4 grades each: 0, 1, 2, 3\).* 65536 labellings"
    ):
        query_delta(case, 8, ("ndcg",))
    assert query_delta(case, 8, ("recall", "rr")).bound("recall").high == 1  # binary measures: no enumeration


# ---------------------------------------------------------------- whole protocols


def graded_protocol(pools, qrels, k, top_grade, relevant_from) -> Protocol:
    plain = pooled_protocol(pools, {q: dict.fromkeys(row, 0) for q, row in qrels.items()}, k)
    words = tuple(f"g{g}" for g in range(top_grade + 1))
    definition = dataclasses.replace(plain.definition, scale=LabelScale(words, relevant_from))
    return Protocol(definition, qrels)


def random_protocol(rng: random.Random, graded: bool):
    """Pools with some pairs not judged yet (holes) and runs whose top k leaves the pools (gaps)."""
    top_grade = rng.randint(2, 3) if graded else 1
    relevant_from = rng.randint(1, top_grade)
    k = rng.randint(1, 3)
    pools, labels, holes, runs = {}, {}, {}, ({}, {})
    for q in (f"q{i}" for i in range(rng.randint(1, 3))):
        pool = rng.sample(DOCS[:6], rng.randint(0, 4))
        judged = [d for d in pool if rng.random() < 0.7]
        pools[q] = judged
        labels[q] = {d: rng.randint(0, top_grade) for d in judged}
        holes[q] = [d for d in pool if d not in judged]
        for rankings in runs:
            if rng.random() < 0.85:
                rankings[q] = rng.sample(DOCS[:6], rng.randint(0, 4))
    return top_grade, relevant_from, k, pools, labels, holes, runs


def make(pools, labels, k, top_grade, relevant_from, graded):
    if graded:
        return graded_protocol(pools, labels, k, top_grade, relevant_from)
    return pooled_protocol(pools, labels, k)


def brute_force(pools, labels, unjudged, runs, k, top_grade, relevant_from, graded, metrics):
    """Every labelling of ``unjudged`` with every grade, the pools completed, each run scored:
    per run (and for the change b - a when both are given) the means' and rows' values."""
    names = (*runs, "change") if len(runs) == 2 else tuple(runs)
    means = {name: {m: [] for m in metrics} for name in names}
    rows = {name: {q: {m: [] for m in metrics} for q in pools} for name in names}
    for chosen in itertools.product(range(top_grade + 1), repeat=len(unjudged)):
        full_pools = {q: list(pool) for q, pool in pools.items()}
        full = {q: dict(row) for q, row in labels.items()}
        for (q, d), grade in zip(unjudged, chosen):
            full_pools[q].append(d)
            full[q][d] = grade
        protocol = make(full_pools, full, k, top_grade, relevant_from, graded)
        reports = {name: evaluate(protocol, run, metrics) for name, run in runs.items()}
        for m in metrics:
            for name, report in reports.items():
                means[name][m].append(report.mean(m))
                for row in report.rows:
                    rows[name][row.query][m].append(row.value(m))
            if "change" in names:
                old, new = reports["a"].mean(m), reports["b"].mean(m)
                means["change"][m].append(None if old is None else new - old)
                for row_a, row_b in zip(reports["a"].rows, reports["b"].rows):
                    va, vb = row_a.value(m), row_b.value(m)
                    rows["change"][row_a.query][m].append(None if va is None else vb - va)
    return means, rows


@pytest.mark.parametrize("graded", [True, False], ids=["graded", "binary"])
@pytest.mark.parametrize("seed", range(60))
def test_per_query_and_mean_bounds_equal_brute_force(seed, graded):
    """Per run (its holes and its own gap) and per change (the holes and both gaps, each pair
    labelled once), per query and for the mean: every grade labelling, the protocol completed
    and scored by the evaluator."""
    rng = random.Random(seed)
    top_grade, relevant_from, k, pools, labels, holes, (base, cand) = random_protocol(rng, graded)
    runs = {"a": Run("a", base), "b": Run("b", cand)}
    hole_pairs = [(q, d) for q in pools for d in holes[q]]

    def gap(*rankings):
        return [(q, d) for q in pools for r in rankings for d in r.get(q, [])[:k] if d not in pools[q]]

    unjudged = list(dict.fromkeys(hole_pairs + gap(base, cand)))
    if (top_grade + 1) ** len(unjudged) > 1024:
        pytest.skip("too many labellings for brute force")
    metrics = tuple(METRIC_IDS)
    setting = (k, top_grade, relevant_from, graded, metrics)
    judged = make(pools, labels, k, top_grade, relevant_from, graded)
    for name, run in runs.items():
        own = list(dict.fromkeys(hole_pairs + gap(run.rankings)))
        means, per_query = brute_force(pools, labels, own, {name: run}, *setting)
        result = bounds(judged, run, metrics, holes=holes)
        for m in metrics:
            assert as_tuple(result.mean(m)) == expected(means[name][m]), (name, m)
            for row in result.rows:
                assert as_tuple(row.bound(m)) == expected(per_query[name][row.query][m]), (name, row.query, m)
    means, per_query = brute_force(pools, labels, unjudged, runs, *setting)
    change = compare_bounds(judged, runs["a"], runs["b"], metrics, holes=holes)
    assert change.unjudged_pairs == len(unjudged)
    rows = {row.query: row for row in change.rows}
    for m in metrics:
        assert as_tuple(change.mean(m)) == expected(means["change"][m]), m
        for q in pools:
            if q in rows:
                assert as_tuple(rows[q].bound(m)) == expected(per_query["change"][q][m]), (q, m)
            else:  # never valued: no relevant document and nothing unjudged
                assert all(v is None for v in per_query["change"][q][m])
