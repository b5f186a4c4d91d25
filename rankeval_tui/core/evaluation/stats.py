"""Paired significance of a candidate run against a baseline, per query, for each compared metric.

A better mean on a few dozen queries can be luck. This module answers "is the difference real?"
from the evaluator's per-query numbers (a ``Comparison``); it never recomputes a metric.

Definitions (the README's "Comparing runs" states the same, and the tests check them):

* The sample is the **eligible** queries of the split (at least one relevant document), paired:
  ``d_i = candidate_i - baseline_i`` as an exact Fraction. ``n`` is their number. Queries without
  a relevant document have no score (null) and are not in the sample. Zero deltas **stay** in the
  sample: they count in ``n``, in the mean and in the ties.
* Mean delta ``m = (sum d_i) / n``, exact.
* Sign-flip randomization test (paired, two-sided). Under the null hypothesis each d_i is as
  likely to be +|d_i| as -|d_i|. Over the 2^n sign assignments s,
  ``p = #{s : |sum s_i d_i| >= |sum d_i|} / 2^n``; the observed assignment is one of them, so
  ``p >= 1/2^(n-1)`` when ``m != 0`` and ``p = 1`` when ``m == 0``. Flipping a zero delta changes
  nothing, so zeros double numerator and denominator alike: p is the same with them dropped.
  Exact (p a Fraction over 2^n) when ``n <= exact_max_n`` (20); otherwise Monte-Carlo with
  ``samples`` uniformly random assignments from ``random.Random(seed)``:
  ``p = (1 + #{samples with |sum| >= |observed sum|}) / (1 + samples)`` (the observed assignment
  counted once, so p is never 0 and the test stays valid).
* Paired bootstrap: ``samples`` resamples of the n deltas with replacement from
  ``random.Random(seed)``; the mean of each. Percentile interval at ``confidence = 1 - alpha``:
  with the B resampled means sorted ascending (0-based), ``low`` is element ``floor(B*alpha/2)``
  and ``high`` element ``ceil(B*(1-alpha/2)) - 1``. Bootstrap p (two-sided, the resampled means
  shifted to the null): ``p = (1 + #{b : |mean_b - m| >= |m|}) / (1 + B)``.
* Holm step-down across the candidates that face one baseline, separately per metric: with the
  family's p sorted ascending ``p_(1) <= ... <= p_(m)``,
  ``adj_(i) = max_{j <= i} min(1, (m - j + 1) * p_(j))``.
* "Significantly lower": mean delta < 0 and adjusted p <= alpha.

Every test restarts ``random.Random(seed)``, so one candidate's result depends only on its own
deltas and the seed, never on the other candidates or their order.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any, Literal

from rankeval_tui.core.evaluation.compare import METRIC_LABELS, Comparison, Metric
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


# ---------------------------------------------------------------- Holm


def holm(p_values: Sequence[Fraction]) -> list[Fraction]:
    """Holm step-down adjusted p-values, in the order given (ties keep their order)."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted: list[Fraction] = [Fraction(0)] * m
    running = Fraction(0)
    for rank, index in enumerate(order):
        running = max(running, min(Fraction(1), (m - rank) * Fraction(p_values[index])))
        adjusted[index] = running
    return adjusted


# ---------------------------------------------------------------- per comparison


