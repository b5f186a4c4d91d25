"""The document being judged, drawn a screen at a time (Textual's line API: ``render_line``).

Why not a Static in a VerticalScroll: a Static lays out (wraps) the whole text before the first
frame, so a long manual page kept the next key waiting (``benchmarks/bench_judging_latency.py``).
Here the view's place is its top (a display line and a wrapped row of it), and only the rows from
there to the bottom of the box are wrapped and drawn (``document_text.Rows``), so a key costs the
same at 10 lines and at 10,000. There is no scroll bar (its length needs every line wrapped): the
box's border says where the view is (``line 1,173 of 6,810 · 17%``) instead.

What is matched is decided by ``core.annotation.term_match`` (pure); this widget only keeps the
spans it returns and paints them. Text from the protocol is drawn as plain segments: control
characters are made visible first (``document_text.prepare``) and no markup is ever parsed.
"""

from __future__ import annotations

from rich.segment import Segment
from textual import events
from textual.binding import Binding
from textual.strip import Strip
from textual.widget import Widget

from rankeval_tui.tui.judge.document_text import (
    CONTEXT,
    MatchCursor,
    PreparedDocument,
    Row,
    Rows,
    Spans,
    opening_top,
    painted,
    position_caption,
)
from rankeval_tui.tui.safe_text import plain


