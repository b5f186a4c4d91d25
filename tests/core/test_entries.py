"""[documents] and [queries] checked as whole tables answer exactly as the per-entry loop."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from unittest import mock

import pytest

from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.files import entries
from rankeval_tui.core.files.ids import QUERY_OPTIONAL, QUERY_REQUIRED
from rankeval_tui.core.files.pools import POOLED_QUERY_OPTIONAL, POOLED_QUERY_REQUIRED
from rankeval_tui.core.files.protocol_files import DOCUMENT_OPTIONAL, DOCUMENT_REQUIRED

KINDS = {
    "document": (DOCUMENT_REQUIRED, DOCUMENT_OPTIONAL),
    "query": (QUERY_REQUIRED, QUERY_OPTIONAL),
    "pooled query": (POOLED_QUERY_REQUIRED, POOLED_QUERY_OPTIONAL),
}


def good(kind: str) -> dict[str, Any]:
    if kind == "document":
        return {f"docs/export-{i}.md": {"text": f"text {i}", **({"title": "T"} if i % 3 else {})} for i in range(6)}
    if kind == "query":
        return {
            f"q:{1000 + i}": {"text": "what", "split": "test", **({"need": "n"} if i % 2 else {})} for i in range(6)
        }
    return {f"q:{1000 + i}": {"split": "test", **({"text": "t"} if i % 2 else {})} for i in range(6)}


BAD: list[tuple[str, object, object]] = [
    ("document", "docs/a b.md", {"text": "x"}),
    ("document", "docs/\x07.md", {"text": "x"}),
    ("document", "q1\u202egnp.d", {"text": "x"}),
    ("document", "", {"text": "x"}),
    ("document", "docs/z.md", "just text"),
    ("document", "docs/z.md", ["text"]),  # [documents] "docs/z.md" = ["text"]: keys alike, no table
    ("document", "docs/z.md", {}),
    ("document", "docs/z.md", {"text": "x", "body": "y"}),
    ("document", "docs/z.md", {"text": 1}),
    ("document", "docs/z.md", {"text": "x", "title": True}),
    ("document", "docs/z.md", {"text": "x", "title": None}),
    ("query", "q:9", {"text": "x"}),
    ("query", "q:9", {"split": "test"}),
    ("query", "q:9", {"text": "x", "split": "test", "need": 3}),
    ("query", "q:9", {"text": "x", "split": ["test"]}),
    ("query", "q 9", {"text": "x", "split": "test"}),
    ("pooled query", "q:9", {"text": "x"}),
    ("pooled query", "q:9", {"split": "test", "text": 1.5}),
    ("pooled query", "q:9", {"split": "test", "pool": "a b"}),
]


def answer(table: dict[Any, Any], kind: str) -> tuple[object, list[str]]:
    problems: list[ContractError] = []
    required, optional = KINDS[kind]
    kind_name = "document" if kind == "document" else "query"
    valid = entries.valid_entries(table, kind_name, required, optional, Path("protocol.toml"), problems.append)
    return valid, [str(problem) for problem in problems]


@pytest.mark.parametrize(("kind", "key", "entry"), BAD)
@pytest.mark.parametrize("at", [0, 3, 6])
def test_a_bad_entry_is_named_as_the_per_entry_loop_names_it(kind: str, key: object, entry: object, at: int) -> None:
    items = list(good(kind).items())
    items.insert(at, (key, entry))
    table = dict(items)
    required, optional = KINDS[kind]
    assert not entries.plain_entries(table, required, optional)
    fast = answer(table, kind)
    with mock.patch.object(entries, "plain_entries", return_value=False):
        slow = answer(table, kind)
    assert fast == slow and len(fast[1]) >= 1 and key not in fast[0]


@pytest.mark.parametrize("kind", KINDS)
def test_a_good_table_is_taken_whole(kind: str) -> None:
    table = good(kind)
    required, optional = KINDS[kind]
    assert entries.plain_entries(table, required, optional)
    with mock.patch.object(entries, "check_table", side_effect=AssertionError("entry by entry")):
        fast = answer(table, kind)
    with mock.patch.object(entries, "plain_entries", return_value=False):
        assert fast == answer(table, kind) == (table, [])


def test_an_empty_table_has_no_entries() -> None:
    assert answer({}, "document") == ({}, [])
