"""The seed's 14 chunk-adapter tests, as behaviour of the project's adapter."""

from __future__ import annotations

import copy

import pytest

from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.evaluation.adapter import adapt_runs
from rankeval_tui.core.evaluation.evaluate import Run, evaluate
from tests.core.chunk_probe import experiment
from tests.core.seed import CHUNK_RUN, CHUNK_TO_DOC, CORPUS, PROTOCOL, QUERIES


def adapt(run=None, mapping=None, corpus=None):
    return adapt_runs(
        CORPUS if corpus is None else corpus,
        QUERIES,
        CHUNK_TO_DOC if mapping is None else mapping,
        CHUNK_RUN if run is None else run,
    )


def test_exact_fixed_observations(seed_expected_chunk):
    assert experiment() == seed_expected_chunk


def test_nonadjacent_parent_repeats_collapse():
    result = adapt({"q2": ["d3a", "d4a", "d3b"]})
    assert result.document_runs["q2"] == ["d3", "d4"]
    assert result.evidence["q2"]["documents"][0]["chunk_ranks"] == [1, 3]


def test_first_occurrence_not_sorted_document_id():
    assert adapt({"q2": ["d4a", "d3a"]}).document_runs["q2"] == ["d4", "d3"]


def test_identical_text_is_not_identical_document():
    corpus = dict(CORPUS, d3="same title and text", d4="same title and text")
    assert adapt(corpus=corpus).document_runs["q2"] == ["d3", "d4"]


def test_incomplete_candidate_pool_cannot_be_backfilled():
    result = adapt({"q2": ["d3a", "d3b"]})
    assert result.document_runs == {"q2": ["d3"]}
    row = evaluate(PROTOCOL, Run("x", result.document_runs)).rows[0]
    assert str(row.recall) == "1/2"


def test_missing_and_empty_stay_different():
    result = adapt().document_runs
    assert "q4" not in result
    assert result["q5"] == []


def test_unknown_chunk_after_document_cutoff_rejected():
    with pytest.raises(ContractError, match="unknown"):
        adapt({"q2": ["d3a", "d4a", "missing"]})


def test_duplicate_chunk_after_document_cutoff_rejected():
    with pytest.raises(ContractError, match="duplicate chunk"):
        adapt({"q2": ["d3a", "d4a", "d3a"]})


def test_mapping_outside_corpus_rejected_even_if_unused():
    with pytest.raises(ContractError, match="outside"):
        adapt(mapping=dict(CHUNK_TO_DOC, unused="missing-doc"))


@pytest.mark.parametrize("query", ["q1", "absent"])
def test_unknown_and_wrong_split_queries_rejected(query):
    with pytest.raises(ContractError, match="split"):
        adapt({query: []})


@pytest.mark.parametrize("rank", ["d3a", ("d3a",), [True], [1], [None], [""]])
def test_strict_rank_types(rank):
    with pytest.raises(ContractError):
        adapt({"q2": rank})


@pytest.mark.parametrize("mapping", [[], None, {"": "d3"}, {1: "d3"}, {"x": ""}, {"x": True}])
def test_strict_mapping_types(mapping):
    with pytest.raises(ContractError):
        adapt_runs(CORPUS, QUERIES, mapping, {})


@pytest.mark.parametrize(
    "index, invalid",
    [
        (0, []),
        (0, {}),
        (0, {1: "text"}),
        (1, []),
        (1, {}),
        (1, {True: {"split": "test"}}),
        (1, {"q2": None}),
        (1, {"q2": {}}),
        (1, {"q2": {"split": True}}),
        (3, []),
    ],
)
def test_strict_argument_types(index, invalid):
    args = [CORPUS, QUERIES, CHUNK_TO_DOC, CHUNK_RUN]
    args[index] = invalid
    with pytest.raises(ContractError):
        adapt_runs(*args)


@pytest.mark.parametrize("split", ["absent", "", None, True])
def test_strict_split(split):
    with pytest.raises(ContractError):
        adapt_runs(CORPUS, QUERIES, CHUNK_TO_DOC, {}, split=split)


def test_input_snapshots_not_mutated():
    data = copy.deepcopy((CORPUS, QUERIES, CHUNK_TO_DOC, CHUNK_RUN))
    before = copy.deepcopy(data)
    adapt_runs(*data)
    assert data == before


def test_mapping_fingerprint_changes_while_metric_protocol_does_not():
    one, two = adapt(), adapt(mapping=dict(CHUNK_TO_DOC, d3b="d4"))
    assert one.adapter_sha256 != two.adapter_sha256
    a = evaluate(PROTOCOL, one.as_run("one"))
    b = evaluate(PROTOCOL, two.as_run("two"))
    assert a.protocol_sha256 == b.protocol_sha256


def test_dictionary_mapping_order_does_not_change_fingerprint():
    backward = dict(reversed(list(CHUNK_TO_DOC.items())))
    assert adapt().adapter_sha256 == adapt(mapping=backward).adapter_sha256


def test_seed_adapter_hash():
    assert adapt().adapter_sha256 == "d6706e72c8476072541a9ff6ec1ea1c86c4b7c58057b587db56acac24102cd12"
