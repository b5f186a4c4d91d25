"""The judging screen's two dialogs: a note for one pair, and the list of judging keys.

Kept apart from ``judge_screen`` so that module stays about judging. Both dialogs size to the
terminal (at most their reading width, never wider than the screen), so they fit 80 columns.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
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


JUDGING_FOOTNOTE = (
    "A pair stays unjudged until 1 or 0 is pressed on it; moving never labels.\n"
    "Every change is fsynced to the journal before it is shown."
)


class HelpScreen(ModalScreen[None]):
    """A screen's keys, generated from its BINDINGS so help never disagrees with them."""

    BINDINGS = [Binding("escape,question_mark,q", "close", "Close", id="help.close")]

    def __init__(
        self, bindings: list[Binding], *, title: str = "Judging keys", footnote: str = JUDGING_FOOTNOTE
    ) -> None:
        super().__init__()
        self.bindings = bindings
        self.title_text = title
        self.footnote = footnote

    def compose(self) -> ComposeResult:
        lines = Text(f"{self.title_text}\n\n", style="bold")
        width = max((len(binding.key_display or binding.key) for binding in self.bindings), default=0) + 2
        for binding in self.bindings:
            keys = binding.key_display or binding.key
            lines.append(f"  {keys:<{width}}", style="bold cyan")
            lines.append(f"{binding.tooltip or binding.description}\n")
        lines.append("\n" + self.footnote)
        with VerticalScroll(id="help-dialog"):  # scrolls when the terminal is shorter than the list
            yield Static(lines)

    def action_close(self) -> None:
        self.dismiss(None)
