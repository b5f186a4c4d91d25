"""A command's start-up error on a browser's page (``rankeval-tui serve``).

Under textual-serve a command that stops before its screen opens leaves the page blank and its
``error:`` line in the server's log only; this app shows that line on the page instead. The line
names protocol files, IDs and annotators, so it is drawn as plain text (``safe_text``), never markup.
"""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.driver import Driver
from textual.widgets import Static

from rankeval_tui.tui.safe_text import plain
from rankeval_tui.tui.served_driver import ending_with_its_server

CLOSE_HINT = "Fix the problem, then reload this page. q closes it."


class ErrorPage(App[None]):
    """One error line and how to go on; ``q`` (or closing the page) ends it."""

    CSS = """
    Screen { align: center middle; }
    #error { width: 90%; height: auto; border: heavy $error; padding: 1 2; }
    #hint { width: 90%; height: auto; padding: 1 2; color: $text-muted; }
    """
    BINDINGS = [Binding("q", "quit", "Close")]

    def __init__(self, line: str) -> None:
        super().__init__()
        self.line = line

    def get_driver_class(self) -> type[Driver]:
        return ending_with_its_server(super().get_driver_class())

    def compose(self) -> ComposeResult:
        yield Static(plain(self.line), id="error")
        yield Static(CLOSE_HINT, id="hint", markup=False)
