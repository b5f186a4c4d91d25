"""Protocol text on screen: always a ``rich.text.Text`` (never markup), through ``printable``.

Rich and Textual read a ``str`` given to a ``Static``, a table cell or column label, or a toast
as markup: the query ID ``q3[/]`` (allowed by the ID rules) crashed the scoring and adjudication
screens with ``MarkupError``, ``[reverse]q1[/reverse]`` drew reversed and ``wiki[en]/Paris``
showed as ``wiki/Paris``. And a ``Text`` sends an ``ESC`` in its characters to the terminal as it
is. So protocol text (IDs, names, texts, needs, criteria, titles, notes, annotators, run names)
reaches a widget as ``plain(...)`` or through ``printable`` (``core.terminal_text``) inside a
``Text`` the screen builds. tests/security/test_hostile_screens.py walks the screens on a hostile
protocol and checks what reaches the terminal.
"""

from __future__ import annotations

from typing import Any

from rich.style import Style
from rich.text import Text

from rankeval_tui.core.terminal_text import printable

__all__ = ["edited", "plain", "printable", "safe_cell"]


def plain(text: str, style: str | Style = "", *, multiline: bool = False, **options: Any) -> Text:
    """``text`` as a ``Text``: no markup read, control characters shown (``\\x1b``)."""
    return Text(printable(text, multiline=multiline), style=style, **options)


def edited(value: str, original: str) -> str:
    """What an ``Input`` prefilled with ``printable(original)`` (a note, a reason) holds, back as
    data: ``original`` itself when the shown text was left as it was, so that opening and saving
    never rewrites a note with escapes; otherwise what the user typed."""
    return original if value == printable(original) else value


def safe_cell(value: object) -> object:
    """A table cell or label: a ``str`` that markup could change (a ``[`` tag, a ``:emoji:`` code,
    which needs two colons) or that holds a control character becomes the ``Text`` Textual would
    make of it without markup (one line, no wrap); any other value is kept as it is, which
    Textual shows unchanged (``"0"``, ``"q:1001"``: cells stay cheap to compare and read back)."""
    if isinstance(value, str) and ("[" in value or value.count(":") > 1 or printable(value) != value):
        return Text(printable(value), no_wrap=True, end="")
    return value
