"""Property-based tests of the one evaluator: invariants that must hold for *any* valid protocol and run.

The seed tests pin numbers on one small fixture; these pin the rules on thousands of generated
protocols and runs, so a speed-up of ``evaluate`` or ``protocol`` that breaks a rule on some shape
the fixture does not have (a k past every ranking, a split with no relevant documents, ...) fails
here. Expected values are derived from the definitions in the issue (first relevant rank, hits over
relevant), never copied from the implementation under test.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from rankeval_tui.core.evaluation.evaluate import Report, Run, evaluate
from rankeval_tui.core.evaluation.protocol import Protocol, ProtocolDefinition, Query

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

SPLITS = ("dev", "test")


@st.composite
def protocols(draw: st.DrawFn, *, both_splits: bool = False) -> Protocol:
    """A small valid protocol: 1-8 documents, 1-6 queries, random 0/1 labels (some queries with none)."""
    n_docs = draw(st.integers(1, 8))
    n_queries = draw(st.integers(2 if both_splits else 1, 6))
    documents = {f"d{i}": draw(st.text(max_size=6)) for i in range(1, n_docs + 1)}
    splits = draw(st.lists(st.sampled_from(SPLITS), min_size=n_queries, max_size=n_queries))
    split = draw(st.sampled_from(SPLITS))
    if split not in splits:
        splits[0] = split
    if both_splits and len(set(splits)) < 2:
        splits[-1 if splits[0] == split else 0] = "dev" if split == "test" else "test"
    queries = {
        f"q{i}": Query(text=draw(st.text(max_size=6)), split=s, need=draw(st.none() | st.text(max_size=4)))
        for i, s in enumerate(splits, 1)
    }
    qrels = {q: {d: draw(st.integers(0, 1)) for d in documents} for q in queries}
    k = draw(st.integers(1, n_docs + 2))
    definition = ProtocolDefinition(name="p", k=k, split=split, relevance="r", documents=documents, queries=queries)
    return Protocol(definition, qrels)


@st.composite
def protocol_and_run(draw: st.DrawFn) -> tuple[Protocol, Run]:
    """A protocol and a valid run over a random subset of its split (missing queries included)."""
    protocol = draw(protocols())
    docs = list(protocol.documents)
    rankings: dict[str, list[str]] = {}
    for query in protocol.selected_queries:
        if draw(st.booleans()) or len(protocol.selected_queries) == 1 and draw(st.booleans()):
            rankings[query] = draw(
                st.permutations(docs).flatmap(lambda p: st.integers(0, len(p)).map(lambda n: list(p[:n])))
            )
    return protocol, Run(name="r", rankings=rankings)


def means(report: Report) -> tuple[Fraction | None, Fraction | None]:
    return report.recall_at_k, report.mrr_at_k


@SETTINGS
@given(protocol_and_run())
def test_scores_are_fractions_in_unit_interval_and_none_without_relevant(case: tuple[Protocol, Run]) -> None:
    protocol, run = case
    report = evaluate(protocol, run)
    assert [row.query for row in report.rows] == list(protocol.selected_queries)
    for row in report.rows:
        relevant = sum(protocol.qrels[row.query].values())
        assert row.relevant == relevant
        if relevant:
            assert type(row.recall) is Fraction and type(row.rr) is Fraction
            assert 0 <= row.recall <= 1 and 0 <= row.rr <= 1
        else:
            assert row.recall is None and row.rr is None
    for mean in means(report):
        assert mean is None or (type(mean) is Fraction and 0 <= mean <= 1)


@SETTINGS
@given(protocol_and_run())
def test_rr_is_one_over_first_relevant_rank_within_k_and_recall_is_hits_over_relevant(
    case: tuple[Protocol, Run],
) -> None:
    protocol, run = case
    report = evaluate(protocol, run)
    for row in report.rows:
        ranking = run.rankings.get(row.query, [])
        relevant = {d for d, label in protocol.qrels[row.query].items() if label == 1}
        ranks = [rank for rank, doc in enumerate(ranking, 1) if doc in relevant and rank <= protocol.k]
        assert row.first_relevant_rank == (ranks[0] if ranks else None)
        assert row.hits == len(ranks)
        if relevant:
            assert row.rr == (Fraction(1, ranks[0]) if ranks else 0)
            assert row.recall == Fraction(len(ranks), len(relevant))
    eligible = [row for row in report.rows if row.relevant]
    if eligible:
        assert report.recall_at_k == sum((row.recall for row in eligible), Fraction(0)) / len(eligible)
        assert report.mrr_at_k == sum((row.rr for row in eligible), Fraction(0)) / len(eligible)
    else:
        assert means(report) == (None, None)


@SETTINGS
@given(protocol_and_run())
def test_recall_and_rr_never_decrease_as_k_grows(case: tuple[Protocol, Run]) -> None:
    protocol, run = case
    previous: Report | None = None
    for k in range(1, len(protocol.documents) + 3):
        report = evaluate(protocol.with_k(k), run)
        if previous is not None:
            for before, after in zip(previous.rows, report.rows):
                if after.relevant:
                    assert after.recall >= before.recall
                    assert after.rr >= before.rr
            if report.recall_at_k is not None:
                assert report.recall_at_k >= previous.recall_at_k
                assert report.mrr_at_k >= previous.mrr_at_k
        previous = report


@SETTINGS
@given(protocol_and_run(), st.data())
def test_a_document_added_after_k_changes_nothing(case: tuple[Protocol, Run], data: st.DataObject) -> None:
    protocol, run = case
    docs = list(protocol.documents)
    assume(len(docs) >= 2)
    query = data.draw(st.sampled_from(protocol.selected_queries))
    k = data.draw(st.integers(1, len(docs) - 1))
    order = data.draw(st.permutations(docs))
    cut = data.draw(st.integers(k, len(docs) - 1))
    ranking, rest = list(order[:cut]), order[cut:]
    protocol = protocol.with_k(k)
    run = replace(run, rankings={**run.rankings, query: ranking})
    extended = ranking.copy()
    extended.insert(data.draw(st.integers(k, len(ranking))), data.draw(st.sampled_from(rest)))
    before = evaluate(protocol, run)
    after = evaluate(protocol, replace(run, rankings={**run.rankings, query: extended}))
    assert means(after) == means(before)
    for old, new in zip(before.rows, after.rows):
        assert (new.recall, new.rr, new.hits, new.first_relevant_rank) == (
            old.recall,
            old.rr,
            old.hits,
            old.first_relevant_rank,
        )
    assert after.row(query).returned == before.row(query).returned + 1


@SETTINGS
@given(protocol_and_run())
def test_missing_and_explicit_empty_score_the_same_but_only_missing_is_listed(case: tuple[Protocol, Run]) -> None:
    protocol, run = case
    absent = [q for q in protocol.selected_queries if q not in run.rankings]
    assume(absent)
    filled = replace(run, rankings={**run.rankings, **{q: [] for q in absent}})
    missing_report, empty_report = evaluate(protocol, run), evaluate(protocol, filled)
    assert means(missing_report) == means(empty_report)
    assert missing_report.missing_queries == absent
    assert empty_report.missing_queries == []
    for a, b in zip(missing_report.rows, empty_report.rows):
        assert (a.recall, a.rr, a.hits, a.returned) == (b.recall, b.rr, b.hits, b.returned)
        assert a.missing == (a.query in absent) and b.missing is False


@SETTINGS
@given(protocol_and_run(), st.randoms(use_true_random=False))
def test_permuting_dict_orders_changes_neither_means_nor_hash(case: tuple[Protocol, Run], rng) -> None:
    protocol, run = case

    def shuffled(mapping):
        items = list(mapping.items())
        rng.shuffle(items)
        return dict(items)

    definition = replace(
        protocol.definition, documents=shuffled(protocol.documents), queries=shuffled(protocol.queries)
    )
    permuted = Protocol(definition, shuffled({q: shuffled(row) for q, row in protocol.qrels.items()}))
    original = evaluate(protocol, run)
    other = evaluate(permuted, replace(run, rankings=shuffled(run.rankings)))
    assert other.protocol_sha256 == original.protocol_sha256
    assert means(other) == means(original)
    assert sorted(other.missing_queries) == sorted(original.missing_queries)
    assert {r.query: r for r in other.rows} == {r.query: r for r in original.rows}


@SETTINGS
@given(protocols(both_splits=True), st.data())
def test_hash_changes_with_any_label_text_split_or_k(protocol: Protocol, data: st.DataObject) -> None:
    digest = protocol.protocol_sha256
    definition = protocol.definition
    # any single label flipped
    query = data.draw(st.sampled_from(list(protocol.queries)))
    doc = data.draw(st.sampled_from(list(protocol.documents)))
    qrels = {q: dict(row) for q, row in protocol.qrels.items()}
    qrels[query][doc] = 1 - qrels[query][doc]
    assert Protocol(definition, qrels).protocol_sha256 != digest
    # any document text
    documents = {**definition.documents, doc: definition.documents[doc] + "x"}
    assert Protocol(replace(definition, documents=documents), protocol.qrels).protocol_sha256 != digest
    # any query text or need
    meta = definition.queries[query]
    for changed in (replace(meta, text=meta.text + "x"), replace(meta, need=(meta.need or "") + "x")):
        queries = {**definition.queries, query: changed}
        assert Protocol(replace(definition, queries=queries), protocol.qrels).protocol_sha256 != digest
    # the scored split, or the split of one query (keeping the scored split nonempty)
    other_split = next(s for s in SPLITS if s != protocol.split)
    assert protocol.with_split(other_split).protocol_sha256 != digest
    movable = [
        q for q, m in definition.queries.items() if m.split != protocol.split or len(protocol.selected_queries) > 1
    ]
    moved = data.draw(st.sampled_from(movable))
    flipped = replace(definition.queries[moved], split=next(s for s in SPLITS if s != definition.queries[moved].split))
    queries = {**definition.queries, moved: flipped}
    assert Protocol(replace(definition, queries=queries), protocol.qrels).protocol_sha256 != digest
    # k
    assert protocol.with_k(protocol.k + data.draw(st.integers(1, 5))).protocol_sha256 != digest
    # and nothing else: rebuilding the same protocol gives the same hash
    assert Protocol(replace(definition), {q: dict(r) for q, r in protocol.qrels.items()}).protocol_sha256 == digest


@SETTINGS
@given(protocol_and_run(), st.integers(1, 10), st.sampled_from([("recall", "rr"), ("recall", "rr", "ndcg")]))
def test_a_report_rescored_from_another_k_equals_one_scored_afresh(
    case: tuple[Protocol, Run], other_k: int, metrics: tuple[str, ...]
) -> None:
    """The k change reuses rows with no relevant document between the two cutoffs (evaluate's
    ``at_other_k``): whatever the two cutoffs and metrics, the report is the one scored from scratch."""
    protocol, run = case
    before = evaluate(protocol.with_k(other_k), run, metrics)  # type: ignore[arg-type]
    assert evaluate(protocol, run, metrics, at_other_k=before) == evaluate(protocol, run, metrics)  # type: ignore[arg-type]


fractions_with_twins = st.lists(
    st.sampled_from([Fraction(0), Fraction(1, 2), Fraction(-1, 3), Fraction(-1, 2), Fraction(2, 7), Fraction(-2, 6)]),
    max_size=40,
).map(lambda values: [Fraction(v) if i % 3 == 0 else v for i, v in enumerate(values)])
"""Deltas as ``compare`` makes them (shared objects), plus equal values held by other objects."""


@SETTINGS
@given(fractions_with_twins)
def test_statistics_counted_by_distinct_delta_equal_the_pair_by_pair_definitions(deltas: list[Fraction]) -> None:
    from rankeval_tui.core.evaluation.evaluate import distinct_objects
    from rankeval_tui.core.evaluation.stats import outcome_counts, sorted_losses

    paired = [(f"q:{1000 + i}", delta) for i, delta in enumerate(deltas)]
    distinct = distinct_objects(deltas)
    assert sum(times for _, times in distinct) == len(deltas)
    counts = outcome_counts(distinct, len(deltas))
    assert counts == {
        "win": sum(1 for d in deltas if d > 0),
        "tie": sum(1 for d in deltas if d == 0),
        "loss": sum(1 for d in deltas if d < 0),
    }
    assert sorted_losses(paired, distinct) == tuple(sorted(((q, d) for q, d in paired if d < 0), key=lambda p: p[1]))
    assert sum((d * n for d, n in distinct), Fraction(0)) == sum(deltas, Fraction(0))


@SETTINGS
@given(fractions_with_twins)
def test_the_exact_mean_counted_per_distinct_value_is_the_plain_mean(values: list[Fraction]) -> None:
    from rankeval_tui.core.evaluation.evaluate import exact_mean

    expected = sum(values, Fraction(0)) / len(values) if values else None
    assert exact_mean(values) == expected
    assert exact_mean(iter(values)) == expected  # any iterable, read once