@dataclass(frozen=True)
class MetricStatistics:
    """Everything the views show for one metric of one candidate against the baseline."""

    metric: Metric
    n: int
    mean_delta: Fraction | None
    win: int
    tie: int
    loss: int
    losses: tuple[tuple[str, Fraction], ...]
    """(query, delta) for every query that got worse, most negative first."""
    sign_flip: SignFlipResult | None
    bootstrap: BootstrapResult | None
    test: TestName
    p_value: Fraction | None
    """The chosen test's p (sign-flip or bootstrap); None when n == 0."""
    p_holm: Fraction | None = None
    """Holm-adjusted p across the candidates facing the same baseline (equals p_value for one)."""

    @property
    def worst_query(self) -> str | None:
        return self.losses[0][0] if self.losses else None

    @property
    def worst_delta(self) -> Fraction | None:
        return self.losses[0][1] if self.losses else None

    def significant(self, alpha: Fraction) -> bool:
        return self.p_holm is not None and self.p_holm <= alpha

    def significantly_lower(self, alpha: Fraction) -> bool:
        return self.significant(alpha) and self.mean_delta is not None and self.mean_delta < 0

    def to_json(self, alpha: Fraction) -> dict[str, Any]:
        return {
            "n": self.n,
            "worst_query": self.worst_query,
            **exact_fields("worst_delta", self.worst_delta),
            "test": self.test,
            **exact_fields("p_value", self.p_value),
            **exact_fields("p_holm", self.p_holm),
            "significant": self.significant(alpha),
            "sign_flip": None if self.sign_flip is None else self.sign_flip.to_json(),
            "bootstrap": None if self.bootstrap is None else self.bootstrap.to_json(),
        }

    def summary(self, alpha: Fraction, k: int | None = None, fractions: bool = True) -> str:
        """One line for the table, Markdown and the scoring screen (``k`` names the cutoff);
        without ``fractions`` the exact p and the interval's ends are decimals only (nDCG's fractions are long)."""
        show = exact_decimal if fractions else decimal
        label = METRIC_LABELS[self.metric] if k is None else METRIC_LABELS[self.metric].replace("@k", f"@{k}")
        if self.n == 0 or (self.sign_flip is None and self.bootstrap is None):
            return f"{label}: no eligible queries, no test"
        parts = [f"n = {self.n}"]
        if (sf := self.sign_flip) is not None:
            parts.append(
                f"sign-flip p = {show(sf.p_value)} (exact, {sf.assignments} assignments)"
                if sf.method == "exact"
                else f"sign-flip p = {decimal(sf.p_value)} (Monte-Carlo, {sf.assignments} samples, seed {sf.seed})"
            )
        if (bs := self.bootstrap) is not None:
            parts.append(
                f"bootstrap {percent(bs.confidence)} CI of the mean delta [{show(bs.low)}, "
                f"{show(bs.high)}] (p = {decimal(bs.p_value)}, {bs.samples} resamples, seed {bs.seed})"
            )
        verdict = "significant" if self.significant(alpha) else "not significant"
        parts.append(f"Holm-adjusted {self.test} p = {decimal(self.p_holm)}: {verdict} at alpha {short(alpha)}")
        return f"{label}: " + "; ".join(parts)


@dataclass(frozen=True)
class CandidateStatistics:
    """One candidate against the baseline: statistics per metric."""

    baseline: str
    candidate: str
    metrics: Mapping[Metric, MetricStatistics]


@dataclass(frozen=True)
class PairedStatistics:
    """The statistics of every comparison against one baseline, with the settings that made them."""

    test: TestName
    seed: int
    samples: int
    alpha: Fraction
    exact_max_n: int
    candidates: tuple[CandidateStatistics, ...] = field(default=())

    def get(self, candidate: str) -> CandidateStatistics | None:
        return next((c for c in self.candidates if c.candidate == candidate), None)

    def settings_json(self) -> dict[str, Any]:
        return {
            "test": self.test,
            "seed": self.seed,
            "samples": self.samples,
            **exact_fields("alpha", self.alpha),
            "exact_max_n": self.exact_max_n,
            "holm_family": "candidates against the one baseline, per metric",
        }


