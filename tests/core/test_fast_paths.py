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
    """The seed's reference/metrics.py formula, verbatim in shape."""
    canonical = json.dumps(
        dict(
            corpus=dict(protocol.documents),
            queries={q: m.canonical() for q, m in protocol.queries.items()},
            qrels={q: dict(row) for q, row in protocol.qrels.items()},
            split=protocol.split,
            k=protocol.k,
        ),
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
