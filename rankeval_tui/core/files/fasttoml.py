"""A fast, verified TOML reader for any layout of the project's files; ``tomllib`` stays the parser of record.

Why: ``tomllib.loads`` of a 1M-pair qrels.toml takes seconds, almost all of ``load_protocol``.
Most lines of a qrels file (``d17 = 0``, ``"msmarco_v2.1_doc_00_12345" = 0``) repeat from one
query to the next, so a line parser with a line cache turns them into one dictionary look-up
each, whatever the keys look like. Lines it does not know are handed to tomllib one at a time,
and multi-line constructs one table section at a time, so a rare construct costs tomllib's
speed on its own line or section, never on the whole file (no cliff). Before the line parser,
sections of ``key = 0|1`` pairs, blank lines and comments (a qrels file, in any spacing) are
read by ``_binary_sections``: while they repeat the first one's text but for the labels, by one
template match each (``toml_spans.BinaryTemplate``); while their pair lines repeat but the
comments and blank lines between them vary, by the same match after each known separator is
replaced by a newline (``toml_spans.SeparatedTemplate``); else by a line cache over the split
body at C speed (``toml_spans.LabelBodies``). From the first section that is not of that shape,
runs of sections with one header prefix and the same string keys (protocol.toml's 100,000
``[documents."ID"]`` tables, ``text = "..."``) are read by one regex each
(``toml_runs``), and the line parser reads what lies between runs (``toml_runs.read_sections``).

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
  strings (``'a.b'``). Headers and pair keys are dotted paths of such keys with optional spaces
  (``[ qrels . "a.b" ]``, ``meta . "x.y" = 1``).
- Headers and dotted keys follow TOML's rules on tables as tomllib applies them
  (``toml_tables.Namespaces``): a header declares a table once and walks through tables headers
  or dotted keys made, never into a value, an inline table or a table tomllib made; a dotted
  key extends only tables dotted keys made in its own section or tables a header implied.
  Tables made implicitly by ``[a.b]`` may be declared later by ``[a]``; dictionaries keep
  first-creation order. Anything those rules refuse is ``None``.
- A key already present in its table is ``None``.
- Values: integers ``[+-]?(0|[1-9](_?[0-9])*)`` of at most 18 digits (never near 64 bits nor
  Python's int-digit limit), ``true``/``false``, single-line basic strings (no raw control
  character but tab; escapes ``\\b \\t \\n \\f \\r \\" \\\\``, ``\\uXXXX``/``\\UXXXXXXXX`` naming a
  Unicode scalar value), single-line literal strings, one-line arrays of those, tomli-w's
  multi-line array (``key = [`` alone, one scalar and a comma per line, ``]`` alone), and
  multi-line basic and literal strings over any number of lines (escapes and line-ending
  backslashes in basic ones; a line inside that reads as a header or a pair is string text).

Everything else is delegated, never guessed:

- a pair line (dotted or not) with any other single-line value (floats, dates, inline tables,
  nested arrays, ...) gets its value from ``tomllib.loads(line)``; a line with one key and an
  immutable value is then cached like any other;
- a line that is not valid on its own (a multi-line array tomli-w does not write, a multi-line
  string inside an array, ...) makes its whole table section (its header to the next line that
  is a header) go to tomllib; the section's keys replace the ones read so far in that section;
- a ``[[array of tables]]`` section goes to tomllib and its table is appended to the array
  (made by ``[[...]]`` headers only; a header into it, ``[a.b]`` after ``[[a]]``, is ``None``);
- any section or line tomllib rejects means ``None``: the whole text goes to tomllib, which
  accepts it or gives its error. So do two valid constructs no file of the project has:
  a header into an array of tables (``[a.b]`` after ``[[a]]``) and, in a section that goes to
  tomllib, a multi-line string with a line that reads as a header.
"""

from __future__ import annotations

import re
from itertools import islice

from rankeval_tui.core.files.toml_grammar import (
    ARRAY_HEADER,
    BLANK_OR_COMMENT,
    CLOSE,
    HEADER,
    ITEM,
    KEYS,
    PAIR,
    Unsupported,
    assignment,
    dotted_pair,
    key_of,
    multiline_string_of,
    plain_string_pair,
    scalar_of,
    scalars,
)
from rankeval_tui.core.files.toml_runs import LabelledRuns, read_sections
from rankeval_tui.core.files.toml_spans import BinaryBodies, section_starts
from rankeval_tui.core.files.toml_tables import Namespaces

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: every command pays for its imports at start-up
if TYPE_CHECKING:
    from typing import Any

UNKNOWN = ("", None)
"""The line cache's default: a line not seen yet (a tuple, so the cache stays one type)."""


def _value(token: str, lines: list[str], at: int) -> tuple[Any, int]:
    """The value of a pair's value token, and the index of the pair's last line."""
    if token == "[":
        return _multiline_array(lines, at)
    if token.startswith(('"""', "'''")):
        return _multiline_string(token, lines, at)
    if token[0] == "[":
        return [scalar_of(item.group()) for item in scalars().finditer(token, 1)], at
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


