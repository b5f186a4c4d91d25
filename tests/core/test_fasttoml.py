"""``fasttoml.loads`` against tomllib: whenever the fast path answers, tomllib agrees exactly.

The contract under test: if ``fasttoml.loads(t)`` returns a dict, ``tomllib.loads(t)`` succeeds
and returns an equal dict with the same types and key order; otherwise it returns ``None``
(never raises). A differential hypothesis test feeds it tomli-w output (which it must take),
documents in every layout a person or another tool may write (bare, basic and literal keys with
escapes, dotted quoted headers, comments, CRLF, blank lines, ``key=0``, values of every kind:
which it must also take, delegating rare constructs line by line or section by section), near-miss
documents (every construct outside the grammar, spliced into valid files) and random character
damage and truncations; whenever tomllib rejects a text the fast path must answer ``None``, so
``read_toml`` shows tomllib's own error. The fuzz corpus and the real files of the project run
through the same check. Tests also pin that the fast path takes the common files, so the contract
cannot be met by always answering ``None``.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
import tomli_w
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from benchmarks.bench_loading import layout_variants
from benchmarks.synth import SynthSpec, make_data
from rankeval_tui.core import files
from rankeval_tui.core.files import fasttoml, toml_spans
from rankeval_tui.core.files.tomllib_compat import tomllib  # tomli on Python 3.10, as read_toml
from tests.conftest import SEED_DIR
from tests.fuzz.harness import CORPUS, KINDS, SUFFIX
from tests.fuzz.make_corpus import build

BARE = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_"
TEMPLATE_MIN_BODIES = toml_spans.BinaryBodies.TEMPLATE_MIN_BODIES
"""The shipped threshold: a file with fewer sections like its first is read by the line cache."""


@pytest.fixture(autouse=True, scope="module")
def templates_for_every_size() -> Any:
    """The generated documents have a few sections: the templates read them here as they read a
    file of thousands (the shipped threshold is tested on its own below)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(toml_spans.BinaryBodies, "TEMPLATE_MIN_BODIES", 0)
        yield


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


def check_contract(text: str) -> dict[str, Any] | None:
    """The property itself; returns the fast path's answer so callers can count acceptances."""
    fast = fasttoml.loads(text)  # must not raise, whatever the text
    if fast is not None:
        assert type(fast) is dict
        assert strict_equal(fast, tomllib.loads(text)), text
    return fast


def check_taken(text: str) -> dict[str, Any]:
    """A valid text must be taken (no whole-file fallback) and equal to tomllib's answer."""
    expected = tomllib.loads(text)  # the generators only make valid TOML
    fast = fasttoml.loads(text)
    assert fast is not None, text
    assert strict_equal(fast, expected), text
    return fast


# ------------------------------------------------------------------ generators

bare_keys = st.text(BARE, min_size=1, max_size=6)
any_keys = bare_keys | st.text(max_size=6)
in_subset_scalars = st.text(max_size=12) | st.integers(0, 10**18 - 1) | st.booleans()
in_subset_values = in_subset_scalars | st.lists(in_subset_scalars, max_size=4)


def tables(keys: st.SearchStrategy[str], values: st.SearchStrategy[Any]) -> st.SearchStrategy[dict]:
    return st.recursive(
        st.dictionaries(keys, values, max_size=4),
        lambda inner: st.dictionaries(keys, inner | values, max_size=4),
        max_leaves=16,
    )


in_subset_documents = tables(bare_keys, in_subset_values).map(tomli_w.dumps)

# What tomli-w can write outside the subset: quoted keys, floats, signed and huge integers,
# dates, nested arrays, arrays of tables and inline tables in arrays.
outside_scalars = in_subset_scalars | st.integers() | st.floats() | st.dates() | st.datetimes() | st.times()
outside_values = st.recursive(
    outside_scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.lists(st.dictionaries(any_keys, inner, max_size=2), min_size=1, max_size=2)
    ),
    max_leaves=6,
)
outside_documents = tables(any_keys, outside_values).map(tomli_w.dumps)

# Lines that are each outside the subset, or that break a document in ways tomllib rejects.
NEAR_MISS_LINES = [
    '"quoted" = 1',
    "'literal' = 1",
    "a.b = 1",
    "a . b = 1",
    "a.b.c = 0",
    '"x.y".z = 0',
    "a.b = 1.5",
    "a\t.\t'b' = {c = 1}",
    "b.c = 1",
    '[a."b"]',
    "[ a ]",
    "[[a]]",
    "[[a.b]]",
    "x = {a = 1}",
    "x = { }",
    "x = [1, 2]",
    'x = ["a",]',
    "x = [[1]]",
    "x = 'lit'",
    'x = """m"""',
    "x = '''m'''",
    'x = "\\ud800"',
    'x = "\\uDFFF"',
    'x = "\\U00110000"',
    'x = "\\U0001F600"',
    'x = "\\u00e9"',
    'x = "\\x41"',
    'x = "\\e"',
    'x = "\\q"',
    'x = "a',
    "x = +1",
    "x = -1",
    "x = -0",
    "x = 1_000",
    "x = 0x1F",
    "x = 0o7",
    "x = 0b1",
    "x = 01",
    "x = 00",
    "x = 1.0",
    "x = 1e5",
    "x = inf",
    "x = nan",
    "x = -inf",
    "x = 1979-05-27",
    "x = 07:32:00",
    "x = 1979-05-27T07:32:00Z",
    "x = True",
    "x = yes",
    "x =",
    "= 1",
    "x = 1 # comment",
    "# comment",
    "# bad \x01 comment",
    "\t# tab comment",
    "x = 1 y = 2",
    "x = 99999999999999999999",
    "x = 1" + "0" * 18,
    "[a]",
    "[a.b]",
    "a = 1",
    "a = []",
    "x = [",
    "]",
    '    "item",',
    "    1,",
    "\ufeffx = 1",
    "x = 1\r",
    "x\x00 = 1",
    'x = "\x7f"',
    'x = "\t"',
    "  x  =  1  ",
    "[a]x = 1",
    "",
]
TRICKY_CHARS = "\"\\[]=.#\r\n\t \x00\x01\x7f\x85\u2028\ufeff'{},_+-0123456789eEtfuU:"


