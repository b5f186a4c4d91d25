"""P@k, Success@k, AP@k and nDCG@k: values worked by hand, the seed's rules, nDCG's rounding."""

from __future__ import annotations

import decimal
import math
from fractions import Fraction as F

import pytest

from rankeval_tui.core.evaluation.compare import compare
from rankeval_tui.core.evaluation.evaluate import Run, evaluate
from rankeval_tui.core.evaluation.metrics import (
    DISCOUNT_SCALE,
    METRIC_IDS,
    PRIMARY,
    discount,
    ideal_dcg,
    parse_metric_name,
)
from rankeval_tui.core.evaluation.protocol import Protocol, ProtocolDefinition, Query
from rankeval_tui.core.evaluation.stats import paired_statistics
from tests.core.seed import RUNS, score

ALL = METRIC_IDS
D = DISCOUNT_SCALE


def docs_protocol(k: int = 3) -> Protocol:
    """A help-docs protocol with realistic IDs: q:1001 has 3 relevant pages, q:1002 one,
    q:1003 one (a query runs may forget), q:1004 none."""
    documents = {
        f"docs/{name}.md": name
        for name in ("export", "import", "install", "sync", "backup", "restore", "faq", "login", "billing")
    }
    queries = {q: Query(text=q, split="test") for q in ("q:1001", "q:1002", "q:1003", "q:1004")}
    relevant = {
        "q:1001": {"docs/export.md", "docs/backup.md", "docs/restore.md"},
        "q:1002": {"docs/login.md"},
        "q:1003": {"docs/billing.md"},
        "q:1004": set(),
    }
    qrels = {q: {d: int(d in relevant[q]) for d in documents} for q in queries}
    definition = ProtocolDefinition(
        name="help-docs", k=k, split="test", relevance="answers the question", documents=documents, queries=queries
    )
    return Protocol(definition, qrels)


RUN = Run(
    "bm25",
    {
        # relevant at ranks 1 and 3 (of 3 relevant), a third relevant page at rank 5, past k = 3
        "q:1001": ["docs/export.md", "docs/faq.md", "docs/backup.md", "docs/sync.md", "docs/restore.md"],
        # one document returned, not relevant: P@3 still divides by 3
        "q:1002": ["docs/faq.md"],
        "q:1004": ["docs/faq.md", "docs/login.md"],
        # q:1003 missing: scores 0 and stays in the denominator
    },
)


def test_values_by_hand() -> None:
    report = evaluate(docs_protocol(), RUN, ALL)
    q1001, q1002, q1003, q1004 = report.rows
    assert [q1001.value(m) for m in ALL] == [
        F(2, 3),  # R@3: 2 of 3 relevant in the top 3
        F(1),  # RR@3
        F(2, 3),  # P@3: 2 of k = 3
        F(1),  # Success@3
        (F(1, 1) + F(2, 3)) / 3,  # AP@3: precision at ranks 1 and 3, over all 3 relevant (not min(3, k))
        F(discount(1) + discount(3), discount(1) + discount(2) + discount(3)),  # nDCG@3
    ]
    assert [q1002.value(m) for m in ALL] == [0, 0, 0, 0, 0, 0]
    assert q1003.missing and [q1003.value(m) for m in ALL] == [0, 0, 0, 0, 0, 0]
    assert [q1004.value(m) for m in ALL] == [None] * 6  # no relevant document: null, for every metric
    # Means over the 3 eligible queries (q:1004 excluded), the missing q:1003 counted at 0.
    assert report.eligible_queries == 3
    assert [report.mean(m) for m in ALL] == [q1001.value(m) / 3 for m in ALL]  # type: ignore[operator]


def test_ndcg_is_exact_over_the_rounded_discounts() -> None:
    assert discount(1) == D and discount(3) == D // 2 and discount(7) == D // 3  # log2(8) = 3: 1/3 rounded
    assert ideal_dcg(2) == discount(1) + discount(2)
    report = evaluate(docs_protocol(k=2), RUN, ["ndcg"])
    # q:1001 at k=2: one hit at rank 1, ideal has two relevant at ranks 1, 2.
    assert report.rows[0].value("ndcg") == F(D, D + discount(2)) == F(10**12, 1_630_929_753_571)