def metric_statistics(
    comparison: Comparison,
    metric: Metric,
    *,
    test: TestName,
    seed: int,
    samples: int,
    alpha: Fraction,
    exact_max_n: int,
    tests: tuple[SignFlipResult | None, BootstrapResult | None] | None = None,
    paired: Sequence[tuple[str, Fraction]] | None = None,
) -> MetricStatistics:
    """The statistics of one metric of one comparison, before Holm (p_holm = p_value).
    ``tests`` and ``paired``: the two tests' results and ``paired_deltas`` when computed
    beforehand for a whole family (``paired_statistics``)."""
    paired = paired_deltas(comparison, metric) if paired is None else paired
    deltas = [delta for _, delta in paired]
    counts = outcome_counts(deltas)
    losses = tuple(sorted(((q, d) for q, d in paired if d < 0), key=lambda pair: pair[1]))
    if tests is not None:
        sign, boot = tests
    else:
        sign = sign_flip_test(deltas, samples=samples, seed=seed, exact_max_n=exact_max_n) if deltas else None
        boot = bootstrap(deltas, samples=samples, seed=seed, alpha=alpha) if deltas else None
    chosen = sign if test == "randomization" else boot
    p = None if chosen is None else chosen.p_value
    return MetricStatistics(
        metric=metric,
        n=len(deltas),
        mean_delta=sum(deltas, Fraction(0)) / len(deltas) if deltas else None,
        win=counts["win"],
        tie=counts["tie"],
        loss=counts["loss"],
        losses=losses,
        sign_flip=sign,
        bootstrap=boot,
        test=test,
        p_value=p,
        p_holm=p,
    )


def paired_deltas(comparison: Comparison, metric: Metric) -> list[tuple[str, Fraction]]:
    """(query, candidate - baseline) for every query both runs score on ``metric``."""
    return [(row.query, delta) for row in comparison.rows if (delta := row.delta(metric)) is not None]


def outcome_counts(deltas: Sequence[Fraction]) -> dict[str, int]:
    """``Comparison.counts`` from the paired deltas already at hand (win > 0, loss < 0, tie 0)."""
    win = sum(1 for d in deltas if d > 0)
    loss = sum(1 for d in deltas if d < 0)
    return {"win": win, "tie": len(deltas) - win - loss, "loss": loss}


def family_tests(
    paired: Mapping[tuple[int, Metric], Sequence[tuple[str, Fraction]]],
    *,
    tests: Sequence[TestName],
    seed: int,
    samples: int,
    alpha: Fraction,
    exact_max_n: int,
) -> dict[tuple[int, Metric], tuple[SignFlipResult | None, BootstrapResult | None]]:
    """The ``tests`` of every (comparison, metric) of ``paired`` (its ``paired_deltas``) at once,
    so lists of one length share draws; a test not asked for is None (its draws are seconds at
    10,000 queries)."""
    deltas = {key: [d for _, d in pairs] for key, pairs in paired.items()}
    tested = [key for key in deltas if deltas[key]]
    lists = [deltas[key] for key in tested]
    signs: list[SignFlipResult | None] = [None] * len(lists)
    boots: list[BootstrapResult | None] = [None] * len(lists)
    if "randomization" in tests:
        signs = list(sign_flip_tests(lists, samples=samples, seed=seed, exact_max_n=exact_max_n))
    if "bootstrap" in tests:
        boots = list(bootstraps(lists, samples=samples, seed=seed, alpha=alpha))
    found = {key: (sign, boot) for key, sign, boot in zip(tested, signs, boots)}
    return {key: found.get(key, (None, None)) for key in deltas}


