"""The seed's run_experiment.py as tests: expected figures, negative controls, rejections, hash."""

from __future__ import annotations

import copy
from fractions import Fraction

import pytest

from rankeval_tui.core.errors import ContractError
from tests.core.seed import QRELS, RUNS, protocol_with, score

SEED_HASH = "9dd1a576cc830736a0884e847845f31f2390843c27a250abf3bafaf8fa72cadb"


@pytest.mark.parametrize("name", ["fixture_A", "fixture_B", "all_empty"])
def test_reports_equal_seed_expected_json(name, seed_expected):
    report = score(RUNS[name]).to_json()
    assert report == seed_expected["results"][name]


def test_protocol_hash_is_the_seeds():
    assert protocol_with().protocol_sha256 == SEED_HASH


def test_dropping_missing_queries_would_give_3_4_but_we_keep_the_denominator():
    report = score()
    present = [r for r in report.rows if r.relevant and not r.missing]
    wrong = sum((r.recall for r in present), Fraction(0)) / len(present)
    assert wrong == Fraction(3, 4)
    assert report.recall_at_k == Fraction(1, 2) != wrong


def test_hit_rate_is_not_recall():
    q2 = score().row("q2")
    hit_rate = Fraction(1 if q2.hits else 0)
    assert hit_rate == 1
    assert q2.recall == Fraction(1, 2) != hit_rate


def test_duplicate_counting_would_give_1_but_duplicates_are_rejected():
    wrong = Fraction(sum(QRELS["q2"][d] for d in ["d3", "d3"]), 2)
    assert wrong == 1
    with pytest.raises(ContractError, match="duplicate document ID; deduplicate upstream explicitly"):
        score({"q2": ["d3", "d3"]})


@pytest.mark.parametrize(
    "run, rule",
    [
        ({"q2": ["d3", "d3"]}, "duplicate document ID; deduplicate upstream explicitly"),
        ({"q2": ["d7"]}, "unknown document ID"),
        ({"q1": ["d2"]}, "unknown or wrong-split query"),
    ],
)
def test_contract_rejections_keep_the_seeds_wording(run, rule):
    with pytest.raises(ContractError) as caught:
        score(run)
    assert caught.value.rule.startswith(rule)


def test_unjudged_rejection_keeps_the_seeds_wording():
    rel = copy.deepcopy(QRELS)
    del rel["q2"]["d1"]
    with pytest.raises(ContractError) as caught:
        protocol_with(qrels=rel)
    assert caught.value.rule.startswith("unjudged or unknown documents: exhaustive qrels required")
