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

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

from rankeval_tui.core.evaluation.compare import METRIC_LABELS, Comparison, Metric
from rankeval_tui.core.evaluation.evaluate import distinct_objects, exact_fields
from rankeval_tui.core.evaluation.paired_defaults import (
    DEFAULT_ALPHA,
    DEFAULT_SAMPLES,
    DEFAULT_SEED,
    EXACT_MAX_N,
    MAX_SAMPLES,
    TEST_ALIASES,
    TESTS,
    TestName,
)
from rankeval_tui.core.evaluation.paired_tests import (
    BootstrapResult,
    SignFlipResult,
    bootstrap,
    bootstraps,
    sign_flip_test,
    sign_flip_tests,
)
from rankeval_tui.core.wording import exact_and_decimal

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
    distinct = distinct_objects(deltas)  # compare shares one delta per pair of values
    counts = outcome_counts(distinct, len(deltas))
    losses = sorted_losses(paired, distinct)
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
        mean_delta=sum((delta * times for delta, times in distinct), Fraction(0)) / len(deltas) if deltas else None,
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


def outcome_counts(distinct: Sequence[tuple[Fraction, int]], total: int) -> dict[str, int]:
    """``Comparison.counts`` from the paired deltas already at hand (``distinct_objects`` of
    ``total`` deltas): win > 0, loss < 0, tie 0."""
    win = sum(times for delta, times in distinct if delta > 0)
    loss = sum(times for delta, times in distinct if delta < 0)
    return {"win": win, "tie": total - win - loss, "loss": loss}


def sorted_losses(
    paired: Sequence[tuple[str, Fraction]], distinct: Sequence[tuple[Fraction, int]]
) -> tuple[tuple[str, Fraction], ...]:
    """The (query, delta) pairs with a negative delta, worst first, ties in ``paired`` order:
    ``sorted(losses, key=delta)``, with each distinct delta object ranked once by value."""
    negative = sorted({delta for delta, _ in distinct if delta < 0})
    rank_of_value = {value: rank for rank, value in enumerate(negative)}
    rank = {id(delta): rank_of_value[delta] for delta, _ in distinct if delta < 0}
    losses = [(query, delta) for query, delta in paired if id(delta) in rank]
    return tuple(sorted(losses, key=lambda pair: rank[id(pair[1])]))


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
    if not 1 <= samples <= MAX_SAMPLES:
        raise ValueError(f"samples must be from 1 to {MAX_SAMPLES:,}, got {samples:,}")
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
                    f"regression: run {cand.candidate!r} {label} mean delta {exact_and_decimal(stats.mean_delta)} "
                    f"vs baseline {cand.baseline!r} is significantly lower: "
                    f"{stats.test} p (Holm) = {exact_and_decimal(stats.p_holm)} <= alpha {short(alpha)}"
                )
            if max_query_drop is None:
                continue
            for query, delta in stats.losses:
                if -delta > max_query_drop:
                    failures.append(
                        f"regression: run {cand.candidate!r} {label} on query {query!r} dropped by "
                        f"{exact_and_decimal(-delta)} vs baseline {cand.baseline!r}, more than --max-query-drop "
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
