"""A Rich renderable that wraps each line of a Text with a hanging indent, and a Static showing one.

Why: the comparison summary aligns its lines under a 10-column metric label; at 80 columns the
long ones (means, deltas and win/tie/loss; the p-values with Holm) wrap, and Rich starts a
wrapped line at column 0, under the label, where it reads as a new metric.
"""

from __future__ import annotations

from collections.abc import Iterator

from rich.console import Console, ConsoleOptions
from rich.text import Text
from textual.app import RenderResult
from textual.widgets import Static


class HangingText:
    """``text`` wrapped to the render width, every continuation line indented by ``indent``."""

    def __init__(self, text: Text, indent: int) -> None:
        self.text = text
        self.indent = indent

    def __str__(self) -> str:
        """The plain text, unwrapped (as ``str`` of a Rich ``Text``)."""
        return self.text.plain

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterator[Text]:
        width = options.max_width
        for line in self.text.split("\n", allow_blank=True):
            yield from hanging_lines(console, line, width, self.indent)


def hanging_lines(console: Console, line: Text, width: int, indent: int) -> list[Text]:
    """One logical line as screen lines: the first as wide as ``width``, the rest indented.

    No indent when the width leaves too little room for it (a very narrow terminal)."""
    wrapped = line.wrap(console, width)
    if len(wrapped) <= 1 or width - indent < 20:
        return list(wrapped)
    first = wrapped[0]
    rest = line[len(first.plain) :]
    rest = rest[len(rest.plain) - len(rest.plain.lstrip(" ")) :]  # the break's spaces
    lines = [first]
    for part in rest.wrap(console, width - indent):
        lines.append(Text(" " * indent) + part)
    return lines


class HangingStatic(Static):
    """A ``Static`` whose text wraps with a hanging indent (``show_text``); ``str(render())`` is
    its plain text, as for a ``Text``."""

    def __init__(self, indent: int, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.indent = indent
        self._body = HangingText(Text(), indent)

    def render(self) -> RenderResult:
        return self._body

    def show_text(self, text: Text) -> None:
        self._body = HangingText(text, self.indent)
        self.refresh(layout=True)
