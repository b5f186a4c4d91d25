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
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

_BRACKET_LINE = re.compile(r"^[ \t]*\[", re.MULTILINE)
_LABEL = "([01])"


def bracket_lines(text: str) -> list[int]:
    """The offsets in ``text`` of the lines whose first non-blank character is ``[``: a few
    thousand in a qrels file, against millions of lines. Found with ``str.find`` when no line
    starts with a space or tab, else with one regex scan (slower)."""
    if "\n " in text or "\n\t" in text or text[:1] in (" ", "\t"):
        return [match.start() for match in _BRACKET_LINE.finditer(text)]
    starts = [0] if text[:1] == "[" else []
    position = text.find("\n[")
    while position != -1:
        starts.append(position + 1)
        position = text.find("\n[", position + 1)
    return starts


def line_numbers(text: str, offsets: Sequence[int], start: int = 0) -> list[int]:
    """The index in ``text[start:].split("\\n")`` of the line at each of ``offsets`` (sorted, all
    at or after ``start``), counting newlines between them."""
    numbers: list[int] = []
    line, previous = 0, start
    for offset in offsets:
        line += text.count("\n", previous, offset)
        previous = offset
        numbers.append(line)
    return numbers


@dataclass(frozen=True)
class BinaryTemplate:
    """A section body whose pair lines have the labels 0 or 1, as read once by the line parser:
    another body is the same table with other labels exactly when it is the same text but for
    those label characters (and the blank lines at its end). ``pattern`` is that text with a
    group at each label, so one ``fullmatch`` in C tells a body and reads its labels."""

    pattern: re.Pattern[str]
    keys: tuple[str, ...]
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
        offset = start = 0
        for line, pair in zip(lines, pairs):
            if pair is not None:
                key, column = pair
                pieces.append(re.escape(body[start : offset + column]))
                start = offset + column + 1
                keys.append(key)
            offset += len(line) + 1
        if not keys or len(set(keys)) != len(keys):
            return None
        pieces.append(re.escape(body[start:].rstrip("\n")))
        return cls(re.compile(_LABEL.join(pieces) + "\n*"), tuple(keys), dict.fromkeys(keys, 0))

    def matches(self, body: str) -> re.Match[str] | None:
        return self.pattern.fullmatch(body)

    def fill(self, match: re.Match[str], table: dict[str, Any]) -> bool:
        """Put the pairs of a matching body into ``table``, unless it has keys already."""
        if table:
            return False
        table.update(self.zeros)
        labels = "".join(match.groups())
        position = labels.find("1")
        while position != -1:
            table[self.keys[position]] = 1
            position = labels.find("1", position + 1)
        return True
