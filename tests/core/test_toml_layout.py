"""``toml_layout.read`` against tomllib: the project's layout read fast, every other left to tomllib.

The contract: whenever ``read(text)`` returns a reading, ``tomllib.loads(text)`` succeeds and
its data is equal, with the same types and key order; otherwise ``read`` returns None (never
raises). A differential hypothesis test feeds it tomli-w's output (the layout it must read
without tomllib), documents tomli-w writes outside that layout (floats, dates, nested arrays,
arrays of tables), the same documents with lines of other layouts spliced in, and random
damage; tests also pin that the project's own files are read whole, so the contract cannot be
met by always answering None.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
import tomli_w
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.synth import SynthSpec, make_data, qrels_toml
from rankeval_tui.core.files import toml_layout
from rankeval_tui.core.files.tomllib_compat import tomllib
from tests.conftest import SEED_DIR

BARE = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_"


def strict_equal(a: Any, b: Any) -> bool:
    """Equality that tells 1 from true and 1 from 1.0, recursively, and compares key order."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(strict_equal(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(strict_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return a == b


def check_contract(text: str) -> toml_layout.Reading | None:
    """The property itself: a reading equals tomllib's, or there is none."""
    reading = toml_layout.read(text)  # must not raise, whatever the text
    if reading is not None:
        assert strict_equal(reading.data, tomllib.loads(text)), text
    return reading


def check_read_whole(text: str) -> None:
    """A text in the layout: read without tomllib, equal to tomllib's reading."""
    reading = check_contract(text)
    assert reading is not None and reading.by_tomllib == (), text


# ------------------------------------------------------------------ generators

keys = (st.text(BARE, min_size=1, max_size=6) | st.text(max_size=6)).filter(
    lambda key: "'''" not in key and '"""' not in key
)
"""Any key but one holding three quotes in a row: a text holding them anywhere goes to tomllib
whole (a multi-line string's line could read as a header)."""
scalars = st.text(max_size=12) | st.integers(-(10**18) + 1, 10**18 - 1) | st.booleans()
rows = st.dictionaries(keys, scalars | st.lists(scalars, max_size=3), max_size=5)
layout_documents = st.dictionaries(
    keys,
    st.dictionaries(keys, rows, max_size=4) | rows.filter(lambda row: all(type(v) is not dict for v in row.values())),
).map(tomli_w.dumps)
"""What the project writes: top-level tables of pairs or of tables of pairs (protocol.toml's
``[documents."ID"]``, qrels.toml's ``[qrels."QUERY"]``), any key, any string."""

label_rows = st.dictionaries(
    keys,
    st.integers(0, 12),
    min_size=1,
    max_size=6,
)
qrels_documents = st.lists(label_rows, min_size=1, max_size=6).map(
    lambda table: tomli_w.dumps({"qrels": {f"q{i}": row for i, row in enumerate(table)}})
)

outside_scalars = scalars | st.integers() | st.floats() | st.dates() | st.datetimes() | st.times()
outside_values = st.recursive(
    outside_scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.lists(st.dictionaries(keys, inner, max_size=2), min_size=1, max_size=2)
    ),
    max_leaves=6,
)
outside_documents = st.dictionaries(
    keys, st.dictionaries(keys, outside_values | st.dictionaries(keys, outside_values, max_size=3), max_size=3)
).map(tomli_w.dumps)

NEAR_MISS_LINES = [
    '"quoted" = 1',
    "'literal' = 1",
    "a.b = 1",
    "a = 1.5",
    "a = 0x1f",
    "a = 1_000",
    "a = +1",
    "a = 01",
    "a = inf",
    "a = 1979-05-27",
    "a = { b = 1 }",
    "a = [1, 2]",
    "a=1",
    "a = 1 # comment",
    "# comment",
    "",
    "[a]",
    "[a.b]",
    "[a.b.c]",
    "[[a]]",
    "[[a.b]]",
    "[ a ]",
    "['a']",
    '["a.b"]',
    '"x" = "\\U0001F600"',
    '"x" = "\\ud800"',
    '"x" = "a\\/b"',
    '"x" = "tab\there"',
    'x = """multi',
    'line"""',
    "a = [",
    "    1,",
    "]",
    "\td = 0",
    '"d" = 1[qrels."q"]',
    "d = 0\r",
    "d = 1 = 2",
    "5",
]


def spliced(document: str, line: str, at: int) -> str:
    lines = document.split("\n")
    lines.insert(at % (len(lines) + 1), line)
    return "\n".join(lines)


# ------------------------------------------------------------------ properties


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(layout_documents)
def test_the_layout_the_project_writes_is_read_whole(text: str) -> None:
    check_read_whole(text)


@settings(max_examples=200, deadline=None)
@given(qrels_documents)
def test_qrels_of_any_integer_labels_are_read_as_tomllib_reads_them(text: str) -> None:
    """Graded labels (0..12 here: two digits too) are read exactly as tomllib reads them:
    which labels are allowed is protocol_files' rule, not the parser's."""
    check_read_whole(text)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(outside_documents)
