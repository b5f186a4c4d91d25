"""The document being judged, drawn a screen at a time (Textual's line API: ``render_line``).

Why not a Static in a VerticalScroll: a Static lays out (wraps) the whole text before the first
frame, about 0.3 ms per source line, so a 6,000-line manual page kept the next key waiting 2-3 s.
Here the position is an anchor (a source line and a wrapped row of it), and only the lines from
the anchor to the bottom of the box are wrapped and drawn, so a key costs the same at 10 lines and
at 10,000. There is no scroll bar (its length needs every line wrapped): the box's border says
where the view is (``line 1,173 of 6,810 · 17%``) instead.

What is matched is decided by ``core.annotation.term_match`` (pure); this widget only keeps the
spans it returns and paints them. Text from the protocol is drawn as plain segments: control
characters are made visible first and no markup is ever parsed.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass

from rich.cells import cell_len, get_character_cell_size
from rich.segment import Segment
from textual import events
from textual.binding import Binding
from textual.strip import Strip
from textual.widget import Widget

from rankeval_tui.core.annotation.term_match import Match, Matcher, best_passage, distinct_terms

CONTEXT = 2
"""Rows shown above a passage jumped to, so the sentence leading into it is in view."""
PASSAGE_LINES = 10
"""The stretch of source lines a best passage is scored over (a screenful at 80x24)."""
VISIBLE_CONTROLS = {
    **{code: 0x2400 + code for code in range(0x20) if code not in (0x09, 0x0A)},
    0x7F: 0x2421,
    **{code: 0xFFFD for code in range(0x80, 0xA0)},
}
"""Control characters drawn as their visible symbols (``␛`` for ESC), never sent to the terminal."""

Row = tuple[int, int, int]
"""One screen row: (display line, start, end) characters of that line."""
Spans = dict[int, list[tuple[int, int, str]]]
"""Per display line, the (start, end, component class) spans to paint."""


@dataclass(frozen=True)
class PreparedDocument:
    """A document split into display lines with its query matches found: everything about it
    that costs time in proportion to its length, done once (and ahead of time for the pairs
    next to the current one, while the annotator reads), so showing it costs only a screenful."""

    lines: list[str]
    head: int  # display lines before the body: the title's lines and a blank one
    query_matches: list[Match]  # in the body, numbered as display lines
    spans: Spans  # the title's and the body's query matches, painted
    best: tuple[int, int] | None  # best_passage of query_matches


def prepare(text: str, title: str | None, matcher: Matcher) -> PreparedDocument:
    """Split ``text`` (tabs expanded, control characters made visible) under its ``title`` and
    find ``matcher``'s terms in both."""
    body = text.replace("\r\n", "\n").expandtabs(4).translate(VISIBLE_CONTROLS).split("\n")
    heading = title.translate(VISIBLE_CONTROLS).split("\n") + [""] if title else []
    head = len(heading)
    title_matches = matcher.find(heading[:-1]) if heading else []
    query_matches = [Match(m.line + head, m.start, m.end, m.term) for m in matcher.find(body)]
    spans = painted(title_matches + query_matches, "document--match")
    return PreparedDocument(heading + body, head, query_matches, spans, best_passage(query_matches, PASSAGE_LINES))


def painted(matches: list[Match], kind: str) -> Spans:
    """``matches`` as spans of component class ``kind``, per display line."""
    spans: Spans = {}
    for match in matches:
        spans.setdefault(match.line, []).append((match.start, match.end, kind))
    return spans