def _multiline_string(token: str, lines: list[str], at: int) -> tuple[str, int]:
    """A multi-line string from ``token`` (its opening delimiter and the rest of line ``at``) to
    the first line after which it is complete: each line holding the delimiter is a candidate end
    (an escaped quote or a fourth quote is not one), tried in order."""
    delimiter = token[:3]
    if delimiter in token[3:] and (value := multiline_string_of(token)) is not None:
        return value, at
    for last in range(at + 1, len(lines)):
        if delimiter in lines[last]:
            value = multiline_string_of("\n".join([token, *lines[at + 1 : last + 1]]))
            if value is not None:
                return value, last
    raise Unsupported  # not closed, or not a string tomllib reads: its section goes to tomllib


def _tomllib(text: str) -> dict[str, Any]:
    """tomllib's answer for a piece of the text, or ``Unsupported`` for anything it refuses."""
    from rankeval_tui.core.files.tomllib_compat import tomllib  # on first need (tomllib_compat)

    try:
        return tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError, ValueError):
        raise Unsupported from None


def _immutable(value: Any) -> bool:
    """Whether a line cache may share ``value`` between tables: one of tomllib's scalars. (datetime
    is imported here, not at start-up: only a value tomllib read, which imported it, can be one.)"""
    from datetime import date, datetime, time

    return type(value) in (bool, int, float, str, datetime, date, time)


def _leaf(parsed: dict[str, Any], path: tuple[str, ...]) -> Any:
    """The value at ``path`` in tomllib's reading of one pair line (the line's only key)."""
    value: Any = parsed
    for part in path:
        if type(value) is not dict or list(value) != [part]:
            raise Unsupported  # tomllib read other keys than the grammar did: let it decide
        value = value[part]
    return value


def _is_header(line: str) -> bool:
    """A line that ends a section: a header, or an array-of-tables header. Inside a multi-line
    string such a line ends the section too early; tomllib then rejects the section (``None``)."""
    return line.lstrip(" \t").startswith("[") and (
        HEADER.fullmatch(line) is not None or ARRAY_HEADER.fullmatch(line) is not None
    )


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
        self.namespaces = Namespaces(self.root)

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
        if (plain := plain_string_pair(line)) is not None:  # a [pools] line: "QUERY" = "DOC DOC ..."
            if plain[0] in self.table:
                raise Unsupported
            self.table[plain[0]], known[line] = plain[1], plain
            return index + 1
        pair = PAIR.fullmatch(line)
        if pair is not None:
            try:
                key = key_of(pair.group(1))
                value, last = _value(pair.group(2), lines, index)
            except Unsupported:
                return self.delegate(index, known)
            if key in self.table:
                raise Unsupported
            self.table[key] = value
            if last == index and type(value) is not list:
                known[line] = (key, value)  # (a value over several lines is not the line's alone)
            return last + 1
        if (header := HEADER.fullmatch(line)) is not None:
            self.enter(index, _path(header))
            return index + 1
        if (header := ARRAY_HEADER.fullmatch(line)) is not None:
            return self.append_table(index, _path(header))
        if BLANK_OR_COMMENT.fullmatch(line):
            known[line] = None
            return index + 1
        return self.delegate(index, known)

    def enter(self, index: int, path: tuple[str, ...]) -> None:
        """A ``[path]`` header on line ``index``: declare it and make it the current table."""
        table = self.namespaces.declare(path)
        self.table, self.section_start, self.keys_before_section = table, index, len(table)

    def append_table(self, index: int, path: tuple[str, ...]) -> int:
        """A ``[[path]]`` section on line ``index``: tomllib reads it (a few lines in the files that
        have one: protocol.toml's growth records), we append its table; returns the next index."""
        end = self.section_end(index)
        parsed: Any = _tomllib("\n".join(self.lines[index:end]))
        for part in path:
            parsed = parsed[part]
        self.namespaces.append(path, parsed[0])
        self.table = {}  # nothing may follow before the next header (section_end)
        return end

    def section_end(self, index: int) -> int:
        """The index of the first header line after line ``index`` (or the end of the text)."""
        end = index + 1
        while end < len(self.lines) and not _is_header(self.lines[end]):
            end += 1
        return end

    def delegate(self, index: int, known: dict[str, tuple[str, Any] | None]) -> int:
        """Line ``index`` outside the one-key fast grammar: a dotted key (``a . "b.c" = 1``), a value
        only tomllib reads (a float, a date, an inline table), or a line to give its section to
        tomllib. The keys are read here and put by TOML's rules (``Namespaces.assign``); a value
        outside the fast grammar is tomllib's reading of the line alone, and a line that is not
        complete on its own (an array over lines as tomli-w does not write them) sends its whole
        section to tomllib. Returns the index of the next line to read."""
        line = self.lines[index]
        if line.lstrip(" \t").startswith("["):
            raise Unsupported  # [[arrays of tables]] or a header outside the grammar
        keys = assignment().match(line)
        if keys is None:
            return self.delegate_section(index)
        path = _path(keys)
        try:
            value, last = self.fast_value(line, index)
        except Unsupported:
            try:
                value, last = _leaf(_tomllib(line), path), index
            except Unsupported:
                return self.delegate_section(index)  # not complete on its own line
        self.namespaces.assign(self.table, path, value)
        if len(path) == 1 and last == index and _immutable(value):
            known[line] = (path[0], value)
        return last + 1

    def fast_value(self, line: str, index: int) -> tuple[Any, int]:
        """The value of a dotted pair line in the fast grammar, and the index of its last line."""
        pair = dotted_pair().fullmatch(line)
        if pair is None:
            raise Unsupported
        return _value(pair.group(1), self.lines, index)

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
            self.namespaces.freeze(value)


