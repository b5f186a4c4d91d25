"""The one TOML layout the project writes, read fast; ``tomllib`` reads every other layout.

protocol.toml and qrels.toml are written by tomli-w (``tomlio.dump_toml``): ``[table]`` and
``[table."key"]`` headers, each followed by ``key = value`` lines (an integer, ``true``/``false``
or a basic string), a blank line between tables. A qrels file is a million such lines, and
``tomllib`` reads them one character at a time; here whole runs of sections (the headers of
one top-level table in a row, each run's end found by one regex search) are read with a few
regular expressions and string operations in C:

- records (``[documents."d1"]`` then ``text = "..."``, the same fields in every section): a run
  under quoted headers split at its quotes as written, the headers' IDs among the strings;
  under bare headers its bodies joined and split so; one match per section of a pattern made
  from the first one when a value is not a plain string;
- rows of integer labels (``[qrels."q:1001"]`` then ``"d17" = 0`` lines): an exhaustive file's
  distinct rows read once; rows of quoted keys split at their quotes as written, a few million
  characters at a time; other rows' bodies joined and split so;
- a table of plain strings (``[pools]``: ``"q:1" = "d1 d2 ..."``) split at its quotes;
- any other section of that grammar (``[protocol]``, comments, arrays) line by line.

A run's headers are looked for one by one (one regex scan of the run) only by the readers that
need them: records under quoted headers need none. Nothing copies the text section by section.

Each top-level table is read fast only when every section of it is in that grammar; the
sections of any other top-level table (``[[provenance.growth]]``, an array, a dotted key, a
float...) go to tomllib together, in their order: a top-level table's sections depend on no
other table's, so the two readings side by side are the whole file's. Anything else this module
is not certain of (a carriage return, a multi-line string, a header of another shape, a table
declared twice, text before the first header) makes ``read`` return None, and the caller gives
the whole text to tomllib, which reads it or names its error.

The contract (tests/core/test_toml_layout.py, differential tests against tomllib): whenever
``read(text)`` returns a reading, ``tomllib.loads(text)`` succeeds and equals its data, with
the same types and key order.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import accumulate, chain, compress, islice, repeat
from operator import is_, itemgetter, sub

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: every command pays for its imports at start-up
if TYPE_CHECKING:
    from typing import Any

_BARE = r"[A-Za-z0-9_-]+"
_PLAIN = r'[^"\\\x00-\x08\x0a-\x1f\x7f]*'
_STRING = rf'"{_PLAIN}(?:\\(?:[btnfr"\\]|u(?![dD][89abAB])[0-9A-Fa-f]{{4}}){_PLAIN})*"'
"""A basic string whose escapes mean the same in JSON (``json`` reads them): the compact ones
and ``\\u`` of a Unicode scalar value (a surrogate is refused by TOML, paired by JSON)."""
_KEY = f"{_BARE}|{_STRING}"
_INT = r"-?(?:0|[1-9][0-9]{0,17})"
"""A decimal integer as tomli-w writes it, far from Python's digit limit."""
_VALUE = f"{_INT}|true|false|{_STRING}|\\[\\]"
_COMMENT = r"#[^\x00-\x08\x0a-\x1f\x7f]*"

_OTHER_HEADER = re.compile(rf"\[\[?({_KEY})(?:\.(?:{_KEY}))*\]\]?")
"""An array-of-tables header or a deeper one: its top-level table goes to tomllib."""
_BLANK = re.compile(rf"(?:(?:{_COMMENT})?\n)*")
_PAIR = re.compile(rf"({_KEY}) = ({_VALUE})")


SMALL_TABLES = ("provenance", "adjudication")
"""Top-level tables the project itself writes with arrays or arrays of tables (``grow``'s
``[[provenance.growth]]``): tomllib reads them, and a file is in the canonical layout still."""


class _Unsupported(Exception):
    """Not this layout: the caller hands the whole text to tomllib."""


