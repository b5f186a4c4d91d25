"""Jump to a query by ID in a table of thousands: ``/``, type an ID or its beginning, Enter.

The matching rule (``find_query``) is a plain function, testable without a terminal; the
widget is an ``Input`` that stays hidden until opened, moves the cursor of the table it is
given, and says in one line why a query is not there.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from textual import on
from textual.binding import Binding
from textual.widgets import DataTable, Input


def find_query(keys: Sequence[str], text: str) -> str | None:
    """The row to move to: ``text`` itself, else the first ID (in shown order) that begins with
    it, else the first that begins with it ignoring case; None when nothing matches."""
    text = text.strip()
    if not text:
        return None
    if text in keys:
        return text
    folded = text.casefold()
    for matches in (lambda key: key.startswith(text), lambda key: key.casefold().startswith(folded)):
        found = next((key for key in keys if matches(key)), None)
        if found is not None:
            return found
    return None


def not_found(text: str, queries: Sequence[str]) -> str:
    """Why ``text`` matched no row: a query of the split the filter hides, or no such query."""
    known = find_query(queries, text) is not None
    reason = "not shown under the current filter (f)" if known else "not a query of this split"
    return f"no query {text.strip()!r} in this table: {reason}"


def center_on(table: DataTable, row: int) -> None:
    """Put the cursor on ``row``, scrolled to the middle of the table rather than an edge."""
    table.move_cursor(row=row, scroll=False)
    visible = table.scrollable_content_region.height - table.header_height
    table.scroll_to(y=max(0, row - visible // 2), animate=False)


class QueryJump(Input):
    """A one-line prompt docked above the footer; Enter jumps in ``table()``, Escape closes.

    ``table`` and ``queries`` are asked at each jump: the screen's current table (it changes
    with the view) and every query of the current split (to tell "filtered out" from "unknown")."""

    BINDINGS = [Binding("escape", "close", "close", id="jump.close")]

    def __init__(
        self, table: Callable[[], DataTable], queries: Callable[[], Sequence[str]], *, id: str | None = None
    ) -> None:
        super().__init__(placeholder="query ID or its beginning (e.g. q:10), enter: go, esc: close", id=id)
        self.table = table
        self.queries = queries
        self.display = False

    def open(self) -> None:
        self.display = True
        self.value = ""
        self.focus()

    def action_close(self) -> None:
        self.display = False
        self.table().focus()

    @on(Input.Submitted)
    def jump(self, event: Input.Submitted) -> None:
        event.stop()
        table = self.table()
        keys = [str(row.key.value) for row in table.ordered_rows]
        found = find_query(keys, event.value)
        if found is None:
            self.notify(not_found(event.value, self.queries()), severity="warning")
            return
        center_on(table, keys.index(found))
        self.action_close()
