"""LabelMatrix: queries x documents as one character per pair, drawn with the Line API.

Why not a DataTable or a grid of widgets: a 200 x 500 protocol has 100,000 pairs; building a
widget (or a table cell) per pair would make the overview take seconds to open. ``render_line``
draws only the rows and columns in view, straight from the session's dicts, so opening and
moving cost is proportional to the screen, not to the protocol.
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

from rankeval_tui.core.judging import JudgingSession

CELL_WIDTH = 2
UNJUDGED = "·"


class LabelMatrix(Widget, can_focus=True):
    """One row per query, one column per position in that query's document order."""

    COMPONENT_CLASSES = {
        "matrix--relevant", "matrix--irrelevant", "matrix--unjudged", "matrix--disputed",
        "matrix--cursor", "matrix--gutter",
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
        """The cursor moved; the screen shows what the cell is."""

        def __init__(self, query: str, doc: str) -> None:
            self.query = query
            self.doc = doc
            super().__init__()

    def __init__(self, session: JudgingSession, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.session = session
        self.row_offset = 0
        self.col_offset = 0
        self.gutter_width = min(16, max(len(q) for q in session.query_ids)) + 1
        self.set_reactive(LabelMatrix.cursor, (session.query_index, session.doc_index))

    # ------------------------------------------------------------ geometry

    @property
    def columns_in_view(self) -> int:
        return max(1, (self.size.width - self.gutter_width) // CELL_WIDTH)

    def row_length(self, row: int) -> int:
        return len(self.session.docs_of[self.session.query_ids[row]])

    def pair_at(self, row: int, col: int) -> tuple[str, str]:
        query = self.session.query_ids[row]
        return query, self.session.docs_of[query][col]

    def _scroll_to_cursor(self) -> None:
        row, col = self.cursor
        height = max(1, self.size.height)
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
        self.post_message(self.Moved(*self.pair_at(*cursor)))
        self.refresh()

    def on_resize(self) -> None:
        self._scroll_to_cursor()

    # ------------------------------------------------------------ actions

    def action_move(self, rows: int, cols: int) -> None:
        row = max(0, min(len(self.session.query_ids) - 1, self.cursor[0] + rows))
        col = max(0, min(self.row_length(row) - 1, self.cursor[1] + cols))
        self.cursor = (row, col)

    def action_page(self, direction: int) -> None:
        self.action_move(direction * max(1, self.size.height - 1), 0)

    def action_select(self) -> None:
        self.post_message(self.Selected(*self.pair_at(*self.cursor)))

    def on_click(self, event: Click) -> None:
        if event.x < self.gutter_width:
            return
        row = self.row_offset + event.y
        col = self.col_offset + (event.x - self.gutter_width) // CELL_WIDTH
        if row < len(self.session.query_ids) and col < self.row_length(row):
            self.cursor = (row, col)
            if event.chain >= 2:
                self.action_select()

    # ------------------------------------------------------------ drawing

    def render_line(self, y: int) -> Strip:
        row = self.row_offset + y
        width = self.size.width
        if row >= len(self.session.query_ids):
            return Strip.blank(width, self.rich_style)
        session = self.session
        query = session.query_ids[row]
        docs = session.docs_of[query]
        labels = session.labels.get(query, {})
        disputed = session.disputed.get(query, {})
        style = {name: self.get_component_rich_style(name) for name in self.COMPONENT_CLASSES}
        segments = [Segment(query[: self.gutter_width - 1].ljust(self.gutter_width), style["matrix--gutter"])]
        end = min(len(docs), self.col_offset + self.columns_in_view)
        for col in range(self.col_offset, end):
            doc = docs[col]
            label = labels.get(doc)
            if label is None:
                text, cell = UNJUDGED, style["matrix--unjudged"]
            else:
                text, cell = str(label), style["matrix--relevant" if label else "matrix--irrelevant"]
            if disputed.get(doc):
                cell = cell + style["matrix--disputed"]
            if (row, col) == self.cursor:
                cell = cell + style["matrix--cursor"]
            segments.append(Segment(text, cell))
            segments.append(Segment(" ", Style.null()))
        return Strip(segments).adjust_cell_length(width, self.rich_style)