class _NotFast(Exception):
    """A section outside the fast grammar: its top-level table goes to tomllib."""


@dataclass(frozen=True)
class Reading:
    data: dict[str, Any]
    by_tomllib: tuple[str, ...]
    """The top-level tables tomllib read (outside the fast grammar): none in the files the project
    writes but ``[provenance]`` and ``[adjudication]`` holding arrays or arrays of tables."""


def read(text: str) -> Reading | None:
    """``text`` read (then equal to ``tomllib.loads(text)``), or None when tomllib must read it all."""
    if not text.endswith("\n"):
        text += "\n"
    try:
        return _read(text)
    except _Unsupported:
        return None


def _read(text: str) -> Reading:
    runs = _runs(text)
    root: dict[str, Any] = {}
    slow: set[str] = set()
    declared: set[str] = set()
    for top, raw_top, start, end in runs:
        root.setdefault(top)
        if top not in slow:
            try:
                _read_run(root, declared, top, raw_top, text, start, end)
            except _NotFast:
                slow.add(top)
    if slow:
        if "\r" in text or '"""' in text or "'''" in text:
            raise _Unsupported  # a header-like line could be a multi-line string's: tomllib reads it all
        parsed = _tomllib("\n".join(text[start:end] for top, _, start, end in runs if top in slow) + "\n")
        if parsed.keys() != slow:
            raise _Unsupported
        root.update(parsed)
    return Reading(root, tuple(top for top in root if top in slow))


def _runs(text: str) -> list[tuple[str, str, int, int]]:
    """Each run of sections of one top-level table (its headers ``[T]``, ``[T.x]`` or
    ``[[T...]]``, one after the other): the table's key, as written, where its first header's
    ``[`` is and where the run ends (the newline before the next run's ``[``, or the text's end).
    One regex search a run finds its end: the sections of a run are found only by the readers
    that need them."""
    start = 0 if text.startswith("[") else text.find("\n[") + 1 or len(text)
    if not _BLANK.fullmatch(text[:start]):
        raise _Unsupported  # pairs before the first header: not the project's layout
    runs = []
    run_ends: dict[str, re.Pattern[str]] = {}
    while start < len(text):
        top, _, other = _header_groups(text, start)
        raw_top = top or _header_parts("[" + other)[0]
        if raw_top not in run_ends:
            run_ends[raw_top] = re.compile(rf"\n\[(?!\[?{re.escape(raw_top)}[.\]])")
        found = run_ends[raw_top].search(text, start)
        end = len(text) if found is None else found.start()
        runs.append((_strings([raw_top])[0], raw_top, start, end))
        start = end + 1
    return runs


def _header_groups(text: str, start: int) -> tuple[str, str, str]:
    """``_HEADER_LINE``'s groups for the line at ``start`` (a ``[``)."""
    line = _HEADER_LINE.match(text, start - 1) if start else _HEADER_LINE.match("\n" + text[: text.index("\n") + 1])
    assert line is not None  # the pattern matches any line that starts with [
    return line.groups("")  # type: ignore[return-value]  # three groups


_HEADER_LINE = re.compile(rf"\n\[(?:({_KEY})(?:\.({_KEY}))?\](?=\n)|([^\n]*))")
"""A line that starts with ``[``, after its newline: ``[a]`` or ``[a.b]`` as their keys, any
other (``[[a.b]]``, ``[a.b.c]``, a header with spaces, not a header at all) whole, after its ``[``."""


