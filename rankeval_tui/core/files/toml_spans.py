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

    def fill(self, labels: str, table: dict[str, Any]) -> bool:
        """Put the keys with ``labels`` into ``table``, unless it has keys already."""
        if table:
            return False
        table.update(self.zeros)
        position = labels.find("1")
        while position != -1:
            table[self.keys[position]] = 1
            position = labels.find("1", position + 1)
        return True