@st.composite
def damaged(draw: st.DrawFn, base: st.SearchStrategy[str]) -> str:
    """A document with 1-4 edits: near-miss lines, duplicated lines, tricky characters, cuts."""
    text = draw(base)
    for _ in range(draw(st.integers(1, 4))):
        lines = text.split("\n")
        op = draw(st.sampled_from(("line", "duplicate", "char", "delete", "replace", "truncate")))
        at = draw(st.integers(0, len(lines)))
        if op == "line":
            lines.insert(at, draw(st.sampled_from(NEAR_MISS_LINES)))
            text = "\n".join(lines)
        elif op == "duplicate":  # duplicate keys, headers twice, headers over values
            lines.insert(at, draw(st.sampled_from(lines)))
            text = "\n".join(lines)
        else:
            pos = draw(st.integers(0, len(text)))
            if op == "char":
                text = text[:pos] + draw(st.sampled_from(TRICKY_CHARS)) + text[pos:]
            elif op == "delete":
                text = text[:pos] + text[pos + 1 :]
            elif op == "replace":
                text = text[:pos] + draw(st.characters()) + text[pos + 1 :]
            else:
                text = text[:pos]
    return text


# Every layout of valid TOML a person or another tool may write for the same kind of data.
LITERAL_UNSAFE = "'\x7f" + "".join(map(chr, range(32))).replace("\t", "")


def basic_string(draw: st.DrawFn, text: str) -> str:
    """``text`` as a basic string, each character escaped (randomly) in any form TOML allows."""
    out = []
    for char in text:
        code = ord(char)
        short = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}
        must = char in short or code < 32 or code == 0x7F
        form = draw(st.sampled_from(("plain", "short", "u", "U"))) if not (0xD800 <= code <= 0xDFFF) else "plain"
        if form == "short" and char in short:
            out.append(short[char])
        elif form == "u" and code <= 0xFFFF:
            out.append(f"\\u{code:04X}")
        elif form == "U" or (must and char not in short):
            out.append(f"\\U{code:08x}")
        elif must:
            out.append(short[char])
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def key_text(draw: st.DrawFn, key: str) -> str:
    forms = ["basic"]
    if key and all(c in BARE for c in key):
        forms.append("bare")
    if not any(c in LITERAL_UNSAFE for c in key):
        forms.append("literal")
    form = draw(st.sampled_from(forms))
    return key if form == "bare" else f"'{key}'" if form == "literal" else basic_string(draw, key)


def integer_text(draw: st.DrawFn, value: int) -> str:
    digits = str(abs(value))
    if len(digits) > 1 and draw(st.booleans()):
        digits = "_".join(digits[i : i + 1] if draw(st.booleans()) else digits[i] for i in range(len(digits)))
        digits = digits.replace("__", "_")
    sign = "-" if value < 0 else draw(st.sampled_from(("", "", "+")))
    return sign + digits


def scalar_text(draw: st.DrawFn, value: Any) -> str:
    if type(value) is bool:
        return "true" if value else "false"
    if type(value) is int:
        return integer_text(draw, value)
    if type(value) is str:
        if not any(c in LITERAL_UNSAFE for c in value) and draw(st.booleans()):
            return f"'{value}'"
        if "\n" in value and draw(st.booleans()):
            return multiline_string_text(draw, value)
        return basic_string(draw, value)
    return tomli_w.dumps({"x": value}).partition(" = ")[2].rstrip("\n")  # floats, dates, times


def multiline_string_text(draw: st.DrawFn, value: str) -> str:
    """``value`` as a multi-line string: literal where it can be, else basic with its newlines
    raw and every other character escaped in any form, with or without the newline TOML drops
    after the opening delimiter (required when ``value`` starts with one)."""
    lead = "\n" if value.startswith("\n") or draw(st.booleans()) else ""
    unsafe = set(LITERAL_UNSAFE) - {"\n", "'"}
    if "'''" not in value and not unsafe & set(value) and draw(st.booleans()):
        return f"'''{lead}{value}'''"
    return '"""' + lead + "\n".join(basic_string(draw, line)[1:-1] for line in value.split("\n")) + '"""'


def value_text(draw: st.DrawFn, value: Any, indent: str) -> str:
    if type(value) is list:
        items = [value_text(draw, item, indent) for item in value]
        if items and draw(st.booleans()):
            return "[\n" + "".join(f"{indent}    {item},\n" for item in items) + f"{indent}]"
        return "[" + ", ".join(items) + (", ]" if items and draw(st.booleans()) else "]")
    if type(value) is dict:
        return "{" + ", ".join(f"{key_text(draw, k)} = {value_text(draw, v, indent)}" for k, v in value.items()) + "}"
    return scalar_text(draw, value)


def tail(draw: st.DrawFn) -> str:
    return draw(st.sampled_from(("", "", " ", "\t", " # note", "#c", " # é \t ok")))