def test_other_values_are_left_to_tomllib(text: str) -> None:
    check_contract(text)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(layout_documents | qrels_documents, st.sampled_from(NEAR_MISS_LINES), st.integers(0, 200))
def test_a_line_of_another_layout_is_never_misread(text: str, line: str, at: int) -> None:
    check_contract(spliced(text, line, at))


@settings(max_examples=300, deadline=None)
@given(layout_documents | qrels_documents, st.integers(0, 10_000), st.text(max_size=3), st.integers(0, 3))
def test_damaged_text_is_never_misread(text: str, at: int, insert: str, cut: int) -> None:
    position = at % (len(text) + 1)
    check_contract(text[:position] + insert + text[position + cut :])


# ------------------------------------------------------------------ the files the project has


def test_the_seed_files_are_read_whole() -> None:
    for name in ("protocol.toml", "qrels.toml", "chunks/chunk_map.toml"):
        check_read_whole((SEED_DIR / name).read_text(encoding="utf-8"))


@pytest.mark.parametrize("layout", ["realistic", "bare", "quoted"])
def test_a_synthetic_protocol_is_read_whole(layout: str) -> None:
    data = make_data(SynthSpec(30, 20, 5, k=5, layout=layout))
    check_read_whole(qrels_toml(data.qrels, quote_all=layout == "quoted"))


def test_a_grown_protocol_reads_its_growth_records_with_tomllib_only() -> None:
    """``grow`` appends ``[[provenance.growth]]`` (an array of tables) and a comment: the tables
    the project writes in bulk stay on the fast path, [provenance] goes to tomllib."""
    text = tomli_w.dumps({"protocol": {"name": "p", "k": 2}, "documents": {"d1": {"text": "a\nb"}}})
    text += "\n# added by rankeval-tui grow\n" + tomli_w.dumps({"documents": {"d2": {"text": "c"}}})
    text += "\n" + tomli_w.dumps({"provenance": {"growth": [{"at": "now", "from": {"documents": ["x"]}}]}})
    reading = check_contract(text)
    assert reading is not None and reading.by_tomllib == ("provenance",)
    assert set(toml_layout.SMALL_TABLES) >= set(reading.by_tomllib)


def test_unknown_protocol_keys_and_scales_are_read_as_tomllib_reads_them() -> None:
    """Keys a later version may add (a relevance scale, how unlisted pairs count, a tie order)
    are read as they are; the loaders decide what they mean."""
    data = {
        "protocol": {"name": "p", "k": 10, "unlisted": "zero", "tie_order": "score"},
        "scale": {"labels": [0, 1, 2, 3], "relevant_from": 2},
        "qrels": {"q:1": {"d1": 3, "d2": 0, "d3": 2}, "q:2": {"d1": 1, "d2": 3, "d3": 0}},
    }
    check_read_whole(tomli_w.dumps(data))


@pytest.mark.parametrize(
    "text",
    [
        '[qrels."q1"]\n"d1" = 1\n"d2" = 0\n\n[qrels."q2"]\n"d1" = 1\n"d2" = 0\n',
        '[qrels."q1"]\n"d1" = 1\n"d2" = 0\n\n[qrels."q2"]\n"d1" = 12\n"d2" = 0\n',
        "[qrels.q1]\nd1 = 1\nd2 = 0\n\n[qrels.q2]\nd2 = 1\nd1 = 0\n",
        "[qrels.q1]\nd1 = 1\nd2 = 0\n\n[qrels.q2]\nd1 = 1\nd3 = 0\n",
        "[qrels.q1]\nd1 = 3\nd2 = -1\n\n[qrels.q2]\nd1 = 9\nd2 = 0\n",
        '[qrels."q1"]\n"d1" = 1\n"d2" = 0\n\n[qrels."q2"]\n"d3" = 1\n"d4" = 0\n',  # pooled: other keys, same length
        '[qrels."q1"]\n"d1" = 1\n"d2" = 0\n\n[qrels."q2"]\n"d1" = 1\n"d3" = 0\n',  # the same first key only
        '[qrels.q1]\n"d1" = 0\n"d\\u0041" = 1\n',  # an escape in a key: decoded
        "[qrels.q1]\nd1 = 3\nd2 = 0\nd3 = 1\n\n[qrels.q2]\nd1 = 0\nd2 = 2\nd3 = 9\n",  # exhaustive, graded
    ],
)
def test_rows_of_the_same_or_other_keys(text: str) -> None:
    check_read_whole(text)


