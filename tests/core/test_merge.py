"""Merging annotators' shards: disjoint shards rebuild the exhaustive qrels; conflicts and gaps
are listed in full and never resolved."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import tomli_w

from rankeval_tui.core.annotation.merge import Shard, merge_files, merge_shards
from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.evaluation.protocol import Protocol
from rankeval_tui.core.files import QrelsFile

SEED_HASH = "9dd1a576cc830736a0884e847845f31f2390843c27a250abf3bafaf8fa72cadb"


def shard(labels: dict, queries: tuple[str, ...], **tables) -> QrelsFile:
    return QrelsFile({q: dict(labels[q]) for q in queries}, **tables)


def write(path: Path, qrels: QrelsFile) -> Path:
    data = {"provenance": qrels.provenance, "qrels": qrels.labels}
    if qrels.notes:
        data["notes"] = qrels.notes
    path.write_text(tomli_w.dumps(data), encoding="utf-8")
    return path


def test_disjoint_shards_rebuild_the_seed_qrels(tmp_path, definition, seed_labels):
    a = write(tmp_path / "a.toml", shard(seed_labels, ("q1", "q2"), provenance={"annotators": ["alice"]}))
    b = write(tmp_path / "b.toml", shard(seed_labels, ("q3", "q4", "q5"), provenance={"annotator": "bob"}))
    merged = merge_files(definition, [a, b])
    assert merged.labels == seed_labels
    assert Protocol(definition, merged.labels).protocol_sha256 == SEED_HASH
    assert merged.provenance["annotators"] == ["alice", "bob"]
    assert merged.provenance["merged_from"] == [
        {"file": str(a), "annotators": ["alice"], "queries": ["q1", "q2"]},
        {"file": str(b), "annotators": ["bob"], "queries": ["q3", "q4", "q5"]},
    ]


def test_agreeing_overlap_is_not_a_conflict(definition, seed_labels):
    result = merge_shards(
        definition,
        [Shard("a", shard(seed_labels, ("q1", "q2", "q3"))), Shard("b", shard(seed_labels, ("q3", "q4", "q5")))],
    )
    assert result.ok and result.merged.labels == seed_labels


def test_every_conflict_is_listed_with_every_label(definition, seed_labels):
    other = copy.deepcopy(seed_labels)
    other["q3"]["d5"] = 0
    other["q3"]["d1"] = 1
    result = merge_shards(
        definition,
        [
            Shard("a.toml", shard(seed_labels, ("q1", "q2", "q3"))),
            Shard("b.toml", shard(other, ("q3", "q4", "q5"))),
            Shard("c.toml", shard(seed_labels, ("q3",))),
        ],
    )
    assert [(c.query, c.document, c.labels) for c in result.conflicts] == [
        ("q3", "d1", (("a.toml", 0), ("b.toml", 1), ("c.toml", 0))),
        ("q3", "d5", (("a.toml", 1), ("b.toml", 0), ("c.toml", 1))),
    ]
    # Never resolved: neither label of a conflicting pair is in the merged labels.
    assert "d1" not in result.merged.labels["q3"] and "d5" not in result.merged.labels["q3"]
    problem = result.problem(definition)
    assert (
        "2 conflicting pairs" in problem
        and "query 'q3', document 'd1': 0 in a.toml, 1 in b.toml, 0 in c.toml" in problem
        and "query 'q3', document 'd5': 1 in a.toml, 0 in b.toml, 1 in c.toml" in problem
    )


def test_missing_pairs_are_listed_never_filled(definition, seed_labels):
    partial = copy.deepcopy(seed_labels)
    del partial["q2"]["d3"]
    result = merge_shards(definition, [Shard("a", shard(partial, ("q1", "q2"))), Shard("b", shard(partial, ("q4",)))])
    assert result.missing == (
        ("q2", "d3"),
        *(("q3", d) for d in definition.documents),
        *(("q5", d) for d in definition.documents),
    )
    assert "d3" not in result.merged.labels["q2"]
    assert result.problem(definition) == (
        "13 pairs judged in no shard: query 'q2': 'd3'; query 'q3': all 6 documents; query 'q5': all 6 documents"
    )


def test_merge_files_raises_with_conflicts_and_gaps_together(tmp_path, definition, seed_labels):
    other = copy.deepcopy(seed_labels)
    other["q2"]["d3"] = 0
    a = write(tmp_path / "a.toml", shard(seed_labels, ("q1", "q2")))
    b = write(tmp_path / "b.toml", shard(other, ("q2", "q3")))
    with pytest.raises(ContractError) as error:
        merge_files(definition, [a, b])
    message = error.value.one_line()
    assert "1 conflicting pair (labels differ" in message and f"'d3': 1 in {a}, 0 in {b}" in message
    assert "12 pairs judged in no shard: query 'q4': all 6 documents; query 'q5': all 6 documents" in message


def test_notes_and_disputes_are_kept_and_attributed(definition, seed_labels):
    a = shard(seed_labels, ("q1", "q2"), notes={"q2": {"d4": "CSV counts"}}, disputed={"q2": {"d4": True}})
    b = shard(seed_labels, ("q2", "q3", "q4", "q5"), notes={"q2": {"d4": "borderline"}, "q3": {"d5": "sync"}})
    result = merge_shards(definition, [Shard("a", a), Shard("b", b)])
    assert result.ok
    assert result.merged.notes == {"q2": {"d4": "a: CSV counts | b: borderline"}, "q3": {"d5": "sync"}}
    assert result.merged.disputed == {"q2": {"d4": True}}


def test_different_adjudication_records_for_one_pair_conflict(definition, seed_labels):
    record = {"labels": [1, 0], "final": 1, "reason": "r", "adjudicator": "carol"}
    a = shard(seed_labels, ("q1", "q2"), adjudication={"q2": {"d4": record}})
    b = shard(seed_labels, ("q2", "q3", "q4", "q5"), adjudication={"q2": {"d4": {**record, "reason": "other"}}})
    result = merge_shards(definition, [Shard("a", a), Shard("b", b)])
    assert [(c.query, c.document, c.kind) for c in result.conflicts] == [("q2", "d4", "adjudication")]
    same = merge_shards(definition, [Shard("a", a), Shard("b", shard(seed_labels, ("q3", "q4", "q5")))])
    assert same.ok and same.merged.adjudication == {"q2": {"d4": record}}


def test_same_shard_twice_is_refused(tmp_path, definition, seed_labels):
    a = write(tmp_path / "a.toml", shard(seed_labels, tuple(definition.queries)))
    with pytest.raises(ContractError, match="the same shard is given twice"):
        merge_files(definition, [a, a])
