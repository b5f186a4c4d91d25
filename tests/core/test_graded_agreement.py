"""Agreement on graded scales and on partial files: the grade matrix, weighted kappa (linear,
quadratic) and binary kappa at relevant_from, checked against scikit-learn on the real
disagreements of two Cystic Fibrosis judges (grades 0-2) and on random grades; the overlap of
partial files."""

from __future__ import annotations

import random
import warnings
from fractions import Fraction
from pathlib import Path

import pytest

from rankeval_tui.cli.agree import render_agreement
from rankeval_tui.core.annotation.agreement import Confusion, agreement
from rankeval_tui.core.annotation.grades import BINARY, GradeCounts, Scale
from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.evaluation.protocol import ProtocolDefinition, Query
from rankeval_tui.core.files import QrelsFile

CF = Path(__file__).resolve().parents[1] / "data" / "cf_judges"
GRADED = Scale(top=2, relevant_from=1)


def read_judge(name: str) -> dict[str, dict[str, int]]:
    labels: dict[str, dict[str, int]] = {}
    for line in (CF / name).read_text(encoding="utf-8").splitlines():
        query, _, doc, grade = line.split()
        labels.setdefault(query, {})[doc] = int(grade)
    return labels


@pytest.fixture(scope="module")
def judges() -> tuple[dict, dict]:
    return read_judge("judge1.qrels"), read_judge("judge2.qrels")


@pytest.fixture(scope="module")
def cf_definition(judges) -> ProtocolDefinition:
    """The CF queries as a pooled protocol: each query's pool is the documents its judges listed."""
    one, _ = judges
    documents = {doc: f"CF document {doc}" for row in one.values() for doc in row}
    return ProtocolDefinition(
        name="cf-judges",
        k=10,
        split="test",
        relevance="graded 0-2 by four judges",
        documents=documents,
        queries={q: Query(f"CF query {q}", "test") for q in one},
        pools={q: tuple(row) for q, row in one.items()},
        pool_rule="the documents the CF judges listed",
    )


def sklearn_kappa(a: list[int], b: list[int], weights: str | None, labels: list[int]) -> float:
    metrics = pytest.importorskip("sklearn.metrics")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(metrics.cohen_kappa_score(a, b, labels=labels, weights=weights))


def flat(judges: tuple[dict, dict], queries=None) -> tuple[list[int], list[int]]:
    one, two = judges
    pairs = [(one[q][d], two[q][d]) for q in one if queries is None or q in queries for d in one[q]]
    return [a for a, _ in pairs], [b for _, b in pairs]


# ---------------------------------------------------------------- Cystic Fibrosis judges


def test_cf_judges_weighted_kappa_matches_scikit_learn(judges, cf_definition):
    result = agreement(cf_definition, QrelsFile(judges[0]), QrelsFile(judges[1]), ("judge 1", "judge 2"), scale=GRADED)
    a, b = flat(judges)
    assert result.grades is not None and result.grades.pairs == len(a) == 4819
    assert result.coverage is None  # both complete: every pair compared
    for weighting, weights in (("unweighted", None), ("linear", "linear"), ("quadratic", "quadratic")):
        ours = result.grades.kappa(weighting)
        assert ours is not None
        assert float(ours) == pytest.approx(sklearn_kappa(a, b, weights, [0, 1, 2]), abs=1e-12), weighting
    binary = [int(x >= 1) for x in a], [int(x >= 1) for x in b]
    assert result.overall.kappa is not None
    assert float(result.overall.kappa) == pytest.approx(sklearn_kappa(*binary, None, [0, 1]), abs=1e-12)
    at_two = Confusion.at_threshold(GradeCounts.total(Scale(2, 2), [GradeCounts(Scale(2, 2), result.grades.counts)]))
    assert at_two.kappa is not None
    high = [int(x >= 2) for x in a], [int(x >= 2) for x in b]
    assert float(at_two.kappa) == pytest.approx(sklearn_kappa(*high, None, [0, 1]), abs=1e-12)
    # Real judges disagree, and the disagreements list holds every pair whose grades differ.
    assert len(result.disagreements) == sum(x != y for x, y in zip(a, b)) > 500


def test_cf_judges_per_query_weighted_kappa_matches_scikit_learn(judges, cf_definition):
    result = agreement(cf_definition, QrelsFile(judges[0]), QrelsFile(judges[1]), scale=GRADED)
    assert result.per_query_grades is not None
    checked = undefined = 0
    for query, grades in result.per_query_grades.items():
        a, b = flat(judges, {query})
        for weighting, weights in (("linear", "linear"), ("quadratic", "quadratic")):
            theirs = sklearn_kappa(a, b, weights, [0, 1, 2])
            ours = grades.kappa(weighting)
            if ours is None:
                undefined += 1
                assert theirs != theirs, (query, a, b)  # NaN exactly where ours is undefined
            else:
                checked += 1
                assert float(ours) == pytest.approx(theirs, abs=1e-12), (query, weighting)
    assert checked > 150


def test_cf_grade_matrix_counts_each_pair_once(judges, cf_definition):
    result = agreement(cf_definition, QrelsFile(judges[0]), QrelsFile(judges[1]), scale=GRADED)
    a, b = flat(judges)
    assert result.grades is not None
    for x in range(3):
        for y in range(3):
            assert result.grades.counts[x][y] == sum(1 for p, q in zip(a, b) if (p, q) == (x, y))


