"""The grammar of ``fasttoml``'s fast path: its tokens as regular expressions and their values.

Split from the reader (``fasttoml``, which builds tables from lines) so each reads on its own:
what a key, a scalar, a header or a pair line is here is what TOML 1.0 and tomllib agree on
(the fast grammar in ``fasttoml``'s docstring); anything else raises ``Unsupported`` and is
left to tomllib.
"""

from __future__ import annotations

import re
from typing import Any

WS = r"[ \t]*"
ESCAPE = r'\\(?:["\\bfnrt]|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8})'
BASIC = rf'"(?:[^"\\\x00-\x08\x0a-\x1f\x7f]|{ESCAPE})*"'
LITERAL = r"'[^'\x00-\x08\x0a-\x1f\x7f]*'"
KEY = rf"(?:[A-Za-z0-9_-]+|{BASIC}|{LITERAL})"
INT = r"[+-]?(?:0|[1-9](?:_?[0-9])*)"
SCALAR = rf"(?:true|false|{INT}|{BASIC}|{LITERAL})"
INLINE_ARRAY = rf"\[{WS}(?:{SCALAR}{WS},{WS})*(?:{SCALAR}{WS})?\]"
TAIL = rf"{WS}(?:#[^\x00-\x08\x0a-\x1f\x7f]*)?"
"""Trailing whitespace and an optional comment, the end of every header and pair line."""

KEYS = re.compile(KEY)
SCALARS = re.compile(SCALAR)
PATH = rf"{KEY}(?:{WS}\.{WS}{KEY})*"
HEADER = re.compile(rf"{WS}\[{WS}({PATH}){WS}\]{TAIL}")
ARRAY_HEADER = re.compile(rf"{WS}\[\[{WS}({PATH}){WS}\]\]{TAIL}")
PAIR = re.compile(rf"{WS}({KEY}){WS}={WS}({SCALAR}|{INLINE_ARRAY}|\[(?={WS}$)){TAIL}")
ASSIGNMENT = re.compile(rf"{WS}({PATH}){WS}=")
"""The keys of a pair line, dotted (``a . "b.c" = ...``) or not, whatever its value."""
DOTTED_PAIR = re.compile(rf"{WS}{PATH}{WS}={WS}({SCALAR}|{INLINE_ARRAY}|\[(?={WS}$)){TAIL}")
ITEM = re.compile(rf"{WS}({SCALAR}){WS},{TAIL}")
CLOSE = re.compile(rf"{WS}\]{TAIL}")
BLANK_OR_COMMENT = re.compile(TAIL)
ESCAPES = re.compile(ESCAPE)
SIMPLE_ESCAPES = {'"': '"', "\\": "\\", "b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r"}
MAX_DIGITS = 18


class Unsupported(Exception):
    """Internal only: something the fast grammar does not decide; the caller delegates it."""


def unescape(match: re.Match[str]) -> str:
    escape = match.group()
    if len(escape) == 2:
        return SIMPLE_ESCAPES[escape[1]]
    code = int(escape[2:], 16)
    if 0xD800 <= code <= 0xDFFF or code > 0x10FFFF:
        raise Unsupported  # tomllib: "not a Unicode scalar value"
    return chr(code)


def string_of(token: str) -> str:
    """A basic or literal string token (already matched by the grammar) as its value."""
    body = token[1:-1]
    if token[0] == "'" or "\\" not in body:
        return body
    return ESCAPES.sub(unescape, body)


def key_of(token: str) -> str:
    return token if token[0] not in "\"'" else string_of(token)


def scalar_of(token: str) -> Any:
    """The value of a scalar token matched by ``SCALAR``."""
    if token == "true":
        return True
    if token == "false":
        return False
    if token[0] in "\"'":
        return string_of(token)
    digits = token.replace("_", "").lstrip("+-")
    if len(digits) > MAX_DIGITS:
        raise Unsupported  # tomllib takes any size; leave big numbers to it
    return int(token.replace("_", ""))
