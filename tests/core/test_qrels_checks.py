"""Qrels checked as whole tables (C speed) still refuse every bad label with the message the
row-by-row checks give, and load_protocol names the problems in the same order as before
(a label outside a pool, then holes, then the rest)."""

from __future__ import annotations

from pathlib import Path
from unittest import mock

import pytest

from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.evaluation.protocol import Protocol, ProtocolDefinition, Query, rows_within
from rankeval_tui.core.files import protocol_files
from rankeval_tui.core.files.protocol_files import definition_to_toml, load_protocol
from rankeval_tui.core.files.tomlio import dump_toml
from tests.core.test_pools import POOLS, QRELS, pooled

DOCS = {"docs/a.md": "a", "docs/b.md": "b", "msmarco_v2.1_doc_00_12345": "c"}
EXHAUSTIVE = ProtocolDefinition("p", 2, "test", "r", DOCS, {"q:1001": Query("x", "test"), "q:1002": Query("y", "test")})
FULL = {q: {d: i % 2 for i, d in enumerate(DOCS)} for q in EXHAUSTIVE.queries}


def with_label(qrels: dict, query: str, doc: str, label: object) -> dict:
    return {**qrels, query: {**qrels.get(query, {}), doc: label}}


def without(qrels: dict, query: str, doc: str) -> dict:
    return {**qrels, query: {d: v for d, v in qrels[query].items() if d != doc}}


@pytest.mark.parametrize(
    ("qrels", "message"),
    [
        ({"q:1001": FULL["q:1001"]}, "query 'q:1002': qrels must cover every query"),
        ({**FULL, "q:9": {}}, "query 'q:9': qrels name an unknown query"),
        (
            without(FULL, "q:1002", "docs/b.md"),
            "query 'q:1002', document 'docs/b.md': unjudged or unknown documents: exhaustive qrels required; pair is unjudged",
        ),
        (
            with_label(FULL, "q:1001", "docs/z.md", 0),
            "query 'q:1001', document 'docs/z.md': unjudged or unknown documents: exhaustive qrels required; document is not in the corpus",
        ),
        *[
            (
                with_label(FULL, "q:1002", "docs/a.md", bad),
                f"query 'q:1002', document 'docs/a.md': qrels labels must be integer 0 or 1, got {shown}",
            )
            for bad, shown in [(2, "2"), (True, "True"), ("1", "'1'"), (1.0, "1.0"), (-1, "-1")]
        ],
    ],
)
def test_exhaustive_qrels_refused_as_row_by_row(qrels: dict, message: str) -> None:
    with pytest.raises(ContractError) as caught:
        Protocol(EXHAUSTIVE, qrels)
    assert message in str(caught.value)


def test_exhaustive_qrels_of_0_and_1_are_accepted() -> None:
    assert Protocol(EXHAUSTIVE, FULL).qrels == FULL


@pytest.mark.parametrize(
    ("qrels", "message"),
    [
        (with_label(QRELS, "q:1003", "docs/a.md", 0), "label outside the query's pool"),  # the empty pool
        (with_label(QRELS, "q:1002", "docs/a.md", 0), "label outside the query's pool"),
        ({"q:1001": QRELS["q:1001"]}, "unjudged pool pair: every pair of a query's pool must be judged"),
        (
            without(QRELS, "q:1001", "docs/a.md"),
            "query 'q:1001', document 'docs/a.md': unjudged pool pair: every pair of a query's pool must be judged; pair is unjudged",
        ),
        ({**QRELS, "q:9": {}}, "query 'q:9': qrels name an unknown query"),
        *[
            (
                with_label(QRELS, "q:1001", "docs/a.md", bad),
                f"query 'q:1001', document 'docs/a.md': qrels labels must be integer 0 or 1, got {shown}",
            )
            for bad, shown in [(2, "2"), (False, "False"), ("0", "'0'"), (0.0, "0.0")]
        ],
    ],
)
def test_pooled_qrels_refused_as_row_by_row(qrels: dict, message: str) -> None:
    with pytest.raises(ContractError) as caught:
        Protocol(pooled(), qrels)
    assert message in str(caught.value)


