"""Runs of ``[PREFIX.ID]`` sections with the same string keys: read by a regex, not line by line.

Why: protocol.toml holds one section per document and per query, 100,000 of them in the tall and
wide shapes (``[documents."msmarco_v2.1_doc_00_12345"]``, ``text = "..."``, a blank line). The line
reader does several steps in Python for each (a header's path, ``Namespaces.declare``, a ``PAIR``
match a line): most of reading such a file. Here the first section of a run gives a template (its
header's prefix and its keys, in order); the regex of that template matches the next section where
the last one ended (``Pattern.scanner``, the engine of the standard library's ``re.Scanner``: each
match starts where the last ended, found in C), and the tables are built with ``map`` and ``zip``:
about a tenth of the time.

What a run holds, and why tomllib reads it the same (a narrowing of ``fasttoml``'s grammar):

- each section is a header ``[PREFIX ID]`` exactly (no blanks), ``PREFIX`` the first header's
  text up to its last key (``documents.``), ``ID`` a bare key or a basic string; then its pair
  lines ``KEY = "VALUE"``, one blank either side of ``=``, ``KEY`` bare, ``VALUE`` a basic
  string on one line, the template's keys in its order (so no key twice); then empty lines.
  Every line ends in ``\\n``. A header declares the table at ``PREFIX``'s path plus ``ID``;
- a section is matched whole only when a line starting with ``[`` or the end of the text
  follows it: outside a multi-line value such a line starts the next section (a header or
  ``[[...]]``; anything else there is tomllib's error), so the section is complete;
- every table a run declares must be new (not in its parent before, not twice): the run is
  cut before the first that is not, and the line reader reads that section (a table implied
  by an earlier header is valid TOML; a table declared twice is tomllib's error);
- escapes in an ID or a value are decoded as ``toml_grammar.string_of`` decodes them.

``read_sections`` looks for a run only where ``fasttoml``'s line reader would read
a header: never inside a multi-line value.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from itertools import islice, repeat
from operator import add, itemgetter

from rankeval_tui.core.files.lazy_pattern import on_first_use
from rankeval_tui.core.files.toml_grammar import ESCAPE, KEY, KEYS, escapes, key_of, unescape
from rankeval_tui.core.files.toml_spans import BinaryBodies, section_starts
from rankeval_tui.core.files.toml_tables import Namespaces

_CHARS = rf'[^"\\\x00-\x08\x0a-\x1f\x7f]*(?:{ESCAPE}[^"\\\x00-\x08\x0a-\x1f\x7f]*)*'
"""The body of a basic string (``toml_grammar.BASIC`` without its quotes)."""
_BARE = "[A-Za-z0-9_-]+"
_COMPLETE = r"(?=\[|\Z)"
"""The next section or the end of the text follows: the section is complete."""
_END = rf"\n*{_COMPLETE}"
_COMPLETE_LINE = r"(?:(?<=\n)(?=\[)|\Z)"
"""``_COMPLETE`` after a body whose last line may lack its newline (``BinaryTemplate.source``
ends in ``\n*``): the next section starts on a line of its own (``d = 1[qrels.x]`` is
tomllib's error), or the text ends."""
first_section = on_first_use(rf'\[((?:{KEY}\.)+)(?:"{_CHARS}"|{_BARE})\]\n\n*((?:{_BARE} = "{_CHARS}"\n\n*)*){_END}')
"""A section that may start a run: groups (its header's prefix, its pair lines)."""
key_of_pair = on_first_use(rf"(?m)^({_BARE}) = ")
prefixed_header = on_first_use(rf'\[((?:{KEY}\.)+)(?:"{_CHARS}"|{_BARE})\]\n')
"""A header that may start a run of labelled sections: group (its prefix)."""
_LABELS = {"0": 0, "1": 1}
MAX_KEYS = 12
"""Labelled runs read sections of at most this many pairs (a tall qrels file: 10 a query), where
the work per section, not per pair, is the cost. With many pairs (1,000 a query) the template
of ``toml_spans`` is quicker: it copies one table of zeros and sets the ones."""


@lru_cache(maxsize=64)
def section_pattern(prefix: str, keys: tuple[str, ...]) -> re.Pattern[str]:
    """One section of the template ``prefix`` + ``keys``: groups (a quoted ID's body, a bare ID,
    each key's value body)."""
    pairs = "".join(rf'{key} = "({_CHARS})"\n\n*' for key in keys)
    return re.compile(rf'\[{re.escape(prefix)}(?:"({_CHARS})"|({_BARE}))\]\n\n*{pairs}{_END}')


@lru_cache(maxsize=16)
def labelled_section_pattern(prefix: str, body: str) -> re.Pattern[str]:
    """One section of a qrels file: a header below ``prefix``, then ``body``
    (``toml_spans.BinaryTemplate.source``: the first body's text with a group at each label)."""
    return re.compile(rf'\[{re.escape(prefix)}(?:"({_CHARS})"|({_BARE}))\]\n{body}{_COMPLETE_LINE}')


TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: every command pays for its imports at start-up
if TYPE_CHECKING:
    from typing import Any, Protocol

    class LineReader(Protocol):
        """``fasttoml``'s line reader, as ``read_sections`` hands it the text between runs."""

        lines: list[str]
        root: dict[str, Any]
        table: dict[str, Any]
        namespaces: Namespaces

        def parse(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class Run:
    """Sections that one template reads, found at a section start."""

    path: tuple[str, ...]
    """The path of the tables the headers' prefix names: the parent of the run's tables."""
    keys: tuple[str, ...]
    matches: list[re.Match[str]]
    """Each section's match, in order: each starts where the last ended."""

    @property
    def end(self) -> int:
        return self.matches[-1].end()


class SectionRuns:
    """Where in one text the runs are: each tried at a section start, skipping ahead after a miss."""

    MAX_GAP = 64
    """After sections that start no run, the next tried are 1, 2, 3, 5, 9, ... sections on, at most
    this many: a file of thousands of sections of other shapes (qrels the line reader reads)
    costs a few dozen tries, and a run among them is missed by at most this many sections
    (read by the line reader, as before)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.gap = 0

    def find(self, offset: int) -> tuple[int, Run | None]:
        """The first run from ``offset`` (a line's start) on and where it starts, or
        ``(len(text), None)`` when there is none."""
        skip = 0
        for position in section_starts(self.text, offset):
            if skip:
                skip -= 1
                continue
            run = self.run_at(position)
            if run is not None:
                self.gap = 0
                return position, run
            skip, self.gap = self.gap, min(2 * self.gap or 1, self.MAX_GAP)
        return len(self.text), None

    def run_at(self, start: int) -> Run | None:
        """The run at ``start`` (a ``[`` at a line's start), or None when its section starts none."""
        first = first_section().match(self.text, start)
        if first is None:
            return None
        keys = tuple(key_of_pair().findall(first.group(2)))
        if len(set(keys)) != len(keys):
            return None  # a key twice in a table: the line reader leaves it to tomllib
        prefix = first.group(1)
        scanner = section_pattern(prefix, keys).scanner(self.text, start)  # type: ignore[attr-defined]
        matches = list(iter(scanner.match, None))
        path = tuple(key_of(part) for part in KEYS.findall(prefix))
        return Run(path, keys, matches) if matches else None


def read_run(run: Run, namespaces: Namespaces) -> tuple[int, dict[str, Any] | None]:
    """Declare the tables of ``run``'s sections in ``namespaces``, up to the first that is not new;
    returns where the sections read end and the last of their tables, or (when the first is not
    new) where the first section ends and None."""
    rows = rows_of(run.matches)
    if run.matches[0].string.find("\\", run.matches[0].start(), run.end) != -1:
        rows = [tuple(map(_decoded, row)) for row in rows]
    if len(run.keys) == 1:  # (a table per document of protocol.toml: ``text`` only, at a third of the time)
        tables: Iterator[dict[str, Any]] = map(dict.fromkeys, repeat(run.keys), map(itemgetter(2), rows))
    else:
        tables = map(dict, map(zip, repeat(run.keys), map(itemgetter(slice(2, None)), rows)))
    return declare(run.matches, rows, namespaces, run.path, tables)


def rows_of(matches: list[re.Match[str]]) -> list[tuple[str, ...]]:
    """Each section's groups, ``""`` for one that did not take part (a quoted or a bare ID)."""
    return list(map(re.Match.groups, matches, repeat("")))


def declare(
    matches: list[re.Match[str]],
    rows: list[tuple[str, ...]],
    namespaces: Namespaces,
    path: tuple[str, ...],
    tables: Iterator[dict[str, Any]],
) -> tuple[int, dict[str, Any] | None]:
    """Declare the tables of sections (``matches``, their ``rows`` starting with the quoted and the
    bare ID) under ``path``, up to the first whose ID is not new: ``read_run``'s answer."""
    names = list(map(add, map(itemgetter(0), rows), map(itemgetter(1), rows)))
    parent = namespaces.walk(path)
    count = len(names)
    if len(set(names)) != count or not parent.keys().isdisjoint(names):
        count = _new_names(names, parent)
        if count == 0:
            return matches[0].end(), None
        del names[count:]
    made = list(islice(tables, count))
    parent.update(zip(names, made))
    namespaces.declared_in_runs.append(made)
    namespaces.open = set()
    return matches[count - 1].end(), made[-1]


def _new_names(names: list[str], parent: dict[str, Any]) -> int:
    """How many of ``names`` come before the first that is in ``parent`` or earlier in ``names``."""
    seen: set[str] = set()
    for count, name in enumerate(names):
        if name in parent or name in seen:
            return count
        seen.add(name)
    return len(names)


def _decoded(body: str) -> str:
    """A basic string's body (matched by ``_CHARS``) as its value."""
    return body if "\\" not in body else escapes().sub(unescape, body)


def read_labelled_run(
    text: str, start: int, body: str, keys: tuple[str, ...], namespaces: Namespaces
) -> tuple[int, dict[str, Any] | None] | None:
    """The sections from ``start`` whose header is below one prefix and whose body is the
    template ``body`` with other labels (a qrels file's 100,000 ``[qrels."q:1001"]`` of the same
    documents: the tall shape), read as ``read_run`` reads a run: one ``scanner`` match a
    section, the tables made with ``map``. None when the section at ``start`` is not one."""
    header = prefixed_header().match(text, start)
    if header is None:
        return None
    prefix = header.group(1)
    scanner = labelled_section_pattern(prefix, body).scanner(text, start)  # type: ignore[attr-defined]
    matches = list(iter(scanner.match, None))
    if not matches:
        return None
    rows = rows_of(matches)
    if "\\" in "".join(map(itemgetter(0), rows)):
        rows = [(_decoded(row[0]), *row[1:]) for row in rows]
    path = tuple(key_of(part) for part in KEYS.findall(prefix))
    return declare(
        matches,
        rows,
        namespaces,
        path,
        map(dict, map(_Tables(keys).__getitem__, map(itemgetter(slice(2, None)), rows))),
    )


class _Tables(dict[tuple[str, ...], dict[str, int]]):
    """The table of each row of labels (a section's groups after its ID), made once per distinct
    row and copied for each section that has it: with a few keys (``MAX_KEYS``) the rows repeat
    (at most ``2 ** MAX_KEYS`` distinct), and copying a dict is about half the time of building
    one (measured on 100,000 tables of 10 keys)."""

    def __init__(self, keys: tuple[str, ...]) -> None:
        super().__init__()
        self.pair_keys = keys

    def __missing__(self, row: tuple[str, ...]) -> dict[str, int]:
        table = self[row] = dict(zip(self.pair_keys, map(_LABELS.__getitem__, row)))
        return table


class LabelledRuns:
    """When ``fasttoml._binary_sections`` tries ``read_labelled_run``: while the first body's
    template (of at most ``MAX_KEYS`` pairs) reads the bodies, at the next section, and after a
    section it did not read, 1, 2, 3, 5, 9, ... sections later (a file whose sections differ
    costs a few tries)."""

    MAX_GAP = 64

    def __init__(self) -> None:
        self.skip = self.gap = 0

    def read(
        self, text: str, offset: int, bodies: BinaryBodies, namespaces: Namespaces
    ) -> tuple[int, dict[str, Any] | None]:
        """The end of the run read at ``offset`` and its last table, or ``(offset, None)``."""
        template = bodies.template
        if template is None or len(template.keys) > MAX_KEYS or bodies.separated or bodies.bodies:
            return offset, None
        if self.skip:
            self.skip -= 1
            return offset, None
        found = read_labelled_run(text, offset, template.source, template.keys, namespaces)
        if found is None or found[1] is None:
            self.skip, self.gap = self.gap, min(2 * self.gap or 1, self.MAX_GAP)
            return offset, None
        self.gap = 0
        return found


def read_sections(reader: LineReader, text: str, offset: int) -> dict[str, Any]:
    """Read ``text`` from ``offset`` (a line's start, outside any multi-line value) to its end:
    runs of ``[PREFIX.KEY]`` sections of string pairs, the rest by ``fasttoml``'s line
    reader, one chunk between two runs at a time.

    Why a run found by looking at the text is a run of real headers: the chunk before it ends
    at the run's first header, and the line reader reads a chunk only if every multi-line value
    in it ends in it (an unclosed string or array is ``Unsupported``, and so is a section given
    to tomllib that it cannot read alone); so nothing open at the chunk's end makes that line
    part of a value: a text with a run inside a multi-line string is ``None`` here, and ``loads``
    reads it again without runs."""
    runs = SectionRuns(text)
    while True:
        start, run = runs.find(offset)
        if start > offset:
            reader.lines = text[offset:start].split("\n")
            reader.parse()
        if run is None:
            return reader.root
        offset, table = read_run(run, reader.namespaces)
        if table is None:  # its first table is not new: the line reader tells why
            reader.lines = text[start:offset].split("\n")
            reader.parse()
        else:
            reader.table = table
