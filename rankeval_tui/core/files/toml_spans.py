"""The spans of a TOML text between bracket lines, and sections that repeat another one's keys.

Why a module of its own: ``fasttoml`` reads line by line; these two helpers work on the text
itself, at C speed, for the shape of a qrels file: thousands of ``[qrels.QUERY]`` sections, each
listing the same documents in the same order with a label 0 or 1 (as this project and tomli-w
write them). Finding the sections with ``str.find`` and reading a repeated section as "the first
one's keys, with a 1 where a line of its text ends in 1" is about 0.2 s less per million pairs
than looking every line up (docs/benchmarks.md, "fifth round").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

_BRACKET_LINE = re.compile(r"^[ \t]*\[", re.MULTILINE)
_ONE, _ZERO = "1\n", "0\n"


def bracket_lines(text: str) -> list[tuple[int, int]]:
    """(line index in ``text.split("\\n")``, offset in ``text``) of each line whose first non-blank
    character is ``[``: a few thousand in a qrels file, against millions of lines. Found with
    ``str.find`` when no line starts with a space or tab, else with one regex scan (slower)."""
    if "\n " in text or "\n\t" in text or text[:1] in (" ", "\t"):
        starts = [match.start() for match in _BRACKET_LINE.finditer(text)]
    else:
        starts = [0] if text[:1] == "[" else []
        position = text.find("\n[")
        while position != -1:
            starts.append(position + 1)
            position = text.find("\n[", position + 1)
    found: list[tuple[int, int]] = []
    line, previous = 0, 0
    for start in starts:
        line += text.count("\n", previous, start)
        previous = start
        found.append((line, start))
    return found


@dataclass(frozen=True)
class BinaryTemplate:
    """A section body of ``KEY = 0`` / ``KEY = 1`` lines (any spacing, ending in the label; then
    blank lines): another body is the same table with other labels exactly when turning each
    line-ending ``1`` into ``0`` gives the same text (keys hold no raw newline, so a newline
    follows only a line's label or a blank line)."""

    zero: str
    """The body with every label 0."""
    keys: tuple[str, ...]
    key_at: dict[int, str]
    """The key of the line whose label is at this offset of ``zero``."""

    @classmethod
    def of(cls, body: str, pairs: Sequence[tuple[str, Any] | None]) -> BinaryTemplate | None:
        """The template of ``body``, whose lines up to its last newline read as ``pairs`` ((key,
        label) or None for a blank line), or None unless those are labels 0/1 under distinct keys
        with blank lines only after the last pair."""
        lines = body.split("\n")
        if len(lines) != len(pairs) + 1 or lines[-1] != "":
            return None
        keys: list[str] = []
        key_at: dict[int, str] = {}
        offset, blank_seen = 0, False
        for line, pair in zip(lines, pairs):
            if pair is None:
                if line:
                    return None  # a comment: not in the shape
                blank_seen = True
            else:
                key, value = pair
                if blank_seen or type(value) is not int or value not in (0, 1) or line[-1:] != str(value):
                    return None
                key_at[offset + len(line) - 1] = key
                keys.append(key)
            offset += len(line) + 1
        if not keys or len(set(keys)) != len(keys):
            return None
        return cls(_labels_only(body).replace(_ONE, _ZERO), tuple(keys), key_at)

    def matches(self, body: str) -> str | None:
        """``body`` as ``fill`` reads it, if it is this template's keys, one per line, each with the
        label 0 or 1, then blank lines; else None."""
        labels = _labels_only(body)
        return labels if labels.replace(_ONE, _ZERO) == self.zero else None

    def fill(self, labels: str, table: dict[str, Any]) -> bool:
        """Put the pairs of ``labels`` (what ``matches`` returned) into ``table``, unless it has keys."""
        if table:
            return False
        table.update(dict.fromkeys(self.keys, 0))
        position = labels.find(_ONE)
        while position != -1:
            table[self.key_at[position]] = 1
            position = labels.find(_ONE, position + len(_ONE))
        return True


def _labels_only(body: str) -> str:
    """``body`` without its trailing blank lines but for one newline: the last section of a file
    has none, the others one (tomli-w's separator)."""
    return body.rstrip("\n") + "\n"
