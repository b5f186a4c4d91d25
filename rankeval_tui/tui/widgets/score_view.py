"""What the scoring screen's two views share: a title, a one-line note, the table, a summary.

Why a base: both views must keep their table rows on an 80x24 screen. The table has a minimum
height (rankeval.tcss) and the summary sits in a scroll box of bounded height, so a long
summary scrolls instead of pushing the rows off; and an empty table always says why (a filter
that matched nothing), never shows as a blank.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widget import Widget
from textual.widgets import Static

from rankeval_tui.tui.widgets.score_table import ScoreTable


class ScoreView(Vertical):
    """Title, note (shown only when set), table and summary, with ids ``score-{name}-...``."""

    name_in_ids = "view"
    """The view's name in its widgets' ids: ``score-run-table``, ``score-compare-summary``."""

    def compose(self) -> ComposeResult:
        name = self.name_in_ids
        yield Static("", id=f"score-{name}-title", classes="score-title")
        yield Static("", id=f"score-{name}-note", classes="score-note")
        yield ScoreTable(id=f"score-{name}-table", cursor_type="row", zebra_stripes=True, fixed_columns=1)
        with VerticalScroll(classes="score-summary-box"):
            yield self.summary_widget(f"score-{name}-summary")

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
        widget.update(message or "")
        widget.display = bool(message)
