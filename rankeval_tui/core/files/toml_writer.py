"""tomli-w's TOML, byte for byte, written fast: the writer of protocol.toml and qrels.toml.

Why: tomli-w escapes strings one character at a time in Python. At 100,000 documents that is
over half of ``init`` (every document text goes through it), and a qrels file of 1M labels
spends most of its write formatting the same 1,000 document keys a thousand times over.

What: the same output as ``tomli_w.dumps(data)`` (its defaults: no multi-line strings, indent
4), for the values the project writes: dicts, lists and tuples of them, ``str``, ``int``,
``float`` and ``bool`` (exact types). Anything else (a date, a Decimal, a Mapping that is not a
dict, a non-string key) is handed whole to tomli-w, so it stays the writer of record: its
output, its errors. tests/core/test_toml_writer.py checks equality with tomli-w, and the round
trip through tomllib, on generated data with hostile strings and keys.

How it is fast: a string needing no escape (almost every ID and most texts) is quoted as it
is, found by one regex search; the six compact escapes are ``str.replace`` calls at C speed,
and only the rare other control characters go through a regex callback. Keys are formatted once
per ``dumps`` call (a qrels file repeats its corpus' keys in every query's table).
"""

from __future__ import annotations

import re
from collections.abc import Callable

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~3 ms of every start-up, issue 32)
if TYPE_CHECKING:
    from typing import Any

INDENT = "    "
MAX_LINE_LENGTH = 100
"""tomli-w's limit for an array of tables written inline (``is_suitable_inline_table``)."""

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_NEEDS_ESCAPE = re.compile(r'[\x00-\x08\x0a-\x1f\x7f"\\]')
"""What a basic string cannot hold as it is: ASCII control characters but tab, ``"`` and ``\\``."""
_OTHER_CONTROL = re.compile(r"[\x00-\x07\x0b\x0e-\x1f\x7f]")
"""The control characters without a compact escape: written ``\\uXXXX`` as tomli-w does."""
_SCALARS = frozenset((str, int, bool, float))
_INTEGERS = frozenset((int,))


class _Unsupported(Exception):
    """A value outside the types above: the whole document goes to tomli-w."""


def dumps(data: dict[str, Any]) -> str:
    """``tomli_w.dumps(data)``, the same text."""
    if type(data) is not dict:
        return _tomli_w_dumps(data)
    writer = _Writer()
    try:
        writer.table(data, "", inside_array=False)
    except _Unsupported:
        return _tomli_w_dumps(data)
    return "".join(writer.out)


def _tomli_w_dumps(data: Any) -> str:
    import tomli_w

    return tomli_w.dumps(data)


def basic_string(text: str) -> str:
    """A TOML basic string (``"..."``) holding ``text``, escaped as tomli-w escapes it."""
    if _NEEDS_ESCAPE.search(text) is None:
        return f'"{text}"'
    escaped = (
        text.replace("\\", "\\\\")
        .replace('"', '\\"')
        .replace("\n", "\\n")
        .replace("\r", "\\r")
        .replace("\b", "\\b")
        .replace("\f", "\\f")
    )
    if _OTHER_CONTROL.search(escaped) is not None:
        escaped = _OTHER_CONTROL.sub(_unicode_escape, escaped)
    return f'"{escaped}"'


def _unicode_escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def key_part(key: object) -> str:
    """One key of a dotted path: bare when it can be, else a basic string (tomli-w's rule)."""
    if type(key) is not str:
        raise _Unsupported  # tomli-w raises its own TypeError
    return key if _BARE_KEY.fullmatch(key) else basic_string(key)


class _Keys(dict[object, str]):
    """Formatted keys, each formatted once per document."""

    def __missing__(self, key: object) -> str:
        formatted = self[key] = key_part(key)
        return formatted


class _Writer:
    def __init__(self) -> None:
        self.out: list[str] = []
        self.keys = _Keys()
        self.inline_tables: dict[int, str] = {}
        """Rendered inline tables by id, as tomli-w caches them (each is rendered twice otherwise)."""

    def table(self, table: dict[Any, Any], name: str, *, inside_array: bool) -> None:
        """tomli-w's ``gen_table_chunks``: the table's header, its plain values, then its
        sub-tables (a blank line before each), arrays of tables as ``[[name]]``."""
        keys, out = self.keys, self.out
        kinds = set(map(type, table.values()))
        tables: list[tuple[Any, dict[Any, Any], bool]] = []
        if kinds <= _SCALARS:  # plain values only: a qrels row, a document's fields
            literals = table
        else:
            literals, tables = self.split(table)
        written = False
        if inside_array or (name and (literals or not tables)):
            written = True
            out.append(f"[[{name}]]\n" if inside_array else f"[{name}]\n")
        if literals:
            written = True
            if kinds == _INTEGERS:  # a row of labels: one join at C speed, no Python per line
                values = map(str, literals.values())
                out.append("\n".join(map(" = ".join, zip(map(keys.__getitem__, literals), values))) + "\n")
            else:
                literal = self.literal
                out.extend([f"{keys[k]} = {literal(v)}\n" for k, v in literals.items()])
        for key, sub_table, in_array in tables:
            if written:
                out.append("\n")
            written = True
            part = keys[key]
            self.table(sub_table, f"{name}.{part}" if name else part, inside_array=in_array)

    def split(self, table: dict[Any, Any]) -> tuple[dict[Any, Any], list[tuple[Any, dict[Any, Any], bool]]]:
        """A table's plain values (arrays written inline among them) and its sub-tables, each
        with whether it is an item of an array of tables."""
        literals: dict[Any, Any] = {}
        tables: list[tuple[Any, dict[Any, Any], bool]] = []
        for key, value in table.items():
            kind = type(value)
            if kind is dict:
                tables.append((key, value, False))
            elif (kind is list or kind is tuple) and value and all(type(item) is dict for item in value):
                if all(self.fits_inline(item) for item in value):
                    literals[key] = value  # short tables: one inline array
                else:
                    tables.extend((key, item, True) for item in value)
            elif kind in _SCALARS or kind is list or kind is tuple:
                literals[key] = value  # an array's items are checked as they are written
            else:
                raise _Unsupported
        return literals, tables

    def literal(self, value: Any, nest_level: int = 0) -> str:
        """tomli-w's ``format_literal`` for the exact types this writer takes."""
        kind = type(value)
        if kind is str:
            return basic_string(value)
        if kind is bool:
            return "true" if value else "false"
        if kind is int or kind is float:
            return str(value)
        if kind is list or kind is tuple:
            if not value:
                return "[]"
            item_indent = INDENT * (1 + nest_level)
            items = ",\n".join(item_indent + self.literal(item, nest_level + 1) for item in value)
            return f"[\n{items},\n{INDENT * nest_level}]"
        if kind is dict:
            return self.inline_table(value)
        raise _Unsupported

    def inline_table(self, table: dict[Any, Any]) -> str:
        rendered = self.inline_tables.get(id(table))
        if rendered is None:
            literal: Callable[[Any], str] = self.literal
            body = ", ".join(f"{self.keys[k]} = {literal(v)}" for k, v in table.items())
            rendered = self.inline_tables[id(table)] = "{ " + body + " }" if table else "{}"
        return rendered

    def fits_inline(self, table: dict[Any, Any]) -> bool:
        """tomli-w's ``is_suitable_inline_table``: an array's table is written inline when short."""
        rendered = f"{INDENT}{self.inline_table(table)},"
        return len(rendered) <= MAX_LINE_LENGTH and "\n" not in rendered