@pytest.mark.parametrize(
    "text",
    [
        '[qrels."q1"]\n"d1" = 1\n"d1" = 0\n',  # a key twice
        "[qrels.q1]\nd1 = 1\n\n[qrels.q1]\nd2 = 0\n",  # a table twice
        "[qrels]\nq1 = 1\n\n[qrels.q1]\nd1 = 0\n",  # a table over a value
        '[qrels."q1"]\n"d1" = 1\n"d2" = 0\n\n[qrels."q2"]\n"d1" = 1\n"d2" = 01\n',  # a leading zero
        '[qrels."q1"]\n"d1" = 1\n"d2" = 0\n\n[qrels."q2"]\n"d1" = 1 = 2\n5\n',  # lines out of step
        "[qrels.q1]\na.b = 1\nc = 0\n",  # a dotted key: tomllib's
        '[qrels.q1]\n"ab = 0\ncd" = 1\n',  # quotes that do not pair up
        '[qrels.q1]\n"a"b" = 0\n"c" = 1\n',  # a quote inside a key
        "[qrels.q1]\nd1 = 0\nd 2 = 1\n",  # a space in a bare key
        '[qrels.q1]\n"d1" = 0\n"d\x01" = 1\n',  # a control character in a key
        "[qrels.q1]\nd1 = 0\nd\u00e9 = 1\n",  # a key not bare
        "[qrels.q1]\nd1 = 0\n = 1\n",  # an empty bare key
        '[q.a]\nx = 1\n"x" = 2\n\n[q.b]\nx = 1\n"x" = 2\n',  # a key twice in records, bare then quoted
        '[q.a]\nx = "1"\nx = "2"\n\n[q.b]\nx = "1"\nx = "2"\n',  # a key twice in records of strings
    ],
)
def test_what_tomllib_refuses_or_reads_otherwise_is_left_to_it(text: str) -> None:
    reading = check_contract(text)
    assert reading is None or reading.by_tomllib


POOLS = '[pools]\n"q:1" = "d1 d2 d3"\n"q:2" = "d2\td4"\nq3 = ""\n'


def test_a_pools_table_is_split_at_its_quotes() -> None:
    """``[pools]``, a line of IDs for each query, is read by one split (no line by line reading)."""
    body = POOLS.partition("\n")[2].replace("q3", '"q3"')
    assert toml_layout._string_pairs(body) == [("q:1", "d1 d2 d3"), ("q:2", "d2\td4"), ("q3", "")]
    check_read_whole(POOLS)


@pytest.mark.parametrize(
    "line",
    [
        '"q:4" = "d1\\u0041"',  # an escape: json decodes it
        '"q:4" = "d1" # comment',
        '"q:4" = "a" = "b"',
        '"q:4"= "d1"',
        '"q:4" = "d1\x01"',  # a control character: tomllib refuses it
        '"q:4" = "d1\x7f"',
        '"q:1" = "d9"',  # a key twice
        '"q:4" = "d1',
        'q:4" = "d1"',
        '"q:4" = """d1"""',
        "",
        "q4 = 'd1'",
    ],
)
def test_a_pools_line_of_another_layout_is_never_misread(line: str) -> None:
    check_contract(POOLS + line + "\n")
    check_contract(POOLS.replace('"q:2"', line + '\n"q:2"'))


RECORDS = '[queries."q:1"]\ntext = "a b"\nsplit = "test"\n\n[queries."q:2"]\ntext = "c\td"\nsplit = ""\n'


@pytest.mark.parametrize(
    "text",
    [
        '[0.00]\n0 = ""\n\n[0.0]\n',  # a record, then an empty table: two tables, not one record
        '[q."a"]\ntext = "x"\n\n[q."b"]\n',  # the same under quoted headers
        '[0."\\u0000deep"]\n',  # a key spelled as the reader's marker of a deeper header
    ],
)
def test_edge_tables_found_by_the_differential_test(text: str) -> None:
    check_read_whole(text)


def test_records_of_strings_are_split_at_their_quotes() -> None:
    """A protocol's queries and documents (bare keys, strings without escapes) are read by one
    split: the run as written under quoted headers, its bodies joined under bare ones."""
    records = [{"text": "a b", "split": "test"}, {"text": "c\td", "split": ""}]
    assert toml_layout._quoted_records(RECORDS, 0, len(RECORDS), "queries") == (["q:1", "q:2"], records)
    bodies = ['text = "a b"\nsplit = "test"\n', 'text = "c\td"\nsplit = ""\n']
    assert toml_layout._string_records(bodies, ["text", "split"]) == records
    check_read_whole(RECORDS)
    check_read_whole(RECORDS.replace('"q:1"', "q1").replace('"q:2"', "q2"))


@pytest.mark.parametrize(
    "old, new",
    [
        ('"c\td"', '"c\\u0041"'),  # an escape: json decodes it
        ('"c\td"', '"c\x01"'),  # a control character: tomllib refuses it
        ('split = ""', 'split = "" # comment'),
        ('split = ""', 'split = ""\nsplit = "x"'),  # a key twice
        ('split = ""', "split = 3"),
        ('split = ""', '"split" = ""'),
        ('split = ""', 'other = ""'),
        ('text = "c\td"\n', ""),
        ('text = "c\td"', 'text = """c"""'),
        ('text = "c\td"', 'text = "c" = "d"'),
        ('split = ""\n', 'split = ""\n\n\n'),
    ],
)
def test_records_of_another_layout_are_never_misread(old: str, new: str) -> None:
    text = RECORDS.replace(old, new)
    assert text != RECORDS
    check_contract(text)
