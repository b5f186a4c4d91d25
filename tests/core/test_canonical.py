"""The protocol hash's canonical text (core/evaluation/canonical.py) part by part, against a plain
``json.dumps`` oracle: every fast path byte for byte, and every input one character away from a
fast path (a quote, a backslash, a control character in an ID or a query text, an ID that is not a
``str``, a title, a need) shown to take the way that escapes or falls back, with the same bytes.

Each check of canonical.py has a test here that fails without it: ``holds_only_quotes`` in
``json_strings`` (raw IDs with a quote), the pooled rows' check (a document ID with a quote or a
control character), each TypeError caught on the way to ``json.dumps`` (int IDs, an int text,
query texts for some queries only), the one-split column (two splits), the UTF-8 and escaped-name
label offsets, the last relevant document of a pooled row, the identity of equal relevant sets.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankeval_tui.core.evaluation.canonical import (
    Names,
    canonical_parts,
    canonical_pooled_qrels,
    json_strings,
    sorted_names,
)
from rankeval_tui.core.evaluation.protocol import Protocol, ProtocolDefinition, Query


def oracle(value: object) -> str:
    """The seed's canonical JSON."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def oracle_parts(protocol: Protocol) -> tuple[bytes, bytes]:
    """What ``canonical_parts`` must give, from one ``json.dumps`` per part."""
    definition = protocol.definition
    qrels = {q: dict(protocol.qrels.get(q, {})) for q in definition.queries}
    kind = ',"kind":"pooled"' if definition.pools is not None else ""
    queries = {q: meta.canonical() for q, meta in definition.queries.items()}
    middle = f'{kind},"qrels":{oracle(qrels)},"queries":{oracle(queries)}'
    return oracle(definition.canonical_corpus()).encode(), middle.encode()


def built_parts(protocol: Protocol) -> tuple[bytes, bytes]:
    corpus, middle = canonical_parts(protocol.definition, protocol.qrels, protocol.relevant)
    return corpus, b"".join(middle)


def seed_hash(protocol: Protocol) -> str:
    corpus, middle = oracle_parts(protocol)
    tail = f',"split":{oracle(protocol.split)}}}'.encode()
    text = b'{"corpus":' + corpus + b',"k":' + str(protocol.k).encode() + middle + tail
    return hashlib.sha256(text).hexdigest()


# One character from a fast path: what json escapes (quote, backslash, C0 controls), next to
# what it does not (space, "!", DEL, C1, U+2028, non-ASCII), and NUL, which the key pieces split at.
NEAR = ['"', "\\", "\x00", "\x01", "\n", "\x1f", " ", "!", "\x7f", "\x85", "\u2028", "é", "中", "😀"]
near_ids = st.lists(
    st.sampled_from(["a", "b", "ab", "q:1", "doc/x.md", "msmarco_v2.1_doc_00_1", *NEAR]), min_size=1, max_size=4
).map("".join)


@settings(max_examples=300, deadline=None)
@given(values=st.lists(near_ids | st.text(st.characters(blacklist_categories=("Cs",))), max_size=8))
def test_json_strings_are_json_dumps_of_each(values) -> None:
    texts, quote = json_strings(values)
    assert [quote + text + quote for text in texts] == [oracle(v) for v in values]
    plain = all(oracle(v) == f'"{v}"' for v in values)
    assert (quote == '"') == plain  # raw exactly when nothing needed escaping


@pytest.mark.parametrize("char", ['"', "\\", "\x00", "\x1f", "\n", "\t"])
def test_a_value_needing_escape_makes_the_list_escaped(char) -> None:
    """Near misses: one escaped character among plain IDs takes the escaping way."""
    texts, quote = json_strings(["q:1", f"q:{char}2", "q:3"])
    assert quote == "" and texts == [oracle("q:1"), oracle(f"q:{char}2"), oracle("q:3")]


