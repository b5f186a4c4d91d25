"""A fast, verified TOML reader for any layout of the project's files; ``tomllib`` stays the parser of record.

Why: ``tomllib.loads`` of a 1M-pair qrels.toml takes seconds, almost all of ``load_protocol``.
Most lines of a qrels file (``d17 = 0``, ``"msmarco_v2.1_doc_00_12345" = 0``) repeat from one
query to the next, so a line parser with a line cache turns them into one dictionary look-up
each, whatever the keys look like. Lines it does not know are handed to tomllib one at a time,
and multi-line constructs one table section at a time, so a rare construct costs tomllib's
speed on its own line or section, never on the whole file (no cliff). Before the line parser,
sections that repeat the first one's text but for labels 0/1 (a qrels file as tomli-w writes
it, in any spacing) are read from the text itself, without splitting it into lines
(``_binary_sections``, ``toml_spans.BinaryTemplate``); the line parser reads from the first
section that does not.

The contract (checked by ``tests/core/test_fasttoml.py`` with a differential hypothesis test
against tomllib): **whenever ``loads(text)`` returns a dict, ``tomllib.loads(text)`` succeeds
and returns an equal dict, with the same types and the same key order.** Whenever this module
is not certain, it returns ``None`` and the caller parses the whole text with tomllib, which
accepts it or gives the proper error. So this module never rejects and never raises.

The fast grammar, line by line (TOML 1.0 and tomllib agree on all of it):

- Lines end at ``\\n``; ``\\r\\n`` is a newline too. Any other ``\\r`` means ``None``.
- Whitespace is space and tab. A line is blank, a comment (no control character but tab), a
  header, a key/value pair, or part of a tomli-w multi-line array. A header or a pair may end
  in a comment.
- Keys are bare (``A-Za-z0-9_-``), basic strings (``"q:1001"``, escapes allowed) or literal
  strings (``'a.b'``). Headers are dotted paths of such keys with optional spaces
  (``[ qrels . "a.b" ]``).
- A header names a table for the first time (a second ``[x]`` is ``None``) and walks only
  through tables made by headers: a prefix that is a value, or a table made by a line handed to
  tomllib (an inline table, a dotted key), is ``None``. Tables made implicitly by ``[a.b]`` may
  be declared later by ``[a]``, as tomllib allows; dictionaries keep first-creation order.
- A key already present in its table is ``None``.
- Values: integers ``[+-]?(0|[1-9](_?[0-9])*)`` of at most 18 digits (never near 64 bits nor
  Python's int-digit limit), ``true``/``false``, single-line basic strings (no raw control
  character but tab; escapes ``\\b \\t \\n \\f \\r \\" \\\\``, ``\\uXXXX``/``\\UXXXXXXXX`` naming a
  Unicode scalar value), single-line literal strings, one-line arrays of those, and tomli-w's
  multi-line array (``key = [`` alone, one scalar and a comma per line, ``]`` alone).

Everything else is delegated, never guessed:

- a ``key = value`` line with one key and any other single-line value (floats, dates, inline
  tables, nested arrays, ...) goes to ``tomllib.loads(line)``;
- a line that is not valid on its own (a dotted key, the start of a multi-line string or
  array, ...) makes its whole table section (its header to the next line that is a header)
  go to tomllib; the section's keys replace the ones read so far in that section;
- a ``[[array of tables]]`` section goes to tomllib and its table is appended to the array
  (made by ``[[...]]`` headers only; a header into it, ``[a.b]`` after ``[[a]]``, is ``None``);
- any section or line tomllib rejects means ``None``: the whole text goes to tomllib, which
  accepts it or gives its error. So do four valid constructs no file of the project has:
  a header into an array of tables or into a table a dotted key made (``a.b = 1`` then
  ``[a.c]``), a dotted key reaching into a table an earlier header
  implied (``[a.b.c]`` then ``[a]`` with ``b.d = 1``), and a multi-line string with a line that
  reads as a header.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable
from itertools import chain, islice
from typing import Any

from rankeval_tui.core.files.toml_grammar import (
    ARRAY_HEADER,
    BLANK_OR_COMMENT,
    CLOSE,
    HEADER,
    ITEM,
    KEYS,
    ONE_KEY,
    PAIR,
    SCALARS,
    Unsupported,
    key_of,
    scalar_of,
)
from rankeval_tui.core.files.toml_spans import BinaryTemplate, section_starts

UNKNOWN = ("", None)
"""The line cache's default: a line not seen yet (a tuple, so the cache stays one type)."""

if sys.version_info >= (3, 11):
    import tomllib as tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib


def _value(token: str, lines: list[str], at: int) -> tuple[Any, int]:
    """The value of a pair's value token, and the index of the pair's last line."""
    if token == "[":
        return _multiline_array(lines, at)
    if token[0] == "[":
        return [scalar_of(item.group()) for item in SCALARS.finditer(token, 1)], at
    return scalar_of(token), at


