"""A k change re-scores from shared, already-checked state: the numbers and hashes must be exactly
those of a fresh load at that k (the shortcuts are for speed at 10,000 queries only)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from rankeval_tui.core.evaluation.protocol import Protocol, canonical_json
from rankeval_tui.core.files import load_protocol
from rankeval_tui.core.session import ScoringSession
from tests.tui.big_protocol import write_big_protocol


def seed_hash_text(protocol: Protocol) -> str:
    """The seed's definition of the hash: sha256 of json.dumps of the five parts (no fast path)."""
    data = {
        "corpus": protocol.definition.canonical_corpus(),
        "queries": {q: meta.canonical() for q, meta in protocol.queries.items()},
        "qrels": protocol.qrels,
        "split": protocol.split,
        "k": protocol.k,
    }
    return hashlib.sha256(canonical_json(data).encode("utf-8")).hexdigest()


def test_with_k_and_with_split_hash_as_a_fresh_protocol(seed_dir: Path) -> None:
    protocol = load_protocol(seed_dir)
    assert protocol.protocol_sha256 == seed_hash_text(protocol)  # the seed's 9dd1a576...
    for changed in (protocol.with_k(3), protocol.with_split("dev"), protocol.with_k(5).with_split("dev").with_k(1)):
        fresh = Protocol(changed.definition, dict(changed.qrels))
        assert changed.protocol_sha256 == fresh.protocol_sha256 == seed_hash_text(changed)
    assert protocol.with_k(3).with_k(2).protocol_sha256 == protocol.protocol_sha256


def test_qrels_rows_out_of_corpus_order_hash_the_same(seed_dir: Path) -> None:
    protocol = load_protocol(seed_dir)
    shuffled = {q: dict(reversed(list(row.items()))) for q, row in protocol.qrels.items()}
    assert Protocol(protocol.definition, shuffled).protocol_sha256 == protocol.protocol_sha256


def test_a_k_change_equals_a_fresh_load_at_that_k(tmp_path: Path) -> None:
    directory = write_big_protocol(tmp_path / "big")
    session = ScoringSession.load(directory)
    for k in (1, 3, 10, 25):
        changed, fresh = session.with_k(k), ScoringSession.load(directory, k=k)
        assert changed.protocol.protocol_sha256 == fresh.protocol.protocol_sha256
        assert [s.report for s in changed.scored] == [s.report for s in fresh.scored]
        assert [s.name for s in changed.accepted] == [s.name for s in fresh.accepted]


def test_a_k_change_keeps_a_rejected_run_rejected(seed_copy: Path) -> None:
    (seed_copy / "runs" / "typo.json").write_text(json.dumps({"q2": ["d1", "d404"]}), encoding="utf-8")
    session = ScoringSession.load(seed_copy)
    changed = session.with_k(3)
    assert [(s.name, s.error) for s in changed.rejected] == [(s.name, s.error) for s in session.rejected]
    assert (
        "d404" in changed.rejected[0].error
        and changed.rejected[0].error == ScoringSession.load(seed_copy, k=3).rejected[0].error
    )


def test_a_comparison_like_the_one_before_a_k_change_equals_a_fresh_one(tmp_path: Path) -> None:
    """``comparison(..., like=...)`` keeps the paired rows whose two query rows the k change kept
    and pairs the others afresh: the result equals ``compare`` from scratch, row by row with every
    delta and outcome; the same two reports give the same comparison back."""
    from rankeval_tui.core.evaluation.compare import compare

    session = ScoringSession.load(write_big_protocol(tmp_path / "mid", queries=500))
    before = session.comparison("bm25", "dense")
    assert session.comparison("bm25", "dense", like=before) is before
    for k in (session.protocol.k + 1, session.protocol.k - 1):
        changed = session.with_k(k)
        like = changed.comparison("bm25", "dense", like=before)
        fresh = compare(changed.report("bm25"), changed.report("dense"))
        assert like == fresh
        for got, expected in zip(like.rows, fresh.rows):
            assert [(got.delta(m), got.outcome(m)) for m in like.metrics] == [
                (expected.delta(m), expected.outcome(m)) for m in fresh.metrics
            ]
        kept = [new is old for new, old in zip(like.rows, before.rows)]
        assert 0 < sum(kept) < len(kept)  # some rows kept, the re-scored ones paired again
        swapped = changed.comparison("dense", "bm25", like=like)
        assert swapped == compare(changed.report("dense"), changed.report("bm25"))
        assert not any(new is old for new, old in zip(swapped.rows, like.rows))
