"""Document, query and run IDs: what an ID may contain, checked the same way by every reader."""

from __future__ import annotations

import re
from pathlib import Path

from rankeval_tui.core.errors import ContractError, quote

QUERY_REQUIRED = {"text": str, "split": str}
QUERY_OPTIONAL = {"need": str}
"""The keys of a ``[queries.ID]`` table (a pooled protocol's are in files/pools.py)."""
NOT_IN_AN_ID = re.compile(r"[\s\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
"""Whitespace (``\\s`` is ``str.isspace`` on str patterns), C0, DEL and C1 controls, and the
bidirectional control characters (an ID holding U+202E shows reversed: ``q1\u202egnp.d`` reads as
``q1d.png``, in a table or an error line alike): one regex search instead of a Python test per
character, which was most of reading a TREC run."""


def check_id(kind: str, value: object, *, file: Path | None, where: str | None = None) -> str:
    """IDs are nonempty strings without whitespace or control characters.

    Whitespace would not survive the TREC formats users exchange runs in; control characters
    make error messages and screens lie about what the ID is.
    """
    if type(value) is not str or not value:
        raise ContractError(f"{kind} ID must be a nonempty string, got {quote(value)}", file=file, where=where)
    if NOT_IN_AN_ID.search(value):
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
