"""The judging screen's status wording, tested without a terminal."""

from __future__ import annotations

from rankeval_tui.core.annotation.change_log import Change
from rankeval_tui.tui.judge_messages import dispute_toggled, label_recorded, note_changed, redone, undone


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
    from rankeval_tui.tui.judge_messages import write_failure

    full = OSError(errno.ENOSPC, "No space left on device", "qrels.toml")
    assert write_failure(full) == "qrels.toml: No space left on device"
    refused = ContractError("every pair needs a label", file="qrels.toml", where="query 'q:1001'")
    assert write_failure(refused) == "qrels.toml: query 'q:1001': every pair needs a label"
