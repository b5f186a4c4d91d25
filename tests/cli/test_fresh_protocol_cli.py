"""A protocol with no qrels.toml yet (``init`` without ``--qrels``, judging still in its journal)
is a protocol whose every pair is a hole: ``score``, ``qrels export`` and the app refuse it as they
refuse a partial qrels.toml (the count and the judge command, exit 2, one line), and ``validate``
says how far the open journal got. ``validate`` on a broken protocol.toml reports no run as ok."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rankeval_tui.core.annotation.judging import JudgingSession
from rankeval_tui.core.files import load_definition
from tests.cli.helpers import assert_one_line_error, run_cli
from tests.partial_protocol import write_partial_protocol


@pytest.fixture()
def fresh(tmp_path: Path) -> Path:
    """``init`` without ``--qrels``: protocol.toml, runs/, no qrels.toml."""
    corpus = tmp_path / "help-docs" / "docs"
    corpus.mkdir(parents=True)
    (corpus / "export.md").write_text("Export a report: open Reports, choose Export, pick CSV.\n")
    (corpus / "login.md").write_text("Sign in with your work e-mail.\n")
    (corpus / "sync.md").write_text("Sync runs every five minutes.\n")
    queries = tmp_path / "queries.tsv"
    queries.write_text("q:1001\tHow do I export?\nq:1002\tHow do I sign in?\n")
    target = tmp_path / "help-center"
    result = run_cli("init", target, "--corpus", tmp_path / "help-docs", "--queries", queries, "--k", "2")
    assert result.returncode == 0, result.stderr
    assert not (target / "qrels.toml").exists()
    return target


def judge_two_pairs(directory: Path) -> None:
    """Judge two pairs and quit: only the journal holds them."""
    session = JudgingSession.open(load_definition(directory), directory / "qrels.toml", annotator="alice")
    session.label(1)  # q:1001 / docs/export.md
    session.label(0)  # q:1001 / docs/login.md
    assert "4 of 6 pairs remain unjudged" in session.finish()


COMMANDS = [("score",), ("qrels", "export"), ("inspect",), ()]  # () is `rankeval-tui PROTOCOL`: the app


@pytest.mark.parametrize("command", COMMANDS, ids=["score", "qrels-export", "inspect", "app"])
@pytest.mark.parametrize("journal", [False, True], ids=["fresh", "journal"])
def test_no_qrels_file_is_refused_as_holes_with_the_judge_command(fresh: Path, command, journal: bool) -> None:
    if journal:
        judge_two_pairs(fresh)
    line = assert_one_line_error(
        run_cli(*command, fresh),
        f"{fresh}/qrels.toml",
        "no qrels file yet",
        "6 of 6 pairs are unjudged (holes in 2 of 2 queries)",
        "never read as 0",
        f"judge them with: rankeval-tui judge {fresh}",
        "first hole: query 'q:1001', document 'docs/export.md'",
    )
    assert "file not found" not in line


def test_validate_reports_the_open_journal_beside_the_holes(fresh: Path) -> None:
    judge_two_pairs(fresh)
    result = run_cli("validate", fresh)
    assert result.returncode == 2, result.stderr
    assert result.stdout.splitlines() == [
        "ok: protocol help-center: 3 documents, 2 queries",
        f"warning: {fresh}/qrels.toml: no qrels file yet: every pair is a hole",
        "holes: 6 of 6 pairs unjudged in 2 of 2 queries (never read as 0):",
        "  'q:1001': 3 of 3 unjudged",
        "  'q:1002': 3 of 3 unjudged",
        f"journal: 2 of 6 pairs judged so far ({fresh}/qrels.toml.journal); qrels.toml is written when judging "
        "finishes with every pair judged",
        # issue 31: each annotator's pace (two judgments are too few to time)
        "pace: alice: 2 judgments, no pace (fewer than 3 timed judgments; journals before 'at' have none) "
        "(this journal)",
        f"next: rankeval-tui judge {fresh}",
    ]


def test_validate_names_a_journal_judge_would_refuse_as_a_problem(fresh: Path) -> None:
    judge_two_pairs(fresh)
    journal = fresh / "qrels.toml.journal"
    journal.write_text(journal.read_text() + '{"op": "label", "q": "q:1001", "d": "docs/gone.md", "v": 1}\n')
    result = run_cli("validate", fresh)
    assert result.returncode == 2
    errors = [line for line in result.stdout.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and "qrels.toml.journal" in errors[0] and "'docs/gone.md'" in errors[0], result.stdout
    assert not any(line.startswith("journal: ") for line in result.stdout.splitlines())


def test_validate_on_a_broken_protocol_reports_no_run_as_ok(tmp_path: Path) -> None:
    partial = write_partial_protocol(tmp_path / "help-docs")
    protocol = partial / "protocol.toml"
    protocol.write_text(
        protocol.read_text().replace('split = "test"\nrelevance', 'split = "test"\nrelevence = "x"\nrelevance')
    )
    (partial / "runs" / "dense.json").write_text(json.dumps({"q:1001": ["docs/export.md", "docs/export.md"]}))
    result = run_cli("validate", partial)
    assert result.returncode == 2
    assert result.stdout.splitlines() == [
        f"error: {protocol}: [protocol]: unknown key 'relevence' (known: name, k, split, relevance, description, kind, "
        "pool_rule, grades, relevant_from, unlisted_as_zero, tie_order)",
        "note: qrels and runs not checked against the protocol: protocol.toml must be valid first",
        "1 problem; fix it and run validate again",
    ]


def test_validate_counts_problems_in_the_plural(tmp_path: Path) -> None:
    partial = write_partial_protocol(tmp_path / "help-docs")
    protocol = partial / "protocol.toml"
    protocol.write_text(protocol.read_text() + '\n[queries."q:1004"]\ntext = "x"\n[queries."q:1005"]\ntext = "y"\n')
    lines = run_cli("validate", partial).stdout.splitlines()
    assert lines[-1] == "2 problems; fix them and run validate again"
    limited = run_cli("validate", partial, "--max-problems", "1").stdout.splitlines()
    assert "error: ... and 1 more problem (2 in all)" in limited


def test_a_qrels_path_the_user_names_must_exist(fresh: Path) -> None:
    """Only the protocol's own qrels.toml may be missing (nothing judged yet): a mistyped
    --qrels is a missing file, not a protocol full of holes."""
    result = run_cli("score", fresh, "--qrels", fresh / "qrles.toml")
    assert_one_line_error(result, "qrles.toml", "file not found")
    assert "judge" not in result.stderr
