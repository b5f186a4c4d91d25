"""Section bodies of ``key = 0|1`` pairs that no regex template of ``toml_spans`` reads.

Why a module of its own: these readers work on one body at a time with ``str`` methods and
``map`` (a line cache, a ``split`` or one ``findall``, labels taken by position), where ``toml_spans`` matches
bodies against the first one's text with a regex; a pooled qrels file (each query its own
documents) and a wide one (10 bodies of 100,000 pairs, too long for a regex template) are
read here.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import accumulate, count
from operator import add, itemgetter

from rankeval_tui.core.files.toml_grammar import BLANK_OR_COMMENT, PAIR, Unsupported, key_of

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: every command pays for its imports at start-up
if TYPE_CHECKING:
    from typing import Any


class LabelBodies:
    """Section bodies of ``key = 0|1`` pairs, blank lines and comments in any arrangement: a
    comment after some pairs only, blank lines between some. Such bodies differ from one another
    in more than their labels, so no ``BinaryTemplate`` reads them. A body of nothing but pairs is
    read whole by ``keyed_pairs`` (a pooled file: each body other keys); else a line cache reads
    it at C speed: a body's lines are split and looked up with ``map`` (a qrels file repeats its
    lines from one query to the next), and only lines not seen before are read in Python."""

    MAX_MISSES = 2
    """Bodies ``positions`` may fail to read before it is dropped (a pooled file's bodies each
    name other documents: two tries, then the line cache alone)."""

    def __init__(self) -> None:
        self.known: dict[str, tuple[str, int] | tuple[()]] = {}
        """Each line seen: its (key, label) for a pair, ``()`` for a blank or comment line."""
        self.positions: LabelPositions | None = None
        """Made from the first body ``keyed_pairs`` reads: the next bodies with its keys."""
        self.misses = 0

    def by_positions(self, body: str) -> tuple[LabelPositions, str] | None:
        """``positions`` and ``body``'s labels read by it, or None (then ``read``); dropped after
        ``MAX_MISSES`` bodies it could not read."""
        positions = self.positions
        if positions is None:
            return None
        labels = positions.labels(body)
        if labels is not None:
            return positions, labels
        self.misses += 1
        if self.misses == self.MAX_MISSES:
            self.positions = None
        return None

    def read(self, body: str) -> dict[str, int] | list[tuple[str, int] | tuple[()]] | None:
        """The pairs of ``body`` (``keyed_pairs``), or its lines as ``known`` has them, or None
        when one is not such a line (a body ``by_positions`` reads is not asked here).
        ``keyed_pairs`` first unless the body's first line is known (a pooled file's bodies each
        name other documents: no line of them was seen before)."""
        if not self.known or body.partition("\n")[0] not in self.known:
            pairs = keyed_pairs(body)
            if pairs is not None:
                if self.positions is None and self.misses < self.MAX_MISSES:
                    self.positions = LabelPositions.of(body, list(pairs.items()))
                return pairs
        lines = body.split("\n")
        try:
            return list(map(self.known.__getitem__, lines))
        except KeyError:
            for line in lines:
                if line not in self.known and not self.learn(line):
                    return None
            return list(map(self.known.__getitem__, lines))

    def learn(self, line: str) -> bool:
        pair = binary_pair(line)
        if pair is False:
            return False
        self.known[line] = () if pair is None else (pair[0], int(line[pair[1]]))  # type: ignore[index]
        return True

    @staticmethod
    def fill(lines: dict[str, int] | list[tuple[str, int] | tuple[()]], table: dict[str, Any]) -> bool:
        """Put the pairs of a body (``read``'s answer) into ``table``, unless it has keys already."""
        if table:
            return False
        if isinstance(lines, dict):
            table.update(lines)  # an empty dict takes another's whole: its keys and their hashes
            return True
        table.update(filter(None, lines))  # type: ignore[arg-type]
        if len(table) != len(lines) - lines.count(()):
            raise Unsupported  # a key twice in one table: tomllib's error
        return True


class LabelPositions:
    """Bodies whose every line is ``KEY = 0|1`` as ``keyed_pairs`` reads them, the same keys in
    the same order as the first: a wide qrels file's 10 sections of the same 100,000 documents.
    A regex template of 100,000 groups would take seconds to compile (``BinaryBodies``); here a
    body is checked with ``str.replace`` and ``==`` and its labels taken by position, in C:
    about a third of the time of ``keyed_pairs``, and the tables share the first body's keys.

    Why a body this accepts is the first body's pairs with other labels: in the first body
    `` = 1\n`` ends each line labelled 1 but the last and occurs nowhere else (a key holds no
    newline); ``skeleton`` is that body with every label 0, without its last character (the last
    line's label, which no newline follows). Replacing `` = 1\n`` by `` = 0\n`` keeps a text's
    length and newlines, so a body whose replacement starts with ``skeleton`` and is one
    character longer, a 0 or a 1, has the same lines with at most their last character, the
    label, changed from 0 to 1. (Compared with ``startswith``, a body is copied once, by the
    replacement.)"""

    def __init__(self, skeleton: str, keys: tuple[str, ...], labels_at: Callable[[str], tuple[str, ...]]) -> None:
        self.skeleton = skeleton
        self.keys = keys
        self.zeros = dict.fromkeys(keys, 0)
        """Every key with the label 0: a body's table is a copy with its ones set (``BinaryBodies.fill``),
        where a (key, label) tuple per pair was a third of reading a wide qrels file."""
        self.labels_at = labels_at
        """The label characters of a body, from the end of each line (``itemgetter``)."""

    @classmethod
    def of(cls, body: str, pairs: list[tuple[str, int]]) -> LabelPositions | None:
        """The positions of ``body``, whose lines ``keyed_pairs`` read as ``pairs``; None for fewer
        than two pairs (``itemgetter`` of one position is no tuple) or a key twice."""
        keys = tuple(map(itemgetter(0), pairs))
        if len(keys) < 2 or len(set(keys)) != len(keys):
            return None
        text = body.rstrip("\n")
        ends = map(add, accumulate(map(len, text.split("\n"))), count(-1))  # each line's last character
        return cls(_zeros(text)[:-1], keys, itemgetter(*ends))

    def labels(self, body: str) -> str | None:
        """``body``'s labels in key order (``0``/``1`` characters, as a ``BinaryTemplate`` gives
        them) when it is the first body with other labels, else None."""
        text = body.rstrip("\n")
        if len(text) != len(self.skeleton) + 1 or text[-1] not in "01" or not _zeros(text).startswith(self.skeleton):
            return None
        return "".join(self.labels_at(text))


def _zeros(text: str) -> str:
    return text.replace(" = 1\n", " = 0\n")


_QUOTED_PAIRS = re.compile(r'^"([^"\\\x00-\x08\x0a-\x1f\x7f]*)" = ([01])$', re.MULTILINE)
_BARE_PAIRS = re.compile(r"^([A-Za-z0-9_-]+) = ([01])$", re.MULTILINE)
_LABEL_VALUES = {"0": 0, "1": 1}
_KEY_TEXT = bytes(set(range(0x20, 0x7F)) - {ord("\\")}) + b"\t\n"
"""The ASCII a body of quoted keys may hold: what a basic string holds unescaped (tab, not the
other controls, no backslash: no escape to decode), the quotes and ``= 0|1`` between, newlines."""
_MARKS = {"\x00": 0, "\x01": 1}
"""The label each mark stands for in ``_quoted_ascii_pairs``: characters a body without control
characters cannot hold, one character each (CPython shares those: no string made per label)."""


def keyed_pairs(body: str) -> dict[str, int] | None:
    """The pairs of a body whose every line is ``"KEY" = 0|1`` (a basic string without escapes)
    or every line ``KEY = 0|1`` (a bare key), then blank lines at its end, in C; None for any
    other body, or a key twice (tomllib's error: the caller reads such a body line by line).

    Why: a pooled protocol's qrels name other documents for every query (each its own pool), so
    no template repeats and no line repeats for the line cache; each line was read in Python
    (most of ``score`` on 10,000 pools of 100). Such a line is exactly a pair with that key and
    label for tomllib (no escape to decode, no comment, single spaces); any other line, or a
    body mixing both spellings, makes the counts differ and the caller reads it line by line.
    ASCII bodies of quoted keys (the usual IDs) by ``str`` methods, the rest by one ``findall``."""
    text = body.rstrip("\n")
    if text[:1] == '"' and text.isascii():
        return _quoted_ascii_pairs(text)
    lines = text.count("\n") + 1
    for pattern in (_QUOTED_PAIRS, _BARE_PAIRS):
        found = pattern.findall(text)
        if len(found) == lines:
            labels = _LABEL_VALUES
            pairs = {key: labels[label] for key, label in found}
            return pairs if len(pairs) == lines else None
        if found:
            return None
    return None


def _quoted_ascii_pairs(text: str) -> dict[str, int] | None:
    """``keyed_pairs`` of an ASCII ``text`` that starts with a quote, without a regex (a third of
    the time of ``findall``, which was most of reading a pooled qrels file): each line's end
    ``" = 0\n"`` (with the next line's opening quote) becomes ``"\x00"``, ``" = 1\n"`` ``"\x01"``,
    then one ``split('"')`` gives the keys and marks by turns.

    Why a text this accepts is exactly lines ``"KEY" = 0|1``: it holds no control character but
    tab and newline (``_KEY_TEXT``), so every mark comes from a replacement and undoing them in
    reverse order gives the text back; the split then says the marked text is ``"K"m"K"m..."K"m"``
    with no quote, no newline (none is left) and no mark (one per label: the count) in a key, and
    undone, that is ``"K" = L`` lines, each what ``_QUOTED_PAIRS`` matches."""
    if text.encode("ascii").translate(None, _KEY_TEXT):
        return None
    marked = (text + '\n"').replace('" = 0\n"', '"\x00"').replace('" = 1\n"', '"\x01"')
    if "\n" in marked:
        return None
    parts = marked.split('"')  # '', K, m, K, m, ..., K, m, '': an odd count has '' where a mark goes
    pairs = len(parts) // 2 - 1
    if marked.count("\x00") + marked.count("\x01") != pairs:
        return None
    try:
        table = dict(zip(parts[1:-1:2], map(_MARKS.__getitem__, parts[2::2])))
    except KeyError:
        return None
    return table if len(table) == pairs else None


def binary_pair(line: str) -> tuple[str, int] | bool | None:
    """A pair line whose value is the label 0 or 1 as (key, column of the label); None for a
    blank or comment line; False for anything else."""
    pair = PAIR.fullmatch(line)
    if pair is None:
        return None if BLANK_OR_COMMENT.fullmatch(line) else False
    if pair.group(2) not in ("0", "1"):
        return False
    return key_of(pair.group(1)), pair.start(2)