@pytest.mark.parametrize("char", [" ", "!", "\x7f", "\x85", "\u2028", "é"])
def test_a_character_json_keeps_keeps_the_list_raw(char) -> None:
    values = ["q:1", f"q:{char}2"]
    assert json_strings(values) == (values, '"')


def test_a_lone_surrogate_is_escaped_and_fails_to_encode_as_the_seeds_text_does() -> None:
    texts, quote = json_strings(["a", "b\ud800"])
    assert quote == "" and texts[1] == oracle("b\ud800")
    with pytest.raises(UnicodeEncodeError):
        oracle("b\ud800").encode("utf-8")


def test_ids_that_are_not_str_have_no_names() -> None:
    assert sorted_names(["b", "a"]) is not None and sorted_names(["b", 1]) is None


def exhaustive(docs, queries, labels, texts=None, query_texts=None, needs=None, titles=None, splits=None) -> Protocol:
    definition = ProtocolDefinition(
        name="p",
        k=3,
        split="test",
        relevance="r",
        documents={d: (texts or {}).get(d, f"text of {d}") for d in docs},
        queries={
            q: Query((query_texts or {}).get(q, f"query {q}"), (splits or {}).get(q, "test"), (needs or {}).get(q))
            for q in queries
        },
        titles=titles or {},
    )
    return Protocol(definition, {q: {d: labels(q, d) for d in docs} for q in queries})


@settings(max_examples=200, deadline=None)
@given(
    docs=st.lists(near_ids, min_size=1, max_size=7, unique=True),
    queries=st.lists(near_ids, min_size=1, max_size=5, unique=True),
    texts=st.lists(near_ids, min_size=7, max_size=7),
    data=st.data(),
)
def test_exhaustive_parts_are_json_dumps(docs, queries, texts, data) -> None:
    """Corpus, label offsets (UTF-8, raw or escaped names), shared rows, query texts."""
    labels = {(q, d): data.draw(st.sampled_from([0, 1])) for q in queries for d in docs}
    protocol = exhaustive(
        docs,
        queries,
        lambda q, d: labels[q, d],
        texts=dict(zip(docs, texts)),
        query_texts=dict(zip(queries, reversed(texts))),
    )
    assert built_parts(protocol) == oracle_parts(protocol)
    assert protocol.protocol_sha256 == seed_hash(protocol)


@pytest.mark.parametrize("char", NEAR)
def test_exhaustive_near_misses(char) -> None:
    """One character of NEAR in a document ID, a query ID and a query text."""
    docs = ["msmarco_v2.1_doc_00_1", f"docs/{char}.md", "z"]
    queries = ["q:1", f"q:{char}", "q:3"]
    protocol = exhaustive(
        docs, queries, lambda q, d: int(d != "z" and q != "q:3"), query_texts={"q:1": f"what {char} means"}
    )
    assert built_parts(protocol) == oracle_parts(protocol)


@pytest.mark.parametrize(
    "change",
    [
        {"titles": {"z": "a title"}},  # the corpus through canonical_json
        {"needs": {"q:1": "a need"}},  # the queries through canonical_json
        {"texts": {"z": 5}},  # a text that is not a str: json.dumps writes 5
        {"splits": {"q:2": 'dev "b"'}},  # two splits: each query's own split text
    ],
)
def test_exhaustive_variants_and_fallbacks_are_json_dumps(change) -> None:
    protocol = exhaustive(["a", "z"], ["q:1", "q:2"], lambda q, d: int(d == "a"), **change)
    assert built_parts(protocol) == oracle_parts(protocol)


def test_int_ids_hash_as_json_dumps_writes_them() -> None:
    """Not a str: json.dumps sorts the ints as numbers and writes them as strings."""
    protocol = exhaustive([10, 9], [2, 11], lambda q, d: int(d == 9))
    assert built_parts(protocol) == oracle_parts(protocol)


