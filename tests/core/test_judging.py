"""JudgingSession, Journal and Lock: no default label, undo/redo, replay, torn tails, the lock."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rankeval_tui.core.annotation.judging import JudgingSession, document_order
from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.files import load_definition, read_qrels_file
from tests.seed_labels import SEED_QRELS


def open_session(directory: Path, **options) -> JudgingSession:
    options.setdefault("annotator", "tester")
    return JudgingSession.open(load_definition(directory), directory / "qrels.toml", **options)


def judge_all(session: JudgingSession) -> None:
    while not session.marks.complete:
        query, doc = session.cursor.current
        session.label(SEED_QRELS[query][doc])


def test_no_default_label_and_no_write_until_complete(blank: Path) -> None:
    session = open_session(blank)
    assert session.marks.judged == 0 and session.marks.total == 30
    assert all(session.marks.label_of(q, d) is None for q in SEED_QRELS for d in SEED_QRELS[q])
    session.step(3)  # moving is not judging
    session.next_unjudged()
    assert session.marks.judged == 0
    with pytest.raises(ContractError, match="30 pairs are unjudged"):
        session.write_qrels()
    message = session.finish()
    assert "30 of 30 pairs remain" in message
    assert not (blank / "qrels.toml").exists()
    assert (blank / "qrels.toml.journal").exists()


def test_one_unjudged_pair_is_worded_in_the_singular(blank: Path) -> None:
    """239/240 read "1 pairs" once: the count and its noun agree."""
    session = open_session(blank)
    while session.marks.remaining > 1:
        query, doc = session.cursor.current
        session.label(SEED_QRELS[query][doc])
    with pytest.raises(ContractError, match=r": 1 pair is unjudged; qrels"):
        session.write_qrels()
    session.abandon()


def test_judge_all_writes_seed_labels_with_provenance(blank: Path) -> None:
    session = open_session(blank, order="shuffled", seed=7)
    judge_all(session)
    assert "wrote" in session.finish()
    written = read_qrels_file(blank / "qrels.toml", load_definition(blank))
    assert written.labels == SEED_QRELS
    assert written.provenance["order"] == "shuffled" and written.provenance["seed"] == 7
    assert written.provenance["annotator"] == "tester" and written.provenance["pairs"] == 30
    assert not (blank / "qrels.toml.journal").exists()
    assert not (blank / "qrels.toml.lock").exists()


def test_shuffle_is_reproducible_per_query_and_not_corpus_order(blank: Path) -> None:
    definition = load_definition(blank)
    a = document_order(definition, "shuffled", 7)
    assert a == document_order(definition, "shuffled", 7)
    assert a != document_order(definition, "shuffled", 8)
    assert any(order != tuple(definition.documents) for order in a.values())
    assert all(sorted(order) == sorted(definition.documents) for order in a.values())


def test_undo_redo_change_note_dispute_survive_restart(blank: Path) -> None:
    session = open_session(blank)
    session.label(1)  # q1 d1 = 1 (wrong)
    session.changes.undo()  # back on q1 d1, unjudged
    assert session.cursor.current == ("q1", "d1") and session.marks.label_of("q1", "d1") is None
    session.changes.redo()
    assert session.marks.label_of("q1", "d1") == 1 and session.cursor.current == ("q1", "d2")
    session.goto("q1", "d1")
    session.label(0)  # change
    session.goto("q1", "d2")
    session.set_note("retry after a broken connection")
    session.toggle_disputed()
    session.label(1)
    session.label(0)
    session.changes.undo()  # q1 d3 back to unjudged, redo available
    expected = (
        dict(session.marks.labels["q1"]),
        session.cursor.current,
        session.marks.judged,
        len(session.changes.redo_stack),
    )
    session.close()  # a crash would leave the same journal

    again = open_session(blank)
    assert (
        dict(again.marks.labels["q1"]),
        again.cursor.current,
        again.marks.judged,
        len(again.changes.redo_stack),
    ) == expected
    assert again.marks.labels["q1"] == {"d1": 0, "d2": 1}
    assert again.marks.note_of("q1", "d2") == "retry after a broken connection"
    assert again.marks.is_disputed("q1", "d2")
    again.changes.redo()
    assert again.marks.label_of("q1", "d3") == 0
    judge_all(again)
    again.finish()
    written = read_qrels_file(blank / "qrels.toml", load_definition(blank))
    assert written.labels == SEED_QRELS
    assert written.notes == {"q1": {"d2": "retry after a broken connection"}}
    assert written.disputed == {"q1": {"d2": True}}


def test_torn_tail_is_reported_and_never_a_label(blank: Path) -> None:
    session = open_session(blank)
    session.label(0)
    session.close()
    journal = blank / "qrels.toml.journal"
    with journal.open("ab") as handle:
        handle.write(b'{"op":"label","q":"q1","d":"d2","v":1}')  # no newline: the write was cut
    again = open_session(blank)
    assert again.marks.label_of("q1", "d2") is None and again.marks.judged == 1
    assert any("torn" in w and "never shown as recorded" in w for w in again.warnings)
    again.label(1)  # appends after the cut, not glued to the torn bytes
    again.close()
    lines = journal.read_bytes().split(b"\n")
    assert all(json.loads(line) for line in lines if line)
    assert open_session(blank).marks.label_of("q1", "d2") == 1


def test_corrupt_middle_line_is_an_error(blank: Path) -> None:
    session = open_session(blank)
    session.label(0)
    session.label(1)
    session.close()
    journal = blank / "qrels.toml.journal"
    lines = journal.read_text().splitlines(keepends=True)
    lines[1] = '{"op":"label","q":"q1"\n'
    journal.write_text("".join(lines))
    with pytest.raises(ContractError, match="line 2.*not valid JSON"):
        open_session(blank)
    assert not (blank / "qrels.toml.lock").exists()  # refused input leaves no lock behind


def test_journal_label_must_be_0_or_1(blank: Path) -> None:
    open_session(blank).close()
    journal = blank / "qrels.toml.journal"
    with journal.open("a") as handle:
        handle.write('{"op":"label","q":"q1","d":"d1","v":true}\n')
    with pytest.raises(ContractError, match="line 2.*integer 0 or 1"):
        open_session(blank)


def test_journal_for_another_definition_is_refused(blank: Path) -> None:
    open_session(blank).close()
    text = (blank / "protocol.toml").read_text().replace("深色主题。", "浅色主题。")
    (blank / "protocol.toml").write_text(text)
    with pytest.raises(ContractError, match="another version of protocol.toml"):
        open_session(blank)


def test_resume_with_other_order_is_refused(blank: Path) -> None:
    open_session(blank).close()
    with pytest.raises(ContractError, match="--order"):
        open_session(blank, order="shuffled", seed=3)


def test_lock_refuses_second_writer_and_recovers_a_dead_writers_lock(blank: Path) -> None:
    first = open_session(blank)
    with pytest.raises(ContractError, match="refusing a second writer"):
        open_session(blank)
    with pytest.raises(ContractError, match="refusing a second writer"):
        open_session(blank, break_lock=True)  # a live owner is never broken
    first.lock.held = False  # simulate a crash: the lock file stays behind
    first.journal.close()
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True
    )
    lock = blank / "qrels.toml.lock"
    owner = json.loads(lock.read_text())
    owner["pid"] = int(dead.stdout)  # a pid that has exited
    lock.write_text(json.dumps(owner))
    resumed = open_session(blank)
    assert resumed.lock.held and json.loads(lock.read_text())["pid"] == os.getpid()
    assert any(f"recovered the lock of pid {owner['pid']}" in w for w in resumed.warnings)
    resumed.close()
    assert not lock.exists()


def test_lock_of_another_host_needs_break_lock(blank: Path) -> None:
    lock = blank / "qrels.toml.lock"
    lock.write_text(json.dumps({"pid": 1, "host": "elsewhere.invalid", "started": 1}))
    with pytest.raises(ContractError, match="another host.*--break-lock"):
        open_session(blank)
    assert lock.exists()
    open_session(blank, break_lock=True).close()
    assert not lock.exists()


def test_review_of_complete_qrels_preloads_and_never_writes_incomplete(seed_copy: Path) -> None:
    before = (seed_copy / "qrels.toml").read_bytes()
    session = open_session(seed_copy)
    assert session.marks.review and session.marks.complete and session.marks.labels == SEED_QRELS
    session.label(1)  # correct q1 d1 -> 1
    session.changes.undo()  # back to unjudged? no: back to its previous label 0
    assert session.marks.label_of("q1", "d1") == 0 and session.marks.complete
    session.close()
    assert (seed_copy / "qrels.toml").read_bytes() == before
    again = open_session(seed_copy)
    again.goto("q4", "d6")
    again.set_note("dark theme is the only match")
    assert "wrote" in again.finish()
    written = read_qrels_file(seed_copy / "qrels.toml", load_definition(seed_copy))
    assert written.labels == SEED_QRELS
    assert written.notes == {"q4": {"d6": "dark theme is the only match"}}
    assert written.provenance["annotators"] == ["seed-author"]  # earlier provenance kept


def test_bad_qrels_labels_rejected_before_anything_is_written(seed_copy: Path) -> None:
    path = seed_copy / "qrels.toml"
    path.write_text(path.read_text().replace("d2 = 1", "d2 = 2", 1))
    with pytest.raises(ContractError, match="integer 0 or 1"):
        open_session(seed_copy)
    assert not (seed_copy / "qrels.toml.journal").exists()
    assert not (seed_copy / "qrels.toml.lock").exists()


def test_next_unjudged_wraps_and_skips_judged(blank: Path) -> None:
    session = open_session(blank)
    session.goto("q1", "d3")
    session.label(0)
    session.goto("q1", "d1")
    session.label(0)
    assert session.cursor.current == ("q1", "d2")
    session.label(1)
    assert session.cursor.current == ("q1", "d3")
    assert session.next_unjudged() and session.cursor.current == ("q1", "d4")
    session.goto("q5", "d6")
    assert session.next_unjudged() and session.cursor.current == ("q1", "d4")
    session.close()


def test_resume_says_the_labels_came_from_the_journal_not_from_qrels(blank: Path) -> None:
    """Issue 31: on resume the screen said '2 preloaded' / 'preloaded from qrels.toml'."""
    session = JudgingSession.open(load_definition(blank), blank / "qrels.toml", annotator="alice")
    session.label(1)
    session.label(0)
    session.close()
    resumed = JudgingSession.open(load_definition(blank), blank / "qrels.toml")
    assert resumed.start_summary(compact=True) == "2 resumed · 28 of 30 to judge · where you left off"
    assert resumed.start_summary().startswith("2 labels resumed from qrels.toml.journal; 28 of 30 pairs remain")
    resumed.close()
