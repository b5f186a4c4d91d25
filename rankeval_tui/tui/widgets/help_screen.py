"""A screen's keys in a dialog, generated from its BINDINGS so help never disagrees with them.

Shared: the judging screen, its overview and the adjudication screen each open it with their own
title and footnote. It sizes to the terminal and scrolls when the list is longer than it is tall.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static


class HelpScreen(ModalScreen[None]):
    """A screen's keys, generated from its BINDINGS so help never disagrees with them."""

    BINDINGS = [Binding("escape,question_mark,q", "close", "Close", id="help.close")]

    def __init__(self, bindings: Iterable[BindingType], *, title: str, footnote: str = "") -> None:
        super().__init__()
        self.bindings = [b for b in bindings if isinstance(b, Binding)]  # the (key, action) tuples have no text
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
