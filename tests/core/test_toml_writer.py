"""The fast TOML writer (core/files/toml_writer.py) writes exactly what tomli-w writes.

Every file the project writes goes through it (protocol.toml at init, qrels.toml at the end of
judging, merges, imports), so "the same text as tomli-w" is checked on generated documents with
hostile keys and strings (control characters, quotes, backslashes, line and paragraph separators,
surrogate-free astral characters, empty strings, keys that look bare but are not), big and
negative integers, floats, arrays of every shape (arrays of tables written as ``[[...]]`` or
inline depending on their length, nested arrays) and deep tables; the text must then read back
with tomllib as the data written. What the fast writer does not take goes to tomli-w whole.
"""

from __future__ import annotations

import datetime
import math
from decimal import Decimal
from types import MappingProxyType
from typing import Any

import pytest
import tomli_w
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rankeval_tui.core.files import toml_writer
from rankeval_tui.core.files.tomllib_compat import tomllib
from tests.core.seed import SEED_DIR

NASTY = "\x00\x01\x07\x08\t\n\x0b\x0c\r\x1b\x1f\x7f\x80\x85\xa0\u2028\u2029\ufeff\uffff\"'\\#=[]{}.,$% \U0001f600é中"
"""Also ``%`` (the record and row templates are ``%`` formats) and U+FFFF (what the writer joins
strings with to escape them at once)."""
strings = st.text(alphabet=st.sampled_from(NASTY) | st.characters(exclude_categories=("Cs",)), max_size=40)
keys = (
    strings | st.from_regex(r"[A-Za-z0-9_-]{1,12}", fullmatch=True) | st.sampled_from(["", "q:1001", "a.b", "1", "%s"])
)
scalars = (
    strings
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.booleans()
    | st.floats(allow_nan=False, allow_infinity=True)
)


