"""The spans of a TOML text between bracket lines, and sections that repeat another one's keys.

Why a module of its own: ``fasttoml`` reads line by line; these two helpers work on the text
itself, at C speed, for the shape of a qrels file: thousands of ``[qrels.QUERY]`` sections, each
listing the same documents in the same order with a label 0 or 1 (as this project and tomli-w
write them). Finding the sections with ``str.find`` and reading a repeated section as "the first
one's text, with a 0 or 1 at each label" (one regular expression) is about half the time per
million pairs of looking every line up (docs/benchmarks.md, "fifth round").
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property

from rankeval_tui.core.files.lazy_pattern import on_first_use
from rankeval_tui.core.files.toml_bodies import LabelBodies, LabelPositions, binary_pair
from rankeval_tui.core.files.toml_grammar import TAIL

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: every command pays for its imports at start-up
if TYPE_CHECKING:
    from typing import Any

_LABEL = "([01])"
separator_pattern = on_first_use(rf"{TAIL}\n(?:{TAIL}\n)*")
"""What may separate one pair line's label from the next pair line: the rest of its line, its
newline, and blank or comment lines."""


def section_starts(text: str, start: int = 0) -> Iterator[int]:
    """The offsets of the lines of ``text`` from ``start`` (a line's start) that start with ``[``,
    found one at a time with ``str.find`` (a reader that stops early scans no further)."""
    if text[start : start + 1] == "[":
        yield start
    position = text.find("\n[", start)
    while position != -1:
        yield position + 1
        position = text.find("\n[", position + 1)


@dataclass(frozen=True)
class BinaryTemplate:
    """A section body whose pair lines have the labels 0 or 1, as read once by the line parser:
    another body is the same table with other labels exactly when it is the same text but for
    those label characters (and the blank lines at its end). ``pattern`` is that text with a
    group at each label, so one ``fullmatch`` in C tells a body and reads its labels."""

    source: str
    """The pattern's text, compiled on the first match (the second section, when it is as long)."""
    length: int
    """The body's length without its blank lines at the end: labels keep it."""
    keys: tuple[str, ...]
    first: str
    """The labels of the body it was made from, in key order, as ``0``/``1`` characters."""
    zeros: dict[str, int] = field(compare=False)
    """Every key with the label 0: copied into each table (a dict copies its stored hashes)."""

    @classmethod
    def of(cls, body: str, pairs: Sequence[tuple[str, int] | None]) -> BinaryTemplate | None:
        """The template of ``body``, whose lines up to its last newline are ``pairs``: (key, column
        of its label) for a pair line with the label 0 or 1, None for a blank or comment line.
        None when there is no pair or a key repeats."""
        lines = body.split("\n")
        if len(lines) != len(pairs) + 1 or lines[-1] != "":
            return None
        pieces: list[str] = []
        keys: list[str] = []
        labels: list[str] = []
        offset = start = 0
        for line, pair in zip(lines, pairs):
            if pair is not None:
                key, column = pair
                pieces.append(re.escape(body[start : offset + column]))
                start = offset + column + 1
                keys.append(key)
                labels.append(line[column])
            offset += len(line) + 1
        if not keys or len(set(keys)) != len(keys):
            return None
        pieces.append(re.escape(body[start:].rstrip("\n")))
        source = _LABEL.join(pieces) + "\n*"
        return cls(source, len(body.rstrip("\n")), tuple(keys), "".join(labels), dict.fromkeys(keys, 0))

    @cached_property
    def pattern(self) -> re.Pattern[str]:
        return re.compile(self.source)

    def labels(self, body: str) -> str | None:
        """The labels of ``body`` in key order (``0``/``1`` characters) if it is this template's
        text but for them and its blank lines at the end; else None."""
        match = self.pattern.fullmatch(body)
        return None if match is None else "".join(match.groups())


class SeparatedTemplate:
    """Section bodies whose pair lines repeat one body's (keys, spacing, order) with other labels,
    while what separates one pair from the next varies: a comment after some pairs only, blank
    lines and comment lines between some (``d1 = 0  # seen``, then ``d2 = 1``). Each separator
    seen between two pairs (the rest of a pair line, its newline and any blank or comment lines
    after it) is replaced by a bare newline with ``str.replace``; what is left must then be
    blank or comment lines, the pairs' text but for their labels one per line, and the rest of
    the last pair's line and blank or comment lines: one ``fullmatch``, as ``BinaryTemplate``.

    Why this reads a body exactly as tomllib does: every separator is ``TAIL\\n(TAIL\\n)*``
    (``TAIL``: blanks and an optional comment), so putting one back in place of a newline adds
    blanks or a comment to the end of a line and inserts blank or comment lines, whatever was
    there; the pair lines that ``fullmatch`` found keep their keys and labels, and no other line
    can appear. A body that does not match (a separator not seen yet, a line that is not a
    pair) is no harm: the caller reads it another way."""

    MAX_SEPARATORS = 8
    """Each separator is one pass of ``str.replace`` over a body: past a handful (a comment that
    differs on every line), the line cache is quicker."""

    def __init__(self, cores: tuple[str, ...], keys: tuple[str, ...], separators: frozenset[str]) -> None:
        self.cores = cores
        """Each pair line up to its label, which ends it: ``d1 = 0`` reads ``d1 = ``."""
        self.keys = keys
        self.zeros = dict.fromkeys(keys, 0)
        self.separators = separators
        self.replaced = sorted(separators - {"\n"}, key=len, reverse=True)
        """Longest first, so a separator is replaced before one it contains."""

    @cached_property
    def pattern(self) -> re.Pattern[str]:
        """Blank or comment lines, the pairs one per line, the rest of the last one's line and
        blank or comment lines (a body may end the file without a newline); compiled when first
        used, not for a body whose keys rule the template out."""
        pairs = "\\n".join(re.escape(core) + _LABEL for core in self.cores)
        return re.compile(f"(?:{TAIL}\\n)*{pairs}{TAIL}(?:\\n{TAIL})*")

    @classmethod
    def of(cls, body: str) -> SeparatedTemplate | None:
        """The template of ``body`` (pairs with the label 0 or 1 under distinct keys, blank and
        comment lines), or None when it is not such a body or has too many separators."""
        cores: list[str] = []
        keys: list[str] = []
        separators: set[str] = set()
        separator = None  # what follows the last pair so far
        for line in body.split("\n"):
            pair = binary_pair(line)
            if pair is False:
                return None
            if pair is None:
                separator = None if separator is None else separator + line + "\n"
                continue
            key, column = pair  # type: ignore[misc]
            if separator is not None:
                separators.add(separator)
            cores.append(line[:column])
            keys.append(key)
            separator = line[column + 1 :] + "\n"
        if not keys or len(set(keys)) != len(keys) or len(separators) > cls.MAX_SEPARATORS:
            return None
        if not all(separator_pattern().fullmatch(separator) for separator in separators):
            return None  # cannot happen for lines _binary_pair read; kept as the proof's premise
        return cls(tuple(cores), tuple(keys), frozenset(separators))

    def labels(self, body: str) -> str | None:
        """The labels of ``body`` in key order, or None when it is not this template's pairs."""
        for separator in self.replaced:
            body = body.replace(separator, "\n")
        match = self.pattern.fullmatch(body)
        return None if match is None else "".join(match.groups())

    def learn(self, body: str) -> bool:
        """Take ``body``'s separators too, when ``body`` has the same pairs' text and the
        separators stay few; else False (and nothing changes)."""
        other = SeparatedTemplate.of(body)
        if other is None or other.cores != self.cores:
            return False
        separators = self.separators | other.separators
        if len(separators) > self.MAX_SEPARATORS:
            return False
        self.separators = separators
        self.replaced = sorted(separators - {"\n"}, key=len, reverse=True)
        return True


class BinaryBodies:
    """The bodies of successive sections, read by the first one's template while they repeat it
    but for their labels; from the first that does not, by a ``SeparatedTemplate`` while the
    pairs repeat but what separates them varies; then (for good: a file's layout does not change
    back) by ``LabelBodies``."""

    TEMPLATE_MIN_BODIES = 400
    """A template is a regular expression with a group per key: compiling it costs far more a key
    than each body it reads saves against the line cache, so it pays only from several hundred
    bodies on. Measured with realistic IDs, 1M-2M pairs and fresh compiles, template against line
    cache, from 10 queries x 100,000 documents (few bodies: the line cache wins by far) to
    10,000 x 200 (many bodies: the template wins); the two break even near 500 x 2,000."""

    def __init__(self, text_length: int) -> None:
        self.text_length = text_length
        """The whole text's length: how many bodies like the first it holds at most."""
        self.template: BinaryTemplate | None = None
        """The first body's template: it reads the bodies until one differs in more than its labels
        (None when the text holds too few bodies like it for a template to pay: the line cache
        reads them all)."""
        self.separated: SeparatedTemplate | None = None
        """Set from the first body the first template did not read; from then on it reads them."""
        self.bodies: LabelBodies | None = None
        self.count = 0
        self.labels: str | None = None
        """The last body's labels, when a template read it (else ``lines``)."""
        self.keys: tuple[str, ...] = ()
        self.zeros: dict[str, int] = {}
        self.lines: dict[str, int] | list[tuple[str, int] | tuple[()]] | None = None

    def read(self, body: str) -> bool:
        """Whether the next section's ``body`` is readable here (``fill`` then puts it)."""
        self.count += 1
        self.labels = None
        if self.count == 1 and self.text_length >= self.TEMPLATE_MIN_BODIES * len(body):
            self.template = first_template(body)
            if self.template is not None:
                return self._read_by(self.template, self.template.first)
        elif self.bodies is None and self.template is not None:
            found = self._by_templates(body, self.template)
            if found is not None:
                return self._read_by(*found)
        bodies = self.bodies = self.bodies or LabelBodies()
        by_positions = bodies.by_positions(body)
        if by_positions is not None:
            return self._read_by(*by_positions)
        self.lines = bodies.read(body)
        return self.lines is not None

    def _by_templates(self, body: str, first: BinaryTemplate) -> tuple[BinaryTemplate | SeparatedTemplate, str] | None:
        """The template that reads ``body`` and its labels: the ``first`` body's until a body
        differs in more than its labels, then the separated one."""
        if self.separated is None and (self.count > 2 or len(body.rstrip("\n")) == first.length):
            labels = first.labels(body)  # (a second body of another length compiles no pattern)
            if labels is not None:
                return first, labels
        labels = self._separated_labels(body, first.keys)
        return None if labels is None or self.separated is None else (self.separated, labels)

    def _separated_labels(self, body: str, keys: tuple[str, ...]) -> str | None:
        """``body``'s labels by the separated template, learning its separators when they are
        new; None (and the line cache from now on) when that cannot read it. Only bodies with
        the first body's ``keys`` in its order (a qrels file) are tried: other rows (a partial
        row with other keys) would compile a template for nothing."""
        separated = self.separated
        if separated is None:
            separated = SeparatedTemplate.of(body)
            if separated is None or separated.keys != keys:
                return None
            self.separated = separated
        elif (labels := separated.labels(body)) is not None:
            return labels
        elif not separated.learn(body):
            return None
        return separated.labels(body)

    def _read_by(self, template: BinaryTemplate | SeparatedTemplate | LabelPositions, labels: str) -> bool:
        self.labels, self.keys, self.zeros = labels, template.keys, template.zeros
        return True

    def fill(self, table: dict[str, Any]) -> bool:
        """Put the last body read into ``table``, unless it has keys already: with a template,
        every key with 0 is copied in at once (a dict copies its stored hashes), then the ones set."""
        if self.labels is None:
            assert self.lines is not None  # read() took the body
            return LabelBodies.fill(self.lines, table)
        if table:
            return False
        keys, labels = self.keys, self.labels
        table.update(self.zeros)
        position = labels.find("1")
        while position != -1:
            table[keys[position]] = 1
            position = labels.find("1", position + 1)
        return True


def first_template(body: str) -> BinaryTemplate | None:
    """The template of a body whose lines are pairs with the label 0 or 1, blanks and comments;
    None from the first line that is not (a chunk map's one table of 200,000 string pairs is
    not read twice)."""
    pairs: list[tuple[str, int] | None] = []
    for line in body.split("\n")[:-1]:
        pair = binary_pair(line)
        if pair is False:
            return None
        pairs.append(pair)  # type: ignore[arg-type]
    return BinaryTemplate.of(body, pairs)
