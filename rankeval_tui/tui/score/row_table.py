"""A row-cursor ``DataTable`` whose Home and End go to the first and last row.

Why: in Textual's ``DataTable`` Home/End scroll sideways (to the first/last column), which with
a row cursor on a 2,000-row table looked like the keys did nothing. Ctrl+Home/End keep their
stock meaning; PageUp/PageDown are stock.
"""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.widgets import DataTable


class RowTable(DataTable):
    """``DataTable`` with Home/End bound to the first/last row (the cursor moves, the view follows)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("home", "scroll_top", "first row", show=False, id="table.first_row"),
        Binding("end", "scroll_bottom", "last row", show=False, id="table.last_row"),
    ]
