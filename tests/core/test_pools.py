"""The pooled protocol kind: per-query pools, checked qrels, the hash, protocol.toml round trip,
holes counted per pool, and the strict rule at depth k (a run's gap is refused, never read as 0)."""

from __future__ import annotations

import pytest

from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.evaluation.evaluate import Run, evaluate
from rankeval_tui.core.evaluation.gaps import run_gap
from rankeval_tui.core.evaluation.protocol import Protocol, ProtocolDefinition, Query
from rankeval_tui.core.files.holes import holes_per_query
from rankeval_tui.core.files.protocol_files import (
    QrelsFile,
    definition_to_toml,
    load_definition,
    load_protocol,
    qrels_to_toml,
)
from tests.core.seed import PROTOCOL

POOLS = {"q:1001": ("docs/a.md", "msmarco_v2.1_doc_00_12345"), "q:1002": ("docs/b.md",), "q:1003": ()}
QRELS = {"q:1001": {"docs/a.md": 1, "msmarco_v2.1_doc_00_12345": 0}, "q:1002": {"docs/b.md": 0}}


def pooled(pools=POOLS, documents=None, queries=None, k=2) -> ProtocolDefinition:
    return ProtocolDefinition(
        name="p",
        k=k,
        split="test",
        relevance="r",
        documents={} if documents is None else documents,
        queries=queries or {q: Query(text=None, split="test") for q in pools},
        pools=pools,
        pool_rule="each query's pool: the documents labelled for it",
    )


def test_exhaustive_hash_is_the_seeds():
    assert PROTOCOL.kind == "exhaustive"
    assert PROTOCOL.protocol_sha256.startswith("9dd1a576")


def test_pooled_hash_names_the_kind_and_depends_on_the_pools_labels():
    protocol = Protocol(pooled(), QRELS)
    assert protocol.kind == "pooled" and protocol.definition.pair_count == 3
    flipped = Protocol(pooled(), {**QRELS, "q:1002": {"docs/b.md": 1}})
    grown = Protocol(
        pooled({**POOLS, "q:1003": ("docs/c.md",)}), {**QRELS, "q:1003": {"docs/c.md": 0}}
    )  # one more pooled pair, judged 0: a different protocol
    hashes = {protocol.protocol_sha256, flipped.protocol_sha256, grown.protocol_sha256}
    assert len(hashes) == 3
    assert protocol.protocol_sha256 == Protocol(pooled(), {q: dict(r) for q, r in QRELS.items()}).protocol_sha256


@pytest.mark.parametrize(
    ("qrels", "fragment"),
    [
        ({**QRELS, "q:1002": {"docs/b.md": 0, "docs/a.md": 1}}, "label outside the query's pool"),
        ({**QRELS, "q:1002": {}}, "unjudged pool pair"),
        ({**QRELS, "q:9": {}}, "unknown query"),
        ({**QRELS, "q:1002": {"docs/b.md": 2}}, "integer 0 or 1"),
    ],
)
def test_pooled_qrels_cover_exactly_the_pools(qrels, fragment):
    with pytest.raises(ContractError, match=fragment):
        Protocol(pooled(), qrels)


def test_pools_are_validated():
    with pytest.raises(ContractError, match="twice in one pool"):
        pooled({**POOLS, "q:1002": ("docs/b.md", "docs/b.md")})
    with pytest.raises(ContractError, match="without a pool"):
        pooled(POOLS, queries={"q:9": Query(text=None, split="test"), **{q: Query(None, "test") for q in POOLS}})
    with pytest.raises(ContractError, match="query text required"):
        ProtocolDefinition("p", 2, "test", "r", {"d": "t"}, {"q": Query(text=None, split="test")})


def test_protocol_toml_round_trip_and_holes(tmp_path):
    definition = pooled(documents={"docs/a.md": "text of a"})
    (tmp_path / "protocol.toml").write_text(definition_to_toml(definition))
    read = load_definition(tmp_path)
    assert read.pools == POOLS and read.kind == "pooled" and read.pool_rule == definition.pool_rule
    assert read.documents == {"docs/a.md": "text of a"} and read.queries["q:1001"].text is None
    partial = {"q:1001": {"docs/a.md": 1}}
    assert holes_per_query(read, partial) == {"q:1001": 1, "q:1002": 1}
    (tmp_path / "qrels.toml").write_text(qrels_to_toml(QrelsFile(labels=partial), read))
    with pytest.raises(ContractError, match=r"every pair of every pool judged; 2 of 3 pairs are unjudged"):
        load_protocol(tmp_path)
    (tmp_path / "qrels.toml").write_text(qrels_to_toml(QrelsFile(labels=QRELS), read))
    assert load_protocol(tmp_path).qrels == QRELS
    outside = {**QRELS, "q:1003": {"docs/a.md": 0}}
    (tmp_path / "qrels.toml").write_text(qrels_to_toml(QrelsFile(labels=outside), read))
    with pytest.raises(ContractError, match="label outside the query's pool"):
        load_protocol(tmp_path)