def pair_text(draw: st.DrawFn, key: str, value: Any, raw: bool = False) -> str:
    """A pair line; ``raw``: ``key`` is already written (a dotted key)."""
    before, after = (draw(st.sampled_from((" ", "", "  ", "\t"))) for _ in range(2))
    indent = draw(st.sampled_from(("", "", "  ", "\t")))
    return f"{indent}{key if raw else key_text(draw, key)}{before}={after}{value_text(draw, value, '')}{tail(draw)}"


def is_table(value: Any) -> bool:
    return type(value) is dict


def dottable(value: Any) -> bool:
    """A table that dotted keys can write whole: not empty, nor any table inside it."""
    return is_table(value) and bool(value) and all(dottable(v) for v in value.values() if is_table(v))


def dotted_lines(draw: st.DrawFn, prefix: str, table: dict[str, Any]) -> list[str]:
    """``table`` as dotted-key lines under ``prefix`` (``a.b.c = 1``, ``"x.y" . 'z' = 0``)."""
    lines = []
    for key, value in table.items():
        sep = draw(st.sampled_from((".", ".", " . ", "\t.")))
        path = f"{prefix}{sep}{key_text(draw, key)}"
        lines.extend(dotted_lines(draw, path, value) if is_table(value) else [pair_text(draw, path, value, raw=True)])
    return lines


@st.composite
def layout_documents(draw: st.DrawFn, values: st.SearchStrategy[Any] | None = None) -> str:
    """A valid document in a random layout, written from generated data (``layout_values``)."""
    data = draw(tables(any_keys, layout_values if values is None else values))
    lines: list[str] = []

    def section(path: list[str], table: dict[str, Any]) -> None:
        scalars = [(k, v) for k, v in table.items() if not is_table(v)]
        subtables = [(k, v) for k, v in table.items() if is_table(v)]
        headed = bool(path) and (scalars or not subtables or draw(st.booleans()))
        if headed:
            sep = draw(st.sampled_from((".", " . ", ".")))
            pad = draw(st.sampled_from(("", "", " ")))
            lines.append(
                f"{draw(st.sampled_from(('', '', '  ')))}[{pad}{sep.join(key_text(draw, p) for p in path)}{pad}]{tail(draw)}"
            )
        for key, value in scalars:
            lines.append(pair_text(draw, key, value))
            if draw(st.integers(0, 4)) == 0:
                lines.extend(
                    draw(
                        st.lists(st.sampled_from(("", "# a comment", "  \t", "#", "\t# x = 1")), min_size=1, max_size=3)
                    )
                )
        # dotted keys for tables no later header reaches into: under a header, or at the root
        dotted = [(k, v) for k, v in subtables if (headed or not path) and dottable(v)]
        for key, value in dotted if draw(st.integers(0, 2)) else []:  # dotted keys instead of a header (2 in 3)
            lines.extend(dotted_lines(draw, key_text(draw, key), value))
            subtables.remove((key, value))
        for key, value in subtables:
            section([*path, key], value)

    section([], data)
    newline = draw(st.sampled_from(("\n", "\n", "\r\n")))
    return newline.join(lines) + draw(st.sampled_from(("", newline)))


layout_scalars = (
    in_subset_scalars
    | st.integers(-(10**18) + 1, 10**18 - 1)
    | st.floats()
    | st.dates()
    | st.datetimes()
    | st.times()
    | st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
)
layout_values = st.recursive(
    layout_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(any_keys, inner, max_size=2),
    max_leaves=6,
)


# ------------------------------------------------------------------ properties

FAST = settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(in_subset_documents)
def test_tomli_w_output_of_in_subset_data_is_taken_and_equal(text: str) -> None:
    assert check_contract(text) is not None, text


@FAST
@given(damaged(in_subset_documents))
def test_damaged_in_subset_documents(text: str) -> None:
    check_contract(text)


@st.composite
def binary_section_documents(draw: st.DrawFn) -> str:
    """qrels-shaped text: sections of one set of keys in one order with labels 0/1 (the template
    path of ``toml_spans.BinaryTemplate``), with IDs that must be quoted, other tables before,
    between or after, blank lines or none, and a last line with or without its newline."""
    documents = draw(st.lists(st.sampled_from(DOC_IDS), min_size=1, max_size=6, unique=True))
    queries = draw(st.lists(st.sampled_from(QUERY_IDS), min_size=1, max_size=6, unique=True))
    separator = draw(st.sampled_from(["\n", "\n\n", "\n\n\n"]))
    spacing = draw(st.sampled_from([" = ", "=", " =\t", None]))  # None: each line its own
    after = draw(st.sampled_from(["", " # ok", "  # 1", "\n# seen 1", "\n\n"]))  # a comment, a comment line
    sections = []
    for query in queries:
        labels = "".join(
            f"{tomli_w.dumps({d: 0}).split(' = ')[0]}{spacing or draw(st.sampled_from([' = ', '=']))}"
            f"{draw(st.integers(0, 1))}{after}\n"
            for d in documents
        )
        sections.append(f"[qrels.{tomli_w.dumps({query: 0}).split(' = ')[0]}]\n{labels}")
    extra = draw(st.sampled_from(["", '[provenance]\nsource = "pool"\n', '[notes."q:1"]\n"d/1" = "why"\n']))
    where = draw(st.integers(0, len(sections)))
    sections.insert(where, extra)
    text = draw(st.sampled_from(["", "# qrels\n"])) + separator.join(s for s in sections if s)
    return text if draw(st.booleans()) else text.rstrip("\n")