def test_discounts_are_correctly_rounded_to_the_documented_places() -> None:
    """Each discount is 1/log2(i+1) rounded half-even to 12 places: checked here by a second
    route (log10 at 80 digits), and against the float formula within half a unit of the 12th place."""
    context = decimal.Context(prec=80)
    for rank in range(1, 2001):
        exact = context.divide(context.log10(decimal.Decimal(2)), context.log10(decimal.Decimal(rank + 1)))
        expected = int(exact.scaleb(12, context).to_integral_value(decimal.ROUND_HALF_EVEN, context))
        assert discount(rank) == expected, rank
        assert abs(discount(rank) / D - 1 / math.log2(rank + 1)) <= 0.5e-12 + 1e-15


def test_seed_means_of_every_metric() -> None:
    a = score(metrics=ALL)
    b = score(RUNS["fixture_B"], metrics=ALL)
    assert (a.mean("p"), a.mean("success"), a.mean("ap")) == (F(1, 3), F(2, 3), F(1, 3))
    assert (b.mean("p"), b.mean("success"), b.mean("ap")) == (F(1, 2), F(1), F(3, 4))
    assert a.mean("ndcg") == (F(D, D + discount(2)) + F(discount(2), D)) / 3
    # The seed's pair is untouched by asking for more.
    assert (a.recall_at_k, a.mrr_at_k, b.recall_at_k, b.mrr_at_k) == (F(1, 2), F(1, 2), F(5, 6), F(5, 6))


def test_default_evaluation_computes_only_the_seed_pair() -> None:
    report = score()
    assert report.metrics == PRIMARY and report.extra_means == ()
    assert all(row.extra == () for row in report.rows)
    with pytest.raises(KeyError):
        report.rows[0].value("ndcg")  # not computed is not null
    with pytest.raises(KeyError):
        report.mean("ndcg")


def test_order_kept_and_duplicates_dropped() -> None:
    report = score(metrics=["ndcg", "recall", "ndcg", "p"])
    assert report.metrics == ("ndcg", "recall", "p")
    with pytest.raises(ValueError, match="unknown metric id"):
        score(metrics=["map"])


@pytest.mark.parametrize(
    "text, parsed",
    [
        ("nDCG@10", ("ndcg", 10)),
        ("ndcg", ("ndcg", None)),
        ("R@2", ("recall", 2)),
        ("Recall@2", ("recall", 2)),
        ("MRR@2", ("rr", 2)),
        ("RR", ("rr", None)),
        ("P@5", ("p", 5)),
        ("Success@1", ("success", 1)),
        ("MAP@100", ("ap", 100)),
        (" AP@3 ", ("ap", 3)),
    ],
)
def test_parse_metric_name(text: str, parsed: tuple[str, int | None]) -> None:
    assert parse_metric_name(text) == parsed


@pytest.mark.parametrize("text", ["ndgc@10", "nDCG@0", "nDCG@x", "nDCG@", "", "P@-1"])
def test_parse_metric_name_rejects(text: str) -> None:
    with pytest.raises(ValueError):
        parse_metric_name(text)


def test_comparison_verdict_and_statistics_cover_every_metric() -> None:
    """fixture_B vs fixture_A: on q3 Recall@2 ties but nDCG@2 and AP@2 rise; on q2 only the
    rank-sensitive metrics fall. A verdict over R alone says 'same' on q2; with nDCG it is a regression."""
    a, b = score(metrics=["recall", "ndcg", "ap"]), score(RUNS["fixture_B"], metrics=["recall", "ndcg", "ap"])
    comparison = compare(a, b)
    assert comparison.metrics == ("recall", "ndcg", "ap")
    q2 = comparison.rows[0]
    assert q2.outcome("recall") == "tie" and q2.outcome("ndcg") == "loss" and q2.verdict() == "regression"
    recall_only = compare(score(metrics=["recall"]), score(RUNS["fixture_B"], metrics=["recall"]))
    assert recall_only.rows[0].verdict() == "same"
    assert comparison.mean_delta("ap") == F(3, 4) - F(1, 3)
    statistics = paired_statistics(comparison)
    ndcg = statistics.candidates[0].metrics["ndcg"]
    assert set(statistics.candidates[0].metrics) == {"recall", "ndcg", "ap"}
    assert ndcg.n == 3 and (ndcg.win, ndcg.tie, ndcg.loss) == (2, 0, 1) and ndcg.worst_query == "q2"
    # deltas -0.226 (q2), +0.369, +1: the observed signs, q2 flipped, and both mirrors reach |sum|: 4 of 8
    assert ndcg.p_value == F(1, 2)


def test_compare_uses_the_metrics_both_reports_have() -> None:
    comparison = compare(score(metrics=["recall", "rr", "p"]), score(RUNS["fixture_B"], metrics=["p", "recall"]))
    assert comparison.metrics == ("recall", "p")
