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
per ``dumps`` call (a qrels file repeats its corpus' keys in every query's table). The two big
shapes are written without Python work per entry:

- a table of records (``[documents."ID"]`` with string fields, 100,000 of them at init): every
  string of every record is checked by one regex search over all of them joined, escaped (when
  one needs it) by the same ``str.replace`` calls over the joined text, and each record is one
  ``%`` format of a template made once per record shape;
- a row of integer labels (``[qrels."q:1001"]``, a million lines in all): one ``%`` format of
  a template holding the row's formatted keys, made once and reused while the next row has the
  same keys in the same order (every row of exhaustive qrels).
"""

from __future__ import annotations

import re
from collections.abc import Callable

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: every command pays for its imports at start-up
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
_BARE_LINE = re.compile(r"^[A-Za-z0-9_-]+$", re.MULTILINE)
"""A bare key, as a whole line of keys joined by newlines (a key holding a newline is not bare)."""
_SCALARS = frozenset((str, int, bool, float))
_INTEGERS = frozenset((int,))
_STRINGS = frozenset((str,))
_DICTS = frozenset((dict,))
_SEPARATOR = "\uffff"
"""Joins many strings to escape them at once: no escape touches it, and a text holding it (a
Unicode noncharacter) is seen by a count and escaped on its own."""


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
    return f'"{_escaped(text)}"'


def string_bodies(texts: list[str]) -> list[str]:
    """What goes between the quotes of ``basic_string(text)`` for each of ``texts``, found for
    all of them at once: every escape maps one character, so escaping the texts joined is
    joining them escaped."""
    if not texts:
        return []
    joined = _SEPARATOR.join(texts)
    if _NEEDS_ESCAPE.search(joined) is None:
        return texts
    if joined.count(_SEPARATOR) != len(texts) - 1:  # a text holds the separator itself
        return [_escaped(text) for text in texts]
    return _escaped(joined).split(_SEPARATOR)


def _escaped(text: str) -> str:
    """``text`` with tomli-w's escapes: backslash, quote, the compact ones, ``\\uXXXX`` for other controls."""
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
    return escaped


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
        self.row_keys: list[Any] = []
        self.row_template = ""
        """The last row of integers' keys, and its ``%`` template (rows of qrels share them)."""

    def table(self, table: dict[Any, Any], name: str, *, inside_array: bool) -> None:
        """tomli-w's ``gen_table_chunks``: the table's header, its plain values, then its
        sub-tables (a blank line before each), arrays of tables as ``[[name]]``."""
        keys, out = self.keys, self.out
        kinds = set(map(type, table.values()))
        tables: list[tuple[Any, dict[Any, Any], bool]] = []
        if kinds <= _SCALARS:  # plain values only: a qrels row, a document's fields
            literals = table
        elif kinds == _DICTS and (records := self.records(table, name)) is not None:
            if inside_array:
                out.append(f"[[{name}]]\n\n")
            out.append(records)
            return
        else:
            literals, tables = self.split(table)
        written = False
        if inside_array or (name and (literals or not tables)):
            written = True
            out.append(f"[[{name}]]\n" if inside_array else f"[{name}]\n")
        if literals:
            written = True
            if kinds == _INTEGERS:  # a row of labels: one format at C speed, no Python per line
                out.append(self.integer_row(literals))
            else:
                literal = self.literal
                out.extend([f"{keys[k]} = {literal(v)}\n" for k, v in literals.items()])
        for key, sub_table, in_array in tables:
            if written:
                out.append("\n")
            written = True
            part = keys[key]
            self.table(sub_table, f"{name}.{part}" if name else part, inside_array=in_array)

    def integer_row(self, row: dict[Any, int]) -> str:
        """``KEY = VALUE`` lines of a table of ints: the template of the row's keys is made when
        they differ from the last row's, and filled with the values in one ``%`` format."""
        row_keys = list(row)
        if row_keys != self.row_keys:
            formatted = "\n".join(map(self.keys.__getitem__, row_keys)).replace("%", "%%")
            self.row_keys, self.row_template = row_keys, formatted.replace("\n", " = %d\n") + " = %d\n"
        return self.row_template % tuple(row.values())

    def records(self, table: dict[Any, dict[Any, Any]], name: str) -> str | None:
        """Sub-tables holding strings only (documents, queries), each ``[NAME.KEY]`` and its
        ``FIELD = "..."`` lines, with a blank line between two: all strings escaped at once
        (``string_bodies``), each record one ``%`` format of its shape's template. None when
        the table is not of that kind (a record empty or holding anything but strings)."""
        records = list(table.values())
        if set(map(type, records[0].values())) != _STRINGS or not all(records):
            return None  # the first record decides cheaply for a table of qrels rows
        texts = [text for record in records for text in record.values()]
        if set(map(type, texts)) != _STRINGS:
            return None
        bodies = string_bodies(texts)
        headers = self.key_parts(list(table))
        shapes = list(map(tuple, records))
        prefix = (f"[{name}." if name else "[").replace("%", "%%")
        templates = {
            shape: prefix + "%s]\n" + "".join(f'{self.keys[field].replace("%", "%%")} = "%s"\n' for field in shape)
            for shape in set(shapes)
        }
        if len(templates) == 1:
            ((shape, template),) = templates.items()
            width = len(shape)
            columns = [bodies[i::width] for i in range(width)]
            return "\n".join(map(template.__mod__, zip(headers, *columns)))
        chunks = []
        position = 0
        for header, shape in zip(headers, shapes):
            end = position + len(shape)
            chunks.append(templates[shape] % (header, *bodies[position:end]))
            position = end
        return "\n".join(chunks)

    def key_parts(self, names: list[Any]) -> list[str]:
        """``key_part`` of many keys: bare ones as they are, the others quoted, escaped at once."""
        if set(map(type, names)) != _STRINGS:
            raise _Unsupported  # tomli-w raises its own TypeError
        if all(names) and _BARE_KEY.fullmatch("".join(names)):
            return names
        bodies = string_bodies(names)
        if _BARE_LINE.search("\n".join(names)) is None:  # none is bare
            return list(map('"{}"'.format, bodies))
        bare = _BARE_KEY.fullmatch
        return [name if bare(name) else f'"{body}"' for name, body in zip(names, bodies)]

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