DOC_IDS = ["d1", "docs/export.md", "msmarco_v2.1_doc_00_12345", "a.b", "x y", "é", "q:1"]
QUERY_IDS = ["q1", "q:1001", "q.2", "Q 3", "ü"]


@st.composite
def label_section_documents(draw: st.DrawFn) -> str:
    """qrels-shaped text as a person may edit it: every body of ``key = 0|1`` pairs, with a
    comment after any pair, blank lines and comment lines anywhere, keys in any order, indents,
    tabs, inline comments after headers, CRLF: all of it for the section reader."""
    documents = draw(st.lists(st.sampled_from(DOC_IDS), min_size=1, max_size=6, unique=True))
    queries = draw(st.lists(st.sampled_from(QUERY_IDS), min_size=1, max_size=6, unique=True))
    sections = []
    for query in queries:
        lines = [f"[qrels.{key_text(draw, query)}]{tail(draw)}"]
        for document in draw(st.permutations(documents)) if draw(st.booleans()) else documents:
            space = draw(st.sampled_from(("", " ", "\t ")))
            indent = draw(st.sampled_from(("", "", "  ", "\t")))
            lines.append(f"{indent}{key_text(draw, document)}{space}={space}{draw(st.integers(0, 1))}{tail(draw)}")
            lines.extend(draw(st.lists(st.sampled_from(("", "# seen", "\t# x = 1", "  ")), max_size=2)))
        sections.append(lines)
    newline = draw(st.sampled_from(("\n", "\r\n")))
    text = newline.join(line for lines in sections for line in lines)
    return draw(st.sampled_from(("", "# qrels" + newline, newline))) + text + draw(st.sampled_from(("", newline)))


def read_by_sections(text: str) -> bool:
    """Whether the section reader read all of ``text`` (what the benchmark's "read by" shows)."""
    text = text.replace("\r\n", "\n")
    return fasttoml._binary_sections(fasttoml._Reader([]), text) == len(text)


@FAST
@given(label_section_documents())
def test_qrels_with_comments_blank_lines_and_any_spacing_are_read_by_sections(text: str) -> None:
    check_taken(text)
    assert read_by_sections(text), text


@FAST
@given(damaged(label_section_documents()))
def test_damaged_label_sections_keep_tomllib_s_verdict(text: str) -> None:
    check_contract(text)


@FAST
@given(binary_section_documents())
def test_qrels_shaped_documents_are_taken_and_equal(text: str) -> None:
    check_taken(text)


@FAST
@given(damaged(binary_section_documents()))
def test_damaged_qrels_shaped_documents_keep_tomllib_s_verdict(text: str) -> None:
    check_contract(text)


SEPARATORS = ("\n", " # ok\n", "  # 1\n", "\t\n", "\n\n", "\n# seen\n", " # x = 1\n\n\t# y\n")
"""What may follow a pair's label up to the next pair line (``toml_spans.separator_pattern``); none is
a part of another but the newline, so replacing them longest first normalises any body."""


@st.composite
def separated_section_documents(draw: st.DrawFn) -> str:
    """qrels-shaped text whose pair lines repeat from one section to the next (same keys, same
    quoting and spacing) but whose labels and what follows each pair vary: a comment after some
    pairs only, blank and comment lines after others (``toml_spans.SeparatedTemplate``)."""
    documents = draw(st.lists(st.sampled_from(DOC_IDS), min_size=1, max_size=6, unique=True))
    queries = draw(st.lists(st.sampled_from(QUERY_IDS), min_size=2, max_size=6, unique=True))
    cores = [
        f"{draw(st.sampled_from(('', '  ', chr(9))))}{key_text(draw, d)}{draw(st.sampled_from((' = ', '=', ' =' + chr(9))))}"
        for d in documents
    ]
    separators = draw(st.lists(st.sampled_from(SEPARATORS), min_size=1, max_size=4, unique=True))
    sections = []
    for query in queries:
        leading = draw(st.sampled_from(("", "# first\n", "\n")))
        pairs = "".join(f"{core}{draw(st.integers(0, 1))}{draw(st.sampled_from(separators))}" for core in cores)
        sections.append(f"[qrels.{key_text(draw, query)}]{tail(draw)}\n{leading}{pairs}")
    return "".join(sections)


def label_bodies_reads(text: str) -> int:
    """How many section bodies of ``text`` the line cache read (the templates did not)."""
    with mock.patch.object(
        toml_spans.LabelBodies, "read", autospec=True, side_effect=toml_spans.LabelBodies.read
    ) as read:
        check_taken(text)
    return read.call_count


@FAST
@given(separated_section_documents())
def test_repeated_pairs_with_varying_comments_and_blank_lines_are_read_by_templates(text: str) -> None:
    """Fails when ``SeparatedTemplate`` is skipped: every body would go to the line cache."""
    assert read_by_sections(text), text
    assert label_bodies_reads(text) == 0, text


@FAST
@given(damaged(separated_section_documents()))
def test_damaged_separated_sections_keep_tomllib_s_verdict(text: str) -> None:
    check_contract(text)


