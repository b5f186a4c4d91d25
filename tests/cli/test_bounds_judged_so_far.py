"""``score --bounds`` on a protocol judged part of the way: the open journal is read, never
written or locked (a running ``judge`` keeps its lock and its file byte for byte); a journal
that does not belong to the protocol is one error line; where this does not apply (an
exhaustive protocol, a qrels path that does not exist) the load's own error stands."""

from __future__ import annotations

import json
from pathlib import Path

from rankeval_tui.core.annotation.judging import JudgingSession
from rankeval_tui.core.files import load_definition
from tests.cli.helpers import assert_one_line_error, run_cli
from tests.cli.test_pools_cli import make


def grown(tmp_path: Path) -> Path:
    directory = make(tmp_path)
    assert run_cli("grow", directory, "--gap", tmp_path / "dense.trec").returncode == 0
    return directory


def bounds(directory: Path, tmp_path: Path, *options: str):
    return run_cli(
        "score", directory, "--bounds", "--baseline", "bm25",
        "--run", directory / "runs" / "bm25.trec", "--run", tmp_path / "dense.trec", *options,
    )  # fmt: skip


def test_a_running_session_is_read_not_locked_or_written(tmp_path: Path) -> None:
    directory = grown(tmp_path)
    session = JudgingSession.open(load_definition(directory), directory / "qrels.toml", annotator="alice")
    try:
        session.goto("q:1001", "docs/new.md")
        session.label(1)  # fsynced to the journal; the session stays open, its lock held
        journal = (directory / "qrels.toml.journal").read_bytes()
        lock = (directory / "qrels.toml.lock").read_bytes()
        result = bounds(directory, tmp_path, "--format", "json")
        assert result.returncode == 0, result.stderr
        data = json.loads(result.stdout)
        assert data["labels"]["from_open_judging_session"] == 1 and data["labels"]["unjudged_pool_pairs"] == 1
        # docs/new.md judged relevant: dense gains it at rank 1 on q:1001, Recall@2 +1/2 there
        q1001 = data["delta_bounds"]["dense"]["measures"]["recall"]["per_query_delta"][0]
        assert (q1001["query"], q1001["delta_low"], q1001["delta_high"]) == ("q:1001", "1/2", "1/2")
        assert (directory / "qrels.toml.journal").read_bytes() == journal
        assert (directory / "qrels.toml.lock").read_bytes() == lock
    finally:
        session.close()


def test_without_a_journal_the_qrels_holes_are_bounded(tmp_path: Path) -> None:
    directory = grown(tmp_path)
    result = bounds(directory, tmp_path)
    assert result.returncode == 0, result.stderr
    assert "labels: 4 from qrels.toml; 2 pool pairs not judged yet, bounded, never read as 0" in result.stdout
    assert "open judging session" not in result.stdout
    gate = bounds(directory, tmp_path, "--fail-on-regression")
    assert gate.returncode == 3, gate.stderr
    hint = gate.stderr.strip().splitlines()[-1]  # every top k is in the pools now: no grow to run first
    assert hint.endswith(
        f"decides it: rankeval-tui judge {directory} --decide {directory / 'runs' / 'bm25.trec'} {tmp_path / 'dense.trec'}"
    )
    plain = run_cli("score", directory, "--run", tmp_path / "dense.trec")
    assert_one_line_error(plain, "every pair of every pool judged; 2 of 6 pairs are unjudged")  # one number: refused


def test_a_journal_of_another_protocol_is_one_error_line(tmp_path: Path) -> None:
    directory = grown(tmp_path)
    session = JudgingSession.open(load_definition(directory), directory / "qrels.toml", annotator="alice")
    session.goto("q:1001", "docs/new.md")
    session.label(1)
    session.close()
    protocol = directory / "protocol.toml"
    protocol.write_text(protocol.read_text().replace('relevance = "', 'relevance = "changed: '))
    result = bounds(directory, tmp_path)
    assert_one_line_error(result, "qrels.toml.journal")


def test_where_it_does_not_apply_the_loads_own_error_stands(tmp_path: Path, blank: Path) -> None:
    exhaustive = run_cli("score", blank, "--bounds")
    assert_one_line_error(exhaustive, "unjudged")
    directory = grown(tmp_path)
    missing = bounds(directory, tmp_path, "--qrels", tmp_path / "typo.toml")
    assert missing.returncode == 2 and "typo.toml" in missing.stderr and "Traceback" not in missing.stderr