def _multiline_array(lines: list[str], at: int) -> tuple[list[Any], int]:
    """tomli-w's multi-line array after ``key = [`` on line ``at``: ``item,`` lines, then ``]``."""
    items: list[Any] = []
    for index in range(at + 1, len(lines)):
        line = lines[index]
        if CLOSE.fullmatch(line):
            return items, index
        item = ITEM.fullmatch(line)
        if item is None:
            raise Unsupported
        items.append(scalar_of(item.group(1)))
    raise Unsupported  # end of text before "]"


def _tables_in(value: Any) -> Iterable[dict[str, Any]]:
    """Every dictionary inside a value tomllib produced (inline tables, dotted-key tables)."""
    if type(value) is dict:
        yield value
        for inner in value.values():
            yield from _tables_in(inner)
    elif type(value) is list:
        for inner in value:
            yield from _tables_in(inner)


def _tomllib(text: str) -> dict[str, Any]:
    """tomllib's answer for a piece of the text, or ``Unsupported`` for anything it refuses."""
    try:
        return tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError, ValueError):
        raise Unsupported from None


def _is_header(line: str) -> bool:
    """A line that ends a section: a header, or an array-of-tables header. Inside a multi-line
    string such a line ends the section too early; tomllib then rejects the section (``None``)."""
    return line.lstrip(" \t").startswith("[") and (
        HEADER.fullmatch(line) is not None or ARRAY_HEADER.fullmatch(line) is not None
    )


def _binary_pair(line: str) -> tuple[str, int] | bool | None:
    """A pair line whose value is the label 0 or 1 as (key, column of the label); None for a
    blank or comment line; False for anything else."""
    pair = PAIR.fullmatch(line)
    if pair is None:
        return None if BLANK_OR_COMMENT.fullmatch(line) else False
    if pair.group(2) not in ("0", "1"):
        return False
    return key_of(pair.group(1)), pair.start(2)


def _path(header: re.Match[str]) -> tuple[str, ...]:
    return tuple(key_of(part) for part in KEYS.findall(header.group(1)))


class _Reader:
    """One parse: the root, the current table and what headers and delegated lines made."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.root: dict[str, Any] = {}
        self.table = self.root
        self.section_start = 0
        """Index of the current section's header line (0 and no header for the root section)."""
        self.keys_before_section = 0
        """How many keys the current table had at its header: tables implied by earlier headers."""
        self.declared: set[tuple[str, ...]] = set()
        self.arrays: set[int] = set()
        """ids of the arrays ``[[...]]`` headers made (alive in ``root``): the only arrays a
        later ``[[...]]`` of the same path may append to."""
        self.opaque: dict[int, dict[str, Any]] = {}
        """Tables tomllib made (inline or dotted) by id: a header may not walk into them. The
        values keep them alive (a section re-read drops them from ``root``), so no new table
        can reuse one of these ids during the parse."""

    def parse(self) -> dict[str, Any]:
        """Read every line (what ``_binary_sections`` did not read).

        ``key = 0`` lines repeat across a qrels file: their (key, value) is cached by the line's
        text, and blank and comment lines as None. Only immutable int/bool/str values are cached,
        so the cache cannot alias a list. A line seen before costs one look-up and one insertion."""
        known: dict[str, tuple[str, Any] | None] = {}
        look_up, table = known.get, self.table
        rows = enumerate(self.lines)
        for index, line in rows:
            hit = look_up(line, UNKNOWN)
            if hit is None:
                continue
            if hit is not UNKNOWN:
                key, value = hit
                if key in table:
                    raise Unsupported
                table[key] = value
                continue
            following = self.read_line(index, known)
            for _ in islice(rows, following - index - 1):
                pass  # lines a multi-line value or a delegated section took
            table = self.table
        return self.root

    def read_line(self, index: int, known: dict[str, tuple[str, Any] | None]) -> int:
        """A line not seen before (a pair, a header, a blank or comment line, or something to
        delegate); returns the index of the next line to read."""
        lines, line = self.lines, self.lines[index]
        pair = PAIR.fullmatch(line)
        if pair is not None:
            try:
                key = key_of(pair.group(1))
                value, last = _value(pair.group(2), lines, index)
            except Unsupported:
                return self.delegate(index)
            if key in self.table:
                raise Unsupported
            self.table[key] = value
            if type(value) is not list:
                known[line] = (key, value)
            return last + 1
        if (header := HEADER.fullmatch(line)) is not None:
            self.enter(index, _path(header))
            return index + 1
        if (header := ARRAY_HEADER.fullmatch(line)) is not None:
            return self.append_table(index, _path(header))
        if BLANK_OR_COMMENT.fullmatch(line):
            known[line] = None
            return index + 1
        return self.delegate(index)

    def enter(self, index: int, path: tuple[str, ...]) -> None:
        """A ``[path]`` header on line ``index``: declare it and make it the current table."""
        if path in self.declared:
            raise Unsupported
        self.declared.add(path)
        table = self.root
        for part in path:
            table = table.setdefault(part, {})
            if type(table) is not dict or id(table) in self.opaque:
                raise Unsupported
        self.table, self.section_start, self.keys_before_section = table, index, len(table)

    def append_table(self, index: int, path: tuple[str, ...]) -> int:
        """A ``[[path]]`` section on line ``index``: tomllib reads it (a few lines in the files that
        have one: protocol.toml's growth records), we append its table; returns the next index."""
        end = self.section_end(index)
        parsed: Any = _tomllib("\n".join(self.lines[index:end]))
        for part in path:
            parsed = parsed[part]
        parent = self.root
        for part in path[:-1]:
            parent = parent.setdefault(part, {})
            if type(parent) is not dict or id(parent) in self.opaque:
                raise Unsupported
        array = parent.get(path[-1])
        if array is None:
            array = parent[path[-1]] = []
            self.arrays.add(id(array))
        elif id(array) not in self.arrays:
            raise Unsupported  # a value, a table, or an array a [[...]] did not make
        array.append(parsed[0])
        self.opaque.update((id(table), table) for table in _tables_in(parsed[0]))
        self.table = {}  # nothing may follow before the next header (section_end)
        return end

    def section_end(self, index: int) -> int:
        """The index of the first header line after line ``index`` (or the end of the text)."""
        end = index + 1
        while end < len(self.lines) and not _is_header(self.lines[end]):
            end += 1
        return end

    def delegate(self, index: int) -> int:
        """Give line ``index`` to tomllib alone if it is one complete ``key = value``, else its
        whole section; returns the index of the next line to read."""
        line = self.lines[index]
        if line.lstrip(" \t").startswith("["):
            raise Unsupported  # [[arrays of tables]] or a header outside the grammar
        one_key = ONE_KEY.match(line)
        if one_key is not None:
            try:
                parsed = _tomllib(line)
                key = key_of(one_key.group(1))
            except Unsupported:
                pass  # not complete on its own line: a multi-line value or a dotted key
            else:
                if list(parsed) != [key] or key in self.table:
                    raise Unsupported
                self.add(parsed)
                return index + 1
        return self.delegate_section(index)

    def delegate_section(self, index: int) -> int:
        """Re-read the current section (its header to the next header) with tomllib."""
        end = self.section_end(index)
        parsed = _tomllib("\n".join(self.lines[self.section_start : end]))
        if self.table is not self.root:
            header = HEADER.fullmatch(self.lines[self.section_start])
            assert header is not None  # the section started at a header the grammar matched
            for part in _path(header):
                parsed = parsed[part]
        for key in list(self.table)[self.keys_before_section :]:
            del self.table[key]  # read fast before the delegated line: tomllib's copy replaces them
        if any(key in self.table for key in parsed):
            raise Unsupported
        self.add(parsed)
        return end

    def add(self, parsed: dict[str, Any]) -> None:
        """Keys tomllib parsed into the current table; their tables become opaque to headers."""
        for key, value in parsed.items():
            self.table[key] = value
            self.opaque.update((id(table), table) for table in _tables_in(value))


