"""What the scoring screen's two views share: a title, a one-line note, the table, a summary.

Why a base: both views must keep their table rows on an 80x24 screen. The table keeps room for
its header and ``TABLE_ROWS`` rows (fewer if it has fewer), and the summary sits in a scroll box
that gets the rest, so a long summary scrolls instead of pushing the rows off and a short table
leaves the summary its room; and an empty table always says why (a filter that matched
nothing), never shows as a blank.
"""

from __future__ import annotations

from collections.abc import Iterator

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widget import Widget
from textual.widgets import Static

from rankeval_tui.tui.safe_text import plain
from rankeval_tui.tui.score.score_table import ScoreTable

TABLE_ROWS = 10
"""Rows a table always keeps on screen when it has them (at least 10 at 80x24)."""

TABLE_CHROME = 2
"""Lines of a table besides its rows: the header, and a horizontal scrollbar when it is wider."""

SUMMARY_MIN = 3
"""The summary box's least height (its border and two lines), however small the terminal."""


class ScoreView(Vertical):
    """Title, note (shown only when set), table and summary, with ids ``score-{name}-...``."""

    name_in_ids = "view"
    """The view's name in its widgets' ids: ``score-run-table``, ``score-compare-summary``."""

    def compose(self) -> ComposeResult:
        name = self.name_in_ids
        yield Static("", id=f"score-{name}-title", classes="score-title")
        yield Static("", id=f"score-{name}-note", classes="score-note")
        yield from self.above_table()
        yield ScoreTable(id=f"score-{name}-table", cursor_type="row", zebra_stripes=True, fixed_columns=1)
        with VerticalScroll(classes="score-summary-box"):
            yield self.summary_widget(f"score-{name}-summary")

    def above_table(self) -> Iterator[Widget]:
        """Widgets between the title and the table (none unless a view needs them)."""
        return iter(())

    def on_resize(self) -> None:
        self.fit()

    def fit(self) -> None:
        """Split the height: the table its rows (up to ``TABLE_ROWS``), the summary the rest.
        Runs after a refresh, when the title's wrapped height is known."""
        self.call_after_refresh(self._fit)

    def _fit(self) -> None:
        table = self.table
        above = sum(
            child.outer_size.height for child in self.children if child.display and child not in (table, self.box)
        )
        table_lines = min(table.row_count, TABLE_ROWS) + TABLE_CHROME
        table.styles.min_height = table_lines
        self.box.styles.max_height = max(SUMMARY_MIN, self.size.height - above - table_lines)

    def page_summary(self) -> None:
        """A page further down the summary (``p``: the paired statistics), back to its top after
        the end: at 80x24 its box shows two lines, and the arrow keys move the table's cursor."""
        box = self.box
        if box.scroll_y >= box.max_scroll_y:
            box.scroll_home(animate=False)
        else:
            box.scroll_page_down(animate=False)

    @property
    def box(self) -> VerticalScroll:
        return self.query_one(".score-summary-box", VerticalScroll)

    def summary_widget(self, widget_id: str) -> Widget:
        """The text under the table (a plain ``Static`` unless a view needs more)."""
        return Static("", id=widget_id, classes="score-summary")

    @property
    def table(self) -> ScoreTable:
        return self.query_one(ScoreTable)

    @property
    def title(self) -> Static:
        return self.query_one(f"#score-{self.name_in_ids}-title", Static)

    def note(self, message: str | Text | None) -> None:
        """One line above the table (why it is empty), hidden when there is nothing to say."""
        widget = self.query_one(f"#score-{self.name_in_ids}-note", Static)
        widget.update(plain(message) if isinstance(message, str) else message or "")
        widget.display = bool(message)
        self.fit()