def pooled(pools, labels, query_texts=None, splits=None) -> Protocol:
    definition = ProtocolDefinition(
        name="p",
        k=2,
        split="test",
        relevance="r",
        documents={},
        queries={q: Query((query_texts or {}).get(q), (splits or {}).get(q, "test")) for q in pools},
        pools=pools,
        pool_rule="r",
    )
    return Protocol(definition, {q: {d: labels(q, d) for d in pool} for q, pool in pools.items() if pool})


@settings(max_examples=300, deadline=None)
@given(
    ids=st.lists(near_ids, min_size=1, max_size=9, unique=True),
    queries=st.lists(near_ids, min_size=1, max_size=5, unique=True),
    data=st.data(),
)
def test_pooled_parts_are_json_dumps(ids, queries, data) -> None:
    """Rows with no, some, all relevant documents, the last one relevant or not, empty pools."""
    pools = {q: tuple(data.draw(st.permutations(ids))[: data.draw(st.integers(0, len(ids)))]) for q in queries}
    labels = {(q, d): data.draw(st.sampled_from([0, 1])) for q in queries for d in ids}
    protocol = pooled(pools, lambda q, d: labels[q, d])
    assert built_parts(protocol) == oracle_parts(protocol)
    assert protocol.protocol_sha256 == seed_hash(protocol)


@pytest.mark.parametrize("char", ['"', "\\", "\x00", "\x1f", "\n"])
def test_a_pooled_id_needing_escape_takes_json_dumps(char) -> None:
    """Near misses: the pooled rows are refused (None) and the table is json.dumps's."""
    pools = {"q:1": ("msmarco_v2.1_doc_00_2", f"doc{char}1", "a"), "q:2": ("a",)}
    protocol = pooled(pools, lambda q, d: int(d == "a"))
    names = sorted_names(protocol.queries)
    assert names is not None
    assert canonical_pooled_qrels(protocol.qrels, names, protocol.relevant) is None
    assert built_parts(protocol) == oracle_parts(protocol)


@pytest.mark.parametrize("char", [" ", "!", "\x7f", "\u2028", "é"])
def test_a_pooled_id_json_keeps_is_fast_and_sorted_as_json_dumps(char) -> None:
    """An ID that is a prefix of another followed by a character below the quote."""
    pools = {"q:1": (f"a{char}", "a", "b", f"a{char}b"), "q:2": ()}
    protocol = pooled(pools, lambda q, d: int(d.startswith("a")))
    names = sorted_names(protocol.queries)
    assert names is not None
    assert canonical_pooled_qrels(protocol.qrels, names, protocol.relevant) is not None
    assert built_parts(protocol) == oracle_parts(protocol)


def test_pooled_query_ids_needing_escape_keep_the_fast_rows() -> None:
    pools = {'q:"1"': ("b", "a"), "q:\n2": ("a",)}
    protocol = pooled(pools, lambda q, d: int(d == "a"), query_texts={'q:"1"': 'say "hi"', "q:\n2": "x"})
    names = sorted_names(protocol.queries)
    assert names is not None and names.quote == ""
    assert canonical_pooled_qrels(protocol.qrels, names, protocol.relevant) is not None
    assert built_parts(protocol) == oracle_parts(protocol)


def test_a_pooled_protocol_with_some_query_texts_takes_json_dumps_for_the_queries() -> None:
    protocol = pooled({"q:1": ("a",), "q:2": ("a",)}, lambda q, d: 1, query_texts={"q:1": "only one"})
    assert built_parts(protocol) == oracle_parts(protocol)


def test_names_hold_the_sorted_ids() -> None:
    names = Names(["a", "b"])
    assert (names.ids, names.text, names.quote) == (["a", "b"], ["a", "b"], '"')


class Reversed(str):
    """A str subclass with its own order: json.dumps's sort_keys and the fast path both sort by it."""

    def __lt__(self, other: object) -> bool:
        return str.__gt__(self, other)  # type: ignore[operator]


