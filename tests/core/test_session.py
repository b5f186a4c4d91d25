"""ScoringSession: the scoring screen's view model, checked against the seed and the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.session import ScoringSession

SEED_HASH = "9dd1a576cc830736a0884e847845f31f2390843c27a250abf3bafaf8fa72cadb"


def test_default_runs_are_the_runs_directory_and_match_the_seed(seed_dir: Path, seed_expected: dict) -> None:
    session = ScoringSession.load(seed_dir)
    assert [s.name for s in session.scored] == ["all_empty", "fixture_A", "fixture_B"]
    assert session.protocol.protocol_sha256 == SEED_HASH
    for name in ("fixture_A", "fixture_B"):
        data = session.report(name).to_json()
        data.pop("source")
        assert data == seed_expected["results"][name]
    assert session.eligible_queries == 3
    assert session.splits == ("dev", "test")


def test_session_numbers_equal_score_json(seed_dir: Path) -> None:
    """The screen's source of numbers and ``score --format json`` agree run by run."""
    out = subprocess.run([sys.executable, "-m", "rankeval_tui", "score", str(seed_dir), "--format", "json"],
                         capture_output=True, text=True, check=True).stdout
    cli = json.loads(out)["runs"]
    session = ScoringSession.load(seed_dir)
    assert {s.name: s.report.to_json() for s in session.accepted} == cli


def test_rejected_run_keeps_its_reason_and_others_stay_usable(seed_copy: Path) -> None:
    (seed_copy / "runs" / "dup.json").write_text('{"q2": ["d3", "d3"]}', encoding="utf-8")
    (seed_copy / "runs" / "broken.json").write_text('{"q2": ', encoding="utf-8")
    session = ScoringSession.load(seed_copy)
    rejected = {s.name: s.error for s in session.rejected}
    assert set(rejected) == {"dup", "broken"}
    assert "duplicate document ID" in rejected["dup"] and "'d3'" in rejected["dup"]
    assert "invalid JSON" in rejected["broken"]
    assert [s.name for s in session.accepted] == ["all_empty", "fixture_A", "fixture_B"]
    with pytest.raises(KeyError):
        session.report("dup")


def test_same_name_twice_is_rejected_not_merged(seed_dir: Path) -> None:
    a = seed_dir / "runs" / "fixture_A.json"
    session = ScoringSession.load(seed_dir, [(None, a), ("fixture_A", seed_dir / "runs" / "fixture_B.json")])
    assert [s.rejected for s in session.scored] == [False, True]
    assert "two runs are named 'fixture_A'" in session.scored[1].error


def test_k_change_rescores_with_a_new_hash(seed_dir: Path) -> None:
    session = ScoringSession.load(seed_dir)
    k1 = session.with_k(1)
    assert k1.protocol.k == 1 and k1.protocol.protocol_sha256 != SEED_HASH
    b = k1.report("fixture_B")
    assert b.k == 1 and b.protocol_sha256 == k1.protocol.protocol_sha256
    assert str(b.recall_at_k) == "2/3" and str(b.mrr_at_k) == "2/3"  # q2's hit is at rank 2: out of the top 1
    assert k1.with_k(2).protocol.protocol_sha256 == SEED_HASH
    with pytest.raises(ContractError):
        session.with_k(0)


def test_split_change_rejects_runs_of_the_other_split(seed_dir: Path) -> None:
    dev = ScoringSession.load(seed_dir).with_split("dev")
    assert dev.protocol.selected_queries == ("q1",)
    errors = {s.name: s.error for s in dev.rejected}
    assert "wrong-split query" in errors["fixture_A"]
    with pytest.raises(ContractError):
        dev.with_split("nope")


def test_reload_rereads_run_files_keeping_k(seed_copy: Path) -> None:
    session = ScoringSession.load(seed_copy).with_k(1)
    (seed_copy / "runs" / "fixture_A.json").write_text('{"q4": ["d6"]}', encoding="utf-8")
    again = session.reload()
    assert again.protocol.k == 1
    assert again.report("fixture_A").missing_queries == ["q2", "q3", "q5"]
    assert session.report("fixture_A").missing_queries == ["q4"]  # the old session is untouched


def test_invalid_protocol_raises(seed_copy: Path) -> None:
    qrels = seed_copy / "qrels.toml"
    qrels.write_text(qrels.read_text(encoding="utf-8").replace("d6 = 1\n", "", 1), encoding="utf-8")
    with pytest.raises(ContractError, match="unjudged"):
        ScoringSession.load(seed_copy)


def test_chunk_map_runs_through_the_adapter(seed_dir: Path, seed_expected_chunk: dict) -> None:
    session = ScoringSession.load(seed_dir, [(None, seed_dir / "chunks" / "chunk_run.json")],
                                  chunk_map_path=seed_dir / "chunks" / "chunk_map.toml")
    report = session.report("chunk_run")
    expected = seed_expected_chunk["collapse_then_document_cutoff"]
    assert report.adapter_sha256 is not None
    assert report.to_json()["recall_at_k"] == expected["recall_at_2"]
    assert report.to_json()["mrr_at_k"] == expected["mrr_at_2"]
    assert report.missing_queries == expected["missing_queries"]