def _binary_sections(reader: _Reader, text: str) -> int | None:
    """With ``reader`` at the start of ``text``, read the leading ``[header]`` sections whose
    bodies repeat the first body but for their labels 0/1 (``toml_spans.BinaryTemplate``) from
    the text alone, without splitting it into lines: a qrels file's millions of lines. Returns
    the offset of the first section it did not read (0 when the text before the first header
    is not blank lines and comments; ``len(text)`` when it read all); ``parse`` reads the rest.
    None when it entered a header it then could not fill (a table implied earlier): start over.

    Sections start at a ``[`` after a newline: a header indented by blanks inside a body makes
    that body differ from the template's, whose lines are pairs, blanks and comments only."""
    starts = section_starts(text)
    offset = next(starts, len(text))
    if any(BLANK_OR_COMMENT.fullmatch(line) is None for line in text[:offset].split("\n")):
        return 0
    template: BinaryTemplate | None = None
    for number, following in enumerate(chain(starts, (len(text),))):
        newline = text.find("\n", offset, following)
        header = HEADER.fullmatch(text, offset, newline) if newline != -1 else None
        if header is None:
            return offset
        body = text[newline + 1 : following]
        if template is None:
            pairs = [_binary_pair(line) for line in body.split("\n")[:-1]]
            template = None if False in pairs else BinaryTemplate.of(body, pairs)  # type: ignore[arg-type]
            labels = None if template is None else template.first
        elif number == 1 and len(body.rstrip("\n")) != template.length:
            labels = None  # not a copy of the first body (no pattern compiled for it)
        else:
            labels = template.labels(body)
        if template is None or labels is None:
            return offset
        reader.enter(number, _path(header))
        if not template.fill(labels, reader.table):
            return None
        offset = following
    return len(text)


def loads(text: str) -> dict[str, Any] | None:
    """Parse ``text`` (then equal to ``tomllib.loads(text)``), or ``None`` when tomllib must decide."""
    if "\r" in text:
        if text.count("\r") != text.count("\r\n"):
            return None  # a lone carriage return: tomllib rejects it
        text = text.replace("\r\n", "\n")
    try:
        reader = _Reader([])
        done = _binary_sections(reader, text)
        if done is None:
            reader, done = _Reader([]), 0
        if done == len(text) and text:
            return reader.root
        reader.lines = text[done:].split("\n")
        return reader.parse()
    except Unsupported:
        return None
