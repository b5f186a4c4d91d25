"""``judge --decide A B``: the holes asked in the order that decides the change B - A, the bounds
recomputed after each label, and the status saying when the verdict is decided."""

from __future__ import annotations

import random

from rankeval_tui.core.annotation.decide_order import DecideQueue
from rankeval_tui.core.evaluation.delta_bounds import QueryCase, mean_delta, query_delta
from rankeval_tui.core.evaluation.evaluate import Run
from tests.core.test_bounds import pooled_definition


def test_the_pair_that_moves_the_bounds_most_comes_first():
    # q1: B puts the hole "n" at rank 1 where A has its judged relevant "r"; "s" is shared and
    # lies at rank 2 in both, "o" is a hole in neither top 2. q2: both runs rank alike.
    pools = {"q1": ["r", "n", "s", "o"], "q2": ["x", "y"]}
    base = Run("A", {"q1": ["r", "s"], "q2": ["x", "y"]})
    cand = Run("B", {"q1": ["n", "s"], "q2": ["x", "y"]})
    labels = {"q1": {"r": 1}, "q2": {"x": 1, "y": 0}}
    queue = DecideQueue(pooled_definition(pools, 2), base, cand, labels)
    assert queue.next_hole(labels) == ("q1", "n")
    assert queue.status(labels) == "B vs A undecided on Recall@2 and RR@2"
    labels["q1"]["n"] = 1
    asked = queue.next_hole(labels)
    assert asked is not None and asked[1] != "n"
    # the bounds the queue holds are the exact ones for the labels so far
    case = QueryCase("q1", ["r", "s"], ["n", "s"], frozenset({"r", "n"}), ("s",), ("o",))
    assert queue.rows["q1"] == query_delta(case, 2, ("recall", "rr"))


def test_replaying_true_labels_ends_decided_and_says_so():
    rng = random.Random(4)
    docs = [f"d{i}" for i in range(12)]
    pools, truth, base, cand = {}, {}, {}, {}
    for q in (f"q{i}" for i in range(6)):
        pools[q] = docs
        truth[q] = {d: int(rng.random() < 0.3) for d in docs}
        base[q] = rng.sample(docs, 4)
        # B: the true relevant documents first, then A's
        cand[q] = [d for d in docs if truth[q][d]][:2] + [d for d in base[q] if not truth[q][d]]
    labels: dict[str, dict[str, int]] = {q: {} for q in pools}
    queue = DecideQueue(pooled_definition(pools, 4), Run("A", base), Run("B", cand), labels)
    asked = 0
    while True:
        pair = queue.next_hole(labels)  # recomputes from the labels so far
        if queue.decided_after is not None:
            break
        assert pair is not None
        labels[pair[0]][pair[1]] = truth[pair[0]][pair[1]]
        asked += 1
    assert queue.decided_after == asked < queue.pair_total
    assert queue.status(labels).startswith(f"decided after {asked} of {queue.pair_total} pairs: B better than A on")
    assert queue.status(labels).endswith("for every labelling of the rest")
    for metric in ("recall", "rr"):
        bound = mean_delta(list(queue.rows.values()), metric)
        assert bound.low is not None and bound.low > 0


def test_an_undo_recomputes_the_query():
    pools = {"q1": ["r", "n"]}
    labels = {"q1": {"r": 1}}
    queue = DecideQueue(pooled_definition(pools, 2), Run("A", {"q1": ["r"]}), Run("B", {"q1": ["n", "r"]}), labels)
    before = queue.rows["q1"]
    labels["q1"]["n"] = 0
    assert queue.next_hole(labels) is None
    assert queue.rows["q1"] != before
    del labels["q1"]["n"]
    queue.reopened()
    assert queue.next_hole(labels) == ("q1", "n") and queue.rows["q1"] == before


def test_the_status_says_what_is_decided_already():
    pools = {"q1": ["d1", "d2", "d3", "d8"]}
    labels = {"q1": {"d1": 1, "d2": 0, "d3": 0}}
    base, cand = Run("A", {"q1": ["d2", "d1", "d3"]}), Run("B", {"q1": ["d1", "d8", "d2"]})
    queue = DecideQueue(pooled_definition(pools, 3), base, cand, labels)
    assert queue.status(labels) == "B vs A undecided on Recall@3; B better than A on RR@3 already"
    labels["q1"]["d8"] = 0
    assert queue.status(labels) == (
        "decided after 1 of 1 pair: B better than A on RR@3; no change on Recall@3 for every labelling of the rest"
    )


def test_a_graded_protocol_decides_at_relevant_from():
    """Grades below relevant_from count as not relevant for Recall and RR: B's hole at rank 1
    judged 1 (below 2) leaves B worse than A, judged 2 makes B better."""
    import dataclasses

    import pytest

    from rankeval_tui.core.errors import ContractError
    from rankeval_tui.core.evaluation.protocol import LabelScale

    graded = dataclasses.replace(pooled_definition({"q1": ["r", "n"]}, 2), scale=LabelScale(("no", "some", "yes"), 2))
    base, cand = Run("A", {"q1": ["r"]}), Run("B", {"q1": ["n", "r"]})
    for grade, said in (
        (1, "B worse than A on RR@2; no change on Recall@2"),
        (2, "B better than A on Recall@2; no change on RR@2"),
    ):
        labels = {"q1": {"r": 2}}
        queue = DecideQueue(graded, base, cand, labels)
        assert queue.next_hole(labels) == ("q1", "n")
        labels["q1"]["n"] = grade
        queue.next_hole(labels)
        assert said in queue.status(labels)
        assert queue.status(labels).startswith("decided after 1 of 1 pair")
    with pytest.raises(ContractError, match="orders by the binary measures"):
        DecideQueue(graded, base, cand, {"q1": {"r": 2}}, ("recall", "ndcg"))


def test_a_resumed_journal_counts_the_pairs_judged_in_an_earlier_sitting():
    """Resumed with one hole judged before: "decided after 1 of 2", as the first sitting said,
    not "0 of 1" (the qrels file's labels say which pairs were holes)."""
    pools = {"q1": ["r", "n", "m"]}
    written = {"q1": {"r": 1}}
    labels = {"q1": {"r": 1, "n": 0}}  # n judged in the first sitting, in the journal
    base, cand = Run("A", {"q1": ["r"]}), Run("B", {"q1": ["n", "r"]})
    said = "decided after 1 of 2 pairs: B worse than A on RR@2"
    first = DecideQueue(pooled_definition(pools, 2), base, cand, {"q1": {"r": 1}})
    assert first.next_hole(labels) is not None and first.status(labels).startswith(said)
    resumed = DecideQueue(pooled_definition(pools, 2), base, cand, labels, written=written)
    assert resumed.status(labels).startswith(said)
    assert (
        DecideQueue(pooled_definition(pools, 2), base, cand, labels)
        .status(labels)
        .startswith("decided after 0 of 1 pair")
    )