def values(tables: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    arrays = st.lists(scalars, max_size=4) | st.lists(st.lists(scalars, max_size=3), max_size=3)
    array_tables = st.lists(tables, min_size=1, max_size=3)
    return scalars | arrays | array_tables | tables | st.tuples(scalars, scalars)


documents = st.recursive(
    st.dictionaries(keys, scalars, max_size=4),
    lambda tables: st.dictionaries(keys, values(tables), max_size=5),
    max_leaves=30,
)


def as_read(value: Any) -> Any:
    """What tomllib gives back for a written value: tuples are arrays."""
    if isinstance(value, dict):
        return {k: as_read(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [as_read(v) for v in value]
    return value


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents)
def test_the_text_is_tomli_ws_and_reads_back(data: dict[str, Any]) -> None:
    written = toml_writer.dumps(data)
    assert written == tomli_w.dumps(data)
    assert tomllib.loads(written) == as_read(data)


@settings(max_examples=300, deadline=None)
@given(strings)
def test_every_string_is_escaped_as_tomli_w_escapes_it(text: str) -> None:
    assert toml_writer.dumps({"k": text, text: 1}) == tomli_w.dumps({"k": text, text: 1})
    assert tomllib.loads(toml_writer.dumps({"k": text}))["k"] == text


records = st.dictionaries(keys, st.dictionaries(keys, strings, min_size=1, max_size=3), min_size=1, max_size=8)
"""A table of string records, as ``[documents."ID"]`` and ``[queries."ID"]``: one shape or several."""
bare_records = st.dictionaries(
    st.from_regex(r"[A-Za-z0-9_-]{1,8}", fullmatch=True),
    st.fixed_dictionaries({"title": strings, "text": strings}),
    min_size=1,
    max_size=8,
)
"""Bare IDs, one shape: the all-bare keys and the single-template path."""


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records, bare_records, keys, st.lists(scalars, max_size=2))
def test_tables_of_records_are_tomli_ws(
    table: dict[str, Any], bare: dict[str, Any], name: str, more: list[Any]
) -> None:
    """Records written at once, at the top, under a name, beside other values, in an array of
    tables (written as ``[[...]]`` when long), and a table of them holding one non-string."""
    long = {**table, "long": {"t": "y" * 100}}  # too long for an inline array: [[a]]
    shapes: list[dict[str, Any]] = [
        table,
        bare,
        {name: table},
        {"documents": table, "queries": bare, "x": {name: {"k": 1, "r": table}}},
        {"a": [long, long]},
        {"documents": {**table, "last": {"n": 1}}},
        {"documents": {**table, "empty": {}}},
        {"documents": {**table, "list": {"l": more}}},
    ]
    for data in shapes:
        written = toml_writer.dumps(data)
        assert written == tomli_w.dumps(data)
        assert tomllib.loads(written) == as_read(data)


@settings(max_examples=200, deadline=None)
@given(st.lists(keys, min_size=1, max_size=6, unique=True), st.data())
def test_rows_of_integers_sharing_their_keys_are_tomli_ws(row_keys: list[str], data: st.DataObject) -> None:
    """Rows of labels with the same keys in the same order (one template, refilled), in another
    order, with fewer keys, and a row holding a bool (not an integer row)."""
    values = st.lists(st.integers(min_value=-(2**70), max_value=2**70), min_size=len(row_keys), max_size=len(row_keys))
    rows = {f"q{i}": dict(zip(row_keys, data.draw(values))) for i in range(3)}
    rows["reversed"] = dict(zip(reversed(row_keys), data.draw(values)))
    rows["fewer"] = dict(zip(row_keys[1:], data.draw(values)))
    rows["again"] = dict(zip(row_keys, data.draw(values)))
    rows["bool"] = dict.fromkeys(row_keys, True)
    table = {"qrels": rows}
    assert toml_writer.dumps(table) == tomli_w.dumps(table)
    assert tomllib.loads(toml_writer.dumps(table)) == table


def test_strings_holding_the_separator_are_escaped_each_on_its_own() -> None:
    texts = ['a"\ufffd', "b\uffffc\n", "\uffff", "", "plain"]
    assert toml_writer.string_bodies(texts) == [toml_writer.basic_string(t)[1:-1] for t in texts]
    table = {"documents": {f"d{i}": {"text": t} for i, t in enumerate(texts)}}
    assert toml_writer.dumps(table) == tomli_w.dumps(table)


def test_every_control_character_and_quote() -> None:
    text = "".join(chr(c) for c in [*range(0x20), 0x7F, 0x22, 0x5C, 0x41])
    assert toml_writer.basic_string(text) == tomli_w.dumps({"k": text})[4:-1]
    assert toml_writer.dumps({text: text}) == tomli_w.dumps({text: text})


def test_the_projects_files() -> None:
    """The demo's protocol and qrels, and a qrels file of realistic IDs (labels, notes, disputes,
    provenance with an array of tables), as tomli-w writes them."""
    for name in ("protocol.toml", "qrels.toml"):
        data = tomllib.loads((SEED_DIR / name).read_text(encoding="utf-8"))
        assert toml_writer.dumps(data) == tomli_w.dumps(data)
    docs = [f"msmarco_v2.1_doc_00_{i}" for i in range(50)] + ["docs/export.md", "a b", ""]
    qrels = {
        "provenance": {"tool": "rankeval-tui", "growth": [{"added": 3, "note": "x" * 120}, {"added": 1}]},
        "qrels": {f"q:{1000 + q}": {d: (q + i) % 2 for i, d in enumerate(docs)} for q in range(20)},
        "notes": {"q:1001": {docs[0]: 'says "maybe"\nsee line 2'}},
        "disputed": {"q:1002": {docs[1]: True}},
    }
    assert toml_writer.dumps(qrels) == tomli_w.dumps(qrels)


@pytest.mark.parametrize(
    "data",
    [
        {"when": datetime.date(2024, 1, 2)},
        {"t": {"at": datetime.datetime(2024, 1, 2, 3, 4, 5)}},
        {"d": Decimal("1.5")},
        {"m": MappingProxyType({"a": 1})},
        {"a": [1, MappingProxyType({"b": 2})]},
        {"a": [{"b": datetime.time(1, 2)}]},
        {"f": math.nan},
    ],
)
def test_what_it_does_not_take_goes_to_tomli_w(data: dict[str, Any]) -> None:
    assert toml_writer.dumps(data) == tomli_w.dumps(data)


@pytest.mark.parametrize("data", [{1: "x"}, {"a": object()}, {"a": [object()]}, {"a": {"b": {2: 1}}}])
def test_what_tomli_w_refuses_is_refused_the_same_way(data: dict[Any, Any]) -> None:
    with pytest.raises(TypeError) as theirs:
        tomli_w.dumps(data)
    with pytest.raises(TypeError) as ours:
        toml_writer.dumps(data)
    assert str(ours.value) == str(theirs.value)
