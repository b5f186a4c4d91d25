"""``say``: ``print`` for every text line a command shows a person, through ``printable``.

Run names, file names, protocol names, annotator names and notes in those lines come from a
protocol directory, which is untrusted input: ``say`` makes their control characters visible
(``core.terminal_text``) instead of sending them to the terminal or a CI log. One call is one
line: a newline in a name is shown as ``\\n`` too, so a run file named ``a\\nok: run b`` cannot
print an ``ok:`` line of its own. A text of several lines (``lines=True``) is one its renderer
built, each field already made one line there. Machine output
(``--format json``, TOML and TREC on stdout) is data and is written as it is, with ``print`` or
``sys.stdout.write``; a test (tests/security) runs every text output on a hostile protocol.
"""

from __future__ import annotations

import sys

from rankeval_tui.core.terminal_text import printable

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: every command pays for its imports at start-up
if TYPE_CHECKING:
    from typing import TextIO


def say(*values: object, file: TextIO | None = None, end: str = "\n", lines: bool = False) -> None:
    """``print(*values, file=file, end=end)`` on one terminal-safe line (``lines``: a rendered text
    of several, whose fields its renderer made one line each)."""
    text = " ".join(map(str, values))
    print(printable(text, multiline=lines), file=sys.stdout if file is None else file, end=end)
