"""A status line for what a screen says once at launch (trec_eval's tie order, a journal's
warnings): under the tables, never over them as a toast, and gone after a while so the row
goes back to the table.

Why not a notification: a toast covers half of an 80x24 screen for its whole timeout, over the
rows the reader came for, and says nothing a line could not.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.widgets import Static

from rankeval_tui.core.terminal_text import printable

SHOWN_SECONDS = 15.0
"""How long the line stays: long enough to read two sentences, then the table has the row back."""


class LaunchNotice(Static):
    """One line per thing said (protocol text through ``printable``, never markup); hidden when
    there is nothing to say and ``SHOWN_SECONDS`` after it was said."""

    DEFAULT_CSS = """
    LaunchNotice {
        display: none; height: auto; max-height: 3; padding: 0 1; color: $warning;
        text-wrap: nowrap; text-overflow: ellipsis;
    }
    """

    def say(self, lines: Sequence[str]) -> None:
        if not lines:
            return
        self.update(Text("\n".join(printable(line) for line in lines)))  # a line each, cut to the width (CSS)
        self.display = True
        self.set_timer(SHOWN_SECONDS, self.hide)

    def hide(self) -> None:
        self.display = False
