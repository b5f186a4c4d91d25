"""The judging screen's dialogs: a note for one pair, a text to find in the document, and the
footnote of its key list (the list itself is the shared ``widgets.help_screen``).

Kept apart from ``judge.screen`` so that module stays about judging. The dialogs size to the
terminal (at most their reading width, never wider than the screen), so they fit 80 columns.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from rankeval_tui.tui.safe_text import edited, printable


class NoteScreen(ModalScreen[str | None]):
    """A note for one pair. Keys typed here go to the Input only: no judging shortcut fires."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="note.cancel")]

    def __init__(self, query: str, doc: str, text: str | None) -> None:
        super().__init__()
        self.pair = (query, doc)
        self.text = text or ""

    def compose(self) -> ComposeResult:
        with Vertical(id="note-dialog"):
            yield Static(
                Text.assemble(
                    "Note for query ",
                    (self.pair[0], "bold"),
                    ", document ",
                    (self.pair[1], "bold"),
                    "\nEnter saves, empty removes, Esc cancels",
                )
            )
            # The note comes from the qrels or journal: shown through printable (an Input draws
            # its value as it is), saved unchanged unless edited.
            yield Input(printable(self.text), placeholder="why this label, what is disputed", id="note-input")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(edited(event.value, self.text))

    def action_cancel(self) -> None:
        self.dismiss(None)


class FindScreen(ModalScreen[str | None]):
    """Text to find in the document (folded as the query's terms are, matched anywhere)."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="find.cancel")]

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        with Vertical(id="find-dialog"):
            yield Static("Find in this document\nEnter finds, empty returns to the query's terms, Esc cancels")
            yield Input(self.text, placeholder="any text, in any case", id="find-input")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)


JUDGING_FOOTNOTE = (
    "A pair stays unjudged until 1 or 0 is pressed on it; moving never labels.\n"
    "Every change is fsynced to the journal before it is shown."
)
