"""Orderings of runs under two label sets: Kendall's tau-b against scipy, tau_AP against a
brute-force reading of its definition, order changes and per-query changes from the evaluator."""

from __future__ import annotations

import itertools
import random
import warnings
from fractions import Fraction

import pytest

from rankeval_tui.core.annotation.label_rankings import KendallTau, tau_ap


def scipy_tau(a: list[Fraction], b: list[Fraction]) -> float:
    stats = pytest.importorskip("scipy.stats")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(stats.kendalltau([float(x) for x in a], [float(x) for x in b]).statistic)


def test_kendall_tau_b_matches_scipy_with_and_without_ties():
    rng = random.Random(43)
    exact = decimal = undefined = 0
    for trial in range(400):
        n = rng.randint(2, 9)
        levels = rng.choice([3, 5, 1000])  # few levels: many ties; 1000: almost none
        a = [Fraction(rng.randint(0, levels), levels) for _ in range(n)]
        b = [x if rng.random() < 0.5 else Fraction(rng.randint(0, levels), levels) for x in a]
        ours, theirs = KendallTau.of(a, b).value, scipy_tau(a, b)
        if ours is None:
            undefined += 1
            assert theirs != theirs, (trial, a, b)
            continue
        exact += isinstance(ours, Fraction)
        decimal += not isinstance(ours, Fraction)
        assert float(ours) == pytest.approx(theirs, abs=1e-12), (trial, a, b)
    assert exact > 100 and decimal > 50 and undefined > 0


def brute_tau_ap(reference: dict[str, Fraction], candidate: dict[str, Fraction]) -> Fraction:
    """Yilmaz et al.'s reading: pick a run i (not the first) of the candidate's order uniformly,
    then a run j above it uniformly; tau_AP = 2 * P(the reference also puts j above i) - 1."""
    order = sorted(candidate, key=lambda run: (-candidate[run], run))
    n = len(order)
    probability = Fraction(0)
    for i in range(1, n):
        for j in range(i):
            if reference[order[j]] > reference[order[i]]:
                probability += Fraction(1, (n - 1) * i)
    return 2 * probability - 1


def test_tau_ap_by_hand():
    reference = {"r1": Fraction(3), "r2": Fraction(2), "r3": Fraction(1)}
    assert tau_ap(reference, dict(reference)) == 1
    assert tau_ap(reference, {"r1": Fraction(1), "r2": Fraction(2), "r3": Fraction(3)}) == -1
    # A swap at the top costs more than one at the bottom (Kendall's tau is 1/3 for both).
    assert tau_ap(reference, {"r1": Fraction(2), "r2": Fraction(3), "r3": Fraction(1)}) == 0
    assert tau_ap(reference, {"r1": Fraction(3), "r2": Fraction(1), "r3": Fraction(2)}) == Fraction(1, 2)


def test_tau_ap_matches_brute_force_on_every_permutation_of_five_runs():
    runs = ["a", "b", "c", "d", "e"]
    reference = {run: Fraction(5 - i) for i, run in enumerate(runs)}
    seen = set()
    for permutation in itertools.permutations(range(5)):
        candidate = {run: Fraction(p) for run, p in zip(runs, permutation)}
        value = tau_ap(reference, candidate)
        assert value == brute_tau_ap(reference, candidate), permutation
        seen.add(value)
    assert len(seen) > 20


def test_tau_ap_matches_brute_force_with_ties():
    rng = random.Random(2008)
    for _ in range(300):
        runs = [f"r{i}" for i in range(rng.randint(2, 8))]
        reference = {run: Fraction(rng.randint(0, 3)) for run in runs}
        candidate = {run: Fraction(rng.randint(0, 3)) for run in runs}
        assert tau_ap(reference, candidate) == brute_tau_ap(reference, candidate)
