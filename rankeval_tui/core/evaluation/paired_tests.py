"""The two paired tests on one candidate's per-query deltas: sign-flip randomization and bootstrap.

Split from ``stats`` (which combines them per metric and candidate, Holm-adjusts a family and
words the verdict) so each test reads on its own; the definitions they implement, and the
seeding rule, are in ``stats``' docstring and docs/scoring.md. Every function restarts its
generator from ``seed``, so a result depends only on its deltas and the seed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

from rankeval_tui.core.evaluation.draws import masked_sums, resampled_sums, same_length
from rankeval_tui.core.evaluation.evaluate import exact_fields

TestName = Literal["randomization", "bootstrap"]
TESTS: tuple[TestName, ...] = ("randomization", "bootstrap")
TEST_ALIASES: dict[str, TestName] = {
    "sign-flip": "randomization",
    "randomization": "randomization",
    "bootstrap": "bootstrap",
}

EXACT_MAX_N = 20
DEFAULT_SAMPLES = 10_000
MAX_SAMPLES = 1_000_000
"""The most draws asked for: every sample keeps one sum per candidate and metric, and at 10,000
queries 10,000 samples take about 0.7 s, so 1,000,000 is minutes and hundreds of MB; far beyond,
the draws ran out of memory (``--samples 99999999999``: numpy's ``_ArrayMemoryError``)."""
DEFAULT_SEED = 0
DEFAULT_ALPHA = Fraction(1, 20)


# ---------------------------------------------------------------- integer scaling


def scaled(deltas: Sequence[Fraction]) -> tuple[list[int], int]:
    """Deltas as integers over one common denominator, so every sum below is integer arithmetic
    (exact and fast) and comparisons of sums are exact: no float ties at the p-value boundary."""
    scale = 1
    for delta in deltas:
        scale = math.lcm(scale, delta.denominator)
    return [delta.numerator * (scale // delta.denominator) for delta in deltas], scale


# ---------------------------------------------------------------- sign-flip test


@dataclass(frozen=True)
class SignFlipResult:
    """A two-sided paired sign-flip randomization test."""

    p_value: Fraction
    method: Literal["exact", "monte-carlo"]
    assignments: int
    """2^n when exact; the number of random assignments drawn when Monte-Carlo."""
    seed: int | None
    """The seed of the Monte-Carlo draw; None when exact (nothing random)."""

    def to_json(self) -> dict[str, Any]:
        return {
            **exact_fields("p_value", self.p_value),
            "method": self.method,
            "assignments": self.assignments,
            "seed": self.seed,
        }


def sign_flip_exact(deltas: Sequence[Fraction]) -> SignFlipResult:
    """Exact p over all 2^n assignments, counted through the distribution of signed sums.

    Adding one delta at a time to a {sum: count} table is the same enumeration as listing the 2^n
    assignments, in at most 2^n table entries and usually far fewer (deltas repeat).
    """
    values, _ = scaled(deltas)
    observed = abs(sum(values))
    counts: dict[int, int] = {0: 1}
    for value in values:
        following: dict[int, int] = {}
        for total, count in counts.items():
            following[total + value] = following.get(total + value, 0) + count
            following[total - value] = following.get(total - value, 0) + count
        counts = following
    extreme = sum(count for total, count in counts.items() if abs(total) >= observed)
    assignments = 2 ** len(values)
    return SignFlipResult(Fraction(extreme, assignments), "exact", assignments, None)


def sign_flip_monte_carlo(deltas: Sequence[Fraction], samples: int, seed: int) -> SignFlipResult:
    """Seeded Monte-Carlo p for large n; (1 + extreme) / (1 + samples), see the module docstring."""
    return sign_flip_monte_carlo_many([deltas], samples, seed)[0]


def sign_flip_monte_carlo_many(
    delta_lists: Sequence[Sequence[Fraction]], samples: int, seed: int
) -> list[SignFlipResult]:
    """``sign_flip_monte_carlo`` of each list, each from its own ``random.Random(seed)``: lists of
    one length see the same random masks, so they are drawn once for all of them.

    A random n-bit mask (``getrandbits(n)``, bit i for delta i) picks the negated deltas: signed
    sum = total - 2 * (sum of masked deltas).
    """
    if samples < 1:
        raise ValueError("samples must be at least 1")
    scaled_lists = [scaled(deltas)[0] for deltas in delta_lists]
    results: list[SignFlipResult | None] = [None] * len(scaled_lists)
    for indices, vectors in same_length(scaled_lists).items():
        for index, values, negated in zip(indices, vectors, masked_sums(vectors, samples, seed)):
            total = sum(values)
            extreme = sum(1 for masked in negated if abs(total - 2 * masked) >= abs(total))
            results[index] = SignFlipResult(Fraction(1 + extreme, 1 + samples), "monte-carlo", samples, seed)
    return [result for result in results if result is not None]


def sign_flip_test(
    deltas: Sequence[Fraction],
    *,
    samples: int = DEFAULT_SAMPLES,
    seed: int = DEFAULT_SEED,
    exact_max_n: int = EXACT_MAX_N,
) -> SignFlipResult:
    """Exact when ``len(deltas) <= exact_max_n``, seeded Monte-Carlo otherwise."""
    return sign_flip_tests([deltas], samples=samples, seed=seed, exact_max_n=exact_max_n)[0]


def sign_flip_tests(
    delta_lists: Sequence[Sequence[Fraction]], *, samples: int, seed: int, exact_max_n: int
) -> list[SignFlipResult]:
    """``sign_flip_test`` of each list; the Monte-Carlo ones share their draws (``sign_flip_monte_carlo_many``)."""
    if any(not deltas for deltas in delta_lists):
        raise ValueError("no paired deltas: nothing to test")
    large = [i for i, deltas in enumerate(delta_lists) if len(deltas) > exact_max_n]
    drawn = dict(zip(large, sign_flip_monte_carlo_many([delta_lists[i] for i in large], samples, seed)))
    return [drawn[i] if i in drawn else sign_flip_exact(deltas) for i, deltas in enumerate(delta_lists)]


# ---------------------------------------------------------------- bootstrap


@dataclass(frozen=True)
class BootstrapResult:
    """Percentile interval of the mean delta and a two-sided bootstrap p, from one seeded draw."""

    low: Fraction
    high: Fraction
    confidence: Fraction
    p_value: Fraction
    samples: int
    seed: int

    def to_json(self) -> dict[str, Any]:
        return {
            **exact_fields("ci_low", self.low),
            **exact_fields("ci_high", self.high),
            **exact_fields("confidence", self.confidence),
            **exact_fields("p_value", self.p_value),
            "samples": self.samples,
            "seed": self.seed,
        }


def bootstrap(
    deltas: Sequence[Fraction],
    *,
    samples: int = DEFAULT_SAMPLES,
    seed: int = DEFAULT_SEED,
    alpha: Fraction = DEFAULT_ALPHA,
) -> BootstrapResult:
    """Paired bootstrap of the mean delta (definitions in the module docstring)."""
    return bootstraps([deltas], samples=samples, seed=seed, alpha=alpha)[0]


def bootstraps(
    delta_lists: Sequence[Sequence[Fraction]], *, samples: int, seed: int, alpha: Fraction
) -> list[BootstrapResult]:
    """``bootstrap`` of each list, each from its own ``random.Random(seed)``: lists of one length
    resample the same positions, so the draws are made once for all of them."""
    if any(not deltas for deltas in delta_lists):
        raise ValueError("no paired deltas: nothing to resample")
    if samples < 1:
        raise ValueError("samples must be at least 1")
    if not 0 < alpha < 1:
        raise ValueError("alpha must be between 0 and 1")
    scaled_lists = [scaled(deltas) for deltas in delta_lists]
    results: list[BootstrapResult | None] = [None] * len(scaled_lists)
    low_index = math.floor(samples * alpha / 2)
    high_index = max(low_index, math.ceil(samples * (1 - alpha / 2)) - 1)
    groups = same_length([values for values, _ in scaled_lists])
    for indices, vectors in groups.items():
        for index, values, unsorted in zip(indices, vectors, resampled_sums(vectors, samples, seed)):
            # Sums of n draws; mean_b = sum_b / (n * scale). Comparing sums is comparing means.
            sums = sorted(unsorted)
            total = sum(values)
            extreme = sum(1 for s in sums if abs(s - total) >= abs(total))
            denominator = len(values) * scaled_lists[index][1]
            results[index] = BootstrapResult(
                low=Fraction(sums[low_index], denominator),
                high=Fraction(sums[high_index], denominator),
                confidence=1 - alpha,
                p_value=Fraction(1 + extreme, 1 + samples),
                samples=samples,
                seed=seed,
            )
    return [result for result in results if result is not None]
