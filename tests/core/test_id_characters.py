"""IDs checked over whole texts (``only_id_characters``, ``plain_pools``) refuse exactly what
``check_id`` refuses, and a refused ``[pools]`` table is still named entry by entry."""

from __future__ import annotations

import json
import shutil
import unicodedata
from pathlib import Path
from unittest import mock

import pytest

from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.files import pools
from rankeval_tui.core.files.ids import NOT_IN_AN_ID, check_id, only_id_characters

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


FORMAT_CHARACTERS = [chr(c) for c in range(0x110000) if unicodedata.category(chr(c)) == "Cf"]
OTHER_DEFAULT_IGNORABLE = [
    chr(c)
    for c in (0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, *range(0x180B, 0x1810), 0x3164, *range(0xFE00, 0xFE10), 0xFFA0)
]
"""DerivedCoreProperties' Default_Ignorable_Code_Point beyond category Cf (assigned ones)."""


@pytest.mark.parametrize("character", FORMAT_CHARACTERS + OTHER_DEFAULT_IGNORABLE, ids=lambda c: f"U+{ord(c):04X}")
def test_an_invisible_character_is_refused_by_name(character: str) -> None:
    """``d1`` and ``d1\\u200b`` look the same on screen and in every output: the second is refused,
    with the code point named (a bidirectional control keeps its own words)."""
    assert NOT_IN_AN_ID.search(f"d1{character}")
    assert not only_id_characters(f"d1{character}")
    with pytest.raises(ContractError) as refused:
        check_id("document", f"d1{character}", file=Path("run.trec"))
    assert f"U+{ord(character):04X}" in str(refused.value) or "control character" in str(refused.value)


@pytest.mark.parametrize("invisible", ["\u200b", "\u2060", "\ufeff"])
def test_every_reader_refuses_an_invisible_id(tmp_path: Path, invisible: str) -> None:
    """The TREC run (fast and line by line), the TREC qrels, a JSON run and protocol.toml."""
    from tests.cli.helpers import REPO, assert_one_line_error, run_cli

    seed = REPO / "protocols" / "help-docs-zh"
    trec = tmp_path / "run.trec"
    trec.write_text(f"q2 Q0 d1{invisible} 1 2.5 x\nq2 Q0 d2 2 1.5 x\n", encoding="utf-8")
    qrels = tmp_path / "qrels.trec"
    qrels.write_text(f"q2 0 d1{invisible} 1\n", encoding="utf-8")
    run = tmp_path / "run.json"
    run.write_text(json.dumps({"q2": [f"d1{invisible}", "d2"]}), encoding="utf-8")
    protocol = tmp_path / "p"
    shutil.copytree(seed, protocol)
    text = (protocol / "protocol.toml").read_text(encoding="utf-8")
    (protocol / "protocol.toml").write_text(text.replace("[documents.d1]", f'[documents."d1{invisible}"]'))
    rule = f"contains an invisible character (U+{ord(invisible):04X})"
    for command in (
        ("score", seed, "--run", trec),
        ("score", seed, "--run", run),
        ("qrels", "import", seed, qrels),
        ("score", protocol),
    ):
        assert_one_line_error(run_cli(*command), rule)