def test_an_empty_pool_may_have_an_empty_row_or_none() -> None:
    assert Protocol(pooled(), {**QRELS, "q:1003": {}}).qrels["q:1003"] == {}
    assert "q:1003" not in Protocol(pooled(), QRELS).qrels


def test_pool_sets_are_the_pools_checked() -> None:
    definition = pooled()
    assert definition.pool_sets == {q: frozenset(pool) for q, pool in POOLS.items()}


def write(directory: Path, definition: ProtocolDefinition, labels: dict) -> None:
    (directory / "protocol.toml").write_text(definition_to_toml(definition))
    (directory / "qrels.toml").write_text(dump_toml({"qrels": labels}))  # as given: unknown IDs too


@pytest.mark.parametrize(
    ("labels", "message"),
    [
        # a label outside its pool and holes: the pool first
        ({"q:1002": {"docs/a.md": 1}}, "query 'q:1002', document 'docs/a.md': label outside the query's pool"),
        # holes and a bad label: the holes first
        ({"q:1001": {"docs/a.md": 2}}, "2 of 3 pairs are unjudged"),
        # a document of no pool (and no text): unknown, not outside the pool
        (with_label(QRELS, "q:1002", "docs/z.md", 0), "unknown document 'docs/z.md': not in the corpus"),
        (
            with_label(QRELS, "q:1002", "docs/b.md", 2),
            "query 'q:1002', document 'docs/b.md': qrels labels must be integer 0 or 1, got 2",
        ),
    ],
)
def test_load_names_pooled_problems_in_order(tmp_path: Path, labels: dict, message: str) -> None:
    write(tmp_path, pooled(documents={"docs/a.md": "text of a"}), labels)
    with pytest.raises(ContractError) as caught:
        load_protocol(tmp_path)
    assert message in str(caught.value)


@pytest.mark.parametrize(
    ("labels", "message"),
    [
        ({"q:1001": {"docs/a.md": 2}}, "5 of 6 pairs are unjudged"),
        (with_label(FULL, "q:1002", "docs/z.md", 0), "unknown document 'docs/z.md': not in the corpus"),
        (
            with_label(FULL, "q:1002", "docs/b.md", True),
            "query 'q:1002', document 'docs/b.md': qrels labels must be integer 0 or 1, got True",
        ),
    ],
)
def test_load_names_exhaustive_problems_in_order(tmp_path: Path, labels: dict, message: str) -> None:
    write(tmp_path, EXHAUSTIVE, labels)
    with pytest.raises(ContractError) as caught:
        load_protocol(tmp_path)
    assert message in str(caught.value)


TABLES = [
    {"q:9": {"docs/a.md": 1}},  # an unknown query
    {"q:1001": [1, 0]},  # not a table
    {"q:1001": "docs/a.md"},
    {"q:1001": {"docs/z.md": 1}},  # a document of no pool, not in the corpus
    {"q:1002": {"docs/a.md": 1, "docs/z.md": 0}},
]


@pytest.mark.parametrize("kind", ["exhaustive", "pooled"])
@pytest.mark.parametrize("bad", TABLES)
def test_pair_tables_name_each_problem_as_row_by_row(kind: str, bad: dict) -> None:
    definition = EXHAUSTIVE if kind == "exhaustive" else pooled(documents={"docs/a.md": "a"})
    table = {**{q: dict(row) for q, row in QRELS.items()}, **bad}

    def read() -> tuple[dict, list[str]]:
        problems: list[ContractError] = []
        return protocol_files.pair_tables(table, "qrels", definition, Path("q.toml"), report=problems.append), [
            str(problem) for problem in problems
        ]

    fast = read()
    with mock.patch.object(protocol_files, "within_protocol", return_value=False):
        assert fast == read()
    assert fast[1], "a problem is reported"


