"""core.evaluation.stats: the documented definitions, checked on hand-worked cases, against an independent
enumeration, against scipy, and on the seed fixture."""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction as F

import pytest

from rankeval_tui.core.evaluation import draws as draws_module
from rankeval_tui.core.evaluation.compare import compare
from rankeval_tui.core.evaluation.draws import masked_sums, masked_sums_python, resampled_sums
from rankeval_tui.core.evaluation.evaluate import Run, evaluate
from rankeval_tui.core.evaluation.paired_tests import (
    bootstrap,
    bootstraps,
    scaled,
    sign_flip_exact,
    sign_flip_monte_carlo,
    sign_flip_monte_carlo_many,
    sign_flip_test,
)
from rankeval_tui.core.evaluation.protocol import Protocol, ProtocolDefinition, Query
from rankeval_tui.core.evaluation.stats import holm, paired_statistics, regression_failures
from rankeval_tui.core.files import load_protocol, load_run


def brute_force_p(deltas):
    """The definition written out: list all 2^n sign assignments, count |sum| >= |observed sum|."""
    observed = abs(sum(deltas))
    hits = sum(
        1
        for signs in itertools.product((1, -1), repeat=len(deltas))
        if abs(sum(s * d for s, d in zip(signs, deltas))) >= observed
    )
    return F(hits, 2 ** len(deltas))


# ---------------------------------------------------------------- exact sign-flip, by hand


@pytest.mark.parametrize(
    "deltas, expected",
    [
        # all three positive: only +++ and --- reach |sum| = 3 -> 2/8
        ([F(1), F(1), F(1)], F(1, 4)),
        # the seed's RR@2 deltas of fixture_B vs fixture_A (q2, q3, q4): sums 2,0,1,-1,1,-1,0,-2 -> 6/8
        ([F(-1, 2), F(1, 2), F(1)], F(3, 4)),
        # the seed's Recall@2 deltas: two ties and +1 -> every assignment has |sum| = 1
        ([F(0), F(0), F(1)], F(1)),
        # 3,1,1: sums 5,3,3,1,-1,-3,-3,-5 -> only +-5 reach 5
        ([F(3), F(1), F(1)], F(1, 4)),
        # 2,1: sums 3,1,-1,-3 -> 2/4
        ([F(2), F(1)], F(1, 2)),
        # no difference at all: p = 1
        ([F(0), F(0)], F(1)),
        # a single query: the smallest p for n = 1 is 1 (both signs reach |d|)
        ([F(1, 3)], F(1)),
    ],
)
def test_exact_p_on_hand_worked_cases(deltas, expected):
    result = sign_flip_exact(deltas)
    assert result.p_value == expected
    assert result.method == "exact" and result.assignments == 2 ** len(deltas) and result.seed is None


def test_zero_deltas_leave_p_unchanged_but_count_in_n():
    base = [F(1), F(1), F(1)]
    assert sign_flip_exact(base + [F(0)]).p_value == sign_flip_exact(base).p_value == F(1, 4)
    assert sign_flip_exact(base + [F(0)]).assignments == 16


def test_smallest_possible_p_is_two_over_two_to_the_n():
    for n in range(1, 8):
        assert sign_flip_exact([F(1)] * n).p_value == F(2, 2**n)


def test_exact_equals_brute_force_enumeration_on_random_cases():
    rng = random.Random(7)
    for _ in range(200):
        n = rng.randint(1, 9)
        deltas = [F(rng.randint(-4, 4), rng.randint(1, 5)) for _ in range(n)]
        assert sign_flip_exact(deltas).p_value == brute_force_p(deltas), deltas


def test_exact_up_to_twenty_then_monte_carlo_with_samples_and_seed():
    assert sign_flip_test([F(1)] * 20).method == "exact"
    assert sign_flip_test([F(1)] * 20).p_value == F(2, 2**20)
    result = sign_flip_test([F(1)] * 21, samples=500, seed=3)
    assert (result.method, result.assignments, result.seed) == ("monte-carlo", 500, 3)
    # all deltas equal: only 2 of 2^21 masks reach the observed |sum|; 500 draws miss them, and
    # the observed assignment is counted once: (1 + 0) / (1 + 500)
    assert result.p_value == F(1, 501)


# ---------------------------------------------------------------- Monte-Carlo vs exact


N12 = [F(1, 2), F(1), F(-1, 3), F(1, 4), F(0), F(1), F(-1, 2), F(2, 3), F(1, 5), F(-1), F(1, 2), F(1, 3)]


