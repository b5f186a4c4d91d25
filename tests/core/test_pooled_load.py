"""Loading a pooled protocol with its qrels: pools taken from the qrels rows they list
(``files.pools.listed_pool``), checked without building a set per pool (``DistinctIds``,
``rows_list_pools``), scored with the gap looked up in the rows; every result, hash and error the
same as by splitting the ``[pools]`` strings and comparing sets."""

from __future__ import annotations

from pathlib import Path

import pytest

from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.evaluation.evaluate import Run, evaluate
from rankeval_tui.core.evaluation.pools import DistinctIds, check_pools
from rankeval_tui.core.evaluation.protocol import Protocol
from rankeval_tui.core.files.pools import listed_pool, read_pools
from rankeval_tui.core.files.protocol_files import (
    QrelsFile,
    definition_to_toml,
    load_definition,
    load_protocol_and_qrels,
    qrels_to_toml,
)
from tests.core.test_pools import POOLS, QRELS, pooled

ROW = {"msmarco_v2.1_doc_00_12345": 1, "docs/a.md": 0, "q:1": 0}


@pytest.mark.parametrize(
    ("text", "row", "listed"),
    [
        ("msmarco_v2.1_doc_00_12345 docs/a.md q:1", ROW, True),
        ("docs/a.md msmarco_v2.1_doc_00_12345 q:1", ROW, False),  # another order: the string's
        ("msmarco_v2.1_doc_00_12345 docs/a.md", ROW, False),  # a label outside the pool
        ("msmarco_v2.1_doc_00_12345 docs/a.md q:1 d4", ROW, False),  # a hole
        ("a b", {"a b": 1}, False),  # one key holding a space: two IDs in the pool
        ("a b c", {"a b": 1, "c": 0}, False),
        ("", {}, False),
        ("a", {"a": 1}, True),
        ("a b", ["a", "b"], False),  # not a table
        ("a b", None, False),  # no row
    ],
)
def test_a_pool_is_its_row_s_keys_only_when_its_string_lists_them(text: str, row: object, listed: bool) -> None:
    pool = listed_pool(text, row)
    assert pool == (tuple(text.split(" ")) if text else ())
    assert (type(pool) is DistinctIds) is listed


@pytest.mark.parametrize(
    "table",
    [
        {"q:1": "d1 d2", "q:2": "d3"},
        {"q:1": " d1 d2", "q:2": "d3"},  # an empty ID, from an empty key of the row
        {"q:1": "d1  d2", "q:2": "d3"},
        {"q:1": "d1 d2", "q:2": 3},
        {"q:1": "d1 d\x01", "q:2": "d3"},
        {"q:1": "d1 d1", "q:2": "d3"},  # twice in one pool: check_pools names it
    ],
)
def test_read_pools_with_the_rows_reads_what_it_reads_without(table: dict[str, object]) -> None:
    rows = {"q:1": {"": 0, "d1": 1, "d2": 0}, "q:2": {"d3": 0}}
    rows["q:1"] = {doc: 0 for doc in str(table["q:1"]).split(" ")}  # the row the string lists
    problems: list[str] = []
    plain = read_pools(table, Path("protocol.toml"), lambda p: problems.append(str(p)))
    problems_with_rows: list[str] = []
    taken = read_pools(table, Path("protocol.toml"), lambda p: problems_with_rows.append(str(p)), rows)
    assert taken == plain and problems_with_rows == problems
    try:
        check_pools(plain, plain.keys())
    except ContractError as error:
        with pytest.raises(ContractError) as again:
            check_pools(taken, taken.keys())
        assert str(again.value) == str(error)


def written(tmp_path: Path, qrels: dict[str, dict[str, int]]) -> Path:
    definition = pooled(documents={"docs/a.md": "text of a"})
    (tmp_path / "protocol.toml").write_text(definition_to_toml(definition))
    (tmp_path / "qrels.toml").write_text(qrels_to_toml(QrelsFile(labels=qrels), definition))
    return tmp_path


