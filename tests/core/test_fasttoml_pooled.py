"""The pooled protocol's files through ``fasttoml``: qrels bodies of quoted keys read with
``str.replace`` and ``split`` (``toml_bodies._quoted_ascii_pairs``) and ``[pools]`` lines read
with ``split`` and ``translate`` (``toml_grammar.plain_string_pair``), both against tomllib.

Each check those two readers make has a near-miss here that tomllib reads otherwise (or refuses),
so dropping any one of them fails a test below."""

from __future__ import annotations

from typing import Any
from unittest import mock

import pytest
import tomli_w
from hypothesis import given
from hypothesis import strategies as st

from rankeval_tui.core.files import fasttoml, toml_bodies
from rankeval_tui.core.files.toml_grammar import LONG_LINE, plain_string_pair
from rankeval_tui.core.files.tomllib_compat import tomllib
from tests.core.test_fasttoml import FAST, check_contract, damaged, strict_equal

ID_CHARACTERS = st.sampled_from(("msmarco_v2.1_doc_0", "1", "2", "_", "docs/", "a.md", ":", "-"))
TRICKY_KEYS = ("", " = 1", " = 0", "a b", "a\tb", "é", 'q"x', "back\\slash", "nl\nx", "\x00", "\x01", "\x7f", "1")


@st.composite
def pooled_qrels_documents(draw: st.DrawFn) -> str:
    """A pooled qrels.toml as ``init`` writes it (tomli-w): each query its own documents, so no
    template repeats; IDs like users' (``msmarco_v2.1_doc_00_12345``, ``docs/a.md``) and now and
    then a key that must be escaped, holds a space, a tab or a label-like text, or is empty."""
    ids = st.lists(ID_CHARACTERS, min_size=1, max_size=4).map("".join) | st.sampled_from(TRICKY_KEYS)
    queries = draw(st.lists(st.sampled_from(("q:1001", "q:1002", "q 3", "q4")), min_size=1, max_size=4, unique=True))
    qrels = {q: draw(st.dictionaries(ids, st.integers(0, 1), min_size=1, max_size=6)) for q in queries}
    head = {"provenance": {"imported_from": "qrels.txt"}} if draw(st.booleans()) else {}
    text = tomli_w.dumps({**head, "qrels": qrels})
    return text if draw(st.booleans()) else text.rstrip("\n")


@FAST
@given(pooled_qrels_documents())
def test_pooled_qrels_are_taken_and_equal(text: str) -> None:
    assert check_contract(text) is not None, text


@FAST
@given(damaged(pooled_qrels_documents()))
def test_damaged_pooled_qrels_keep_tomllib_s_verdict(text: str) -> None:
    check_contract(text)


def test_pooled_bodies_of_ascii_ids_are_read_without_a_regex() -> None:
    """Fails when ``keyed_pairs`` sends such a body to ``findall`` (its time was most of a pooled
    ``score``): every qrels body of users' IDs is read by the split, none left to the regex."""
    qrels = {f"q:{q}": {f"msmarco_v2.1_doc_0{q}_{d:05}": d % 2 for d in range(q, q + 5)} for q in range(6)}
    text = tomli_w.dumps({"provenance": {"imported_from": "qrels.txt"}, "qrels": qrels})
    answers = []

    def spy(body: str) -> Any:
        answers.append(read(body))
        return answers[-1]

    read = toml_bodies._quoted_ascii_pairs
    with mock.patch.object(toml_bodies, "_quoted_ascii_pairs", spy):
        assert check_contract(text) is not None
    assert len(answers) == len(qrels) and None not in answers


BODY_NEAR_MISSES = [
    '"a"\x00"b" = 1',  # a raw mark: the translate check (two pairs for the split, none for tomllib)
    '"a"\x01"b" = 0\n"c" = 1',
    '"a\x7f" = 1\n"b" = 0',  # DEL in a key
    '"a\x1b[31m" = 1\n"b" = 0',  # an escape sequence in a key
    '"a\\u0041" = 1\n"b" = 0',  # an escape: the line reader decodes it (tomllib: key "aA")
    '"d\n1" = 0\n"e" = 1',  # a newline inside a key: the newline check
    '" = 1\n" = 0',  # replacements that share a quote put a mark in a key: the count check
    '"a" = 0\n" = 1\n" = 0\n"b" = 1',
    'x"a" = 1\n"b" = 0',  # text before the first quote: only a body starting with one is split
    '"a" = 1\n"a" = 0',  # a key twice: tomllib's error
    '"a" = 1 "b" = 0',  # two pairs on a line: no mark where a label goes
    '"a" = 1\n\n"b" = 0',  # a blank line between pairs: the line reader's
    '"a" = 2\n"b" = 0',
    '"a" =  1\n"b" = 0',
    '"a" = 1\n"b" = 0 # note',
    '"a" = 1\n"b" = 0\n  ',
    '"a\tb" = 1\n"c" = 0',  # a tab in a key: valid, read by the split
    '"a" = 0\n" = 1" = 0',  # a key that reads like a label: valid
    '"" = 1\n"b" = 0',  # an empty key: valid
    '"a" = 1\n"b" = 0\n\n\n',
]


