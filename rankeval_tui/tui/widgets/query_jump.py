"""Jump to a query by ID in a table of thousands: ``/``, type an ID or its beginning, Enter.

The matching rule (``find_query``) is a plain function, testable without a terminal; the
widget is an ``Input`` that stays hidden until opened and posts what was typed.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual import on
from textual.binding import Binding
from textual.message import Message
from textual.widgets import Input


def find_query(keys: Sequence[str], text: str) -> str | None:
    """The row to move to: ``text`` itself, else the first ID (in shown order) that begins with
    it, else the first that begins with it ignoring case; None when nothing matches."""
    text = text.strip()
    if not text:
        return None
    if text in keys:
        return text
    folded = text.casefold()
    for matches in (lambda key: key.startswith(text), lambda key: key.casefold().startswith(folded)):
        found = next((key for key in keys if matches(key)), None)
        if found is not None:
            return found
    return None


class QueryJump(Input):
    """A one-line prompt docked above the footer; Enter posts ``Jump``, Escape closes it."""

    BINDINGS = [Binding("escape", "close", "close", id="jump.close")]

    class Jump(Message):
        """The viewer typed ``text`` and pressed Enter."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    class Closed(Message):
        """The prompt was closed: the screen puts the focus back on its table."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(placeholder="query ID or its beginning (e.g. q:10), enter: go, esc: close", id=id)
        self.display = False

    def open(self) -> None:
        self.display = True
        self.value = ""
        self.focus()

    def close(self) -> None:
        self.display = False
        self.post_message(self.Closed())

    def action_close(self) -> None:
        self.close()

    @on(Input.Submitted)
    def submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.post_message(self.Jump(event.value))
