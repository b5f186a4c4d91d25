"""Text a file can store and a terminal can print, whatever the input spelled.

JSON may spell half of a UTF-16 pair (``"\\ud800"``): Python reads it as a lone surrogate,
which no UTF-8 file can hold, so a protocol write would fail with ``UnicodeEncodeError`` after
every check passed. File names are OS strings: bytes that are not UTF-8 come back as surrogate
escapes, and printing them to a strict UTF-8 stdout fails. So inputs are checked
(``has_lone_surrogate``) before anything is written, and names are shown with ``display_name``.
"""

from __future__ import annotations

import os
import re

LONE_SURROGATE = re.compile("[\ud800-\udfff]")
SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
"""How JSON spells a surrogate (``\\ud800`` to ``\\udfff``); a file read as strict UTF-8 can
hold no surrogate otherwise. One search over a whole file (a small part of parsing it, even
with CJK text) tells whether its records need ``has_lone_surrogate`` at all (several times that
when every record is checked)."""


def may_hold_lone_surrogates(json_text: str) -> bool:
    """Whether ``json_text`` spells any surrogate escape (a valid pair or a lone half)."""
    return SURROGATE_ESCAPE.search(json_text) is not None


def has_lone_surrogate(value: object) -> bool:
    """Whether any string in ``value`` (a JSON value: nested dicts and lists too) holds one."""
    if isinstance(value, str):
        return not value.isascii() and LONE_SURROGATE.search(value) is not None
    if isinstance(value, dict):
        return any(has_lone_surrogate(k) or has_lone_surrogate(v) for k, v in value.items())
    if isinstance(value, list):
        return any(has_lone_surrogate(v) for v in value)
    return False


def display_name(name: str) -> str:
    """``name`` printable on any stdout: bytes that were not UTF-8 (kept by the OS as surrogate
    escapes) shown as ``\\xff``."""
    return os.fsencode(name).decode("utf-8", "backslashreplace")