def test_str_subclass_ids_sort_by_their_own_order_as_json_dumps() -> None:
    docs = [Reversed(d) for d in ("a", "b", "c")]
    protocol = exhaustive(docs, [Reversed("q:1"), Reversed("q:2")], lambda q, d: int(d == "b"))
    assert built_parts(protocol) == oracle_parts(protocol)


@pytest.mark.parametrize("titles", [{}, {"b": 'a "title"'}])
def test_a_pooled_corpus_with_some_texts_and_titles_is_json_dumps(titles) -> None:
    """A pooled protocol knows the texts of some pooled documents only (maybe titled)."""
    definition = ProtocolDefinition(
        name="p",
        k=2,
        split="test",
        relevance="r",
        documents={"b": "line 1\nline 2", "a": 'say "hi"'},
        queries={"q:1": Query("text", "test"), "q:2": Query("other", "test")},
        pools={"q:1": ("b", "c", "a"), "q:2": ("c",)},
        pool_rule="r",
        titles=titles,
    )
    protocol = Protocol(definition, {"q:1": {"b": 1, "c": 0, "a": 1}, "q:2": {"c": 0}})
    assert built_parts(protocol) == oracle_parts(protocol)
    assert protocol.protocol_sha256 == seed_hash(protocol)


@pytest.mark.parametrize("kind", ["exhaustive", "pooled"])
def test_a_k_or_split_change_hashes_the_kept_pieces_again_as_a_fresh_protocol(kind) -> None:
    """``with_k``/``with_split`` share the hash's parts (the qrels in pieces): hashed again, they
    must give what a protocol built with that k or split gives, every time."""
    if kind == "exhaustive":
        protocol = exhaustive(["a", "b", "c"], ["q:1", "q:2"], lambda q, d: int(d == "b"), splits={"q:2": "other"})
    else:
        pools = {"q:1": ("b", "a"), "q:2": ("c",)}
        protocol = pooled(pools, lambda q, d: int(d == "a"), splits={"q:2": "other"})
    assert protocol.protocol_sha256 == seed_hash(protocol)  # the parts built and kept
    for twin, definition in [
        (protocol.with_k(7), protocol.definition.with_k(7)),
        (protocol.with_k(7), protocol.definition.with_k(7)),
        (protocol.with_split("other"), protocol.definition.with_split("other")),
    ]:
        assert twin.protocol_sha256 == seed_hash(twin) == Protocol(definition, protocol.qrels).protocol_sha256


@pytest.mark.parametrize("pooled", [False, True], ids=["exhaustive", "pooled"])
def test_graded_labels_are_hashed_as_json_dumps_writes_them(pooled: bool) -> None:
    """The row builders write each relevant label as 1; a label of a graded scale (2, 3) must go
    into the text as itself, so such qrels take ``canonical_json``: ``Protocol`` says so with
    ``plain=False`` for a protocol with a scale (binary ones are checked 0/1 before hashing)."""
    protocol = exhaustive(["d1", "d2", "d3"], ["q1", "q2"], lambda q, d: int(d == "d2"))
    definition = protocol.definition
    if pooled:
        definition = dataclasses.replace(definition, pools={"q1": ("d1", "d2"), "q2": ("d2", "d3")})
    graded = (
        {"q1": {"d1": 0, "d2": 3}, "q2": {"d2": 2, "d3": 1}}
        if pooled
        else {
            "q1": {"d1": 0, "d2": 3, "d3": 1},
            "q2": {"d1": 2, "d2": 0, "d3": 0},
        }
    )
    relevant = {q: frozenset(d for d, label in row.items() if label) for q, row in graded.items()}
    corpus, middle = canonical_parts(definition, graded, relevant, plain=False)
    kind = ',"kind":"pooled"' if pooled else ""
    queries = {q: meta.canonical() for q, meta in definition.queries.items()}
    assert b"".join(middle) == f'{kind},"qrels":{oracle(graded)},"queries":{oracle(queries)}'.encode()
    assert corpus == oracle(definition.canonical_corpus()).encode()
