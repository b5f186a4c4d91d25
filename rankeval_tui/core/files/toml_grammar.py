"""The grammar of ``fasttoml``'s fast path: its tokens as regular expressions and their values.

Split from the reader (``fasttoml``, which builds tables from lines) so each reads on its own:
what a key, a scalar, a header or a pair line is here is what TOML 1.0 and tomllib agree on
(the fast grammar in ``fasttoml``'s docstring); anything else raises ``Unsupported`` and is
left to tomllib.
"""

from __future__ import annotations

import re

from rankeval_tui.core.files.lazy_pattern import on_first_use

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: every command pays for its imports at start-up
if TYPE_CHECKING:
    from typing import Any

WS = r"[ \t]*"
ESCAPE = r'\\(?:["\\bfnrt]|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8})'
_BASIC_CHAR = r'[^"\\\x00-\x08\x0a-\x1f\x7f]'
BASIC = rf'"{_BASIC_CHAR}*(?:{ESCAPE}{_BASIC_CHAR}*)*"'
"""A basic string: runs of plain characters between escapes (one regex step per run, not per
character; an escape starts with the one character a run cannot hold, so no match backtracks)."""
LITERAL = r"'[^'\x00-\x08\x0a-\x1f\x7f]*'"
KEY = rf"(?:[A-Za-z0-9_-]+|{BASIC}|{LITERAL})"
INT = r"[+-]?(?:0|[1-9](?:_?[0-9])*)"
SCALAR = rf"(?:true|false|{INT}|{BASIC}|{LITERAL})"
INLINE_ARRAY = rf"\[{WS}(?:{SCALAR}{WS},{WS})*(?:{SCALAR}{WS})?\]"
TAIL = rf"{WS}(?:#[^\x00-\x08\x0a-\x1f\x7f]*)?"
"""Trailing whitespace and an optional comment, the end of every header and pair line."""

# Every read needs these; only some files need the ones ``on_first_use`` compiles (dotted keys,
# inline arrays, escapes, multi-line strings: ``lazy_pattern`` says why).
KEYS = re.compile(KEY)
scalars = on_first_use(SCALAR)
PATH = rf"{KEY}(?:{WS}\.{WS}{KEY})*"
HEADER = re.compile(rf"{WS}\[{WS}({PATH}){WS}\]{TAIL}")
ARRAY_HEADER = re.compile(rf"{WS}\[\[{WS}({PATH}){WS}\]\]{TAIL}")
MULTILINE_START = r"""(?:"{3}|'{3}).*"""
"""A multi-line string's opening delimiter and the rest of its line (``fasttoml`` finds its end)."""
VALUE = rf"{SCALAR}|{INLINE_ARRAY}|\[(?={WS}$)|{MULTILINE_START}"
"""A value token: a scalar, a one-line array, a multi-line array's ``[``, a multi-line string's start."""
PAIR = re.compile(rf"{WS}({KEY}){WS}={WS}({VALUE}){TAIL}")
assignment = on_first_use(rf"{WS}({PATH}){WS}=")
"""The keys of a pair line, dotted (``a . "b.c" = ...``) or not, whatever its value."""
dotted_pair = on_first_use(rf"{WS}{PATH}{WS}={WS}({VALUE}){TAIL}")
ITEM = re.compile(rf"{WS}({SCALAR}){WS},{TAIL}")
CLOSE = re.compile(rf"{WS}\]{TAIL}")
BLANK_OR_COMMENT = re.compile(TAIL)
escapes = on_first_use(ESCAPE)
LINE_ENDING_BACKSLASH = r"\\[ \t]*\n[ \t\n]*"
"""In a multi-line basic string, a backslash that ends a line: it and the whitespace and newlines
after it are dropped."""
_ML_BASIC_CHAR = r'[^"\\\x00-\x08\x0b-\x1f\x7f]'
_ML_LITERAL_CHAR = r"[^'\x00-\x08\x0b-\x1f\x7f]"
ml_basic = on_first_use(
    rf'"""\n?({_ML_BASIC_CHAR}*(?:(?:"{{1,2}}(?!")|{ESCAPE}|{LINE_ENDING_BACKSLASH}){_ML_BASIC_CHAR}*)*"{{0,2}})"""{TAIL}'
)
"""A multi-line basic string and the tail of its last line (TOML 1.0's ``ml-basic-string``: a
newline right after the opening delimiter is dropped, one or two quotes may end the body). Runs
of plain characters alternate with a quote, an escape or a line-ending backslash, each starting
with a character a run cannot hold, so a match that fails does so in linear time."""
ml_literal = on_first_use(rf"'''\n?({_ML_LITERAL_CHAR}*(?:'{{1,2}}(?!'){_ML_LITERAL_CHAR}*)*'{{0,2}})'''{TAIL}")
"""A multi-line literal string and the tail of its last line (``ml-literal-string``)."""
ml_escapes = on_first_use(rf"{ESCAPE}|{LINE_ENDING_BACKSLASH}")
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
    return escapes().sub(unescape, body)


def multiline_string_of(text: str) -> str | None:
    """The value of the multi-line string that ``text`` starts with (its opening delimiter to the
    end of the line that closes it, a tail allowed), or None when ``text`` is not one."""
    if text[0] == "'":
        literal = ml_literal().fullmatch(text)
        return None if literal is None else literal.group(1)
    basic = ml_basic().fullmatch(text)
    if basic is None:
        return None
    body = basic.group(1)
    return body if "\\" not in body else ml_escapes().sub(_unescape_multiline, body)


def _unescape_multiline(match: re.Match[str]) -> str:
    return "" if match.group()[1] in " \t\n" else unescape(match)


LONG_LINE = 256
"""From this length on, ``plain_string_pair`` reads a line before ``PAIR`` is tried: the regex
costs per character, and a pooled protocol's ``[pools]`` lines are thousands of characters each."""
_PLAIN_STRING_TEXT = bytes(set(range(0x20, 0x7F)) - {ord("\\")}) + b"\t"
"""What a basic string (or key) holds unescaped in ASCII: no control character but tab, no
backslash (so no escape to decode); the quotes around them are the split's."""


def plain_string_pair(line: str) -> tuple[str, str] | None:
    """(key, value) of a line of ``LONG_LINE`` characters or more that is exactly ``"KEY" = "VALUE"``,
    both basic strings of printable ASCII or tab without a backslash, by ``str.split`` and
    ``bytes.translate`` in C (a third of the time of ``PAIR`` on such a line); None for any other
    line (``PAIR`` then reads it). Five parts of a split on the quote are ``''``, the key, `` = ``,
    the value and ``''`` exactly when the line is two such strings with `` = `` between and
    nothing before or after."""
    if len(line) < LONG_LINE:
        return None
    parts = line.split('"')
    if len(parts) != 5 or parts[0] or parts[2] != " = " or parts[4] or not line.isascii():
        return None
    if line.encode("ascii").translate(None, _PLAIN_STRING_TEXT):
        return None
    return parts[1], parts[3]


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