def wrap(line: str, width: int) -> list[tuple[int, int]]:
    """The (start, end) characters of each row ``line`` takes at ``width`` cells: broken after the
    last space that fits, or inside a word (or a CJK run) longer than the width. Never empty."""
    if len(line) <= width and (line.isascii() or cell_len(line) <= width):
        return [(0, len(line))]
    width = max(1, width)
    rows: list[tuple[int, int]] = []
    position, size, ascii_only = 0, len(line), line.isascii()
    while position < size:
        if ascii_only:
            end = min(size, position + width)
        else:
            cells, end = 0, position
            while end < size and cells + (step := get_character_cell_size(line[end])) <= width:
                cells, end = cells + step, end + 1
            end = max(end, position + 1)  # a character wider than the box still takes a row
        if end < size:
            space = line.rfind(" ", position, end + 1)
            if space > position:
                rows.append((position, space))
                position = space + 1
                continue
        rows.append((position, end))
        position = end
    return rows or [(0, 0)]


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
        self.query_matches: list[Match] = []
        self.found: list[Match] = []  # body matches of the text searched with ``/``
        self.searched: str | None = None
        self.current: int | None = None  # index into ``targets`` of the match jumped to
        self.top: tuple[int, int] = (0, 0)
        self.opened_on: int | None = None  # the body line a long document opened on, if not its start
        self.placed = True  # whether ``place`` has run for the document shown
        self._wraps: dict[int, list[tuple[int, int]]] = {}
        self._wrap_width = 0
        self._rows: tuple[tuple[int, int, int, tuple[int, int]], list[Row]] | None = None

    # ------------------------------------------------------------ the document

    def show(self, document: PreparedDocument) -> None:
        """Show a new document, its query matches painted, at its start or (when the best passage
        is below the first screen) on the best passage."""
        self.document = document
        self.lines, self.head = document.lines, document.head
        self.query_matches, self.spans = document.query_matches, document.spans
        self._wraps.clear()
        self._rows = None
        self.searched, self.found, self.current, self.opened_on = None, [], None, None
        self.top = (0, 0)
        self.placed = False
        if self.size.height:  # else on the first resize: the first screen's length decides
            self.place()
        self.refresh_view()

    def place(self) -> None:
        """Open on the best passage when it lies below the first screen and holds more of the
        query's terms than the first screen does; else stay at the start."""
        self.placed = True
        best = self.document.best
        if best is None:
            return
        line, terms = best
        first_screen = self.rows_from((0, 0), self.size.height)
        last_seen = first_screen[-1][0] if first_screen else 0
        if line > last_seen and terms > distinct_terms(self.query_matches, 0, last_seen):
            self.opened_on = line - self.head
            self.scroll_to_line(line)

    @property
    def targets(self) -> list[Match]:
        """What ``m``/``M`` step through: the searched text's matches, else the query's."""
        return self.found if self.searched is not None else self.query_matches

    def search(self, text: str) -> int:
        """Find ``text`` (folded, anywhere); paint its matches and go to the first one below the
        view's top. Returns how many there are. An empty text returns to the query's matches."""
        if not text.strip():
            self.searched, self.found, self.current = None, [], None
            self.spans = self.document.spans
            self.refresh_view()
            return len(self.query_matches)
        self.searched = text.strip()
        body = self.lines[self.head :]
        self.found = [Match(m.line + self.head, m.start, m.end, 0) for m in Matcher.for_text(text).find(body)]
        self.spans = painted(self.found, "document--found")
        self.current = None
        if self.found:
            self.step_match(1, from_line=self.top[0] - 1)
        else:
            self.refresh_view()
        return len(self.found)

    def step_match(self, direction: int, *, from_line: int | None = None) -> bool | None:
        """Go to the next (1) or previous (-1) match on another line than the current one.
        True if it wrapped round the document's end, None if there is no match at all."""
        targets = self.targets
        if not targets:
            return None
        if from_line is None:
            from_line = targets[self.current].line if self.current is not None else self.focus_line()
        lines = [m.line for m in targets]
        if direction > 0:
            index = bisect_left(lines, from_line + 1)
            wrapped = index == len(targets)
            index = 0 if wrapped else index
        else:
            index = bisect_left(lines, from_line) - 1
            wrapped = index < 0
            index = len(targets) - 1 if wrapped else bisect_left(lines, lines[index])
        self.current = index
        self.scroll_to_line(targets[index].line)
        self.refresh_view()
        return wrapped

    def focus_line(self) -> int:
        """The display line a jump would have put at the passage's place (``CONTEXT`` rows down)."""
        rows = self.layout_rows()
        return rows[min(CONTEXT, len(rows) - 1)][0] if rows else 0

    # ------------------------------------------------------------ wrapping and rows

    def wrapped(self, line: int) -> list[tuple[int, int]]:
        width = max(1, self.size.width)
        if width != self._wrap_width:
            self._wraps.clear()
            self._wrap_width = width
        rows = self._wraps.get(line)
        if rows is None:
            rows = self._wraps[line] = wrap(self.lines[line], width)
        return rows

    def rows_from(self, anchor: tuple[int, int], count: int) -> list[Row]:
        """Up to ``count`` screen rows from ``anchor`` down."""
        rows: list[Row] = []
        line, row = anchor
        while len(rows) < count and line < len(self.lines):
            wrapped = self.wrapped(line)
            for start, end in wrapped[row:]:
                rows.append((line, start, end))
                if len(rows) == count:
                    break
            line, row = line + 1, 0
        return rows

    def layout_rows(self) -> list[Row]:
        """The rows on screen now (cached until the anchor, size or document changes)."""
        key = (id(self.lines), self.size.width, self.size.height, self.top)
        if self._rows is None or self._rows[0] != key:
            self._rows = (key, self.rows_from(self.top, self.size.height))
        return self._rows[1]

    def moved(self, anchor: tuple[int, int], rows: int) -> tuple[int, int]:
        """``anchor`` moved by ``rows`` screen rows (negative: up), stopping at either end."""
        line, row = anchor
        while rows > 0:
            wrapped = self.wrapped(line)
            if row + 1 < len(wrapped):
                row += 1
            elif line + 1 < len(self.lines):
                line, row = line + 1, 0
            else:
                break
            rows -= 1
        while rows < 0:
            if row > 0:
                row -= 1
            elif line > 0:
                line -= 1
                row = len(self.wrapped(line)) - 1
            else:
                break
            rows += 1
        return line, row

    def last_anchor(self) -> tuple[int, int]:
        """The anchor that puts the document's last row at the bottom of the box (or (0, 0))."""
        if not self.lines:
            return (0, 0)
        last = (len(self.lines) - 1, len(self.wrapped(len(self.lines) - 1)) - 1)
        return max((0, 0), self.moved(last, -(max(1, self.size.height) - 1)))

    def set_top(self, anchor: tuple[int, int]) -> None:
        self.top = min(anchor, self.last_anchor())
        self.refresh_view()

    def scroll_to_line(self, line: int) -> None:
        """Put display ``line`` ``CONTEXT`` rows below the top (less at the start or the end)."""
        self.top = min(self.moved((line, 0), -CONTEXT), self.last_anchor())

    # ------------------------------------------------------------ keys and mouse

    def action_scroll_rows(self, rows: int) -> None:
        self.set_top(self.moved(self.top, rows))

    def action_page(self, direction: int) -> None:
        self.set_top(self.moved(self.top, direction * max(1, self.size.height - 1)))

    def action_start(self) -> None:
        self.set_top((0, 0))

    def action_end(self) -> None:
        self.set_top(self.last_anchor())

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
            self.top = min((line, min(row, len(self.wrapped(line)) - 1)), self.last_anchor())
        self.refresh_view()

    # ------------------------------------------------------------ drawing

    def position(self) -> str:
        """``line 1,173 of 6,810 · 17%``: the body line at the top, and how far down the bottom is."""
        total = len(self.lines) - self.head
        rows = self.layout_rows()
        if not rows or total <= 0:
            return ""
        top = max(0, rows[0][0] - self.head) + 1
        bottom = max(0, rows[-1][0] - self.head) + 1
        if top == 1 and bottom >= total and rows[-1][2] >= len(self.lines[-1]):
            return f"{total:,} line{'s' if total != 1 else ''} · all"
        return f"line {top:,} of {total:,} · {100 * bottom // total}%"

    def matches_caption(self) -> str:
        """``match 3 of 12 · m/M`` (or the searched text's): what ``m`` steps through."""
        targets = self.targets
        what = f"“{self.searched}”" if self.searched is not None else "query terms"
        if not targets:
            return f"no match for {what}" if self.searched is not None else "no query term in this document"
        where = f"{self.current + 1:,} of {len(targets):,}" if self.current is not None else f"{len(targets):,}"
        return f"{what}: {where} · m/M · / find"

    def refresh_view(self) -> None:
        self._rows = None
        opened = f" · opened at line {self.opened_on + 1:,}, Home: the start" if self.opened_on is not None else ""
        self.border_title = self.position() + opened
        self.border_subtitle = self.matches_caption()
        self.refresh()

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        base = self.rich_style
        rows = self.layout_rows()
        if y >= len(rows):
            return Strip.blank(width, base)
        line, start, end = rows[y]
        text = self.lines[line]
        style = base + self.get_component_rich_style("document--title") if line < self.head else base
        segments = []
        position = start
        current = self.targets[self.current] if self.current is not None else None
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
