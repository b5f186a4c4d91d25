"""The evaluator's speed-ups (issue 5) must not change a single byte or message.

- ``Protocol.protocol_sha256`` builds the qrels part of the canonical JSON from a template; it
  must equal the seed's formula (one ``json.dumps`` of everything) for any IDs, including
  quotes, backslashes, ``%``, control characters and non-ASCII.
- ``check_run`` tests element types with ``set(map(type, ...))``: the same exact-type rule as
  ``type(d) is str`` (a str subclass is still refused), the same message, the same query named.
- The JSON run reader takes a ranking of IDs it checked before with one ``issuperset``: a bad
  entry after good rankings of the same IDs is still refused, naming its query.
"""

from __future__ import annotations

import hashlib
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.evaluation.evaluate import Run, evaluate
from rankeval_tui.core.evaluation.protocol import Protocol, ProtocolDefinition, Query
from rankeval_tui.core.files.runs import parse_json_run

ids = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=6)


def seed_hash(protocol: Protocol) -> str:
    """The seed's reference/metrics.py formula, verbatim in shape (a pooled protocol adds its
    kind, and every query's row, ``{}`` for an empty pool; a titled document is an object)."""
    data = dict(
        corpus=protocol.definition.canonical_corpus(),
        queries={q: m.canonical() for q, m in protocol.queries.items()},
        qrels={q: dict(protocol.qrels.get(q, {})) for q in protocol.queries},
        split=protocol.split,
        k=protocol.k,
    )
    if protocol.kind == "pooled":
        data["kind"] = "pooled"
    canonical = json.dumps(
        data,
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(canonical.encode()).hexdigest()


@settings(max_examples=200, deadline=None)
@given(
    docs=st.lists(ids, min_size=1, max_size=6, unique=True),
    queries=st.lists(ids, min_size=1, max_size=5, unique=True),
    data=st.data(),
    k=st.integers(1, 5),
)
def test_protocol_hash_is_the_seeds_canonical_json(docs, queries, data, k) -> None:
    qrels = {q: {d: data.draw(st.sampled_from([0, 1])) for d in data.draw(st.permutations(docs))} for q in queries}
    definition = ProtocolDefinition(
        name="p",
        k=k,
        split="test",
        relevance="r",
        documents={d: data.draw(ids) for d in docs},
        queries={q: Query(text=data.draw(ids), split="test", need=data.draw(st.none() | ids)) for q in queries},
    )
    protocol = Protocol(definition, qrels)
    assert protocol.protocol_sha256 == seed_hash(protocol)


# IDs as users spell them, and every character the canonical text's fast paths must notice:
# those JSON escapes, and the space and "!" that sort below the quote after a key.
id_alphabet = st.sampled_from(
    ["a", "b", "ab", "q:1", "docs/x.md", " ", "!", '"', "\\", "\x00", "\x1f", "é", "\u2028", "#"]
)
tricky_ids = st.lists(id_alphabet, min_size=1, max_size=4).map("".join)


@settings(max_examples=300, deadline=None)
@given(
    pool_ids=st.lists(tricky_ids, min_size=1, max_size=8, unique=True),
    queries=st.lists(tricky_ids | st.sampled_from(["q:1", "q:2", "q:10"]), min_size=1, max_size=5, unique=True),
    data=st.data(),
    with_text=st.booleans(),
)
def test_pooled_hash_is_the_seeds_canonical_json(pool_ids, queries, data, with_text) -> None:
    """The pooled qrels' text sorts ID+suffix strings: an ID that is a prefix of another followed
    by a space or "!" (both below the quote) sorts differently, so that text must be refused."""
    pools = {q: tuple(data.draw(st.lists(st.sampled_from(pool_ids), unique=True, max_size=6))) for q in queries}
    qrels = {q: {d: data.draw(st.sampled_from([0, 1])) for d in pool} for q, pool in pools.items() if pool}
    definition = ProtocolDefinition(
        name="p",
        k=2,
        split="test",
        relevance="r",
        documents={},
        queries={
            q: Query(
                text=data.draw(tricky_ids) if with_text else None,
                split="test" if q == queries[0] else data.draw(st.sampled_from(["test", 'x"\\'])),
            )
            for q in queries
        },
        pools=pools,
        pool_rule="r",
    )
    protocol = Protocol(definition, qrels)
    assert protocol.protocol_sha256 == seed_hash(protocol)


@pytest.mark.parametrize(
    "pool",
    [("a!", "a"), ("a b", "a"), ("a#", "a"), ('a"', "a"), ("a\\", "a"), ("a\x1f", "a"), ("é", "e"), ("b", "a")],
)
def test_pooled_hash_where_an_id_is_a_prefix_of_another(pool) -> None:
    """``"a!":`` sorts before ``"a":`` but the key ``a`` before ``a!``: the seed's order wins."""
    definition = ProtocolDefinition(
        name="p",
        k=2,
        split="test",
        relevance="r",
        documents={},
        queries={"q:1": Query(text=None, split="test"), "q:2": Query(text=None, split="test")},
        pools={"q:1": pool, "q:2": ()},
        pool_rule="r",
    )
    protocol = Protocol(definition, {"q:1": {pool[0]: 1, pool[1]: 0}})
    assert protocol.protocol_sha256 == seed_hash(protocol)


@settings(max_examples=200, deadline=None)
@given(
    docs=st.lists(tricky_ids, min_size=1, max_size=6, unique=True),
    queries=st.lists(tricky_ids, min_size=1, max_size=5, unique=True),
    data=st.data(),
)
def test_protocol_hash_with_titles_needs_and_tricky_ids_is_the_seeds(docs, queries, data) -> None:
    """Titles and needs take ``canonical_json`` itself; the rest the templates, with any ID."""
    qrels = {q: {d: data.draw(st.sampled_from([0, 1])) for d in docs} for q in queries}
    definition = ProtocolDefinition(
        name="p",
        k=3,
        split="test",
        relevance="r",
        documents={d: data.draw(tricky_ids) for d in docs},
        queries={
            q: Query(text=data.draw(tricky_ids), split="test", need=data.draw(st.none() | tricky_ids)) for q in queries
        },
        titles={d: data.draw(tricky_ids) for d in data.draw(st.lists(st.sampled_from(docs), unique=True))},
    )
    protocol = Protocol(definition, qrels)
    assert protocol.protocol_sha256 == seed_hash(protocol)


class Name(str):
    """A str subclass: refused before and after the speed-up (the rule is exact type)."""


@pytest.mark.parametrize("bad", [1, None, b"d1", Name("d1"), ["d1"], True])
def test_non_string_entries_are_refused_with_the_same_message(bad) -> None:
    definition = ProtocolDefinition(
        name="p",
        k=1,
        split="test",
        relevance="r",
        documents={"d1": "x", "d2": "y"},
        queries={"q1": Query("a", "test"), "q2": Query("b", "test")},
    )
    protocol = Protocol(definition, {"q1": {"d1": 1, "d2": 0}, "q2": {"d1": 0, "d2": 1}})
    run = Run("A", {"q1": ["d1", "d2"], "q2": ["d2", bad]})
    with pytest.raises(ContractError) as error:
        evaluate(protocol, run)
    assert error.value.rule == "ranking must be a list of document IDs"
    assert error.value.where == "query 'q2'"


GOOD = ["msmarco_v2.1_doc_00_12345", "docs/export.md"]


@pytest.mark.parametrize(
    ("bad", "rule"),
    [
        ("", "document ID must be a nonempty string, got ''"),
        ("docs/my export.md", "document ID 'docs/my export.md' contains whitespace or a control character"),
        (7, "document ID must be a nonempty string, got 7"),
        (None, "document ID must be a nonempty string, got None"),
        (["docs/export.md"], "document ID must be a nonempty string, got ['docs/export.md']"),
        ({"docs/export.md": 1}, "document ID must be a nonempty string, got {'docs/export.md': 1}"),
    ],
)
def test_json_run_refuses_a_bad_entry_after_good_rankings_of_the_same_ids(bad, rule, tmp_path) -> None:
    path = tmp_path / "bm25.json"
    rankings = {"q:1001": GOOD, "q:1002": list(reversed(GOOD)), "q:1003": [*GOOD, bad]}
    assert parse_json_run(json.dumps({"q:1001": GOOD, "q:1002": GOOD}), path) == {"q:1001": GOOD, "q:1002": GOOD}
    with pytest.raises(ContractError) as error:
        parse_json_run(json.dumps(rankings), path)
    assert (error.value.rule, error.value.where, error.value.file) == (rule, "query 'q:1003'", str(path))