@pytest.mark.parametrize(
    "second",
    [
        'd1 = 0 # ok\n"a # ok" = 1\n',  # a separator's text inside a quoted key
        'd1 = 0 # o\x01k\n"a # ok" = 1\n',  # a control character in a comment: tomllib refuses
        'd1 = 0 # ok\n"a # ok" = 1 # ok\n\n  [x]\n',  # an indented header among the pairs
        'd1 = 0 # ok\n"a # ok" = 1 # ok\n"a # ok" = 1\n',  # a key twice
        'd1 = 0 # ok\n"a # ok" = 1 \\ # ok\n',  # not a comment
        'd1 = 0 # ok\r"a # ok" = 1\n',  # a lone carriage return
        'd1 = 0 # ok\n\n"a # ok" = 2\n',  # a label that is not 0/1
    ],
)
def test_separated_template_reads_only_what_tomllib_reads_the_same(second: str) -> None:
    """The first section fixes the pairs; the second differs in its separators and in one trap."""
    text = (
        '[qrels."q:1"]\nd1 = 1\n"a # ok" = 0 # ok\n\n# seen\n[qrels."q:2"]\n'
        + second
        + '[qrels."q:3"]\nd1 = 0\n"a # ok" = 1\n'
    )
    check_contract(text)


def test_rows_with_other_keys_compile_no_separated_template() -> None:
    """A partial qrels file (each row its own documents) is read by the line cache at once: a
    separated template is tried only for bodies with the first body's keys."""
    text = '[qrels."q:1"]\n"docs/a.md" = 1\nd2 = 0 # seen\n[qrels."q:2"]\n"docs/b.md" = 0\n[qrels."q:3"]\nd2 = 1\n'
    with mock.patch.object(toml_spans.SeparatedTemplate, "labels", autospec=True) as labels:
        assert check_taken(text)["qrels"]["q:2"] == {"docs/b.md": 0}
    assert labels.call_count == 0


def qrels_text(queries: int, documents: int) -> str:
    return "".join(
        f'[qrels."q:{q}"]\n' + "".join(f'"docs/{d}.md" = {(q * d) % 3 == 0:d}\n' for d in range(documents))
        for q in range(queries)
    )