def _binary_sections(reader: _Reader, text: str, start: int = 0) -> int | None:
    """With ``reader`` at the start of ``text``, read the leading ``[header]`` sections whose
    bodies are ``key = 0|1`` pairs, blank lines and comments from the text alone, without
    splitting it into lines: a qrels file's millions of lines. While the bodies repeat the first
    one but for their labels, one template match reads each (``toml_spans.BinaryTemplate``);
    from the first that does not, the same after its separators are normalised
    (``SeparatedTemplate``), else a line cache over the split body (``LabelBodies``).
    Returns the offset of the first section it did not read (0 when the text before the first
    header is not blank lines and comments; ``len(text)`` when it read all); ``parse`` reads the
    rest. None when it entered a header it then could not fill (a table implied earlier): start over.

    Sections start at a ``[`` after a newline: a header indented by blanks inside a body makes
    that body fail both readers, whose lines are pairs, blanks and comments only. While the
    first body's template (of a few pairs) reads the bodies, runs of sections are read at once
    (``toml_runs.LabelledRuns``: a tall qrels file's 100,000 sections of 10 pairs)."""
    starts = section_starts(text, start)
    offset = next(starts, len(text))
    if any(BLANK_OR_COMMENT.fullmatch(line) is None for line in text[start:offset].split("\n")):
        return start
    bodies = BinaryBodies(len(text))
    runs = LabelledRuns()
    while offset < len(text):
        end, table = runs.read(text, offset, bodies, reader.namespaces)
        if table is not None:
            reader.table, offset = table, end
            continue
        following = text.find("\n[", offset) + 1 or len(text)
        newline = text.find("\n", offset, following)
        header = HEADER.fullmatch(text, offset, newline) if newline != -1 else None
        if header is None:
            return offset
        if not bodies.read(text[newline + 1 : following]):
            return offset
        reader.enter(0, _path(header))  # (no section of it ever goes to tomllib: no line index)
        if not bodies.fill(reader.table):
            return None
        offset = following
    return len(text)


PREFIX_SECTIONS = 16
"""How many sections ``_binary_start`` looks at for the first one of ``key = 0|1`` pairs."""


def _binary_start(text: str) -> int | None:
    """The offset of the first section, among the first few, that starts with a ``key = 0|1``
    line, when sections of other pairs come before it (a qrels file whose ``[provenance]``
    table comes first, as ``init`` writes it): the line reader reads those, ``_binary_sections``
    the rest. None when there is none, or when a multi-line string before it could hold that
    header line as text (the line reader then reads everything, as before)."""
    for number, offset in enumerate(section_starts(text)):
        newline = text.find("\n", offset)
        if number == PREFIX_SECTIONS or newline == -1:
            return None
        end = text.find("\n", newline + 1)
        pair = PAIR.fullmatch(text, newline + 1, len(text) if end == -1 else end)
        if offset and pair is not None and pair.group(2) in ("0", "1") and HEADER.fullmatch(text, offset, newline):
            prefix = text[:offset]
            return None if '"""' in prefix or "'''" in prefix else offset
    return None


def loads(text: str) -> dict[str, Any] | None:
    """Parse ``text`` (then equal to ``tomllib.loads(text)``), or ``None`` when tomllib must decide."""
    if "\r" in text:
        text = text.replace("\r\n", "\n")
        if "\r" in text:
            return None  # a lone carriage return: tomllib rejects it
    answer = _loads(text, runs=True)
    if answer is None and ('"""' in text or "'''" in text):
        return _loads(text, runs=False)  # a run seen inside a multi-line string (read_sections)
    return answer


def _loads(text: str, runs: bool) -> dict[str, Any] | None:
    """``loads`` of a text without carriage returns, looking for runs of sections or not."""
    try:
        reader = _Reader([])
        done = _binary_sections(reader, text)
        if done == 0 and (split := _binary_start(text)) is not None:
            reader.lines = text[:split].split("\n")  # a few other tables first: [provenance]
            reader.parse()
            done = _binary_sections(reader, text, split)
        if done is None:
            reader, done = _Reader([]), 0
        if done == len(text) and text:
            return reader.root
        if not runs:
            reader.lines = text[done:].split("\n")
            return reader.parse()
        return read_sections(reader, text, done)
    except Unsupported:
        return None