def test_monte_carlo_within_tolerance_of_exact_at_n12():
    exact = sign_flip_exact(N12).p_value
    assert F(1, 20) < exact < F(9, 10)  # a p in the middle, where Monte-Carlo error is largest
    samples = 20_000
    approx = sign_flip_monte_carlo(N12, samples, seed=11)
    assert approx.method == "monte-carlo" and approx.assignments == samples and approx.seed == 11
    tolerance = 4 * math.sqrt(float(exact) * (1 - float(exact)) / samples) + 1 / samples
    assert abs(float(approx.p_value) - float(exact)) < tolerance, (float(approx.p_value), float(exact))


def test_monte_carlo_is_deterministic_under_a_seed_and_moves_with_it():
    first = sign_flip_monte_carlo(N12, 2_000, seed=5)
    assert sign_flip_monte_carlo(N12, 2_000, seed=5) == first
    others = {sign_flip_monte_carlo(N12, 2_000, seed=s).p_value for s in range(6, 12)}
    assert others - {first.p_value}  # a different seed draws differently


def test_monte_carlo_counts_the_observed_assignment():
    # one assignment in 2^30 reaches the observed sum of 30 equal deltas; p is still > 0
    result = sign_flip_monte_carlo([F(1)] * 30, 100, seed=0)
    assert result.p_value == F(1, 101)


# ---------------------------------------------------------------- bootstrap


def test_bootstrap_deterministic_under_a_seed():
    rng = random.Random(2)
    deltas = [F(rng.randint(-3, 3), rng.randint(1, 4)) for _ in range(30)]
    first = bootstrap(deltas, samples=3_000, seed=42)
    assert bootstrap(deltas, samples=3_000, seed=42) == first
    assert (first.samples, first.seed, first.confidence) == (3_000, 42, F(19, 20))
    other = bootstrap(deltas, samples=3_000, seed=43)
    assert (other.low, other.high, other.p_value) != (first.low, first.high, first.p_value)
    mean = sum(deltas) / len(deltas)
    assert first.low <= mean <= first.high


def test_bootstrap_constant_deltas_give_a_point_interval():
    result = bootstrap([F(1, 3)] * 5, samples=200, seed=0)
    assert result.low == result.high == F(1, 3)
    # every resampled mean equals the observed one: none is as far from it as 1/3 is from 0
    assert result.p_value == F(1, 201)


def test_bootstrap_percentile_indices():
    # deltas 0 and 1, n = 2: resampled means 0, 1/2, 1 with probabilities 1/4, 1/2, 1/4, so the
    # sorted B = 1000 means hold about 250 zeros, 500 halves, 250 ones.
    # alpha = 1/5: indices floor(1000/10) = 100 (among the zeros), ceil(900) - 1 = 899 (among the ones)
    wide = bootstrap([F(0), F(1)], samples=1_000, seed=1, alpha=F(1, 5))
    assert (wide.low, wide.high, wide.confidence) == (F(0), F(1), F(4, 5))
    # alpha = 9/10: indices 450 and ceil(550) - 1 = 549, both among the halves
    narrow = bootstrap([F(0), F(1)], samples=1_000, seed=1, alpha=F(9, 10))
    assert (narrow.low, narrow.high) == (F(1, 2), F(1, 2))


# ---------------------------------------------------------------- Holm


def test_holm_hand_worked():
    # sorted 0.01, 0.03, 0.04 -> 3*0.01 = 0.03, 2*0.03 = 0.06, max(0.06, 1*0.04) = 0.06
    assert holm([F(1, 100), F(4, 100), F(3, 100)]) == [F(3, 100), F(6, 100), F(6, 100)]
    # capped at 1 and monotone: 2*0.5 = 1, max(1, 0.6) = 1
    assert holm([F(1, 2), F(3, 5)]) == [F(1), F(1)]
    assert holm([F(1, 7)]) == [F(1, 7)]
    assert holm([]) == []


# ---------------------------------------------------------------- scipy cross-check