@pytest.mark.parametrize(("queries", "templates"), [(TEMPLATE_MIN_BODIES // 2, 0), (TEMPLATE_MIN_BODIES + 10, 1)])
def test_templates_are_compiled_only_for_files_of_many_sections(
    monkeypatch: pytest.MonkeyPatch, queries: int, templates: int
) -> None:
    """A template costs a compile per key: a file with fewer sections than the threshold is read
    by the line cache alone (the same dict), one with more by a template."""
    monkeypatch.setattr(toml_spans.BinaryBodies, "TEMPLATE_MIN_BODIES", TEMPLATE_MIN_BODIES)
    text = qrels_text(queries, 20)
    with mock.patch.object(toml_spans, "first_template", wraps=toml_spans.first_template) as made:
        check_taken(text)
    assert made.call_count == templates


def test_comments_that_differ_on_every_line_are_read_by_the_line_cache() -> None:
    """Past ``MAX_SEPARATORS`` distinct separators the line cache reads the rest, the same labels."""
    text = "".join(
        f"[qrels.q{i}]\n" + "".join(f"d{j} = {(i + j) % 2} # note {i}.{j}\n" for j in range(5)) for i in range(30)
    )
    parsed = check_taken(text)
    assert parsed["qrels"]["q7"] == {f"d{j}": (7 + j) % 2 for j in range(5)}
    assert 0 < label_bodies_reads(text) < 30


LAYOUTS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@LAYOUTS
@given(layout_documents())
def test_every_layout_of_valid_toml_is_taken_and_equal(text: str) -> None:
    check_taken(text)


# values the line parser reads itself: no float or date for tomllib, multi-line strings but not
# inside an array (a section with one goes to tomllib)
single_line_values = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\n"), max_size=8)
single_line_values = single_line_values | st.integers(-(10**17), 10**17) | st.booleans()
text_lines = st.lists(st.sampled_from(("a", "\n", '"', "'", "\\", "[x]", "# c", "k = 1", "é", "\t", " ")), max_size=8)
line_values = single_line_values | text_lines.map("".join)


@LAYOUTS
@given(layout_documents(line_values | st.lists(single_line_values, max_size=3)))
def test_dotted_keys_comments_and_blank_lines_stay_on_the_line_parser(text: str) -> None:
    """Dotted keys, comments, blank lines, CRLF, any spacing, multi-line strings: no line or
    section goes to tomllib."""
    taken_without_tomllib(text)


@pytest.mark.parametrize(
    "text",
    [
        "a = 1\na.b = 1\n",  # a value, then a dotted key through it
        "a.b = 1\na = 2\n",  # a dotted key's table, then a value over it
        "a.b = 1\na.b = 2\n",
        "a.b = 1\na.b.c = 2\n",
        "a.b = 1\n[a]\n",  # a header declaring a dotted key's table
        "[x]\na.b = 1\n[x.a]\n",
        "[a.b]\n[a]\nb.c = 1\n",  # a dotted key into a table a header declared
        "[a]\nb.c = 1\n[d]\n[a.b.e]\n[a]\n",
        "a = {x = 1}\na.y = 2\n",  # into an inline table
        "a = [1]\na.b = 2\n",
        "a.b = 1\n[a.b.c]\n",  # a header through a dotted key's value
        "[a.b.c]\n[a]\nb.d = 1\n[a.b]\n",  # a dotted key closes the implied table to headers
    ],
)
def test_dotted_keys_break_toml_s_rules_as_tomllib_says(text: str) -> None:
    """Each text breaks a rule on tables (tomllib rejects it): the fast path declines, so
    ``read_toml`` shows tomllib's own error."""
    with pytest.raises(tomllib.TOMLDecodeError):
        tomllib.loads(text)
    assert fasttoml.loads(text) is None


@pytest.mark.parametrize(
    "text",
    [
        "a.b = 1\n[a.c]\n",  # a header through a dotted key's table
        "[a.b.c]\n[a]\nb.d = 1\n",  # a dotted key into a table a header implied
        "[fruit]\napple.color = 'red'\napple.taste.sweet = true\n[fruit.apple.texture]\nsmooth = true\n",
        "[t]\n\"x.y\" . z = 0\n'a'.b.c = [1, 2]\nmeta.seen = 1.5\nmeta.when = 1979-05-27\n[u]\nmeta.seen = 1.5\n",
        "a.b = 1\n[[a.c]]\nd = 1\n",
    ],
)
def test_valid_dotted_keys_are_taken(text: str) -> None:
    check_taken(text)


def test_every_benchmark_layout_takes_its_fast_reader() -> None:
    """The benchmark's layouts at a small size: the qrels-shaped ones by the section reader, the
    rare ones by the line parser with each odd line read once (a float: one call to tomllib for
    the line, then the line cache) and never a section or the whole file to tomllib."""
    spec = SynthSpec(12, 30, 1, seed=0, runs=())
    for label, text in layout_variants(make_data(spec).qrels, spec).items():
        with mock.patch.object(fasttoml, "_tomllib", wraps=fasttoml._tomllib) as to_tomllib:
            check_taken(text)
        if label.startswith("rare"):
            assert not read_by_sections(text), label
            assert to_tomllib.call_count == ("float" in label), label
        else:
            assert read_by_sections(text), label


@LAYOUTS
@given(damaged(layout_documents()))
def test_damaged_layouts_keep_tomllib_s_verdict(text: str) -> None:
    fast = check_contract(text)
    if fast is None:
        return
    tomllib.loads(text)  # accepted only what tomllib accepts (check_contract compared the dicts)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(damaged(layout_documents()))
def test_invalid_toml_gets_tomllib_s_error_from_read_toml(tmp_path_factory, text: str) -> None:
    from rankeval_tui.core.errors import ContractError
    from rankeval_tui.core.files import tomlio

    try:
        expected = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        assert fasttoml.loads(text) is None, text
        # read_utf8's own rules (a BOM, bytes that are not UTF-8) come before any TOML parser
        assume(not text.startswith("\ufeff") and not any(0xD800 <= ord(c) <= 0xDFFF for c in text))
        path = tmp_path_factory.mktemp("bad") / "qrels.toml"
        path.write_bytes(text.encode("utf-8"))
        with pytest.raises(ContractError) as raised:
            tomlio.read_toml(path)
        assert raised.value.rule == f"invalid TOML: {error}"
    else:
        assert strict_equal(check_contract(text) or expected, expected)


@settings(max_examples=700, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(outside_documents | damaged(outside_documents))
def test_documents_outside_the_subset(text: str) -> None:
    check_contract(text)


@FAST
@given(st.lists(st.sampled_from(NEAR_MISS_LINES), min_size=1, max_size=8).map("\n".join))
def test_near_miss_lines_alone(text: str) -> None:
    check_contract(text)


# ------------------------------------------------------------------ explicit cases


@pytest.mark.parametrize(
    "text",
    [
        'x = "\\ud800"\n',
        'x = "\\U00110000"\n',
        "x = 01\n",
        "x = 1__0\n",
        "x = 1_\n",
        "a = 1\r\nb = 2\r",
        "a = 1\rb = 2\n",
        "\ufeffa = 1\n",
        'a = "\x01"\n',
        "a = 1\na = 2\n",
        '"a" = 1\na = 2\n',
        "a = 1\n'a' = 2.5\n",
        "[a]\n[a]\n",
        '[a]\n["a"]\n',
        "[a.b]\n[a.b]\n",
        "a = 1\n[a]\n",
        "a = 1\n[a.b]\n",
        "[a]\nb = 1\n[a.b]\n",
        "[a.b]\n[a]\nb = 1\n",
        "[a.b]\n[a]\nb = 1.5\n",
        "a = []\n[a]\n",
        "a = {b = 1}\n[a]\n",
        "a = {b = 1}\n[a.c]\n",
        "[t]\na.b = 1\n[t.a]\n",
        "a = {b = 1}\na.c = 2\n",
        "a = [\n    1\n]\nb = 1.5 1\n",
        "a = [\n    1,\n",
        "x = 1 y = 2\n",
        "x =\n",
        "= 1\n",
        "[]\n",
        "[a]]\n",
        "[a] b = 1\n",
        "x = 1 # bad \x01 comment\n",
        "a = []\n[[a]]\n",
        "a = [1]\n[[a]]\n",
        "[a]\n[[a]]\n",
        "[[a]]\n[a]\n",
        "[[a]]\nb = 1\nb = 2\n",
        "[[a]]\nb = 1 2\n",
        "x = {a = []}\n[[x.a]]\n",
    ],
)
def test_invalid_toml_is_none(text: str) -> None:
    with pytest.raises(tomllib.TOMLDecodeError):
        tomllib.loads(text)
    assert fasttoml.loads(text) is None


@pytest.mark.parametrize(
    "text",
    [
        '"q" = 1\n',
        "'q:1001' = 1\n",
        '[qrels."a.b"]\n"msmarco_v2.1_doc_00_12345" = 0\n',
        "[ qrels . 'q:1001' ]  # note\nd0=0\n",
        "x = 'lit'\n",
        "x = [1, 2]\n",
        "x = [ 'a', \"b\", true, ]\n",
        "x = +1\nx2 = -1\nx3 = -0\nx4 = 1_000\n",
        "a = 1 # c\n",
        "a = 99999999999999999999\n",
        "x = 0x1\n",
        "x = 1.5\n",
        "x = 1979-05-27\n",
        "x = {a = 1}\n",
        'x = """m"""\n',
        "x = [[1]]\n",
        "a.b = 1\n",
        "[t]\na.b = 1\na.c = 2\nd = 3\n[u]\ne = 1\n",
        'x = """\nline one\nline two"""\ny = 1\n',
        "x = [\n    1,\n    [2],\n]\n[a]\nb = 1\n",
        "a = [\n    1\n]\n",
        "[a.b]\n[a]\nc = 1.5\n",
        "[a.b.c]\n[a.b]\nd = 1\ne.f = 2\n",
        "[[a]]\nb = 1\n",
        '[protocol]\nk = 10\n[[provenance.growth]]\nadded = ["q:1001"]\nwhen = 2026-12-03T12:00:00Z\n'
        "[[provenance.growth]]\nadded = []\n[queries.q1]\ntext = 'x'\n",
        "[[a.b]]\nc = {d = 1}\n[a]\ne = 1\n",
    ],
)
def test_valid_toml_outside_the_line_grammar_is_taken(text: str) -> None:
    check_taken(text)


def test_a_header_into_an_array_of_tables_goes_to_tomllib_whole() -> None:
    """Valid, in no file the project writes, and left whole to tomllib (fasttoml's docstring)."""
    text = "[[a]]\n[a.b]\n"
    assert tomllib.loads(text)
    assert fasttoml.loads(text) is None


def taken_without_tomllib(text: str) -> dict[str, Any]:
    """``check_taken``, and no line or section of ``text`` went to tomllib."""
    with mock.patch.object(fasttoml, "_tomllib", side_effect=AssertionError("handed to tomllib")):
        fast = fasttoml.loads(text)
    assert fast is not None, text
    assert strict_equal(fast, tomllib.loads(text)), text
    return fast


@pytest.mark.parametrize(
    "text",
    [
        'x = """\n[a]\n"""\n',  # a line that reads as a header
        '[a]\ns = """\nx\n"""\n[b]\ns = """\ny\n"""\n',  # the same first line twice: not cached
        '[a]\ns = """x"""\n[b]\ns = """x"""\n',  # one line: cached like any pair
        's = """a\\"""b"""\n',  # an escaped quote, then two quotes inside
        's = """a""""\nt = """a"""""\n',  # one or two quotes before the closing delimiter
        "s = '''a''''\nt = '''\n'b''\n'''\n",  # the same in literal strings
        's = """\\\n   \n  b"""\nt = """a\\  \t\n c"""\n',  # line-ending backslashes
        "a.b = \"\"\"x\ny\"\"\"\na.c = '''\n[z]'''\n",  # under dotted keys
        's = """x\r\ny"""\r\nt = 1\r\n',  # CRLF inside
        '"q:1" = """\n# not a comment\nk = 1\n"""  # a tail\n[t]\nk = 2\n',
        's = """"""\nt = \'\'\'\'\'\'\nu = """\n"""\n',  # empty
        's = """\\u00e9\\t\\U0001F600 \\\\\nx"""\n',  # escapes; an escaped backslash before a newline
    ],
)
def test_multi_line_strings_are_read_without_tomllib(text: str) -> None:
    taken_without_tomllib(text)


@pytest.mark.parametrize(
    "text",
    [
        's = """a""""""\n',  # six quotes
        's = """a\\ b"""\n',  # a backslash and a space, not before a newline
        's = """a\x01b"""\n',  # a control character
        "s = '''a\x7f'''\n",
        's = """unclosed\nt = 1\n',
        's = """a""" b\n',  # something after the closing delimiter
        's = """\\ud800"""\n',  # not a Unicode scalar value
        's = """x"""\ns = """y"""\n',  # a key twice
    ],
)
def test_invalid_multi_line_strings_keep_tomllib_s_verdict(text: str) -> None:
    with pytest.raises(tomllib.TOMLDecodeError):
        tomllib.loads(text)
    assert fasttoml.loads(text) is None


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\n\n",
        'a = 1\r\nb = "x"\r\n',
        "# c\n  [a.b]  \n\tc = true\n[a]\nd = 0\n",
        'x = "\\u00e9\\U0001F600\\t\\"\\\\\\b\\f\\n\\r"\n',
        "[a.b.c]\n[a]\nx = 1\n[a.b]\ny = []\n",
        'a = [\n    "x",\n    1,\n    false,\n]\nb = 2\n',
        "1 = 0\ntrue = 1\ninf = false\n",
    ],
)
def test_in_subset_edge_cases_are_taken(text: str) -> None:
    assert check_contract(text) is not None


def test_fuzz_corpus() -> None:
    """Every file of the nasty-file corpus (and the generated large ones) keeps the contract."""
    generated = build()
    seen = 0
    for kind in KINDS:
        blobs = {p.name: p.read_bytes() for p in sorted((CORPUS / kind).iterdir())}
        blobs.update({name + SUFFIX[kind]: data for name, data in generated[kind].items()})
        for data in blobs.values():
            try:
                text = data.decode("utf-8")  # read_utf8 refuses the rest before any parser sees it
            except UnicodeDecodeError:
                continue
            check_contract(text)
            seen += 1
    assert seen >= 150


# ------------------------------------------------------------------ the fast path is used


def test_the_demo_protocol_files_take_the_fast_path() -> None:
    for path in sorted(SEED_DIR.rglob("*.toml")):
        assert check_contract(path.read_text("utf-8")) is not None, path


def test_a_tomli_w_qrels_with_every_table_takes_the_fast_path() -> None:
    definition = files.load_definition(SEED_DIR)
    qrels = files.read_qrels_file(SEED_DIR / "qrels.toml", definition)
    qrels.provenance = {
        "annotators": ["alice", "bob"],
        "adjudicator": "carol",
        "kappa": "3/7",
        "disagreements": 2,
        "note": 'tab\there, "quotes", \\ and \u00e9\u0001\x7f',
    }
    qrels.notes = {"q1": {"d2": "retry\nmentioned", "d3": "导出"}}
    qrels.disputed = {"q2": {"d4": True}}
    qrels.adjudication = {
        "q1": {"d2": {"labels": [0, 1], "final": 1, "reason": "supports retry", "adjudicator": "carol"}}
    }
    text = files.qrels_to_toml(qrels, definition)
    parsed = check_contract(text)
    assert parsed is not None
    assert parsed["adjudication"]["q1"]["d2"]["labels"] == [0, 1]


def test_read_toml_uses_the_fast_path_and_keeps_tomllib_errors(tmp_path: Path, monkeypatch) -> None:
    from rankeval_tui.core.errors import ContractError
    from rankeval_tui.core.files import tomlio

    original, answers = fasttoml.loads, []
    monkeypatch.setattr(fasttoml, "loads", lambda text: answers.append(original(text)) or answers[-1])
    good = tmp_path / "good.toml"
    good.write_text("[a]\nb = 1\n", encoding="utf-8")
    assert tomlio.read_toml(good) == {"a": {"b": 1}}
    assert answers == [{"a": {"b": 1}}]  # the fast path answered
    bad = tmp_path / "bad.toml"
    bad.write_text("[a]\nb = 1\nb = 2\n", encoding="utf-8")
    with pytest.raises(ContractError, match="invalid TOML: Cannot overwrite a value"):
        tomlio.read_toml(bad)
    assert answers[-1] is None  # ... and declined the duplicate key, so tomllib's error is the one shown


@pytest.mark.parametrize(
    "text",
    [
        '[qrels."q:1001"]\n"docs/export.md" = 1\n\n[qrels."q:1002"]\n"docs/export.md" = 0\n',
        'title = "x"\n  [qrels."q:1001"]\n\t[ qrels . "a.b" ]\nk = [\n  [1],\n]\n',
        "",
        "[a]",
        "a = 1\n[b]\n[c]\n",
    ],
)
def test_sections_start_at_each_line_starting_with_a_bracket(text: str) -> None:
    """The sections ``_binary_sections`` reads start there: a missed one would put a header's
    line into the previous section's body (an indented one makes that body differ instead)."""
    starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
    assert list(toml_spans.section_starts(text)) == [at for at in starts if text[at:].startswith("[")]


POOLED_QRELS = (
    '[provenance]\nimported_from = "qrels.txt"\nimported_labels = 6\n\n'
    '[qrels."q:1001"]\n"msmarco_v2.1_doc_00_12345" = 1\n"msmarco_v2.1_doc_00_12346" = 0\n\n'
    '[qrels."q:1002"]\n"msmarco_v2.1_doc_03_00001" = 0\n"msmarco_v2.1_doc_00_12345" = 1\n"d 3" = 0\n\n'
    "[qrels.q1003]\nd1 = 1\nd-2 = 0\n"
)


def test_pooled_qrels_after_provenance_read_by_sections_not_line_by_line() -> None:
    """init writes [provenance] first and each query's pool names other documents: the sections
    after it are read by spans and their bodies by one findall each (never a Python pass per line,
    most of score on 10,000 pools before: issue 32)."""
    read_one_by_one: list[str] = []
    read_line, learn = fasttoml._Reader.read_line, toml_spans.LabelBodies.learn

    def line_spy(self: Any, index: int, known: Any) -> int:
        read_one_by_one.append(self.lines[index])
        return read_line(self, index, known)

    def learn_spy(self: Any, line: str) -> bool:
        read_one_by_one.append(line)
        return learn(self, line)

    with (
        mock.patch.object(fasttoml._Reader, "read_line", line_spy),
        mock.patch.object(toml_spans.LabelBodies, "learn", learn_spy),
    ):
        assert fasttoml.loads(POOLED_QRELS) == tomllib.loads(POOLED_QRELS)
    assert read_one_by_one  # the [provenance] table is read line by line
    assert not [line for line in read_one_by_one if line.startswith(("[qrels", '"msmarco', '"d', "d"))]


@pytest.mark.parametrize(
    "text",
    [
        POOLED_QRELS,
        POOLED_QRELS.replace('"d 3" = 0', "d3 = 0"),  # a body mixing quoted and bare keys
        POOLED_QRELS.replace('"d 3" = 0', '"d 3" = 0 # unsure'),
        POOLED_QRELS.replace('"d 3" = 0', '"msmarco_v2.1_doc_00_12345" = 0'),  # a key twice: tomllib's error
        POOLED_QRELS.replace('"d 3" = 0', '"d\\u0033" = 0'),
        POOLED_QRELS.replace("imported_labels = 6", 'note = """\n[qrels.x]\n"d" = 0\n"""'),
        "[p]\nv = [\n1,\n]\n" + POOLED_QRELS,
    ],
)
def test_pooled_qrels_variants_equal_tomllib(text: str) -> None:
    try:
        expected: Any = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        expected = None
    got = fasttoml.loads(text)
    assert got is None or got == expected
    if expected is not None and got is not None:
        assert list(got["qrels"]) == list(expected["qrels"])
