"""grid_columns (a report's table, column by column) writes the row-by-row table's text."""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from rankeval_tui.core.evaluation.text_grid import grid, grid_columns


def row_by_row(header: Sequence[str], rows: Sequence[Sequence[str]], markdown: bool) -> list[str]:
    """The table as render.grid wrote it before it went column by column (94b332d)."""
    if markdown:
        lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
        lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows]
        return lines
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)]

    def fmt(cells: Sequence[str]) -> str:
        return "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()

    return [fmt(header), fmt(["-" * w for w in widths]), *(fmt(r) for r in rows)]


cells = st.text(st.sampled_from(["a", " ", "|", "é", "{", "}", "\t"]), max_size=4)


@settings(max_examples=300, deadline=None)
@given(
    st.integers(1, 4).flatmap(
        lambda n: st.tuples(
            st.lists(cells, min_size=n, max_size=n), st.lists(st.lists(cells, min_size=n, max_size=n), max_size=4)
        )
    ),
    st.booleans(),
)
def test_columns_make_the_row_by_row_table(table, markdown) -> None:
    """Empty and blank trailing cells (right-stripped lines), pipes, braces, no rows at all."""
    header, rows = table
    expected = row_by_row(header, rows, markdown)
    assert grid(header, rows, markdown) == expected
    columns = [[row[i] for row in rows] for i in range(len(header))]
    assert grid_columns(header, columns, markdown) == expected