@dataclass(frozen=True)
class _Sections:
    """Where each header line and each section body of a text are, found by one regex scan:
    bodies and runs of sections are cut from the text only when a reader asks for them (the
    text is never split into a copy of itself section by section)."""

    text: str
    opens: list[int]
    """Each header's ``[``."""
    bodies: list[int]
    """Each body's first character, after its header line's newline."""
    stops: list[int]
    """Each body's end: the newline before the next header's ``[`` (not in the body), or the
    text's end."""
    groups: list[tuple[str, str, str]]
    """Each header's raw keys (``_HEADER_LINE``'s groups, ``""`` for a group not matched)."""

    @classmethod
    def of(cls, text: str, start: int, end: int) -> _Sections:
        """The sections from ``start`` (a header's ``[``) to ``end`` (the newline before the next
        run's ``[``, or the text's end)."""
        matches = list(_HEADER_LINE.finditer(text, start, min(end + 1, len(text))))  # the first one's newline excluded
        spans = [(start - 1, text.index("\n", start)), *map(re.Match.span, matches)]
        newlines = list(map(itemgetter(0), spans))
        groups: list[tuple[str, str, str]] = [_header_groups(text, start), *map(re.Match.groups, matches, repeat(""))]  # type: ignore[list-item]  # three groups
        return cls(
            text,
            list(map((1).__add__, newlines)),
            list(map((1).__add__, map(itemgetter(1), spans))),
            [*newlines[1:], end],
            groups,
        )

    def bodies_of(self, start: int, end: int) -> list[str]:
        return list(self.each_body(start, end))

    def each_body(self, start: int, end: int) -> Iterator[str]:
        """The bodies of sections ``start`` to ``end``, cut from the text one at a time."""
        return map(self.text.__getitem__, map(slice, self.bodies[start:end], self.stops[start:end]))

    def body_lengths(self, start: int, end: int) -> set[int]:
        return set(map(sub, self.stops[start:end], self.bodies[start:end]))


_DEEP = "\x00deep"
"""The second part of a header read by tomllib: ``[[array.of.tables]]``, ``[a.b.c]``."""


def _subs(groups: list[tuple[str, str, str]]) -> list[str | None]:
    """Each header's second key, unquoted (None: ``[table]``; ``_DEEP``: a header for tomllib)."""
    if any(map(itemgetter(2), groups)):  # a header that is not ``[a]`` or ``[a.b]``
        raw_subs = [sub if top else _header_parts("[" + other)[1] for top, sub, other in groups]
    else:
        raw_subs = list(map(itemgetter(1), groups))
    return list(map(_NOT_A_KEY.get, raw_subs, _strings(raw_subs)))


_NOT_A_KEY: dict[str, str | None] = {"": None, _DEEP: _DEEP}
"""A header's second part that is not a key: none (``[table]``), or a header for tomllib."""


def _header_parts(header: str) -> tuple[str, str]:
    """One header's raw keys, for a header that is not ``[a]`` or ``[a.b]``."""
    if (other := _OTHER_HEADER.fullmatch(header)) is not None:
        return other.group(1), _DEEP
    raise _Unsupported  # spaces in a header, a literal-string key, not a header at all


def _read_run(
    root: dict[str, Any], declared: set[str], top: str, raw_top: str, text: str, start: int, end: int
) -> None:
    """A run of sections of one top-level table (``_runs``): into ``root[top]``, a table
    headers make. Records under quoted headers are split as written (``_quoted_records``); any
    other run is read section by section."""
    table = root[top]
    if table is None:
        table = root[top] = {}
    records = _quoted_records(text, start, end, raw_top)
    if records is not None:
        _declare(table, *records)
        return
    sections = _Sections.of(text, start, end)
    subs = _subs(sections.groups)
    if any(map(is_, subs, repeat(_DEEP))):  # the marker itself, not a key spelled like it
        raise _NotFast
    first = 0
    if subs[0] is None:
        if table or top in declared:
            raise _Unsupported  # [a] after [a.b] (valid, not this layout), or [a] twice
        declared.add(top)
        _add_pairs(table, _pairs(sections.bodies_of(0, 1)[0]))
        first = 1
    if first < len(subs):
        rows = _int_rows(sections, first, len(subs)) or _records(sections, first, len(subs))
        if rows is None:
            rows = [_add_pairs({}, _pairs(body)) for body in sections.each_body(first, len(subs))]
        _declare(table, subs[first:], rows)