def paired_statistics(
    comparisons: Comparison | Sequence[Comparison],
    *,
    test: str = "randomization",
    seed: int = DEFAULT_SEED,
    samples: int = DEFAULT_SAMPLES,
    alpha: Fraction = DEFAULT_ALPHA,
    exact_max_n: int = EXACT_MAX_N,
    both: bool = True,
) -> PairedStatistics:
    """Statistics of each candidate against the shared baseline, Holm-adjusted per metric.

    This is the one entry point for every view (CLI table/JSON/Markdown and the scoring screen).
    ``both``: compute the other test too, for views that show both (the scoring screen shows
    the sign-flip p beside the bootstrap interval); otherwise only ``test`` is computed.
    """
    if isinstance(comparisons, Comparison):
        comparisons = [comparisons]
    if test not in TEST_ALIASES:
        raise ValueError(f"unknown test {test!r} (known: {', '.join(TEST_ALIASES)})")
    chosen = TEST_ALIASES[test]
    alpha = Fraction(alpha)
    baselines = {c.baseline.run for c in comparisons}
    if len(baselines) > 1:
        raise ValueError("Holm correction needs one baseline; got " + ", ".join(sorted(baselines)))
    wanted = TESTS if both else (chosen,)
    paired = {(i, metric): paired_deltas(c, metric) for i, c in enumerate(comparisons) for metric in c.metrics}
    tests = family_tests(paired, tests=wanted, seed=seed, samples=samples, alpha=alpha, exact_max_n=exact_max_n)
    per_candidate = [
        {
            metric: metric_statistics(
                c,
                metric,
                test=chosen,
                seed=seed,
                samples=samples,
                alpha=alpha,
                exact_max_n=exact_max_n,
                tests=tests[(i, metric)],
                paired=paired[(i, metric)],
            )
            for metric in c.metrics
        }
        for i, c in enumerate(comparisons)
    ]
    for metric in metrics_of(comparisons):
        family = {
            i: p
            for i, stats in enumerate(per_candidate)
            if metric in stats and (p := stats[metric].p_value) is not None
        }
        adjusted = holm(list(family.values()))
        for i, p in zip(family, adjusted):
            old = per_candidate[i][metric]
            per_candidate[i][metric] = replace(old, p_holm=p)
    return PairedStatistics(
        test=chosen,
        seed=seed,
        samples=samples,
        alpha=alpha,
        exact_max_n=exact_max_n,
        candidates=tuple(
            CandidateStatistics(c.baseline.run, c.candidate.run, stats) for c, stats in zip(comparisons, per_candidate)
        ),
    )


def metrics_of(comparisons: Sequence[Comparison]) -> tuple[Metric, ...]:
    """Every metric some comparison compares, in first-seen order (one Holm family each)."""
    return tuple(dict.fromkeys(metric for c in comparisons for metric in c.metrics))


# ---------------------------------------------------------------- regression gate


def regression_failures(
    statistics: PairedStatistics, *, alpha: Fraction | None = None, max_query_drop: Fraction | None = None
) -> list[str]:
    """Reasons a CI gate fails: a candidate significantly lower (Holm-adjusted p <= alpha with a
    negative mean delta), or one query dropping by more than ``max_query_drop`` on any metric."""
    alpha = statistics.alpha if alpha is None else Fraction(alpha)
    failures: list[str] = []
    for cand in statistics.candidates:
        for metric, stats in cand.metrics.items():
            label = METRIC_LABELS[metric]
            if stats.significantly_lower(alpha):
                failures.append(
                    f"regression: run {cand.candidate!r} {label} mean delta {stats.mean_delta} "
                    f"({decimal(stats.mean_delta)}) vs baseline {cand.baseline!r} is significantly lower: "
                    f"{stats.test} p (Holm) = {stats.p_holm} ({decimal(stats.p_holm)}) <= alpha {short(alpha)}"
                )
            if max_query_drop is None:
                continue
            for query, delta in stats.losses:
                if -delta > max_query_drop:
                    failures.append(
                        f"regression: run {cand.candidate!r} {label} on query {query!r} dropped by {-delta} "
                        f"({decimal(-delta)}) vs baseline {cand.baseline!r}, more than --max-query-drop "
                        f"{short(Fraction(max_query_drop))}"
                    )
    return failures


# ---------------------------------------------------------------- display helpers


def decimal(value: Fraction | None, places: int = 4) -> str:
    """A p-value or delta for reading; the exact fraction is in the JSON."""
    if value is None:
        return "n/a"
    if value.denominator == 1:
        return str(value.numerator)
    return f"{float(value):.{places}f}"


def exact_decimal(value: Fraction) -> str:
    """``3/4 = 0.7500``, or ``1`` when whole: exact first, the decimal only to read."""
    return str(value) if value.denominator == 1 else f"{value} = {decimal(value)}"


def short(value: Fraction) -> str:
    """A setting as the user typed it (0.05, not 0.0500)."""
    return f"{float(value):g}"


def percent(value: Fraction) -> str:
    return f"{float(value * 100):g}%"
