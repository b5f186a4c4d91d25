"""IDs checked over whole texts (``only_id_characters``, ``plain_pools``) refuse exactly what
``check_id`` refuses, and a refused ``[pools]`` table is still named entry by entry."""

from __future__ import annotations

from pathlib import Path
from unittest import mock

import pytest

from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.files import pools
from rankeval_tui.core.files.ids import NOT_IN_AN_ID, only_id_characters

CHARACTERS = [chr(c) for c in (*range(0x250), 0x2028, 0x3000, 0x061C, *range(0x200B, 0x2070), 0xFEFF, 0x1F600)]


@pytest.mark.parametrize("character", CHARACTERS)
def test_one_character_as_check_id_reads_it(character: str) -> None:
    allowed = not NOT_IN_AN_ID.search(character)
    assert only_id_characters(f"ab{character}c") is allowed
    assert only_id_characters(f"é{character}c") is allowed  # the non-ASCII path
    assert only_id_characters(f"a {character}", " ") is (allowed or character == " ")
    assert only_id_characters(f"a {character}\n", " \n") is (allowed or character in " \n")


def test_separators_are_only_what_is_named() -> None:
    assert not only_id_characters("a b")
    assert only_id_characters("a b\nc", " \n") and not only_id_characters("a b\nc", " ")
    assert not only_id_characters("é b\nc", " ")


BAD_POOLS = [
    {"q 1": "d1 d2"},
    {"q\x01": "d1 d2"},
    {"": "d1"},
    {"q:1": ["d1", "d2"]},
    {"q:1": 7},
    {"q:1": "d1  d2"},
    {"q:1": " d1"},
    {"q:1": "d1 "},
    {"q:1": "d1\td2"},
    {"q:1": "d1 d\u202e2"},
    {"q:1": "d1\nd2"},
]


@pytest.mark.parametrize("bad", BAD_POOLS)
def test_a_bad_pool_is_named_as_query_by_query(bad: dict[str, object]) -> None:
    table = {"q:1000": "docs/a.md docs/b.md", **bad, "q:1002": ""}

    def read() -> tuple[dict[str, tuple[str, ...]], list[str]]:
        problems: list[ContractError] = []
        return pools.read_pools(table, Path("protocol.toml"), problems.append), list(map(str, problems))

    fast = read()
    with mock.patch.object(pools, "plain_pools", return_value=False):
        assert fast == read()
    assert len(fast[1]) == 1 and fast[0] == {"q:1000": ("docs/a.md", "docs/b.md"), "q:1002": ()}


def test_a_good_pools_table_is_read_whole() -> None:
    table = {"q:1000": "docs/a.md msmarco_v2.1_doc_00_12345", "q:\u00e9": "d\u00e9j\u00e0 vu", "q:1002": ""}
    with mock.patch.object(pools, "check_id", side_effect=AssertionError("query by query")):
        read = pools.read_pools(table, Path("protocol.toml"), pytest.fail)
    assert read == {
        "q:1000": ("docs/a.md", "msmarco_v2.1_doc_00_12345"),
        "q:\u00e9": ("d\u00e9j\u00e0", "vu"),
        "q:1002": (),
    }
