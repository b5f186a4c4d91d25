"""The seed's 18 metric tests, as behaviour of the project's own evaluator and files."""

from __future__ import annotations

import copy
from fractions import Fraction as F

import pytest

from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.evaluation.evaluate import Run, evaluate
from tests.core.seed import QRELS, QUERIES, RUNS, protocol_with, score


def test_exact_A():
    r = score()
    assert (r.recall_at_k, r.mrr_at_k) == (F(1, 2), F(1, 2))


def test_exact_B():
    r = score(RUNS["fixture_B"])
    assert (r.recall_at_k, r.mrr_at_k) == (F(5, 6), F(5, 6))


def test_missing_stays_denominator():
    r = score()
    assert (r.eligible_queries, r.missing_queries) == (3, ["q4"])


def test_no_relevant_explicit():
    r = score()
    assert (r.total_queries, r.no_relevant_queries) == (4, ["q5"])
    assert r.rows[-1].recall is None and r.rows[-1].rr is None


def test_empty():
    r = score(RUNS["all_empty"])
    assert (r.recall_at_k, r.mrr_at_k) == (0, 0)
    assert r.recall_at_k is not None


def test_duplicate_rejected():
    with pytest.raises(ContractError, match="duplicate"):
        score({"q2": ["d3", "d3"]})


def test_unknown_doc():
    with pytest.raises(ContractError, match="unknown document"):
        score({"q2": ["d999"]})


def test_unknown_query():
    with pytest.raises(ContractError, match="query"):
        score({"q999": []})


def test_wrong_split():
    with pytest.raises(ContractError, match="split"):
        score({"q1": ["d2"]})


def test_unjudged_not_nonrelevant():
    rel = copy.deepcopy(QRELS)
    del rel["q2"]["d1"]
    with pytest.raises(ContractError, match="unjudged"):
        protocol_with(qrels=rel)


def test_bool_label_rejected():
    rel = copy.deepcopy(QRELS)
    rel["q2"]["d1"] = False
    with pytest.raises(ContractError, match="integer"):
        protocol_with(qrels=rel)


def test_cutoff():
    r = score({"q2": ["d1", "d2", "d3"]})
    assert r.rows[0].rr == 0


def test_recall_not_hit_rate():
    r = score({"q2": ["d3"]})
    assert r.rows[0].recall == F(1, 2)
    assert r.rows[0].rr == 1


def test_second_relevant_changes_recall_not_rr():
    a = score({"q2": ["d3"]}).rows[0]
    b = score({"q2": ["d3", "d4"]}).rows[0]
    assert (a.rr, b.rr) == (1, 1)
    assert (a.recall, b.recall) == (F(1, 2), 1)


@pytest.mark.parametrize("k", [True, 0, -1, 1.5])
def test_k_validation(k):
    with pytest.raises(ContractError, match="k must be a positive integer"):
        score(k=k)


def test_empty_eligible_mean_is_null():
    queries = {"q5": QUERIES["q5"]}
    protocol = protocol_with(queries=queries, qrels={"q5": QRELS["q5"]})
    r = evaluate(protocol, Run("empty", {}))
    assert r.mrr_at_k is None and r.recall_at_k is None
    assert r.eligible_queries == 0


def test_hash_changes_with_qrels():
    rel = copy.deepcopy(QRELS)
    rel["q2"]["d1"] = 1
    assert score().protocol_sha256 != evaluate(protocol_with(qrels=rel), Run("x", {})).protocol_sha256


def test_missing_qrels_rejected():
    rel = copy.deepcopy(QRELS)
    del rel["q4"]
    with pytest.raises(ContractError, match="every query"):
        protocol_with(qrels=rel)


# Beyond the seed: the errors name the place, so a user can find it.


def test_duplicate_past_k_rejected_and_named():
    with pytest.raises(ContractError) as caught:
        score({"q2": ["d3", "d1", "d4", "d2", "d4"]})
    assert "'q2'" in str(caught.value) and "'d4'" in str(caught.value)


def test_unjudged_error_names_pair():
    rel = copy.deepcopy(QRELS)
    del rel["q3"]["d6"]
    with pytest.raises(ContractError) as caught:
        protocol_with(qrels=rel)
    assert caught.value.where == "query 'q3', document 'd6'"


def test_split_without_queries_rejected():
    with pytest.raises(ContractError, match="split has no queries"):
        protocol_with(split="validation")


def test_with_k_changes_hash_and_numbers():
    base = protocol_with()
    wider = base.with_k(3)
    assert wider.protocol_sha256 != base.protocol_sha256
    # q2 finds d3 and d4 within 3 (1), q3 finds d5 (1), q4 is missing (0): 2/3.
    assert evaluate(wider, Run("A", RUNS["fixture_A"])).recall_at_k == F(2, 3)
