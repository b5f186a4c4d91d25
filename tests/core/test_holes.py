"""Partial labels are a starting point, never a fill: holes are counted, refused by scoring,
listed by validate (with every other problem), and judging starts on them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rankeval_tui.core.annotation.hole_order import top_k_pairs
from rankeval_tui.core.annotation.judging import JudgingSession, journal_progress
from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.files import load_definition, load_protocol, read_qrels_file
from rankeval_tui.core.files.holes import holes_per_query, judge_command
from rankeval_tui.core.files.validation import validate_directory
from tests.partial_protocol import HOLES, IMPORT_SOURCE, IMPORTED, RUN, TRUTH, write_partial_protocol


@pytest.fixture()
def partial(tmp_path: Path) -> Path:
    return write_partial_protocol(tmp_path / "help-docs")


def open_session(directory: Path) -> JudgingSession:
    return JudgingSession.open(load_definition(directory), directory / "qrels.toml", annotator="alice")


def test_holes_are_counted_per_query_and_never_read_as_zero(partial: Path) -> None:
    definition = load_definition(partial)
    assert holes_per_query(definition, IMPORTED) == {"q:1001": 1, "q:1002": 2, "q:1003": 2}
    with pytest.raises(ContractError) as caught:
        load_protocol(partial)
    error = caught.value
    assert error.rule.startswith("unjudged or unknown documents: exhaustive qrels required")  # the seed's words
    assert "5 of 9 pairs are unjudged (holes in 3 of 3 queries)" in error.rule
    assert f"rankeval-tui judge {partial}" in error.rule
    assert error.where == "first hole: query 'q:1001', document 'msmarco_v2.1_doc_00_12345'"


def test_judge_command_names_a_non_default_qrels_file(partial: Path) -> None:
    assert judge_command(partial, partial / "qrels.toml") == f"rankeval-tui judge {partial}"
    assert (
        judge_command(partial, partial / "alice.toml") == f"rankeval-tui judge {partial} --qrels {partial}/alice.toml"
    )


def test_validate_counts_holes_and_names_the_next_command(partial: Path) -> None:
    result = validate_directory(partial, None, [(None, partial / "runs" / "bm25.json")])
    assert result.problems == []
    assert result.holes == {"q:1001": 1, "q:1002": 2, "q:1003": 2} and result.hole_count == 5
    assert result.protocol is None  # no hash for a protocol with holes
    assert result.next_command == f"rankeval-tui judge {partial}"
    assert [run.name for _, run in result.runs if run is not None] == ["bm25"]  # runs checked despite the holes


def test_validate_lists_every_problem_of_protocol_qrels_and_runs(partial: Path) -> None:
    qrels = partial / "qrels.toml"
    qrels.write_text(
        qrels.read_text()
        + '\n[notes."q:9999"]\n"docs/export.md" = "gone"\n'
        + '[disputed."q:1001"]\n"docs/export.md" = "yes"\n'
        + "[qrels_typo]\n"
    )
    text = (
        qrels.read_text()
        .replace('"docs/login.md" = 1', '"docs/login.md" = 2')
        .replace('"docs/export.md" = 1', '"docs/export.md" = 1\n"docs/missing.md" = 0')
    )
    qrels.write_text(text)
    bad_run = partial / "runs" / "dense.json"
    bad_run.write_text(json.dumps({"q:1001": ["docs/export.md", "docs/export.md"], "q:1002": ["docs/new.md"]}))
    result = validate_directory(partial, None, [(None, bad_run)])
    rules = [problem.one_line() for problem in result.problems]
    expected = [
        "unknown top-level table 'qrels_typo'",
        "unknown document 'docs/missing.md'",
        "unknown query 'q:9999'",
        "[disputed] values must be bool",
        "labels must be integer 0 or 1, got 2",
        "duplicate document ID",
        "unknown document ID: not in the corpus",
    ]
    assert len(rules) == len(expected), rules
    for fragment, line in zip(expected, rules):
        assert fragment in line, (fragment, line)
    assert "rankeval-tui grow" in rules[-1]  # the unknown document names the command that adds it
    assert result.holes == {"q:1001": 1, "q:1002": 2, "q:1003": 2}  # the bad label is a problem, not a hole


def test_validate_lists_every_problem_of_protocol_toml(partial: Path) -> None:
    path = partial / "protocol.toml"
    text = path.read_text().replace('split = "test"\nrelevance', 'split = "test"\nrelevence = "typo"\nrelevance')
    text += '\n[documents."docs/empty.md"]\nurl = "no text"\n[queries."q:1004"]\ntext = "x"\n'
    path.write_text(text)
    result = validate_directory(partial, None, [])
    rules = [problem.rule for problem in result.problems]
    assert rules == [
        "unknown key 'relevence' (known: name, k, split, relevance, description, kind, pool_rule, grades, "
        "relevant_from, unlisted_as_zero, tie_order)",
        "unknown key 'url' (known: text, title)",  # a title is known since init keeps them
        "missing required key 'text'",
        "missing required key 'split'",
    ]
    assert [problem.where for problem in result.problems][1:] == [
        "[documents.docs/empty.md]",
        "[documents.docs/empty.md]",
        "[queries.q:1004]",
    ]
    assert result.definition is None and result.holes == {}


def test_judging_opens_on_the_first_hole_and_says_what_was_imported(partial: Path) -> None:
    session = open_session(partial)
    try:
        assert session.cursor.current == ("q:1001", "msmarco_v2.1_doc_00_12345")
        assert session.marks.judged == 4 and session.marks.remaining == 5
        summary = session.start_summary()
        assert "4 imported labels" in summary and IMPORT_SOURCE in summary and "5 of 9 pairs remain" in summary
        assert all(session.marks.label_of(q, d) is None for q, d in HOLES)  # holes stay holes, not 0
        assert all(session.marks.is_imported(q, d) for q, row in IMPORTED.items() for d in row)
    finally:
        session.close()


def test_a_resumed_session_says_it_starts_where_the_annotator_left_off(partial: Path) -> None:
    """The cursor comes back to the journal's last position, not the first hole: the summary
    must not say "first hole" then (found by a user walkthrough)."""
    session = open_session(partial)
    session.goto("q:1002", "docs/login.md")  # an imported pair, not a hole
    session.close()
    session = open_session(partial)
    try:
        assert session.resumed and session.cursor.current == ("q:1002", "docs/login.md")
        assert session.start_summary(compact=True).endswith("· 5 of 9 to judge · where you left off")
        assert "starting on the pair where you left off" in session.start_summary()
        assert "first hole" not in session.start_summary()
    finally:
        session.close()


def test_judging_the_holes_writes_imported_labels_unchanged_and_keeps_their_source(partial: Path) -> None:
    session = open_session(partial)
    session.goto("q:1002", "docs/login.md")
    session.label(0)  # the annotator corrects one imported label: it is no longer imported
    assert not session.marks.is_imported("q:1002", "docs/login.md")
    session.changes.undo()
    assert session.marks.is_imported("q:1002", "docs/login.md")  # undo restores the imported mark
    session.changes.redo()
    while not session.marks.complete:
        session.next_unjudged()
        session.label(TRUTH[session.cursor.current])
    assert "wrote" in session.finish()
    written = read_qrels_file(partial / "qrels.toml", load_definition(partial))
    expected = {q: dict(row) for q, row in IMPORTED.items()}
    expected["q:1002"]["docs/login.md"] = 0
    for (query, doc), label in TRUTH.items():
        expected[query][doc] = label
    assert written.labels == expected
    assert written.provenance["imported_from"] == IMPORT_SOURCE and written.provenance["imported_labels"] == 4
    assert written.provenance["imported_unreviewed"] == {
        "q:1001": ["docs/export.md", "docs/login.md"],
        "q:1003": ["msmarco_v2.1_doc_00_12345"],
    }
    # Reopened for review, the same three labels are marked imported, the corrected one is not.
    again = open_session(partial)
    try:
        assert again.marks.review and again.marks.imported.unreviewed == 3
        assert not again.marks.is_imported("q:1002", "docs/login.md") and again.marks.is_imported(
            "q:1001", "docs/login.md"
        )
    finally:
        again.close()


def test_top_k_holes_come_first_then_the_rest(partial: Path) -> None:
    definition = load_definition(partial)
    pairs = top_k_pairs(definition, [RUN], definition.k)
    assert pairs == [
        ("q:1001", "docs/export.md"),
        ("q:1001", "docs/login.md"),
        ("q:1002", "msmarco_v2.1_doc_00_12345"),
        ("q:1002", "docs/login.md"),
        ("q:1003", "msmarco_v2.1_doc_00_12345"),
        ("q:1003", "docs/login.md"),
    ]
    session = open_session(partial)
    assert session.order_holes(pairs) == 2  # two of them are holes
    visited = [session.cursor.current]
    session.label(0)
    visited.append(session.cursor.current)
    session.label(0)
    visited.append(session.cursor.current)  # the top-k holes are done: back to the first hole in corpus order
    assert visited == [
        ("q:1002", "msmarco_v2.1_doc_00_12345"),
        ("q:1003", "docs/login.md"),
        ("q:1001", "msmarco_v2.1_doc_00_12345"),
    ]
    session.close()
    resumed = open_session(partial)  # the journal replays the visit order's positions
    try:
        assert resumed.cursor.current == ("q:1001", "msmarco_v2.1_doc_00_12345")
        assert resumed.marks.label_of("q:1003", "docs/login.md") == 0 and resumed.marks.remaining == 3
    finally:
        resumed.close()


def test_undo_reopens_a_top_k_hole_for_the_queue(partial: Path) -> None:
    definition = load_definition(partial)
    session = open_session(partial)
    try:
        session.order_holes(top_k_pairs(definition, [RUN], definition.k))
        session.label(1)
        session.label(0)
        session.changes.undo()
        session.changes.undo()
        session.step(1)  # anywhere
        assert session.next_unjudged() and session.cursor.current == ("q:1002", "msmarco_v2.1_doc_00_12345")
    finally:
        session.close()


def test_no_qrels_file_is_every_pair_a_hole_not_file_not_found(partial: Path) -> None:
    (partial / "qrels.toml").unlink()
    with pytest.raises(ContractError) as caught:
        load_protocol(partial)
    error = caught.value
    assert error.file == str(partial / "qrels.toml")
    assert "no qrels file yet; 9 of 9 pairs are unjudged (holes in 3 of 3 queries)" in error.rule
    assert f"judge them with: rankeval-tui judge {partial}" in error.rule
    assert error.where == "first hole: query 'q:1001', document 'docs/export.md'"


def test_journal_progress_replays_the_open_journal_read_only(partial: Path) -> None:
    (partial / "qrels.toml").unlink()
    definition = load_definition(partial)
    assert journal_progress(definition, partial / "qrels.toml") is None
    session = open_session(partial)
    session.label(1)  # q:1001 / docs/export.md
    session.label(0)  # q:1001 / docs/login.md
    journal = partial / "qrels.toml.journal"
    before = journal.read_bytes()
    progress = journal_progress(definition, partial / "qrels.toml")  # while judge holds the lock
    assert progress is not None and (progress.marks.judged, progress.marks.total) == (2, 9)
    assert progress.marks.label_of("q:1001", "docs/export.md") == 1 and progress.journal_path == journal
    session.finish()
    assert journal.read_bytes() == before and not (partial / "qrels.toml").exists()


def test_validate_never_calls_a_run_valid_without_a_definition(partial: Path) -> None:
    path = partial / "protocol.toml"
    path.write_text(path.read_text() + '\n[queries."q:1004"]\ntext = "no split"\n')
    result = validate_directory(partial, None, [(None, partial / "runs" / "bm25.json")])
    assert result.definition is None and [p.rule for p in result.problems] == ["missing required key 'split'"]
    assert result.runs == [(partial / "runs" / "bm25.json", None)]  # read, not checked against a corpus
    with pytest.raises(ContractError) as caught:
        load_definition(partial, report=lambda problem: None)  # collecting, as validate does
    assert caught.value.rule == "1 problem in protocol.toml"


def test_a_resumed_session_with_top_k_holes_opens_the_pair_last_visited(partial: Path) -> None:
    """``judge`` orders the top-k holes again on every start; a resume must still open the pair
    the annotator was on (the journal's last position), not jump to the next top-k hole."""
    definition = load_definition(partial)
    pairs = top_k_pairs(definition, [RUN], definition.k)
    session = open_session(partial)
    session.order_holes(pairs)
    session.label(0)  # on to the next top-k hole, q:1003 / docs/login.md
    session.goto("q:1001", "msmarco_v2.1_doc_00_12345")  # the annotator reads another hole
    session.close()
    resumed = open_session(partial)
    try:
        resumed.order_holes(pairs)
        assert resumed.cursor.current == ("q:1001", "msmarco_v2.1_doc_00_12345")
        assert resumed.start_summary(compact=True).endswith("· 4 of 9 to judge · where you left off")
        assert "starting on the pair where you left off" in resumed.start_summary()
        assert "then goes to the next hole inside some run's top k" in resumed.start_summary()
        resumed.label(1)  # the next label goes on to the top-k hole left
        assert resumed.cursor.current == ("q:1003", "docs/login.md")
    finally:
        resumed.close()


def test_redo_walks_the_undone_changes_in_the_order_they_were_made(partial: Path) -> None:
    """Redo goes to the pair of the next change to redo (the visit's order, here the top-k
    holes' order, not display order), and after the last one on to the next hole; a resume
    replays the same positions."""
    definition = load_definition(partial)
    session = open_session(partial)
    session.order_holes(top_k_pairs(definition, [RUN], definition.k))
    session.label(0)  # q:1002 / msmarco_v2.1_doc_00_12345
    session.label(0)  # q:1003 / docs/login.md
    session.changes.undo()
    session.changes.undo()
    assert session.cursor.current == ("q:1002", "msmarco_v2.1_doc_00_12345")
    session.redo()
    assert session.cursor.current == ("q:1003", "docs/login.md")  # the next change to redo
    session.redo()
    assert session.cursor.current == ("q:1001", "msmarco_v2.1_doc_00_12345")  # the next hole, as a label goes
    session.changes.undo()
    session.changes.undo()
    session.redo()
    session.close()
    resumed = open_session(partial)
    try:
        assert resumed.cursor.current == ("q:1003", "docs/login.md")
        resumed.redo()
        assert resumed.marks.label_of("q:1003", "docs/login.md") == 0 and not resumed.changes.redo_stack
    finally:
        resumed.close()
