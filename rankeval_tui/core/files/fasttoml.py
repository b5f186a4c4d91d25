"""A fast, verified path for the TOML this project writes; ``tomllib`` stays the parser of record.

Why: ``tomllib.loads`` of a 1M-pair qrels.toml takes seconds, almost all of ``load_protocol``.
Our files are written by tomli-w (or by hand in the same shapes) and use a tiny part of TOML:
``[a.b.c]`` headers with bare keys, ``key = value`` lines whose value is a basic string, a
non-negative decimal integer, a boolean, or a tomli-w multi-line array of those. A line parser
for exactly that subset is a few lines of code, and most lines of a qrels file (``d17 = 0``)
repeat, so a line cache turns them into one dictionary look-up each.

The contract (checked by ``tests/core/test_fasttoml.py`` with a differential hypothesis test
against tomllib): **whenever ``loads(text)`` returns a dict, ``tomllib.loads(text)`` succeeds
and returns an equal dict, with the same types and the same key order.** Anything outside the
subset, or anything this parser is not certain about, returns ``None``, and the caller uses
tomllib, which accepts it or gives the proper error. So this module never rejects and never
raises; it only ever says "yes, and here is exactly what tomllib would say" or "don't know".

Why each accepted form is safe (TOML 1.0 and tomllib's implementation agree on all of them):

- Lines end at ``\\n``; ``\\r\\n`` is a newline too. Any other ``\\r`` means ``None``.
- Whitespace is only space and tab; a line is blank, a full-line comment without control
  characters (tab allowed), a header, a key/value pair, or part of a multi-line array.
- Keys are bare (``A-Za-z0-9_-``), so a key is its own text: no quoting, no dotted keys.
- A header names a table for the first time (a second ``[x]`` is ``None``) and walks only
  through tables: a prefix that is a value (``a = 1`` then ``[a]`` or ``[a.b]``) is ``None``.
  Tables made implicitly by ``[a.b]`` may be declared later by ``[a]``, as tomllib allows,
  and dictionaries keep first-creation order, as tomllib's do.
- A key already present in its table (a value, or a table made by a header) is ``None``.
- Integers: ``0`` or ``[1-9][0-9]*`` up to 18 digits (no sign, underscore, base prefix, leading
  zero; never near Python's int-digit limit). Booleans: ``true`` and ``false``.
- Basic strings: no raw control character except tab (DEL is one), escapes ``\\b \\t \\n \\f
  \\r \\" \\\\`` and ``\\uXXXX`` / ``\\UXXXXXXXX`` naming a Unicode scalar value (a surrogate or a
  value past U+10FFFF is ``None``).
- Arrays: ``[]``, or tomli-w's form: ``key = [`` alone, one scalar and a comma per line, ``]``
  alone. Everything else (inline arrays or tables, nesting, comments, floats, dates, literal
  or multi-line strings, ``[[arrays of tables]]``, trailing comments) is ``None``.
"""

from __future__ import annotations

import re
from typing import Any

_KEY = r"[A-Za-z0-9_-]+"
_HEADER = re.compile(rf"[ \t]*\[({_KEY}(?:\.{_KEY})*)\][ \t]*")
_PAIR = re.compile(rf"[ \t]*({_KEY})[ \t]*=[ \t]*(.*?)[ \t]*")
_ITEM = re.compile(r"[ \t]*(.*?)[ \t]*,[ \t]*")
_CLOSE = re.compile(r"[ \t]*\][ \t]*")
_BLANK = re.compile(r"[ \t]*")
_COMMENT = re.compile(r"[ \t]*#[^\x00-\x08\x0a-\x1f\x7f]*")
_INTEGER = re.compile(r"0|[1-9][0-9]{0,17}")
_ESCAPE = r'\\(?:["\\bfnrt]|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8})'
_STRING = re.compile(rf'"((?:[^"\\\x00-\x08\x0a-\x1f\x7f]|{_ESCAPE})*)"')
_ESCAPES = re.compile(_ESCAPE)
_SIMPLE_ESCAPES = {'"': '"', "\\": "\\", "b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r"}

_NOT_SCALAR = object()
"""Returned by ``_scalar`` for text outside the subset (``None`` is not a TOML value either,
but a sentinel of our own cannot be confused with anything)."""


def _unescape(match: re.Match[str]) -> str:
    escape = match.group()
    if len(escape) == 2:
        return _SIMPLE_ESCAPES[escape[1]]
    code = int(escape[2:], 16)
    if 0xD800 <= code <= 0xDFFF or code > 0x10FFFF:
        raise _Unsupported  # tomllib: "not a Unicode scalar value"
    return chr(code)


class _Unsupported(Exception):
    """Internal only: an escape tomllib would reject; ``loads`` turns it into ``None``."""


def _scalar(text: str) -> Any:
    """A string, integer or boolean written exactly as the subset allows, else ``_NOT_SCALAR``."""
    if text == "true":
        return True
    if text == "false":
        return False
    if _INTEGER.fullmatch(text):
        return int(text)
    match = _STRING.fullmatch(text)
    if match is None:
        return _NOT_SCALAR
    body = match.group(1)
    if "\\" not in body:
        return body
    try:
        return _ESCAPES.sub(_unescape, body)
    except _Unsupported:
        return _NOT_SCALAR


def loads(text: str) -> dict[str, Any] | None:
    """Parse ``text`` if it is in the subset (then equal to ``tomllib.loads(text)``), else ``None``."""
    if "\r" in text:
        if text.count("\r") != text.count("\r\n"):
            return None  # a lone carriage return: tomllib rejects it
        text = text.replace("\r\n", "\n")
    root: dict[str, Any] = {}
    table = root
    declared: set[tuple[str, ...]] = set()
    # ``key = 0`` lines repeat across a qrels file: cache their (key, value) by the line's text.
    # Only immutable int/bool values are cached, so the cache cannot alias a list.
    cached_pairs: dict[str, tuple[str, Any]] = {}
    lines = iter(text.split("\n"))
    for line in lines:
        hit = cached_pairs.get(line)
        if hit is not None:
            key, value = hit
            if key in table:
                return None
            table[key] = value
            continue
        pair = _PAIR.fullmatch(line)
        if pair is not None:
            key, value_text = pair.groups()
            if key in table:
                return None
            if value_text == "[":
                value = _array(lines)
                if value is None:
                    return None
            elif value_text == "[]":
                value = []
            else:
                value = _scalar(value_text)
                if value is _NOT_SCALAR:
                    return None
                if type(value) is not str:
                    cached_pairs[line] = (key, value)
            table[key] = value
            continue
        header = _HEADER.fullmatch(line)
        if header is not None:
            path = tuple(header.group(1).split("."))
            if path in declared:
                return None
            declared.add(path)
            table = root
            for part in path:
                table = table.setdefault(part, {})
                if type(table) is not dict:
                    return None
            continue
        if _BLANK.fullmatch(line) or _COMMENT.fullmatch(line):
            continue
        return None
    return root


def _array(lines: Any) -> list[Any] | None:
    """The rest of a tomli-w multi-line array after ``key = [``: ``item,`` lines, then ``]``."""
    items: list[Any] = []
    for line in lines:
        if _CLOSE.fullmatch(line):
            return items
        item = _ITEM.fullmatch(line)
        if item is None:
            return None
        value = _scalar(item.group(1))
        if value is _NOT_SCALAR:
            return None
        items.append(value)
    return None  # end of text before "]"
