"""A row-cursor ``DataTable`` whose Home and End go to the first and last row, and whose cells
and column labels are never read as markup.

Why: in Textual's ``DataTable`` Home/End scroll sideways (to the first/last column), which with
a row cursor on a 2,000-row table looked like the keys did nothing. Ctrl+Home/End keep their
stock meaning; PageUp/PageDown are stock. And a ``str`` cell or label is markup to Textual:
the query ID ``q3[/]`` crashed the table (``safe_text``).
"""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.widgets import DataTable
from textual.widgets.data_table import ColumnKey, RowKey

from rankeval_tui.tui.safe_text import plain, safe_cell


class RowTable(DataTable):
    """``DataTable`` with Home/End bound to the first/last row (the cursor moves, the view follows)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("home", "scroll_top", "first row", show=False, id="table.first_row"),
        Binding("end", "scroll_bottom", "last row", show=False, id="table.last_row"),
    ]

    def add_column(
        self, label: str | Text, *, width: int | None = None, key: str | None = None, default: Any = None
    ) -> ColumnKey:
        """A ``str`` label (a run name is part of some) is shown as it is, not as markup."""
        return super().add_column(
            plain(label) if isinstance(label, str) else label, width=width, key=key, default=default
        )

    def add_row(
        self, *cells: Any, height: int | None = 1, key: str | None = None, label: str | Text | None = None
    ) -> RowKey:
        """``str`` cells (IDs) are shown as they are, not as markup."""
        shown_label = plain(label) if isinstance(label, str) else label
        return super().add_row(*map(safe_cell, cells), height=height, key=key, label=shown_label)