class DocumentView(Widget, can_focus=True):
    """A document's title and text, wrapped by screen, with its matches painted."""

    COMPONENT_CLASSES = {"document--title", "document--match", "document--found", "document--current"}
    DEFAULT_CSS = """
    DocumentView > .document--title { text-style: bold; }
    DocumentView > .document--match { background: $warning 55%; text-style: bold; }
    DocumentView > .document--found { background: $accent 60%; text-style: bold; }
    DocumentView > .document--current { background: $warning; color: $background; text-style: bold; }
    """
    BINDINGS = [
        Binding("up", "scroll_rows(-1)", "Up", show=False, id="document.up"),
        Binding("down", "scroll_rows(1)", "Down", show=False, id="document.down"),
        Binding("pageup", "page(-1)", "Page up", show=False, id="document.page_up"),
        Binding("pagedown,space", "page(1)", "Page down", show=False, id="document.page_down"),
        Binding("home", "start", "Start", show=False, id="document.start"),
        Binding("end", "end", "End", show=False, id="document.end"),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.document = PreparedDocument([], 0, [], {}, None)
        self.lines: list[str] = []
        self.head = 0
        self.spans: Spans = {}
        self.matches = MatchCursor([])
        self.top: tuple[int, int] = (0, 0)
        self.opened_on: int | None = None  # the body line a long document opened on, if not its start
        self.placed = True  # whether ``place`` has run for the document shown
        self.rows = Rows([])
        self._rows: tuple[tuple[int, int, int, tuple[int, int]], list[Row]] | None = None
        self.key: object = None  # what the shown document is (a pair), as the screen named it
        self.drawn_key: object = None  # the key of the document last painted: what the reader has seen

    # ------------------------------------------------------------ the document

    def show(self, document: PreparedDocument, key: object = None) -> None:
        """Show a new document, its query matches painted, at its start or on its best passage.
        ``key`` names it; ``drawn_key`` is the key of the one a frame has painted (on screen)."""
        self.document = document
        self.key = key
        self.lines, self.head = document.lines, document.head
        self.matches, self.spans = MatchCursor(document.query_matches), document.spans
        self.rows = Rows(document.lines)
        self._rows = None
        self.opened_on = None
        self.top = (0, 0)
        self.placed = False
        if self.size.height:  # else on the first resize: the first screen's length decides
            self.place()
        self.refresh_view()

    def place(self) -> None:
        """Open where ``document_text.opening_top`` says (the start, or the best passage)."""
        self.placed = True
        self.top = opening_top(self.document, self.rows, self.size.height, self.size.width)
        if self.top != (0, 0) and self.document.best is not None:
            self.opened_on = self.document.best[0] - self.head

    def search(self, text: str) -> int:
        """Find ``text`` (folded, anywhere); paint its matches and go to the first one below the
        view's top. Returns how many there are. An empty text returns to the query's matches."""
        count = self.matches.search(text, self.lines, self.head)
        self.spans = (
            self.document.spans if self.matches.searched is None else painted(self.matches.found, "document--found")
        )
        if self.matches.searched is not None and count:
            self.step_match(1, from_line=self.top[0] - 1)
        else:
            self.refresh_view()
        return count

    def step_match(self, direction: int, *, from_line: int | None = None) -> bool | None:
        """Go to the next (1) or previous (-1) match on another line than the current one.
        True if it wrapped round the document's end, None if there is no match at all."""
        step = self.matches.step(direction, self.focus_line() if from_line is None else from_line)
        if step is None:
            return None
        line, wrapped = step
        self.scroll_to_line(line)
        self.opened_on = None
        self.refresh_view()
        return wrapped

    def focus_line(self) -> int:
        """The display line a jump would have put at the passage's place (``CONTEXT`` rows down)."""
        rows = self.layout_rows()
        return rows[min(CONTEXT, len(rows) - 1)][0] if rows else 0

    # ------------------------------------------------------------ rows

    def layout_rows(self) -> list[Row]:
        """The rows on screen now (cached until the top, size or document changes)."""
        key = (id(self.lines), self.size.width, self.size.height, self.top)
        if self._rows is None or self._rows[0] != key:
            self._rows = (key, self.rows.rows_from(self.top, self.size.height, self.size.width))
        return self._rows[1]

    def moved(self, place: tuple[int, int], rows: int) -> tuple[int, int]:
        return self.rows.moved(place, rows, self.size.width)

    def last_top(self) -> tuple[int, int]:
        return self.rows.last_top(self.size.height, self.size.width)

    def set_top(self, top: tuple[int, int]) -> None:
        """A move by the annotator: the note of where the document opened has served."""
        self.top = min(top, self.last_top())
        self.opened_on = None
        self.refresh_view()

    def scroll_to_line(self, line: int) -> None:
        """Put display ``line`` ``CONTEXT`` rows below the top (less at the start or the end)."""
        self.top = min(self.moved((line, 0), -CONTEXT), self.last_top())

    # ------------------------------------------------------------ keys and mouse

    def action_scroll_rows(self, rows: int) -> None:
        self.set_top(self.moved(self.top, rows))

    def action_page(self, direction: int) -> None:
        self.set_top(self.moved(self.top, direction * max(1, self.size.height - 1)))

    def action_start(self) -> None:
        self.set_top((0, 0))

    def action_end(self) -> None:
        self.set_top(self.last_top())

    def _on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        event.stop()
        self.action_scroll_rows(3)

    def _on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        event.stop()
        self.action_scroll_rows(-3)

    def on_resize(self, event: events.Resize) -> None:
        self._rows = None
        line, row = self.top
        if not self.placed and self.size.height:
            self.place()
        elif self.lines:
            self.top = min((line, min(row, len(self.rows.wrapped(line, self.size.width)) - 1)), self.last_top())
        self.refresh_view()

    # ------------------------------------------------------------ drawing

    def position(self) -> str:
        return position_caption(self.layout_rows(), self.lines, self.head)

    def refresh_view(self) -> None:
        self._rows = None
        opened = f" · opened at line {self.opened_on + 1:,}, Home: the start" if self.opened_on is not None else ""
        self.border_title = self.position() + opened
        self.border_subtitle = plain(self.matches.caption())  # quotes what find was given: never markup
        self.refresh()

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        base = self.rich_style
        rows = self.layout_rows()
        self.drawn_key = self.key
        if y >= len(rows):
            return Strip.blank(width, base)
        line, start, end = rows[y]
        text = self.lines[line]
        style = base + self.get_component_rich_style("document--title") if line < self.head else base
        segments = []
        position = start
        current = self.matches.current_match()
        for span_start, span_end, kind in sorted(self.spans.get(line, ())):
            span_start, span_end = max(span_start, position), min(span_end, end)
            if span_start >= span_end:
                continue
            if span_start > position:
                segments.append(Segment(text[position:span_start], style))
            is_current = current is not None and current.line == line
            paint = self.get_component_rich_style("document--current" if is_current else kind)
            segments.append(Segment(text[span_start:span_end], style + paint))
            position = span_end
        if position < end:
            segments.append(Segment(text[position:end], style))
        return Strip(segments).extend_cell_length(width, base).crop(0, width)

    def visible_text(self) -> str:
        """The rows on screen as plain text, one per line (for tests and the screen's checks)."""
        return "\n".join(self.lines[line][start:end] for line, start, end in self.layout_rows())