def test_exact_p_equals_scipy_permutation_test():
    np = pytest.importorskip("numpy")
    stats = pytest.importorskip("scipy.stats")
    rng = random.Random(3)
    for _ in range(25):
        n = rng.randint(2, 10)
        base = [F(rng.randint(0, 4), 4) for _ in range(n)]
        cand = [F(rng.randint(0, 3), 3) for _ in range(n)]
        deltas = [c - b for c, b in zip(cand, base)]
        if not any(deltas):
            continue
        ours = sign_flip_exact(deltas).p_value
        result = stats.permutation_test(
            (np.array([float(c) for c in cand]), np.array([float(b) for b in base])),
            lambda x, y, axis: np.mean(x - y, axis=axis),
            permutation_type="samples",
            alternative="two-sided",
            n_resamples=np.inf,
            vectorized=True,
        )
        assert result.pvalue == pytest.approx(float(ours), abs=1e-12), (deltas, result.pvalue, ours)


# ---------------------------------------------------------------- on reports


@pytest.fixture(scope="module")
def seed_reports(seed_dir):
    protocol = load_protocol(seed_dir)
    return {
        name: evaluate(protocol, load_run(seed_dir / "runs" / f"{name}.json"))
        for name in ("fixture_A", "fixture_B", "all_empty")
    }


def test_seed_fixture_b_vs_a(seed_reports):
    stats = paired_statistics(compare(seed_reports["fixture_A"], seed_reports["fixture_B"]))
    candidate = stats.get("fixture_B")
    rr, recall = candidate.metrics["rr"], candidate.metrics["recall"]
    assert (rr.n, rr.mean_delta, rr.win, rr.tie, rr.loss) == (3, F(1, 3), 2, 0, 1)
    assert rr.losses == (("q2", F(-1, 2)),)
    assert rr.sign_flip.p_value == F(3, 4) and rr.p_holm == F(3, 4)
    assert (recall.mean_delta, recall.sign_flip.p_value) == (F(1, 3), F(1))
    assert not rr.significant(F(1, 20))
    assert stats.get("nope") is None


def test_holm_applied_across_candidates(seed_reports):
    base = seed_reports["fixture_A"]
    stats = paired_statistics([compare(base, seed_reports["fixture_B"]), compare(base, seed_reports["all_empty"])])
    b, e = stats.get("fixture_B").metrics["rr"], stats.get("all_empty").metrics["rr"]
    assert (b.p_value, e.p_value) == (F(3, 4), F(1, 2))
    assert [e.p_holm, b.p_holm] == holm([e.p_value, b.p_value]) == [F(1), F(1)]


def test_bootstrap_test_choice_and_settings(seed_reports):
    stats = paired_statistics(
        compare(seed_reports["fixture_A"], seed_reports["fixture_B"]), test="bootstrap", seed=9, samples=500
    )
    rr = stats.get("fixture_B").metrics["rr"]
    assert rr.test == "bootstrap" and rr.p_value == rr.bootstrap.p_value
    assert stats.settings_json()["seed"] == 9 and rr.bootstrap.samples == 500
    assert (
        paired_statistics(compare(seed_reports["fixture_A"], seed_reports["fixture_B"]), test="sign-flip").test
        == "randomization"
    )
    with pytest.raises(ValueError):
        paired_statistics(compare(seed_reports["fixture_A"], seed_reports["fixture_B"]), test="t-test")


def synthetic(n: int) -> Protocol:
    """n queries with one relevant document each (d0), plus one query without any (z)."""
    definition = ProtocolDefinition(
        name="synthetic",
        k=2,
        split="test",
        relevance="r",
        documents={"d0": "a", "d1": "b", "d2": "c"},
        queries={**{f"q{i}": Query(f"t{i}", "test") for i in range(n)}, "z": Query("z", "test")},
    )
    qrels = {**{f"q{i}": {"d0": 1, "d1": 0, "d2": 0} for i in range(n)}, "z": {"d0": 0, "d1": 0, "d2": 0}}
    return Protocol(definition, qrels)


def test_gate_significantly_lower_and_per_query_drop():
    protocol = synthetic(8)
    good = evaluate(protocol, Run("good", {f"q{i}": ["d0", "d1"] for i in range(8)}))
    worse = evaluate(protocol, Run("worse", {f"q{i}": ["d1", "d0"] for i in range(8)}))
    stats = paired_statistics(compare(good, worse))
    rr = stats.get("worse").metrics["rr"]
    assert rr.n == 8 and rr.mean_delta == F(-1, 2)  # the no-relevant query z is not in the sample
    assert rr.p_value == F(2, 256) and rr.significantly_lower(F(1, 20))
    assert stats.get("worse").metrics["recall"].p_value == F(1)  # recall@2 unchanged
    reasons = regression_failures(stats, max_query_drop=F(1, 2))
    assert len(reasons) == 1 and "significantly lower" in reasons[0] and "RR@k" in reasons[0]
    reasons = regression_failures(stats, max_query_drop=F(1, 4))
    assert len(reasons) == 1 + 8 and sum("dropped by 1/2" in r for r in reasons) == 8
    assert regression_failures(stats, alpha=F(1, 200), max_query_drop=F(1, 2)) == []