def _declare(table: dict[str, Any], subs: Sequence[str | None], rows: list[dict[str, Any]]) -> None:
    """The tables ``[top.SUB]``, each its row, in ``table``."""
    if None in subs or len(set(subs)) != len(subs) or not table.keys().isdisjoint(subs):
        raise _Unsupported  # a table declared twice, or over a value
    table.update(zip(subs, rows))  # type: ignore[arg-type]  # no None among them: checked


def _add_pairs(table: dict[str, Any], pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    size = len(table)
    table.update(pairs)
    if len(table) != size + len(pairs):
        raise _Unsupported  # a key twice
    return table


def _pairs(body: str) -> list[tuple[str, Any]]:
    """A body read line by line: pairs, tomli-w's arrays of scalars (``key = [``, an
    ``    item,`` line each, ``]``), blank lines and comments."""
    string_pairs = _string_pairs(body)
    if string_pairs is not None:
        return string_pairs
    keys, values, arrays = [], [], {}
    lines = iter(body.split("\n"))
    for line in lines:
        if (pair := _PAIR.fullmatch(line)) is not None:
            keys.append(pair.group(1))
            values.append(pair.group(2))
        elif (opening := _ARRAY_OPENING.fullmatch(line)) is not None:
            keys.append(opening.group(1))
            values.append("[")
            arrays[len(values) - 1] = _array_items(lines)
        elif not _BLANK.fullmatch(line + "\n"):
            raise _NotFast
    read = _values([value for value in values if value != "["]) if len(arrays) < len(values) else []
    scalars = iter(read)
    return list(zip(_strings(keys), [arrays[i] if i in arrays else next(scalars) for i in range(len(values))]))


def _string_pairs(body: str) -> list[tuple[str, Any]] | None:
    """A body of nothing but ``"KEY" = "TEXT"`` lines, without escapes (a ``[pools]`` table: a
    line of a hundred IDs for each query), split at its quotes in C; None for any other body.
    Split so, such a body is ``"", K, " = ", V, "\\n", K, ...``, and no key or text holds a
    newline (one a line), a backslash or another control character than a tab (checked)."""
    parts = body.split('"')
    if parts[0] or len(parts) % 4 != 1 or set(parts[2::4]) != {" = "} or set(parts[4::4]) != {"\n"}:
        return None
    data = body.encode()
    if body.count("\n") != len(parts) // 4 or len(data.translate(None, _NOT_IN_KEYS)) != len(data):
        return None
    return list(zip(parts[1::4], parts[3::4]))


_ARRAY_OPENING = re.compile(rf"({_KEY}) = \[")
_ARRAY_ITEM = re.compile(rf"    ({_VALUE}),")


def _array_items(lines: Iterator[str]) -> list[Any]:
    """The items of an array tomli-w wrote over lines, up to its ``]`` line."""
    items: list[str] = []
    for line in lines:
        if line == "]":
            return _values(items) if items else []
        if (item := _ARRAY_ITEM.fullmatch(line)) is None:
            raise _NotFast
        items.append(item.group(1))
    raise _NotFast


def _int_rows(sections: _Sections, start: int, end: int) -> list[dict[str, Any]] | None:
    """Sections ``start`` to ``end`` of ``key = D`` lines, D one digit (a qrels file's rows:
    binary or graded labels), read together by whole-text operations in C; None for other
    bodies (``_records`` or line by line then). Rows with the first row's keys (an exhaustive
    file) share its key strings; rows of quoted keys under quoted headers (a pooled file of
    real IDs) are read from the text as it is (``_quoted_rows``), without cutting their bodies."""
    first = _label_cells(sections.bodies_of(start, start + 1))
    if first is None:
        return None
    if len(sections.body_lengths(start, end)) == 1:
        same = _same_keys_labels(sections.bodies_of(start, end), first[0])
        if same is not None:
            return same
    rows = _quoted_rows(sections, start, end)
    if rows is not None:
        return rows
    bodies = sections.bodies_of(start, end)
    cells = _label_cells(bodies)
    if cells is None:
        return None
    keys, labels = cells
    return _rows(keys, labels, list(map(str.count, bodies, repeat("\n"))))


def _rows(
    keys: list[str], labels: Sequence[int | None], counts: list[int], *, after_header: bool = False
) -> list[dict[str, int]]:
    """Rows of ``counts`` pairs each, in order (``after_header``: each after its header's key, skipped)."""
    skip = int(after_header)
    key_iter, label_iter = iter(keys), iter(labels)
    rows = [dict(zip(islice(key_iter, skip, count + skip), islice(label_iter, skip, count + skip))) for count in counts]
    if sum(map(len, rows)) != len(keys) - skip * len(counts):
        raise _Unsupported  # a key twice in a row
    return rows  # type: ignore[return-value]  # the labels of pairs are ints


def _row_separators(top: str) -> dict[str, int | None]:
    """What may stand between two keys in a run of ``[TOP."QUERY"]`` rows of quoted keys: a
    header's ``]\n`` (None), a label's line end (its label), or the last one's with the next header's opening."""
    ends = {f" = {digit}\n": digit for digit in range(10)}
    return {"]\n": None, **ends, **{f"{end}\n[{top}.": digit for end, digit in ends.items()}}


_CHUNK = 1 << 22
"""Characters of rows ``_quoted_rows`` splits at once: the pieces of one chunk are alive
together, not the whole file's (a million labels are two million pieces)."""


def _quoted_rows(sections: _Sections, start: int, end: int) -> list[dict[str, int]] | None:
    """The rows of sections ``[T."QUERY"]`` then ``"KEY" = D`` lines (a basic string without
    escapes, D a digit), a blank line between sections; None for any other text.

    Split at its quotes, such a run of sections is ``[T.``, then a header's key and ``]\n``,
    its row's keys each followed by `` = D\n``, the last by `` = D\n\n[T.`` before the next
    header's key, by turns: each piece between two keys must be one of those (a dict lookup),
    no key holds a backslash or control character (checked) or a newline (each body's newlines
    are its pairs: the counts add up), and each header's key is where its body's count puts it."""
    top = sections.groups[start][0]
    separators = _row_separators(top)
    rows: list[dict[str, int]] = []
    text, opens, stops = sections.text, sections.opens, sections.stops
    chunk_start = start
    while chunk_start < end:
        chunk_end = max(chunk_start + 1, bisect_left(opens, opens[chunk_start] + _CHUNK, chunk_start, end))
        run = text[opens[chunk_start] : stops[chunk_end - 1]]
        data = run.encode()
        if len(data.translate(None, _NOT_IN_KEYS)) != len(data):
            return None
        parts = run.split('"')
        del run, data
        if parts[0] != f"[{top}.":
            return None
        keys = parts[1::2]
        try:
            labels = list(map(separators.__getitem__, parts[2::2]))
        except KeyError:
            return None
        del parts
        counts = list(
            map(text.count, repeat("\n"), sections.bodies[chunk_start:chunk_end], stops[chunk_start:chunk_end])
        )
        headers = list(accumulate(map((1).__add__, counts), initial=0))[:-1]  # each header's key among the keys
        if len(keys) != len(counts) + sum(counts) or labels.count(None) != len(counts):
            return None
        if set(map(labels.__getitem__, headers)) != {None}:
            return None
        rows += _rows(keys, labels, counts, after_header=True)
        chunk_start = chunk_end
    return rows


_DIGIT_LABELS = {str(digit): digit for digit in range(10)}
_DIGIT_VALUES = bytes.maketrans(b"0123456789", bytes(range(10)))


def _zeroed(text: str, digits: set[str]) -> str:
    """``text`` with the label of each line ending `` = D`` set to 0 (same length, same keys)."""
    for digit in digits - {"0"}:
        text = text.replace(f" = {digit}\n", " = 0\n")
    return text


def _same_keys_labels(bodies: list[str], keys: list[str]) -> list[dict[str, int]] | None:
    """Each body's row, when every body (all of the same length) is the first one with other
    one-digit labels (an exhaustive file: every row the corpus in corpus order): with every
    label set to 0 they are one text. None otherwise. (Setting a label to 0 changes a digit
    between `` = `` and a newline, which no key holds: the keys stay.) Each distinct body is
    read once (a tall file of 10 documents has at most 1,024), and its row copied; ``bodies``
    are released before the rows are made (the caller keeps no reference to the list)."""
    distinct = list(dict.fromkeys(bodies))
    lines = distinct[0].split("\n")[:-1]
    if len(keys) < 2 or len(lines) != len(keys):
        return None  # blank lines
    if len(distinct) > 1 and distinct[1].partition(" = ")[0] != distinct[0].partition(" = ")[0]:
        return None  # a row of another first key (a pooled file): no label read in vain
    ends = accumulate(map(len, lines))  # each line's last character, after its newline's
    labels = list(map(itemgetter(*[end + index - 1 for index, end in enumerate(ends)]), distinct))
    digits = set(chain.from_iterable(labels))
    if not digits <= _DIGIT_LABELS.keys():
        return None
    zeroed: Iterable[str] = distinct
    for digit in digits - {"0"}:
        zeroed = map(str.replace, zeroed, repeat(f" = {digit}\n"), repeat(" = 0\n"))
    if not all(map(_zeroed(distinct[0], digits).__eq__, zeroed)):  # compared one by one: no copy kept, none hashed
        return None
    if len(set(keys)) != len(keys):
        raise _Unsupported  # a key twice
    index_of = dict(zip(distinct, range(len(distinct))))
    order = None if len(distinct) == len(bodies) else list(map(index_of.__getitem__, bodies))
    del bodies, distinct, index_of  # the texts go before the rows are made (the caller keeps none)
    zeros = dict.fromkeys(keys, 0)
    rows = []
    for text_labels in labels:  # each row a copy of the zeros (a table cloned whole), its other labels set
        row, values = zeros.copy(), "".join(text_labels).encode().translate(_DIGIT_VALUES)  # a byte per label
        row.update(zip(compress(keys, values), filter(None, values)))
        rows.append(row)
    if order is None:
        return rows
    return list(map(dict, map(rows.__getitem__, order)))  # a table of its own for each query


_LABEL_ENDS = {f" = {digit}\n": digit for digit in range(10)}
_NOT_IN_KEYS = bytes([*range(0x09), *range(0x0B, 0x20), 0x5C, 0x7F])
"""Bytes no key or plain string holds: a control character (a quoted key may hold a tab) or a
backslash (no escape to decode)."""
_BARE_KEY_BYTES = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"


def _label_cells(bodies: list[str]) -> tuple[list[str], list[int]] | None:
    """The keys and labels of bodies whose lines are all ``"KEY" = D`` (a basic string without
    escapes) or all ``KEY = D`` (a bare key), D a digit; None otherwise.

    Bare keys are quoted first. Split at the quotes, the text is ``"", K, " = D\\n", K, ...``:
    each second part must be a label's line end, and each other one is a key holding no quote
    (the split), backslash or control character (checked) and no newline (one newline a pair)."""
    text = "".join(bodies)
    bare = text[:1] != '"'
    if bare:
        if '"' in text:
            return None
        text = '"' + text.replace(" = ", '" = ').replace("\n", '\n"')[:-1]
    data = text.encode()
    if len(data.translate(None, _NOT_IN_KEYS)) != len(data):
        return None
    parts = text.split('"')
    keys, labels = parts[1::2], list(map(_LABEL_ENDS.get, parts[2::2]))
    if parts[0] or len(keys) != len(labels) or None in labels or text.count("\n") != len(keys):
        return None
    if bare and ("" in keys or "".join(keys).encode().translate(None, _BARE_KEY_BYTES)):
        return None  # not a bare key
    return keys, labels  # type: ignore[return-value]  # no None among them


class _Integers(dict[str, int]):
    """Integer texts to ints, each distinct text parsed once."""

    def __missing__(self, text: str) -> int:
        value = self[text] = int(text)
        return value


def _integers() -> Callable[[str], int]:
    return _Integers().__getitem__


def _records(sections: _Sections, start: int, end: int) -> list[dict[str, Any]] | None:
    """Sections ``start`` to ``end`` holding the same keys in the same order (``text = ...``,
    ``split = ...``): split at their quotes when every value is a string without escapes
    (``_string_records``), else one pattern made from the first body's keys finds every record;
    None for other bodies. The records found, in order and apart, tile the text exactly when
    their lengths add up to it."""
    fields = _record_fields(sections.bodies_of(start, start + 1)[0])
    if fields is None:
        return None
    raw_keys, strings_only = fields
    bodies = sections.bodies_of(start, end)
    if strings_only:
        records = _string_records(bodies, raw_keys)
        if records is not None:
            return records
    text = "\n".join(bodies)
    while "\n\n" in text:
        text = text.replace("\n\n", "\n")
    text = text.strip("\n") + "\n"
    found = re.findall("".join(f"{re.escape(key)} = ({_VALUE})\n" for key in raw_keys), text)
    columns = [found] if len(raw_keys) == 1 else list(map(list, zip(*found)))
    fixed = sum(len(key) + 4 for key in raw_keys)
    if len(found) != len(bodies) or fixed * len(found) + sum(sum(map(len, column)) for column in columns) != len(text):
        return None
    return list(map(dict, map(zip, repeat(_strings(raw_keys)), zip(*map(_values, columns)))))


def _record_fields(body: str) -> tuple[list[str], bool] | None:
    """The keys of a body of pairs, as written, and whether they are all bare with string values
    (a record ``_string_records`` may split); None for a body of other lines."""
    pairs = [_PAIR.fullmatch(line) for line in body.split("\n") if line]
    if not pairs or None in pairs:
        return None
    raw_keys = [pair.group(1) for pair in pairs if pair is not None]
    if len(set(_strings(raw_keys))) != len(raw_keys):
        raise _Unsupported  # a key twice
    return raw_keys, all(key[0] != '"' and pair.group(2)[0] == '"' for key, pair in zip(raw_keys, pairs) if pair)


def _quoted_records(text: str, start: int, end: int, top: str) -> tuple[list[str], list[dict[str, Any]]] | None:
    """The IDs and records of a run of ``[TOP."ID"]`` sections, each the first one's bare keys
    with strings without escapes (a protocol's documents and queries), split as written at
    their quotes: every header's ID is a string before its record's (no header is looked for
    apart); None for any other run."""
    opening = f"[{top}."
    if not text.startswith(opening + '"', start):
        return None
    body_start = text.index("\n", start) + 1
    if _RECORD_OPENING.match(text, body_start) is None:
        return None  # not a record of strings (rows of labels: ``"KEY" = D``)
    body_end = text.find("\n[", body_start, end)
    fields = _record_fields(text[body_start : end if body_end < 0 else body_end])
    if fields is None or not fields[1]:
        return None
    keys = fields[0]
    between = [f"]\n{keys[0]} = ", *[f"\n{key} = " for key in keys[1:]], f"\n\n[{top}."]
    strings = _quoted_strings(text[start:end], opening, between)
    if strings is None:
        return None
    width = len(between)
    columns = [strings[column::width] for column in range(1, width)]
    return strings[0::width], list(map(dict, map(zip, repeat(keys), zip(*columns))))


_RECORD_OPENING = re.compile(f'{_BARE} = "')


def _string_records(bodies: list[str], keys: list[str]) -> list[dict[str, Any]] | None:
    """Records of bare keys and strings without escapes (``text = "..."`` then ``split = "..."``
    in every body), the bodies joined and split at their quotes in C; None for other bodies."""
    strings = _quoted_strings(
        "".join(bodies), f"{keys[0]} = ", [*[f"\n{key} = " for key in keys[1:]], f"\n{keys[0]} = "]
    )
    if strings is None or len(strings) != len(keys) * len(bodies):  # no body empty
        return None
    width = len(keys)
    return list(map(dict, map(zip, repeat(keys), zip(*[strings[column::width] for column in range(width)]))))


def _quoted_strings(text: str, opening: str, between: list[str]) -> list[str] | None:
    """The strings of ``text`` split at its quotes, when it is ``opening``, then a string and
    each of ``between`` by turns, the very last one a newline (not the next section's
    opening), and no string holds a newline, a backslash or a control character but a tab (no
    escape to decode: each is its value); None otherwise. With what stands between the strings
    known, the text's newlines are theirs, or a string holds one (checked by count).

    Each of ``between`` is first replaced by a control character of its own (which no string
    holds: checked before), so that the split makes no new string between two strings: one
    character is a string CPython keeps once, where a separator of its own per record would
    be made and dropped again, a hole among the strings kept."""
    data = text.encode()
    if len(data.translate(None, _NOT_IN_KEYS)) != len(data):
        return None
    newlines = text.count("\n")
    separators = between
    if len(between) <= len(_MARKS):
        for separator, mark in zip(between, _MARKS):
            text = text.replace(f'"{separator}"', f'"{mark}"')
        between = list(_MARKS[: len(between)])
    parts = text.split('"')
    count, rest = divmod(len(parts) - 1, 2 * len(between))
    if rest or not count:
        return None
    expected = [opening, *between * count]
    expected[-1] = "\n"
    in_separators = count * sum(map(str.count, separators, repeat("\n"))) - separators[-1].count("\n") + 1
    if parts[0::2] != expected or newlines != opening.count("\n") + in_separators:
        return None
    return parts[1::2]


_MARKS = "\x01\x02\x03\x04\x05\x06\x07\x08"
"""Characters ``_NOT_IN_KEYS`` keeps out of every string: what stands between strings, marked."""


_DECODER = json.JSONDecoder(strict=False)
"""JSON's reader of strings: the escapes ``_STRING`` allows mean the same in both; raw tabs
(which TOML allows) are let through, every other control character is refused by ``_STRING``."""


def _strings(raw: list[str]) -> list[str]:
    """Keys or basic strings as matched (bare or quoted): their values, all at once."""
    joined = "\n".join(raw)
    if "\\" not in joined:
        return joined.replace('"', "").split("\n") if raw else []
    quoted = [text if text.startswith('"') else f'"{text}"' for text in raw]
    strings: list[str] = _DECODER.decode("[" + ",".join(quoted) + "]")
    return strings


def _values(raw: list[str]) -> list[Any]:
    """Values as matched by ``_VALUE``: integers, booleans, strings and empty arrays."""
    kinds = {text[0] for text in raw}
    if kinds == {'"'}:
        return _strings(raw)
    if kinds <= _INTEGER_STARTS:
        return list(map(_integers(), raw))
    strings = iter(_strings([text for text in raw if text[0] == '"']))
    return [
        next(strings) if text[0] == '"' else [] if text == "[]" else text == "true" if text[0] in "tf" else int(text)
        for text in raw
    ]


_INTEGER_STARTS = frozenset("-0123456789")


def _tomllib(text: str) -> dict[str, Any]:
    """tomllib's reading of the tables outside the fast grammar; any error: the whole text to tomllib."""
    from rankeval_tui.core.files.tomllib_compat import tomllib  # on first need (tomllib_compat)

    try:
        return tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError, ValueError):
        raise _Unsupported from None
