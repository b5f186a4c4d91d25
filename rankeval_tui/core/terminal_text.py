"""Terminal-safe text: the one function every screen and every text output passes protocol text through.

A protocol directory is untrusted input (it travels by mail, git or a shared drive), and its
names, query texts, needs, criteria, document texts, titles, notes, annotator names and the run
and file names in it reach the terminal. An ``ESC`` there is a control sequence: OSC 52 writes
the user's clipboard, OSC 0 the window title, CSI sequences move the cursor and repaint what a
screen or a CI log seems to say. So every such text is shown through ``printable``, which makes
those characters visible instead of sending them.

What is made visible, as the escape Python's ``repr`` uses (``\\x1b``, ``\\x9b``, ``\\u202e``,
``\\ud800``, ``\\r``): ASCII and readable in any terminal and any log, and the same form the ``error:``
lines' quoted IDs already use:

- C0 controls (``\\x00``-``\\x1f``, ``ESC`` among them) and ``DEL``; ``\\n`` and ``\\t`` are kept
  only where the caller shows several lines (``multiline=True``); ``\\r`` never (it would let a
  line overwrite itself);
- C1 controls (``\\x80``-``\\x9f``: ``\\x9b`` is a one-byte CSI, ``\\x85`` a line break);
- the bidirectional controls (U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069), which
  reorder what is displayed ("Trojan Source"), and the line and paragraph separators
  U+2028, U+2029;
- lone surrogates (``"d\\ud800"`` from a JSON ``\\ud800``), which no terminal encoding can write.

Everything else is kept as it is: letters of every script, emoji (with their zero-width
joiners), no-break and ideographic spaces, so that document text stays readable.
Machine output (JSON, TOML, TREC) is data and never passes through here: it stays exact.
``core`` has no Rich; screens wrap the result in a ``rich.text.Text`` so that it is never read
as markup either (``[reverse]q1[/reverse]`` is an ID, not a style).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

_CONTROLS = "\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff"
_UNSAFE_MULTILINE = re.compile(f"[{_CONTROLS}]")
_UNSAFE_ONE_LINE = re.compile(f"[\t\n{_CONTROLS}]")


_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _escape(match: re.Match[str]) -> str:
    character = match.group()
    code = ord(character)
    return _NAMED.get(character) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")


def printable(text: str, *, multiline: bool = False) -> str:
    """``text`` with every control character made visible (``\\x1b``); see the module docstring.

    ``multiline`` keeps ``\\n`` and ``\\t`` (a document's text, a whole report); otherwise they are
    shown too, so that the result is one line (an ID, a name, a table cell). The result is
    unchanged text when there is nothing to show (one regex search), and applying it twice
    changes nothing more.
    """
    pattern = _UNSAFE_MULTILINE if multiline else _UNSAFE_ONE_LINE
    if pattern.search(text) is None:
        return text
    return pattern.sub(_escape, text)


_MARKUP = re.compile(
    r"[\\`*~\[\]]"  # escapes, code spans, emphasis, strikethrough, links and images
    r"|(?<![^\W_])_|_(?![^\W_])"  # an underscore that can open or close emphasis (not inside a word)
    r"|<(?=[A-Za-z/!?])"  # an HTML tag, comment or autolink (``<=`` and ``< `` stay)
    r"|&(?=[#A-Za-z])"  # an entity (``&lt;`` would show as ``<``)
    r"|:(?=//)"  # a URL's scheme (``https://`` is linked without brackets)
    r"|(?i:(?<=www)\.)"  # a ``www.`` link
    r"|@(?=[\w.+-]+\.)"  # an e-mail address, which is linked too
    r"|^[#>+=-]|^\d+[.)]"  # a block: heading, quote, list, setext underline, numbered list
)


def markdown_text(text: str) -> str:
    """``text`` on one line (``printable``) and inert in Markdown: shown as it is, never read as markup.

    For a protocol's fields in Markdown output (``score --format markdown``, the CI step summary,
    which GitHub renders): a name ``help\\n\\n**passed**\\n\\n![x](https://evil.example/t.png)<!--``
    would otherwise forge a line, bold text, load an image and hide what follows in a comment.
    Each character that can begin markup there is backslash-escaped (CommonMark shows any escaped
    ASCII punctuation as itself); the rest is kept, so ``fixture_A``, ``P@10`` or ``<= 0.05`` read the
    same in the Markdown source. A field that cannot begin markup comes back unchanged. A ``|``
    matters in a table only, where the table escapes it (``text_grid``).
    """
    return _MARKUP.sub(_backslashed, printable(text))


def _backslashed(match: re.Match[str]) -> str:
    markup = match.group()
    return f"{markup[:-1]}\\{markup[-1]}"  # ``1.`` as ``1\.``: a digit is no escape


def field_text(markdown: bool) -> Callable[[str], str]:
    """How a field a protocol supplies (its name, a run's, an ID, the pool rule) is shown: on
    one line, and inert in Markdown (``printable``, ``markdown_text``); the text around it is ours."""
    return markdown_text if markdown else printable


def ids_text(ids: Iterable[str], markdown: bool) -> str:
    """IDs listed after a label (``missing_queries: q1, q7``), or ``none``. An ID holds no
    newline (core/files/ids.py), so the table's IDs need only Markdown's care."""
    return ", ".join(map(markdown_text, ids) if markdown else ids) or "none"