def test_a_run_whose_top_k_leaves_the_pool_is_refused_never_read_as_0():
    protocol = Protocol(pooled(), QRELS)
    inside = Run("in", {"q:1001": ["msmarco_v2.1_doc_00_12345", "docs/a.md", "never-judged"], "q:1002": ["docs/b.md"]})
    report = evaluate(protocol, inside)  # below k = 2 an unjudged document changes nothing
    assert report.row("q:1001").recall == 1 and report.row("q:1001").rr == pytest.approx(0.5)
    outside = Run("out", {"q:1001": ["never-judged", "docs/a.md"], "q:1003": ["x", "y", "z"]})
    assert run_gap(protocol.definition, outside.rankings, 2) == {"q:1001": ("never-judged",), "q:1003": ("x", "y")}
    with pytest.raises(ContractError) as error:
        evaluate(protocol, outside)
    message = str(error.value)
    assert "3 top-2 pairs in 2 queries outside the pools" in message
    assert "never read as 0" in message and "grow PROTOCOL --gap RUN" in message


def test_agreement_and_adjudication_on_pools():
    from rankeval_tui.core.annotation.adjudication import adjudicated_qrels
    from rankeval_tui.core.annotation.adjudication_journal import Decision
    from rankeval_tui.core.annotation.agreement import agreement

    definition = pooled()
    alice = QrelsFile(labels={q: dict(row) for q, row in QRELS.items()})
    bob = QrelsFile(labels={**{q: dict(row) for q, row in QRELS.items()}, "q:1002": {"docs/b.md": 1}})
    result = agreement(definition, alice, bob, ("alice", "bob"))
    assert result.overall.pairs == 3  # the pools' pairs, not queries x documents
    assert [(d.query, d.document) for d in result.disagreements] == [("q:1002", "docs/b.md")]
    final = adjudicated_qrels(
        definition, result, alice, bob, {("q:1002", "docs/b.md"): Decision(1, "says so")}, "carol"
    )
    assert final.labels["q:1002"] == {"docs/b.md": 1}
    assert Protocol(definition, final.labels).relevant["q:1002"] == frozenset({"docs/b.md"})


@pytest.mark.parametrize(
    ("pool", "fragment"),
    [("a  b", "got ''"), (" a", "got ''"), ("a\tb", "got 'a\\tb'"), ("a b\x85", "control character")],
)
def test_a_pool_string_is_single_space_separated_ids(tmp_path, pool, fragment):
    from pathlib import Path

    from rankeval_tui.core.files.pools import read_pools

    problems: list[ContractError] = []
    assert read_pools({"q:1": pool, "q:2": "a b"}, Path("protocol.toml"), problems.append) == {"q:2": ("a", "b")}
    (problem,) = problems
    assert "single spaces" in problem.rule and fragment in problem.rule, problem.rule


@pytest.mark.parametrize(
    ("text", "bad"),
    [
        ("d1  d2", "''"),
        (" d1", "''"),
        ("d1 ", "''"),
        ("d1 d\t2", "'d\\t2'"),
        ("d1 d\x012", "'d\\x012'"),
        ("d\u00852", ""),
    ],
)
def test_pool_ids_single_spaces_no_controls(text: str, bad: str) -> None:
    """An empty ID (two spaces, a space at an end), other whitespace or a control character in a
    pool is reported naming that ID (one search over the whole string finds it)."""
    from pathlib import Path

    from rankeval_tui.core.files.pools import read_pools

    problems: list[ContractError] = []
    assert read_pools({"q1": text, "q2": "d1 d2"}, Path("protocol.toml"), problems.append) == {"q2": ("d1", "d2")}
    assert len(problems) == 1 and "single spaces" in str(problems[0]) and bad in str(problems[0])
