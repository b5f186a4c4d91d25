"""What the label matrix shows, without a terminal: marks and their style classes, row gutters,
the ruler's numbers (IDs as real protocols spell them: ``q:1001``, ``docs/export.md``)."""

from __future__ import annotations

import pytest

from rankeval_tui.tui.judge.matrix_cells import CELL_WIDTH, UNJUDGED, cell, column_caption, row_gutter, ruler_numbers


def test_a_mark_is_the_label_or_the_unjudged_dot() -> None:
    assert cell(1, False, False, False) == ("1", ("matrix--relevant",))
    assert cell(0, False, False, False) == ("0", ("matrix--irrelevant",))
    assert cell(None, False, False, False) == (UNJUDGED, ("matrix--unjudged",))


def test_classes_add_up_in_order_label_imported_disputed_cursor() -> None:
    assert cell(0, True, True, True) == (
        "0",
        ("matrix--irrelevant", "matrix--imported", "matrix--disputed", "matrix--cursor"),
    )
    assert cell(1, False, True, False)[1] == ("matrix--relevant", "matrix--disputed")
    assert cell(None, False, True, True)[1] == ("matrix--unjudged", "matrix--disputed", "matrix--cursor")


def test_imported_marks_only_a_label() -> None:
    """An unjudged pair has no imported label to review, whatever the flag says."""
    assert cell(None, True, False, False) == (UNJUDGED, ("matrix--unjudged",))


def test_the_gutter_cuts_or_pads_the_query_and_right_aligns_its_count() -> None:
    assert row_gutter("q:1001", 4, 6, 8, 3) == "q:1001   4/6  "
    assert row_gutter("q:1001", 120, 120, 8, 7) == "q:1001   120/120  "
    assert row_gutter("q:1001-export-docs", 0, 120, 8, 7) == "q:1001-e   0/120  "


@pytest.mark.parametrize("judged", [0, 9, 10, 120])
def test_the_gutter_keeps_its_width_while_judging(judged: int) -> None:
    assert len(row_gutter("docs/export.md", judged, 120, 16, 7)) == 16 + 1 + 7 + 2


def test_the_ruler_numbers_column_one_then_every_fifth_above_its_cell() -> None:
    line = ruler_numbers(0, 12, 12 * CELL_WIDTH)
    assert line == "1       5         10    "
    assert [line.index(n) // CELL_WIDTH for n in ("1", "5", "10")] == [0, 4, 9]


def test_the_ruler_follows_a_sideways_scroll() -> None:
    """Scrolled to column 113 (0-based), 115 stands over the third cell in view, 120 over the eighth."""
    line = ruler_numbers(112, 120, 8 * CELL_WIDTH + 1)
    assert line == "    115       120"
    assert line.index("115") == 2 * CELL_WIDTH and line.index("120") == 7 * CELL_WIDTH


def test_a_number_past_the_edge_is_cut_never_shifted() -> None:
    assert ruler_numbers(0, 10, 19) == "1       5         1"
    assert ruler_numbers(3, 3, 6) == "      "  # no column in view: blank


def test_the_caption_says_what_a_column_number_counts() -> None:
    assert column_caption("corpus") == "doc #"
    assert column_caption("shuffled") == "pos #"
