"""The adjudication screen's text without a terminal (the screen's Pilot tests check it in place)."""

from __future__ import annotations

from rankeval_tui.core.annotation.adjudication_journal import Decision
from rankeval_tui.core.annotation.agreement import Disagreement
from rankeval_tui.tui.widgets.adjudicate_text import REASON_WIDTH, decision_text, labels_text, row_key, short

ITEM = Disagreement("q:1001", "docs/export.md", (1, 0), ("covers csv export", None))


def test_row_key_joins_ids_that_contain_dots_and_colons() -> None:
    assert row_key(ITEM) == "q:1001 docs/export.md"


def test_labels_show_each_annotator_and_say_when_there_is_no_note() -> None:
    assert labels_text(("alice", "bob"), ITEM).plain == (
        "alice: 1 relevant  note: covers csv export\nbob: 0 not relevant  note: (no note)\n"
    )


def test_decision_says_undecided_recorded_and_pending() -> None:
    assert decision_text(None, None).plain == "undecided"
    assert decision_text(Decision(1, "export is the need"), None).plain == "decided 1  reason: export is the need"
    pending = decision_text(Decision(1, "export is the need"), 0).plain
    assert pending.endswith("\nnew final 0: type the reason, Enter records it, Escape cancels")


def test_long_reasons_are_cut_to_the_column_with_an_ellipsis() -> None:
    reason = "x" * (REASON_WIDTH + 5)
    assert short(reason, REASON_WIDTH) == "x" * (REASON_WIDTH - 1) + "…"
    assert short("short", REASON_WIDTH) == "short"


def test_a_model_annotator_is_marked_as_one():
    from rankeval_tui.tui.widgets.adjudicate_text import labels_text

    item = Disagreement("q1", "d1", (1, 0), ("because", None))
    shown = labels_text(("model:umbrela", "alice"), item).plain
    assert "model:umbrela (a model): 1 relevant" in shown and "alice: 0 not relevant" in shown