@pytest.mark.parametrize("body", BODY_NEAR_MISSES)
@pytest.mark.parametrize("head", ["", '[provenance]\nsource = "x"\n\n'])
def test_near_miss_pooled_bodies_keep_tomllib_s_reading(head: str, body: str) -> None:
    """Each section body twice after other ones, so the positions reader (two tries) is done with
    and the body reaches ``keyed_pairs`` itself."""
    sections = [f'[qrels."q{n}"]\n"d{n}" = 1\n"e{n}" = 0\n' for n in range(3)]
    text = head + "\n".join([*sections, f'[qrels."q8"]\n{body}\n', f'[qrels."q9"]\n{body}'])
    check_contract(text)
    if "\x00" not in body and "\x01" not in body:  # also alone, as the first body of a file
        check_contract(f'[qrels."q"]\n{body}')


@pytest.mark.parametrize("body", BODY_NEAR_MISSES)
def test_keyed_pairs_is_tomllib_s_table_or_none(body: str) -> None:
    try:
        expected: Any = tomllib.loads(body)
    except tomllib.TOMLDecodeError:
        expected = None
    pairs = toml_bodies.keyed_pairs(body)
    assert pairs is None or strict_equal(pairs, expected), body


def test_keyed_pairs_reads_the_valid_near_misses() -> None:
    """The split takes what it may (so a check that refused too much would show here too)."""
    for body in ('"a\tb" = 1\n"c" = 0', '"a" = 0\n" = 1" = 0', '"" = 1\n"b" = 0', '"a" = 1\n"b" = 0\n\n\n'):
        assert toml_bodies.keyed_pairs(body) == tomllib.loads(body), body


PAD = "x" * LONG_LINE
LONG_LINE_NEAR_MISSES = [
    f'"q:1" = "{PAD} d2"',
    f'"q\t1" = "{PAD}\td2"',  # tabs: valid in basic strings
    f'"q:1" = "{PAD}\x01"',  # a control character: the translate check
    f'"q:1" = "{PAD}\x7f"',
    f'"q:1" = "{PAD}\\u0041"',  # an escape
    f'"q:1" = "{PAD}é"',  # not ASCII: the regex reads it
    f'x"q:1" = "{PAD}"',  # something before the key
    f'"q:1" = "{PAD}" x',  # something after the value
    f'"q:1" = "{PAD}" # a comment',
    f'"q:1" , "{PAD}"',  # no " = " between
    f'"q:1"="{PAD}"',
    f'  "q:1" = "{PAD}"',
    f'"{PAD}" = """"',  # a multi-line string's start: six parts, not five
    f'"q:1" = "{PAD}" = "x"',
    f"'q:1' = '{PAD}'",
]


@pytest.mark.parametrize("line", LONG_LINE_NEAR_MISSES)
def test_near_miss_long_lines_keep_tomllib_s_reading(line: str) -> None:
    for text in (f"[pools]\n{line}\n", f'[protocol]\nname = "p"\n\n[pools]\n"q:0" = "d1"\n{line}', line):
        check_contract(text)


def test_plain_string_pairs_are_read_by_the_split() -> None:
    """Fails when the line reader sends a long ``"KEY" = "VALUE"`` line to the ``PAIR`` regex."""
    line = f'"q:1" = "{PAD} d2"'
    assert plain_string_pair(line) == ("q:1", f"{PAD} d2")
    with mock.patch.object(fasttoml, "PAIR", mock.Mock(fullmatch=mock.Mock(side_effect=AssertionError))):
        assert fasttoml._Reader([line, line.replace("q:1", "q:2")]).parse() == tomllib.loads(
            f"{line}\n{line.replace('q:1', 'q:2')}"
        )