def test_no_eligible_queries_means_no_test():
    protocol = synthetic(0)
    a = evaluate(protocol, Run("a", {}))
    b = evaluate(protocol, Run("b", {"z": ["d0"]}))
    stats = paired_statistics(compare(a, b))
    rr = stats.get("b").metrics["rr"]
    assert (rr.n, rr.p_value, rr.p_holm, rr.sign_flip, rr.mean_delta) == (0, None, None, None, None)
    assert "no eligible queries" in rr.summary(F(1, 20))
    assert regression_failures(stats, max_query_drop=F(0)) == []


# ---------------------------------------------------------------- the fast draws are today's draws


def reference_deltas() -> list[F]:
    """1,000 paired deltas with the denominators Recall@k and RR@k produce (seeded)."""
    rng = random.Random(2026)
    return [F(rng.randint(-10, 10), rng.choice([1, 2, 3, 5, 10])) for _ in range(1000)]


def test_monte_carlo_and_bootstrap_keep_the_numbers_of_the_one_by_one_draws():
    """Pinned from the implementation before issue 13 (byte-table sign-flip, random.choices bootstrap):
    the popcount sign-flip and the numpy bootstrap draw the same numbers for the same seed."""
    deltas = reference_deltas()
    assert sign_flip_monte_carlo(deltas, 2000, seed=7).p_value == F(384, 667)
    result = bootstrap(deltas, samples=2000, seed=7)
    assert (result.low, result.high, result.p_value) == (F(-3913, 15000), F(211, 1500), F(1201, 2001))


@pytest.mark.parametrize("seed", [0, 1, 12345])
def test_resampled_sums_are_random_choices_sums(seed):
    values, _ = scaled(reference_deltas()[:97])
    rng = random.Random(seed)
    expected = [sum(rng.choices(values, k=len(values))) for _ in range(300)]
    assert resampled_sums([values], 300, seed) == [expected]


def test_resampled_sums_in_blocks_and_beyond_float_precision(monkeypatch):
    values = [3, -1, 0, 7]
    rng = random.Random(5)
    expected = [sum(rng.choices(values, k=4)) for _ in range(50)]
    monkeypatch.setattr(draws_module, "RESAMPLE_BLOCK", 9)  # two resamples per numpy block
    assert resampled_sums([values], 50, 5) == [expected]
    huge = [v * 2**61 for v in values]  # sums past float64's exact integers: the Python loop, same draws
    assert resampled_sums([huge], 50, 5) == [[s * 2**61 for s in expected]]


def test_lists_of_one_length_share_draws_and_give_each_its_own_result():
    """Batched over a family (what paired_statistics does) = one call per list."""
    deltas = reference_deltas()
    first, second, shorter = deltas[:400], [-d / 2 for d in deltas[400:800]], deltas[:150]
    lists = [first, second, shorter]
    assert sign_flip_monte_carlo_many(lists, 700, 9) == [sign_flip_monte_carlo(d, 700, 9) for d in lists]
    assert bootstraps(lists, samples=700, seed=9, alpha=F(1, 20)) == [bootstrap(d, samples=700, seed=9) for d in lists]


def test_masked_sums_past_float_precision_use_the_python_form():
    values = [2**60, -(2**60) + 1, 3]
    assert masked_sums([values], 40, 2) == [masked_sums_python(values, 40, 2)]
    small = [5, -1, 3]
    assert masked_sums([small], 40, 2) == [masked_sums_python(small, 40, 2)]


def test_sign_flip_mask_bit_i_negates_delta_i():
    """The popcount form equals negating exactly the deltas whose bit is set, sample by sample."""
    deltas = reference_deltas()[:200]
    values, _ = scaled(deltas)
    total, n = sum(values), len(values)
    rng = random.Random(3)
    extreme = 0
    for _ in range(400):
        bits = rng.getrandbits(n)
        signed = sum(-v if bits >> i & 1 else v for i, v in enumerate(values))
        extreme += abs(signed) >= abs(total)
    assert sign_flip_monte_carlo(deltas, 400, seed=3).p_value == F(1 + extreme, 401)