@pytest.mark.parametrize("kind", ["exhaustive", "pooled"])
def test_pair_tables_take_good_rows_whole(kind: str) -> None:
    definition = EXHAUSTIVE if kind == "exhaustive" else pooled()
    table = FULL if kind == "exhaustive" else QRELS
    assert protocol_files.within_protocol(table, definition)
    assert protocol_files.pair_tables(table, "qrels", definition, Path("q.toml")) == table
    if kind == "pooled":  # a row outside its own pool but inside the corpus is the pool check's, after
        outside = with_label(QRELS, "q:1002", "docs/a.md", 0)
        assert not protocol_files.within_protocol(outside, definition)
        assert protocol_files.pair_tables(outside, "qrels", definition, Path("q.toml")) == outside


def test_the_first_query_without_text_is_named_and_the_split_keeps_protocol_order() -> None:
    queries = {"q:3": Query("c", "dev"), "q:1": Query(None, "test"), "q:2": Query(None, "test")}
    with pytest.raises(ContractError) as caught:
        ProtocolDefinition("p", 2, "test", "r", DOCS, queries)
    assert str(caught.value) == "query 'q:1': query text required in an exhaustive protocol"
    queries = {"q:3": Query("c", "test"), "q:1": Query("a", "dev"), "q:2": Query("b", "test")}
    assert ProtocolDefinition("p", 2, "test", "r", DOCS, queries).selected_queries == ("q:3", "q:2")


@pytest.mark.parametrize(
    ("pools", "message"),
    [
        ({**POOLS, "q:9": ()}, "query 'q:9': pool of an unknown query"),
        ({**POOLS, "q:1002": ["docs/b.md"]}, "query 'q:1002': a pool must be a tuple of document IDs"),
        ({**POOLS, "q:1002": ("docs/b.md", 7)}, "query 'q:1002': a pool must be a tuple of document IDs"),
        (
            {**POOLS, "q:1002": ("docs/b.md", "docs/b.md")},
            "query 'q:1002', document 'docs/b.md': document listed twice",
        ),
        (  # the first problem in pool order
            {"q:1001": ("a", "a"), "q:1002": ["b"], "q:1003": (), "q:9": ()},
            "query 'q:1001', document 'a': document listed twice",
        ),
    ],
)
def test_pools_refused_as_pool_by_pool(pools: dict, message: str) -> None:
    queries = {q: Query(text=None, split="test") for q in POOLS}
    with pytest.raises(ContractError) as caught:
        pooled(pools, queries=queries)
    assert str(caught.value).startswith(message)


def test_a_query_without_a_pool_is_named_first() -> None:
    queries = {q: Query(text=None, split="test") for q in ("q:1001", "q:8", "q:1002", "q:1003")}
    with pytest.raises(ContractError) as caught:
        pooled({**POOLS, "q:9": ("x", "x")}, queries=queries)
    assert str(caught.value) == "query 'q:8': pooled protocol: a query without a pool"


ORDER = list(DOCS)
SWAPPED = [*ORDER[:-1], "docs/unknown.md"]


@pytest.mark.parametrize(
    ("rows", "whole", "expected"),
    [
        ([ORDER, ORDER[::-1], ORDER], True, True),  # one sequence per order, each compared once
        ([ORDER, ORDER[:-1]], True, False),  # a row short of one document
        ([ORDER, SWAPPED], True, False),  # as long as the corpus, one document unknown
        ([ORDER, [*ORDER, "docs/unknown.md"]], True, False),
        ([ORDER[:1], ORDER[1:], []], False, True),  # within: partial rows, an empty one
        ([ORDER[:1], SWAPPED[-1:]], False, False),
    ],
)
def test_rows_within_compare_each_distinct_key_sequence(rows: list[list[str]], whole: bool, expected: bool) -> None:
    tables = [dict.fromkeys(row, 0) for row in rows]
    assert rows_within(tables, frozenset(DOCS), whole=whole) is expected


def test_rows_of_one_key_sequence_with_one_short_row_are_refused_as_before() -> None:
    qrels = {"q:1001": dict.fromkeys(ORDER[::-1], 0), "q:1002": dict.fromkeys(ORDER[:-1], 1)}
    with pytest.raises(ContractError, match="unjudged or unknown documents") as raised:
        Protocol(EXHAUSTIVE, qrels)
    assert "msmarco_v2.1_doc_00_12345" in str(raised.value)
