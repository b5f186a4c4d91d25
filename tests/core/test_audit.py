"""Audit samples and kappa's bootstrap interval: the interval against a plain resampling of the
pairs (on two real Cystic Fibrosis judges), reproducible from its seed; the sample seeded."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from rankeval_tui.core.annotation.agreement import Confusion
from rankeval_tui.core.annotation.audit import binary_matrix, kappa_interval
from rankeval_tui.core.annotation.grades import GradeCounts, Scale

CF = Path(__file__).resolve().parents[1] / "data" / "cf_judges"


def judge_pairs(limit: int) -> list[tuple[int, int]]:
    one = (CF / "judge1.qrels").read_text(encoding="utf-8").splitlines()
    two = (CF / "judge2.qrels").read_text(encoding="utf-8").splitlines()
    return [(int(a.split()[3]), int(b.split()[3])) for a, b in zip(one, two, strict=True)][:limit]


def plain_bootstrap(
    pairs: list[tuple[int, int]], weighting: str, seed: int, samples: int = 2000
) -> tuple[float, float]:
    """Resample the pairs themselves with replacement and take the 2.5th and 97.5th percentiles."""
    rng = random.Random(seed)
    values = []
    for _ in range(samples):
        value = GradeCounts.of(Scale(2, 1), rng.choices(pairs, k=len(pairs))).kappa(weighting)
        if value is not None:
            values.append(float(value))
    values.sort()
    return values[int(0.025 * (len(values) - 1))], values[int(0.975 * (len(values) - 1))]


@pytest.mark.parametrize("weighting", ["linear", "quadratic"])
def test_interval_agrees_with_a_plain_bootstrap_of_the_pairs(weighting):
    pairs = judge_pairs(300)
    grades = GradeCounts.of(Scale(2, 1), pairs)
    low, high = kappa_interval(grades, weighting, seed=5)  # type: ignore[misc]
    point = float(grades.kappa(weighting))  # type: ignore[arg-type]
    assert low < point < high
    plain_low, plain_high = plain_bootstrap(pairs, weighting, seed=5)
    assert low == pytest.approx(plain_low, abs=0.03) and high == pytest.approx(plain_high, abs=0.03)


def test_interval_is_reproducible_and_narrows_with_more_pairs():
    small = GradeCounts.of(Scale(2, 1), judge_pairs(100))
    large = GradeCounts.of(Scale(2, 1), judge_pairs(3000))
    assert kappa_interval(small, "linear", seed=1) == kappa_interval(small, "linear", seed=1)
    assert kappa_interval(small, "linear", seed=1) != kappa_interval(small, "linear", seed=2)
    small_low, small_high = kappa_interval(small, "linear", seed=1)  # type: ignore[misc]
    large_low, large_high = kappa_interval(large, "linear", seed=1)  # type: ignore[misc]
    assert large_high - large_low < (small_high - small_low) / 3


def test_binary_kappa_is_the_folded_matrix_unweighted():
    grades = GradeCounts.of(Scale(2, 2), judge_pairs(500))
    folded = binary_matrix(grades)
    assert folded.kappa("unweighted") == Confusion.at_threshold(grades).kappa


def test_no_interval_for_one_label_everywhere():
    assert kappa_interval(GradeCounts.of(Scale(), [(1, 1)] * 10), "unweighted", seed=0) is None
