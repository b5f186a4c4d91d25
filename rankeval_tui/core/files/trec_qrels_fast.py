"""Binary TREC qrels read at C speed; anything else is left to ``importers.read_labels``' loop.

Why: ``init --qrels`` of a pooled protocol reads a million labels, and the line-by-line reader (a
split, two ID checks, an integer check and the pair's line recorded, each in Python) does that work
a million times, once per line. Here one ``fullmatch`` checks every line against
``qid iter docid 0|1`` (spaces or tabs between fields, no blank line, no carriage return, IDs free of whitespace and
control characters), one ``str.split`` gives the columns, and the known-ID, repeated-pair and
grouping checks are set and dict operations over whole columns. A text where anything differs (a
graded or negative label, an unknown ID, a pair twice, a query's lines in two places, a BEIR file)
gets None: the careful reader reads it and names the line, so every message and every accepted file
stay what they were (tests/core/test_trec_qrels_fast.py compares the two).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from itertools import groupby

from rankeval_tui.core.files.ids import NOT_IN_AN_ID

_ID = rf"[^{NOT_IN_AN_ID.pattern[1:-1]}]+"
_SEP = r"[ \t]+"
BINARY_QRELS_TEXT = re.compile(rf"(?:{_ID}{_SEP}\S+{_SEP}{_ID}{_SEP}[01](?:\n|\Z))++")
"""A whole text of binary TREC qrels lines as the careful reader accepts them, without what it
reads in Python (blanks around a line, a blank line, another label, an iteration column holding
whitespace other than spaces and tabs, which ``str.split`` would cut)."""
_LABELS = {"0": 0, "1": 1}


def read_binary_qrels(
    text: str, queries: Collection[str] | None, documents: Collection[str] | None
) -> dict[str, dict[str, int]] | None:
    """query -> {document: label} in file order, or None when the careful reader must read the
    text (``queries`` / ``documents`` None: any ID is known)."""
    if not BINARY_QRELS_TEXT.fullmatch(text):
        return None
    tokens = text.split()  # four tokens a line: no field holds whitespace
    query_column, doc_column = tokens[0::4], tokens[2::4]
    if queries is not None and not all(map(queries.__contains__, set(query_column))):
        return None
    if documents is not None and not all(map(documents.__contains__, set(doc_column))):
        return None
    sizes = [len(list(lines)) for _, lines in groupby(query_column)]
    if len(sizes) != len(set(query_column)):
        return None  # a query's lines in two places: grouped line by line there
    labels: dict[str, dict[str, int]] = {}
    values = list(map(_LABELS.__getitem__, tokens[3::4]))
    start = 0
    for size in sizes:
        end = start + size
        row = labels[query_column[start]] = dict(zip(doc_column[start:end], values[start:end]))
        if len(row) != size:
            return None  # a pair twice: named with both its lines there
        start = end
    return labels
