"""LabelMatrix: queries x documents as one character per pair, drawn with the Line API.

Why not a DataTable or a grid of widgets: a 200 x 500 protocol has 100,000 pairs; building a
widget (or a table cell) per pair would make the overview take seconds to open. ``render_line``
draws only the rows and columns in view, straight from the session's dicts, so opening and
moving cost is proportional to the screen, not to the protocol.

The first ``HEADER_HEIGHT`` lines are a column ruler drawn by the same ``render_line`` with the
same column offset, so it can never drift from the cells under it when the matrix scrolls
sideways. Each row's gutter carries the query's judged/total count (``session.marks.judged_in``, kept
up to date by the session, so it costs a dict look-up per visible row, never a count over pairs).
"""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding
from textual.events import Click
from textual.message import Message
from textual.reactive import reactive
from textual.strip import Strip
from textual.widget import Widget

from rankeval_tui.core.annotation.judging import JudgingSession
from rankeval_tui.tui.judge.matrix_cells import CELL_WIDTH, cell, column_caption, numbered, row_gutter, ruler_numbers

HEADER_HEIGHT = 2
"""Ruler lines above the rows: column numbers every RULER_STEP columns, then tick marks."""
CURSOR_MARK = "▼"


class LabelMatrix(Widget, can_focus=True):
    """One row per query, one column per position in that query's document order."""

    COMPONENT_CLASSES = {
        "matrix--relevant",
        "matrix--irrelevant",
        "matrix--unjudged",
        "matrix--disputed",
        "matrix--imported",
        "matrix--cursor",
        "matrix--gutter",
        "matrix--done",
        "matrix--ruler",
        "matrix--ruler-cursor",
    }
    BINDINGS = [
        Binding("up", "move(-1, 0)", "Up", show=False, id="matrix.up"),
        Binding("down", "move(1, 0)", "Down", show=False, id="matrix.down"),
        Binding("left", "move(0, -1)", "Left", show=False, id="matrix.left"),
        Binding("right", "move(0, 1)", "Right", show=False, id="matrix.right"),
        Binding("pageup", "page(-1)", "Page up", show=False, id="matrix.pageup"),
        Binding("pagedown", "page(1)", "Page down", show=False, id="matrix.pagedown"),
        Binding("home", "move(0, -1000000)", "Row start", show=False, id="matrix.home"),
        Binding("end", "move(0, 1000000)", "Row end", show=False, id="matrix.end"),
        Binding("enter", "select", "Jump to pair", id="matrix.select"),
    ]

    cursor: reactive[tuple[int, int]] = reactive((0, 0))
    """(query row, document column) under the cursor; changing it redraws only this widget."""

    class Selected(Message):
        """The annotator chose a pair to jump to."""

        def __init__(self, query: str, doc: str) -> None:
            self.query = query
            self.doc = doc
            super().__init__()

    class Moved(Message):
        """The cursor moved; the screen shows what the cell is (``col``: 0-based column, as on the ruler - 1)."""

        def __init__(self, query: str, doc: str, col: int = 0) -> None:
            self.query = query
            self.doc = doc
            self.col = col
            super().__init__()

    def __init__(self, session: JudgingSession, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.session = session
        self.row_offset = 0
        self.col_offset = 0
        self.query_width = min(16, max(len(q) for q in session.cursor.query_ids))
        self.widest = max(len(docs) for docs in session.cursor.docs_of.values())
        self.count_width = 2 * len(str(self.widest)) + 1
        """Room for "judged/total" of the longest row, so the gutter never changes width while judging."""
        self.gutter_width = self.query_width + 1 + self.count_width + 2
        self.overhang = max(0, len(str(self.widest)) - CELL_WIDTH)
        """Room kept right of the last column, so its ruler number ("120" is wider than a cell) is never cut."""
        self.set_reactive(LabelMatrix.cursor, (session.cursor.query_index, session.cursor.doc_index))

    # ------------------------------------------------------------ geometry

    @property
    def rows_in_view(self) -> int:
        return max(1, self.size.height - HEADER_HEIGHT)

    @property
    def columns_in_view(self) -> int:
        return max(1, (self.size.width - self.gutter_width - self.overhang) // CELL_WIDTH)

    def row_length(self, row: int) -> int:
        return len(self.session.cursor.docs_of[self.session.cursor.query_ids[row]])

    def pair_at(self, row: int, col: int) -> tuple[str, str]:
        query = self.session.cursor.query_ids[row]
        return query, self.session.cursor.docs_of[query][col]

    def _scroll_to_cursor(self) -> None:
        row, col = self.cursor
        height = self.rows_in_view
        if row < self.row_offset:
            self.row_offset = row
        elif row >= self.row_offset + height:
            self.row_offset = row - height + 1
        width = self.columns_in_view
        if col < self.col_offset:
            self.col_offset = col
        elif col >= self.col_offset + width:
            self.col_offset = col - width + 1

    def watch_cursor(self, cursor: tuple[int, int]) -> None:
        self._scroll_to_cursor()
        self.post_message(self.Moved(*self.pair_at(*cursor), col=cursor[1]))
        self.refresh()

    def on_resize(self) -> None:
        self._scroll_to_cursor()

    # ------------------------------------------------------------ actions

    def action_move(self, rows: int, cols: int) -> None:
        row = max(0, min(len(self.session.cursor.query_ids) - 1, self.cursor[0] + rows))
        col = max(0, min(self.row_length(row) - 1, self.cursor[1] + cols))
        self.cursor = (row, col)

    def action_page(self, direction: int) -> None:
        self.action_move(direction * max(1, self.rows_in_view - 1), 0)

    def action_select(self) -> None:
        self.post_message(self.Selected(*self.pair_at(*self.cursor)))

    def on_click(self, event: Click) -> None:
        if event.x < self.gutter_width or event.y < HEADER_HEIGHT:
            return
        row = self.row_offset + event.y - HEADER_HEIGHT
        col = self.col_offset + (event.x - self.gutter_width) // CELL_WIDTH
        in_view = col < self.col_offset + self.columns_in_view
        if in_view and row < len(self.session.cursor.query_ids) and col < self.row_length(row):
            self.cursor = (row, col)
            if event.chain >= 2:
                self.action_select()

    # ------------------------------------------------------------ drawing

    def ruler_line(self, y: int) -> Strip:
        """Header line ``y``: column numbers (1-based, every RULER_STEP), or ticks with the cursor's column.

        Only the columns in view are visited (``matrix_cells.ruler_numbers`` places the numbers)."""
        width = self.size.width
        ruler = self.get_component_rich_style("matrix--ruler")
        end = min(self.widest, self.col_offset + self.columns_in_view)
        cursor_col = self.cursor[1]
        if y == 0:
            caption = column_caption(self.session.order).rjust(self.gutter_width - 1) + " "
            numbers = ruler_numbers(self.col_offset, end, self.columns_in_view * CELL_WIDTH + self.overhang)
            segments = [Segment(caption, self.get_component_rich_style("matrix--gutter")), Segment(numbers, ruler)]
        else:
            segments = [Segment(" " * self.gutter_width, self.rich_style)]
            for col in range(self.col_offset, end):
                if col == cursor_col:
                    segments.append(Segment(CURSOR_MARK, self.get_component_rich_style("matrix--ruler-cursor")))
                else:
                    segments.append(Segment("┬" if numbered(col) else "─", ruler))
                segments.append(Segment("─", ruler))
        return Strip(segments).adjust_cell_length(width, self.rich_style)

    def render_line(self, y: int) -> Strip:
        if y < HEADER_HEIGHT:
            return self.ruler_line(y)
        row = self.row_offset + y - HEADER_HEIGHT
        width = self.size.width
        if row >= len(self.session.cursor.query_ids):
            return Strip.blank(width, self.rich_style)
        session = self.session
        query = session.cursor.query_ids[row]
        docs = session.cursor.docs_of[query]
        labels = session.marks.labels.get(query, {})
        disputed = session.marks.disputed.get(query, {})
        style = {name: self.get_component_rich_style(name) for name in self.COMPONENT_CLASSES}
        combined: dict[tuple[str, ...], Style] = {}  # a handful of class sets per line: add their styles once
        gap = Segment(" ", self.rich_style)  # the widget's own background between cells, not the terminal's
        judged, total = session.cursor.query_progress(query)
        gutter = row_gutter(query, judged, total, self.query_width, self.count_width)
        segments = [Segment(gutter, style["matrix--done" if judged == total else "matrix--gutter"])]
        end = min(len(docs), self.col_offset + self.columns_in_view)
        for col in range(self.col_offset, end):
            doc = docs[col]
            label = labels.get(doc)
            imported = label is not None and session.marks.is_imported(query, doc)
            text, classes = cell(label, imported, bool(disputed.get(doc)), (row, col) == self.cursor)
            if classes not in combined:
                combined[classes] = Style.combine(style[name] for name in classes)
            segments.append(Segment(text, combined[classes]))
            segments.append(gap)
        return Strip(segments).adjust_cell_length(width, self.rich_style)