def test_cf_judges_rendered_with_grades_and_weighted_kappa(judges, cf_definition):
    result = agreement(cf_definition, QrelsFile(judges[0]), QrelsFile(judges[1]), ("judge 1", "judge 2"), scale=GRADED)
    text = render_agreement(result)
    assert result.grades is not None
    linear = result.grades.kappa("linear")
    assert linear is not None
    assert f"linear {linear} ({float(linear):.4f})" in text
    assert "binary at relevant_from 1 (grade >= 1 is 1):" in text
    assert "linear" in text.split("per query")[1].splitlines()[1]
    assert any(line.split()[:4] == ["A=2", *map(str, result.grades.counts[2][:3])] for line in text.splitlines())


# ---------------------------------------------------------------- weighted kappa by hand and at random


def test_weighted_kappa_by_hand():
    # A: 0,0,1,2   B: 0,1,1,0 on 0..2. Totals A (2,1,1), B (2,2,0); n = 4.
    # linear: observed sum w = |0-1| + |2-0| = 3; expected sum w*a_i*b_j =
    # a0:(0*2 + 1*2 + 2*0) = 2 -> *2 = 4; a1:(1*2 + 0 + 1*0) = 2 -> *1 = 2; a2:(2*2 + 1*2 + 0) = 6 -> *1 = 6; 12.
    # kappa = 1 - 4 * 3 / 12 = 0.
    grades = GradeCounts.of(Scale(2, 1), [(0, 0), (0, 1), (1, 1), (2, 0)])
    assert grades.kappa("linear") == 0
    # quadratic: observed 1 + 4 = 5; expected a0: 0+2+0=2 ->4; a1: 2 ->2; a2: 4*2+1*2=10 ->10; 16 -> 1 - 20/16 = -1/4.
    assert grades.kappa("quadratic") == Fraction(-1, 4)


def test_weighted_kappa_undefined_when_everyone_gave_one_grade():
    grades = GradeCounts.of(Scale(3, 2), [(2, 2)] * 5)
    assert all(grades.kappa(w) is None for w in ("unweighted", "linear", "quadratic"))
    assert GradeCounts.of(Scale(3, 2), []).kappa("linear") is None


def test_binary_scale_weighted_kappa_is_cohens_kappa():
    rng = random.Random(7)
    for _ in range(50):
        pairs = [(rng.randint(0, 1), rng.randint(0, 1)) for _ in range(rng.randint(2, 30))]
        grades = GradeCounts.of(BINARY, pairs)
        assert grades.kappa("linear") == grades.kappa("quadratic") == Confusion.of(pairs).kappa


def test_weighted_kappa_matches_scikit_learn_on_random_grades():
    rng = random.Random(20261207)
    checked = 0
    for trial in range(300):
        top = rng.randint(2, 4)
        n = rng.randint(1, 60)
        a = [rng.randint(0, top) for _ in range(n)]
        b = [x if rng.random() < 0.6 else rng.randint(0, top) for x in a]
        grades = GradeCounts.of(Scale(top, 1), zip(a, b))
        for weighting, weights in (("unweighted", None), ("linear", "linear"), ("quadratic", "quadratic")):
            theirs = sklearn_kappa(a, b, weights, list(range(top + 1)))
            ours = grades.kappa(weighting)
            if ours is None:
                assert theirs != theirs, (trial, a, b)
            else:
                checked += 1
                assert float(ours) == pytest.approx(theirs, abs=1e-12), (trial, weighting, a, b)
    assert checked > 800


def test_scale_rules():
    with pytest.raises(ContractError, match="relevant_from must be an integer in 1..3"):
        Scale(3, 4)
    with pytest.raises(ContractError, match="top grade"):
        Scale(0, 1)


def test_a_grade_above_the_scale_is_refused_naming_the_pair(judges, cf_definition):
    one = {q: dict(row) for q, row in judges[0].items()}
    one["1"]["139"] = 3
    with pytest.raises(ContractError, match=r"query '1', document '139': label 3 is not a grade of the scale 0\.\.2"):
        agreement(cf_definition, QrelsFile(one), QrelsFile(judges[1]), scale=GRADED)


# ---------------------------------------------------------------- partial files: the overlap


def test_partial_files_are_compared_on_their_overlap(judges, cf_definition):
    one, two = judges
    queries = list(one)
    a = QrelsFile({q: one[q] for q in queries[:60]}, provenance={"partial": True})
    b = QrelsFile({q: two[q] for q in queries[40:]}, provenance={"partial": True})
    result = agreement(cf_definition, a, b, scale=GRADED)
    overlap = set(queries[40:60])
    assert set(result.per_query) == overlap
    x, y = flat(judges, overlap)
    assert result.coverage is not None
    assert result.coverage.overlap == len(x)
    assert result.coverage.only == (
        sum(len(one[q]) for q in queries[:40]),
        sum(len(two[q]) for q in queries[60:]),
    )
    assert result.coverage.partial == (True, True)
    assert result.grades is not None
    linear = result.grades.kappa("linear")
    assert linear is not None and float(linear) == pytest.approx(sklearn_kappa(x, y, "linear", [0, 1, 2]), abs=1e-12)


def test_complete_files_with_different_coverage_still_refused(judges, cf_definition):
    one, two = judges
    a = QrelsFile({q: one[q] for q in list(one)[:60]})
    with pytest.raises(ContractError, match="differ in coverage"):
        agreement(cf_definition, a, QrelsFile(two), scale=GRADED)
