"""The judging screen's status wording, tested without a terminal."""

from __future__ import annotations

from pathlib import Path

from rankeval_tui.core.annotation.change_log import Change
from rankeval_tui.core.annotation.judging import JudgingSession
from rankeval_tui.core.files import load_definition
from rankeval_tui.tui.judge.messages import (
    dispute_toggled,
    journal_not_written,
    label_recorded,
    note_changed,
    position_not_saved,
    qrels_not_written,
    qrels_written,
    quit_refused,
    redone,
    undone,
    write_refused,
)


def test_a_label_says_what_it_replaced_only_when_it_replaced_one() -> None:
    assert label_recorded(Change("label", "q1", "d2", None, 1)) == "recorded q1 / d2 = 1"
    assert label_recorded(Change("label", "q1", "d2", 0, 1)) == "recorded q1 / d2 = 1 (was 0)"


def test_undo_and_redo_name_the_value_they_left() -> None:
    label = Change("label", "q1", "d2", None, 1)
    assert undone(label) == "undid label of q1 / d2 (now unjudged)"
    assert redone(label) == "redid label of q1 / d2 (now 1)"
    note = Change("note", "q1", "d2", None, "typo")
    assert undone(note) == "undid note of q1 / d2 (now no note)"
    assert redone(note) == "redid note of q1 / d2 (now 'typo')"
    dispute = Change("disputed", "q1", "d2", False, True)
    assert undone(dispute) == "undid disputed of q1 / d2 (now not disputed)"
    assert redone(dispute) == "redid disputed of q1 / d2 (now disputed)"


def test_dispute_and_note_say_which_way_they_went() -> None:
    assert dispute_toggled(Change("disputed", "q1", "d2", False, True)) == "q1 / d2 marked disputed"
    assert dispute_toggled(Change("disputed", "q1", "d2", True, False)) == "q1 / d2 no longer disputed"
    assert note_changed(Change("note", "q1", "d2", None, "x")) == "note on q1 / d2 saved"
    assert note_changed(Change("note", "q1", "d2", "x", None)) == "note on q1 / d2 removed"


def test_a_failed_write_is_one_line_naming_the_file() -> None:
    import errno

    from rankeval_tui.core.errors import ContractError
    from rankeval_tui.tui.judge.messages import write_failure

    full = OSError(errno.ENOSPC, "No space left on device", "qrels.toml")
    assert write_failure(full) == "qrels.toml: No space left on device"
    refused = ContractError("every pair needs a label", file="qrels.toml", where="query 'q:1001'")
    assert write_failure(refused) == "qrels.toml: query 'q:1001': every pair needs a label"


def test_w_before_the_end_says_how_many_pairs_are_left(blank: Path) -> None:
    session = JudgingSession.open(load_definition(blank), blank / "qrels.toml")
    try:
        assert write_refused(session) == "30 pairs are unjudged; qrels are written when all are judged"
        session.label(1)
        assert write_refused(session) == "29 pairs are unjudged; qrels are written when all are judged"
    finally:
        session.close()


def test_the_write_outcomes_name_the_file_the_count_and_where_the_labels_are_safe(seed_copy: Path) -> None:
    import errno

    session = JudgingSession.open(load_definition(seed_copy), seed_copy / "qrels.toml")  # complete: all 30 judged
    try:
        assert session.marks.complete and qrels_written(session) == "all 30 pairs judged: wrote qrels.toml"
        full = OSError(errno.ENOSPC, "No space left on device", "qrels.toml")
        assert qrels_not_written(full) == "qrels NOT written: qrels.toml: No space left on device"
        assert quit_refused(full, session.journal_path) == (
            f"qrels NOT written: qrels.toml: No space left on device; every label is safe in {session.journal_path}; "
            "press q to retry, or quit (ctrl+q) and run judge again to finish the write"
        )
    finally:
        session.close()


def test_a_change_or_move_the_journal_refused_says_so() -> None:
    import errno

    full = OSError(errno.ENOSPC, "No space left on device")
    assert (
        journal_not_written(full)
        == "NOT recorded: the journal could not be written: [Errno 28] No space left on device"
    )
    assert position_not_saved(full) == "position not saved: [Errno 28] No space left on device"
