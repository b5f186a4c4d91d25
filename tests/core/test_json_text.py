"""dumps_indented is json.dumps(value, ensure_ascii=False, indent=2), byte for byte."""

from __future__ import annotations

import json
import math
from collections import OrderedDict
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankeval_tui.core.evaluation.json_text import Columns, column_text, dumps_indented


def reference(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2)


scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text()
keys = st.text() | st.integers() | st.booleans() | st.none() | st.floats(allow_nan=False)
values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=4)
        | st.lists(children, max_size=3).map(tuple)
        | st.dictionaries(keys, children, max_size=4)
    ),
    max_leaves=30,
)


@settings(max_examples=400, deadline=None)
@given(values)
def test_same_text_as_json(value: object) -> None:
    assert dumps_indented(value) == reference(value)


rows = st.lists(st.dictionaries(st.text(), scalars, min_size=1, max_size=4), min_size=1, max_size=5)


@settings(max_examples=300, deadline=None)
@given(rows, st.integers(0, 3))
def test_flat_rows_same_text_as_json(value: list[dict[str, object]], depth: int) -> None:
    """Per-query rows take the one-C-encoding path: braces, NULs and marks in strings included."""
    nested: object = value
    for _ in range(depth):
        nested = {"per_query": nested, "x": [nested]}
    assert dumps_indented(nested) == reference(nested)


@pytest.mark.parametrize(
    "value",
    [
        {},
        [],
        {"a": {}, "b": [], "c": [{}, []]},
        {"q:1001\u2028\x1b[31m": 'é\u0000\n"\\', "n": [math.inf, -math.inf, 0.1, -0.0, 10**30]},
        {"per_query": [{"query": "q:1", "value": "1/3", "value_decimal": 1 / 3}] * 3},
        [{"a}\x00{": "}\x00{", "b": None}, {"c": math.nan}],
        [{"a": 1}, {}, {"b": [1]}],  # not flat: the generic walk
        OrderedDict([("x", [1, OrderedDict([("y", True)])])]),  # a subclass: json's own text, indented
    ],
)
def test_edge_values(value: object) -> None:
    assert dumps_indented(value) == reference(value)


def test_unserializable_raises_like_json() -> None:
    with pytest.raises(TypeError):
        dumps_indented({"a": [Fraction(1, 3)]})
    with pytest.raises(TypeError):
        dumps_indented({(1, 2): 0})


COLUMN_KEYS = ['q{u}\x00"', "n", "b", "f"]
column_rows = st.lists(
    st.tuples(st.text(), st.integers() | st.none(), st.booleans(), scalars).map(
        lambda row: dict(zip(COLUMN_KEYS, row))
    ),
    max_size=5,
)


@settings(max_examples=300, deadline=None)
@given(column_rows, st.integers(0, 3))
def test_columns_same_text_as_json_of_the_rows(rows: list[dict[str, object]], depth: int) -> None:
    """``Columns`` (a report's rows given column by column) writes what the list of dicts would,
    at any depth; keys with braces and NULs included (they are in the template)."""
    first = column_text([row[COLUMN_KEYS[0]] for row in rows])
    columns = Columns(COLUMN_KEYS, first, [[row[key] for row in rows] for key in COLUMN_KEYS[1:]])
    nested: tuple[object, object] = (columns, rows)
    for _ in range(depth):
        nested = ({"per_query": nested[0], "x": 1}, {"per_query": nested[1], "x": 1})
    assert dumps_indented(nested[0]) == reference(nested[1])


def test_column_text_converts_each_distinct_object_once() -> None:
    third = Fraction(1, 3)
    seen: list[object] = []

    def convert(value: object) -> object:
        seen.append(value)
        return str(value)

    assert column_text([third, None, third, Fraction(1, 2), 7], convert) == ['"1/3"', "null", '"1/3"', '"1/2"', "7"]
    assert seen == [third, Fraction(1, 2)]  # scalars as they are, each Fraction object once
    with pytest.raises(TypeError):
        column_text([third])


def test_columns_need_one_column_per_key() -> None:
    with pytest.raises(ValueError):
        Columns(["a", "b"], ["1"])
    with pytest.raises(ValueError):
        Columns(["a", "b"], ["1"], [[]])
    with pytest.raises(ValueError):
        Columns(["a", "b"], ["1"], [[1]], [None, None])


@pytest.mark.parametrize(
    "column",
    [
        [1, True, 1, True, None],  # equal, one hash, other texts: 1 and true
        [0, False, 0, None, False],
        [0.0, -0.0, 0.0, -0.0],  # equal, written 0.0 and -0.0
        [1, 1.0, True],
        [math.nan, math.nan, float("nan")],
        ["a", None, "a", "b"],
    ],
)
def test_columns_tell_equal_values_with_other_texts_apart(column: list[object]) -> None:
    """``Columns`` writes each distinct row of values once: values that are equal (or hash
    alike) but written differently must not share a text."""
    firsts = [f"q{i}" for i in range(len(column))]
    rows = [{"q": q, "v": v, "w": 7} for q, v in zip(firsts, column)]
    columns = Columns(["q", "v", "w"], column_text(firsts), [column, [7] * len(column)])
    assert dumps_indented({"per_query": columns}) == reference({"per_query": rows})


def test_columns_convert_each_column_its_own_way() -> None:
    """One column given twice (a measure's value and its decimal), equal Fractions held by other
    objects, and None: each column's ``convert`` on each value, as the rows' dicts would say."""
    values = [Fraction(1, 3), None, Fraction(1, 3), Fraction(2, 4), Fraction(1, 2)]
    firsts = [f"q{i}" for i in range(len(values))]
    columns = Columns(["query", "value", "value_decimal"], column_text(firsts), [values, values], [str, float])
    rows = [
        {"query": q, "value": None if v is None else str(v), "value_decimal": None if v is None else float(v)}
        for q, v in zip(firsts, values)
    ]
    assert dumps_indented([columns]) == reference([rows])
    assert dumps_indented(Columns(["q"], [])) == "[]"
    assert dumps_indented(Columns(["q"], ['"a"', '"b"'])) == reference([{"q": "a"}, {"q": "b"}])
