"""Document, query and run IDs: what an ID may contain, checked the same way by every reader."""

from __future__ import annotations

import re
from pathlib import Path

from rankeval_tui.core.errors import ContractError, quote

QUERY_REQUIRED = {"text": str, "split": str}
QUERY_OPTIONAL = {"need": str}
"""The keys of a ``[queries.ID]`` table (a pooled protocol's are in files/pools.py)."""
INVISIBLE = (
    r"\u00ad\u034f\u0600-\u0605\u06dd\u070f\u0890\u0891\u08e2\u115f\u1160\u17b4\u17b5\u180b-\u180f"
    r"\u200b-\u200d\u2060-\u2065\u206a-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb"
    r"\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff"
)
"""Characters that show as nothing (or change how their neighbours show): every format character
(Unicode category Cf: U+200B zero width space, U+2060 word joiner, U+FEFF, tags) but the
bidirectional controls (``BIDI_CONTROLS``), and every other default-ignorable one (U+034F,
variation selectors, Hangul fillers). ``d1`` and ``d1\\u200b`` would look the same on every
screen and in every output, against the rule that an ID reads as it is (docs/formats.md);
tests/core/test_id_characters.py checks the list against ``unicodedata``."""
BIDI_CONTROLS = r"\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
NOT_IN_AN_ID = re.compile(rf"[\s\x00-\x1f\x7f-\x9f{BIDI_CONTROLS}{INVISIBLE}]")
"""Whitespace (``\\s`` is ``str.isspace`` on str patterns), C0, DEL and C1 controls, and the
bidirectional control characters (an ID holding U+202E shows reversed: ``q1\u202egnp.d`` reads
as ``q1d.png``, in a table or an error line alike), and the invisible characters above: one
regex search instead of a Python test per character, which was most of reading a TREC run."""
_INVISIBLE = re.compile(f"[{INVISIBLE}]")


def check_id(kind: str, value: object, *, file: Path | None, where: str | None = None) -> str:
    """IDs are nonempty strings without whitespace or control characters.

    Whitespace would not survive the TREC formats users exchange runs in; control characters
    make error messages and screens lie about what the ID is.
    """
    if type(value) is not str or not value:
        raise ContractError(f"{kind} ID must be a nonempty string, got {quote(value)}", file=file, where=where)
    if (found := NOT_IN_AN_ID.search(value)) is not None:
        character = found.group()
        if _INVISIBLE.match(character):
            rule = f"an invisible character (U+{ord(character):04X}): it would look the same as the ID without it"
            raise ContractError(f"{kind} ID {quote(value)} contains {rule}", file=file, where=where)
        raise ContractError(
            f"{kind} ID {quote(value)} contains whitespace or a control character", file=file, where=where
        )
    return value


ID_BYTES = bytes(range(0x21, 0x7F))
"""Printable ASCII but the space: every one may stand in an ID (``NOT_IN_AN_ID`` refuses none),
and every other ASCII character is refused by it."""


def only_id_characters(text: str, separators: str = "") -> bool:
    """Whether ``text`` holds nothing but characters an ID may hold and ``separators``: for
    ASCII text a ``bytes.translate`` (about ten times the speed of the regex, which was most of
    checking a million pooled IDs), else ``NOT_IN_AN_ID`` over the text without the separators."""
    if text.isascii():
        return not text.encode("ascii").translate(None, ID_BYTES + separators.encode("ascii"))
    for separator in separators:
        text = text.replace(separator, "")
    return not NOT_IN_AN_ID.search(text)