def test_a_pooled_load_and_score_build_no_pool_set(tmp_path: Path) -> None:
    """Fails when any step of load or score builds ``pool_sets`` (1M pooled IDs hashed into sets:
    0.1 s a step): ``check_pools`` for a ``DistinctIds`` pool, the qrels table checks, the gap."""
    protocol, _ = load_protocol_and_qrels(written(tmp_path, QRELS))
    definition = protocol.definition
    assert {q: type(pool) for q, pool in definition.pools.items()} == {
        "q:1001": DistinctIds,
        "q:1002": DistinctIds,
        "q:1003": tuple,  # an empty pool has no row to take it from
    }
    report = evaluate(protocol, Run("r", {"q:1001": ["docs/a.md", "msmarco_v2.1_doc_00_12345"]}))
    assert "pool_sets" not in definition.__dict__
    split = load_definition(tmp_path)  # without the rows: each pool split out of its string
    assert all(type(pool) is tuple for pool in split.pools.values())
    assert report == evaluate(Protocol(split, QRELS), Run("r", {"q:1001": ["docs/a.md", "msmarco_v2.1_doc_00_12345"]}))
    assert definition.pools == POOLS and definition.pool_sets == {q: frozenset(p) for q, p in POOLS.items()}


def test_a_row_in_another_order_than_its_pool_loads_the_same(tmp_path: Path) -> None:
    protocol, _ = load_protocol_and_qrels(written(tmp_path, QRELS))
    text = (tmp_path / "qrels.toml").read_text()
    first, second = '"docs/a.md" = 1\n', '"msmarco_v2.1_doc_00_12345" = 0\n'
    assert first + second in text
    (tmp_path / "qrels.toml").write_text(text.replace(first + second, second + first))
    swapped, _ = load_protocol_and_qrels(tmp_path)
    assert swapped.definition.pools == POOLS and type(swapped.definition.pools["q:1001"]) is tuple
    assert swapped.qrels == protocol.qrels and swapped.protocol_sha256 == protocol.protocol_sha256


@pytest.mark.parametrize(
    ("qrels", "fragment"),
    [
        ({**QRELS, "q:1003": {"docs/a.md": 0}}, "label outside the query's pool"),
        ({**QRELS, "q:1002": {}}, "every pair of every pool judged; 1 of 3 pairs are unjudged"),
        ({**QRELS, "q:1002": {"docs/b.md": 0, "docs/c.md": 1}}, "unknown document 'docs/c.md': not in the corpus"),
        ({**QRELS, "q:1002": {"docs/b.md": True}}, "qrels labels must be integer 0 or 1, got True"),
    ],
)
def test_qrels_that_are_not_the_pools_are_refused_as_before(tmp_path: Path, qrels, fragment: str) -> None:
    path = written(tmp_path, QRELS)
    (path / "qrels.toml").write_text(qrels_to_toml(QrelsFile(labels=qrels), load_definition(path)))
    with pytest.raises(ContractError, match=fragment):
        load_protocol_and_qrels(path)


def test_protocol_toml_s_error_comes_before_the_qrels_file_s(tmp_path: Path) -> None:
    """qrels.toml is read before the definition is built (its rows give the pools); an error in
    either file is still named in the order the user fixes them: protocol.toml first."""
    path = written(tmp_path, QRELS)
    (path / "qrels.toml").write_text("q:1001 0 docs/a.md 1\n")
    with pytest.raises(ContractError, match="looks like TREC qrels"):
        load_protocol_and_qrels(path)
    (path / "protocol.toml").write_text((path / "protocol.toml").read_text().replace("[pools]", "[pools"))
    with pytest.raises(ContractError, match="protocol.toml") as error:
        load_protocol_and_qrels(path)
    assert "qrels" not in str(error.value)
