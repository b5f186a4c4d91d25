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
from typing import Any

from rankeval_tui.core.files.toml_grammar import BLANK_OR_COMMENT, PAIR, Unsupported, key_of

_LABEL = "([01])"


def section_starts(text: str) -> Iterator[int]:
    """The offsets of the lines of ``text`` that start with ``[``, found one at a time with
    ``str.find`` (a reader that stops early scans no further)."""
    if text[:1] == "[":
        yield 0
    position = text.find("\n[")
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


class LabelBodies:
    """Section bodies of ``key = 0|1`` pairs, blank lines and comments in any arrangement: a
    comment after some pairs only, blank lines between some. Such bodies differ from one another
    in more than their labels, so no ``BinaryTemplate`` reads them; a line cache still reads them
    at C speed: a body's lines are split and looked up with ``map`` (a qrels file repeats its
    lines from one query to the next), and only lines not seen before are read in Python."""

    def __init__(self) -> None:
        self.known: dict[str, tuple[str, int] | tuple[()]] = {}
        """Each line seen: its (key, label) for a pair, ``()`` for a blank or comment line."""

    def read(self, body: str) -> list[tuple[str, int] | tuple[()]] | None:
        """The lines of ``body`` as ``known`` has them, or None when one is not such a line."""
        lines = body.split("\n")
        try:
            return list(map(self.known.__getitem__, lines))
        except KeyError:
            for line in lines:
                if line not in self.known and not self.learn(line):
                    return None
            return list(map(self.known.__getitem__, lines))

    def learn(self, line: str) -> bool:
        pair = _binary_pair(line)
        if pair is False:
            return False
        self.known[line] = () if pair is None else (pair[0], int(line[pair[1]]))  # type: ignore[index]
        return True

    @staticmethod
    def fill(lines: list[tuple[str, int] | tuple[()]], table: dict[str, Any]) -> bool:
        """Put the pairs of a body's ``lines`` into ``table``, unless it has keys already."""
        if table:
            return False
        table.update(filter(None, lines))  # type: ignore[arg-type]
        if len(table) != len(lines) - lines.count(()):
            raise Unsupported  # a key twice in one table: tomllib's error
        return True


class BinaryBodies:
    """The bodies of successive sections, read by the first one's template while they repeat it
    but for their labels, then (for good: a file's layout does not change back) by ``LabelBodies``."""

    def __init__(self) -> None:
        self.template: BinaryTemplate | None = None
        self.bodies: LabelBodies | None = None
        self.count = 0
        self.labels: str | None = None
        """The last body's labels, when the template read it (else ``lines``)."""
        self.lines: list[tuple[str, int] | tuple[()]] | None = None

    def read(self, body: str) -> bool:
        """Whether the next section's ``body`` is readable here (``fill`` then puts it)."""
        self.count += 1
        template = self.template = first_template(body) if self.count == 1 else self.template
        self.labels = None
        if template is not None and self.bodies is None:
            if self.count == 1:
                self.labels = template.first
            elif self.count > 2 or len(body.rstrip("\n")) == template.length:
                self.labels = template.labels(body)  # (a second body of another length compiles no pattern)
            if self.labels is not None:
                return True
        bodies = self.bodies = self.bodies or LabelBodies()
        self.lines = bodies.read(body)
        return self.lines is not None

    def fill(self, table: dict[str, Any]) -> bool:
        """Put the last body read into ``table``, unless it has keys already: with the template,
        every key with 0 is copied in at once (a dict copies its stored hashes), then the 1s set."""
        if self.labels is None:
            assert self.lines is not None  # read() took the body
            return LabelBodies.fill(self.lines, table)
        if table:
            return False
        assert self.template is not None  # it gave the labels
        keys, labels = self.template.keys, self.labels
        table.update(self.template.zeros)
        position = labels.find("1")
        while position != -1:
            table[keys[position]] = 1
            position = labels.find("1", position + 1)
        return True


def first_template(body: str) -> BinaryTemplate | None:
    """The template of a body whose lines are pairs with the label 0 or 1, blanks and comments."""
    pairs = [_binary_pair(line) for line in body.split("\n")[:-1]]
    return None if False in pairs else BinaryTemplate.of(body, pairs)  # type: ignore[arg-type]


def _binary_pair(line: str) -> tuple[str, int] | bool | None:
    """A pair line whose value is the label 0 or 1 as (key, column of the label); None for a
    blank or comment line; False for anything else."""
    pair = PAIR.fullmatch(line)
    if pair is None:
        return None if BLANK_OR_COMMENT.fullmatch(line) else False
    if pair.group(2) not in ("0", "1"):
        return False
    return key_of(pair.group(1)), pair.start(2)
