"""A well-formed TREC run read at C speed; anything else is left to ``runs.parse_trec_run``.

Why: ``init --run`` keeps a TREC run as it came, so ``score`` of a pooled protocol reads it every
time, and reading it line by line in Python (split, two ID checks, an integer and a score check,
the rank placement) was most of ``score`` on a pooled protocol (``benchmarks/bench_shapes.py``
measures it). Here the text is read a block of whole queries at a time (``query_blocks``), and
each block is checked as a whole (``plain_layout``: printable ASCII, single spaces, six fields a
line; else one ``fullmatch`` of the usual layout), one ``str.split`` gives its fields, each
column a slice, and what is left is a few C calls per query. The strings a block's split makes
are freed before the next block's are made: they stay in the cache, and their memory does not
grow with the run. A text where any line differs, or where a rank clashes or a document repeats
in a query, gets ``None``: the line-by-line reader then reads it and names the line at fault,
so every message and every accepted file stay what they were.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_right
from collections.abc import Iterator
from itertools import compress, islice
from operator import gt, le, lt, ne, sub

from rankeval_tui.core.files.ids import ID_BYTES, NOT_IN_AN_ID
from rankeval_tui.core.files.lazy_pattern import on_first_use

_ID = rf"[^{NOT_IN_AN_ID.pattern[1:-1]}]+"
_FIELD = r"\S+"
_SEP = r"[ \t]+"
_LINE = (
    rf"{_ID}{_SEP}{_FIELD}{_SEP}{_ID}{_SEP}[0-9]{{1,18}}{_SEP}"
    rf"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?{_SEP}{_FIELD}"
)
trec_run_text = on_first_use(rf"(?:{_LINE}(?:\n|\Z))++")  # runs plain_tokens leaves only (lazy_pattern)
"""A whole text of lines as ``parse_trec_run`` accepts them, minus the cases it reads in Python
(leading or trailing blanks, a blank line, a negative rank: refused there with its message; a
Q0 or tag column holding other whitespace than spaces and tabs, which ``str.split`` would cut).
Matched with ``fullmatch``: one possessive loop over the lines, no match object or string per
line (half the time of a ``findall`` of the fields). Only for texts ``plain_tokens`` leaves
(non-ASCII IDs, tabs, runs of blanks): it is most of the time of a plain one."""
SCORE_BYTES = b"0123456789.eE+-"
"""The characters of a score (``runs.trec_score``). ``float()`` also takes ``inf``, ``nan`` and
``1_0``, none made of these; of strings made of these it takes exactly the ones the pattern
does (digits with a point, an exponent, a sign), so a score it refuses goes to the careful reader."""
RANK_DIGITS = 18
"""As ``runs.TREC_INTEGER_DIGITS``: a longer rank is "out of range", named by the careful reader."""


BLOCK_CHARACTERS = 1 << 18
"""About this much text is split at once (``query_blocks``)."""


def plain_layout(data: bytes) -> int | None:
    """The number of lines of an ASCII text of lines of six fields separated by single spaces
    (the usual run), or None; an empty field is not looked for here.

    Checked at C speed, without a regex or a string per line: what is left of the text without
    its ID characters (printable ASCII: ``ID_BYTES``; ``bytes.translate``) is five spaces and a
    newline a line. A last line may lack its newline."""
    separators = data.translate(None, ID_BYTES)  # a tab, a carriage return, a control character stay
    lines = separators.count(b"\n") + (not data.endswith(b"\n"))
    if not lines or separators.removesuffix(b"\n") != (b"     \n" * lines)[:-1]:
        return None  # a blank line, a line of other than six fields, an empty text
    return lines


def read_well_formed_run(text: str) -> tuple[dict[str, list[str]], dict[str, list[float]]] | None:
    """(query -> documents in rank order, query -> their scores in that order for the queries
    whose scores do not strictly fall along it), or None when a line is not in the usual layout
    or the rankings need the careful reader's error."""
    rankings: dict[str, list[str]] = {}
    unsure: dict[str, list[float]] = {}
    for start, end in query_blocks(text):
        block = read_block(text[start:end])
        if block is None or not rankings.keys().isdisjoint(block[0]):
            return None  # a line to refuse, or a query's lines in two places
        rankings.update(block[0])
        unsure.update(block[1])
    return rankings, unsure


def query_blocks(text: str) -> Iterator[tuple[int, int]]:
    """``(start, end)`` of consecutive pieces of ``text`` (one at least) of about
    ``BLOCK_CHARACTERS`` each, every piece but the last ending where the lines of its last
    line's query end (a query listed in one place has its lines in one piece)."""
    start = 0
    while (cut := text.find("\n", start + BLOCK_CHARACTERS) + 1) and cut < len(text):
        last_line = text[text.rfind("\n", start, cut - 1) + 1 or start : cut]
        fields = last_line.split(None, 1)
        if fields:  # the block goes on to the last line of that query's lines
            other = re.compile(rf"\n(?!{re.escape(fields[0])}[ \t])").search(text, cut - 1)
            end = len(text) if other is None else other.end()
        else:
            end = cut  # after a blank line, which its block refuses
        if end >= len(text):
            break
        yield start, end
        start = end
    yield start, len(text)


def read_block(text: str) -> tuple[dict[str, list[str]], dict[str, list[float]]] | None:
    """``read_well_formed_run`` of a block of whole queries.

    Each query's lines are taken as one slice of the columns (a run lists a query's lines
    together; one listed in two places is read line by line), and each slice is checked and
    converted by ``map`` and ``set`` in C: no Python step per line."""
    tokens = None
    if text.isascii():
        lines = plain_layout(text.encode("ascii"))
        if lines is not None:
            tokens = text.split()  # six a line unless a field is empty (a leading, trailing or double space)
            tokens = tokens if len(tokens) == 6 * lines else None
    if tokens is None:
        if "\r" in text or not trec_run_text().fullmatch(text):
            return None  # empty, a blank line, other spacing, or a line to refuse: read line by line
        # Every line is six fields free of whitespace other than the spaces and tabs between
        # them, so str.split() yields six tokens a line and each column is a slice.
        tokens = text.split()
    queries, docs, ranks, score_texts = tokens[0::6], tokens[2::6], tokens[3::6], tokens[4::6]
    del tokens  # the Q0 and tag columns: freed before the rest is made
    # Where the query changes, compared pair by pair in C; the lines are grouped by query iff the
    # queries starting the groups are distinct (10,000 hashed, not a million).
    starts = [0, *compress(range(1, len(queries)), map(ne, queries, islice(queries, 1, None)))]
    if len(set(map(queries.__getitem__, starts))) != len(starts):
        return None  # a query's lines in two places
    ends = [*starts[1:], len(queries)]
    if "".join(score_texts).encode("ascii", "replace").translate(None, SCORE_BYTES):
        return None  # not a number as the careful reader reads one (``inf``, ``1_0``)
    try:
        scores = list(map(float, score_texts))
    except ValueError:
        return None  # ``1e``, ``.``, ``1.2.3``: refused, and named, by the careful reader
    if not math.isfinite(sum(scores)):
        return None  # a score of 1e999 (a sum of finite ones may overflow too: then read line by line)
    # The usual ranks are 1, 2, 3, ... in order: compared as the strings, not converted each.
    naturals = list(map(str, range(1, max(map(sub, ends, starts)) + 1)))
    rankings: dict[str, list[str]] = {}
    for start, end in zip(starts, ends):
        size = end - start
        query, ranking = queries[start], docs[start:end]
        given = ranks[start:end]
        if given != naturals[:size]:
            digits = "".join(given)
            if not (digits.isascii() and digits.isdigit()) or max(map(len, given)) > RANK_DIGITS:
                return None  # a negative or out-of-range rank: named by the careful reader
            places = list(map(int, given))
            if not all(map(lt, places, places[1:])):  # not listed in rank order: put it in order
                if len(set(places)) != size:
                    return None  # a rank clash: the line-by-line reader names both lines
                order = sorted(range(size), key=places.__getitem__)
                ranking = [ranking[i] for i in order]
                scores[start:end] = [scores[start + i] for i in order]
        if len(set(ranking)) != size:
            return None  # a document twice in one query: named there
        rankings[query] = ranking
    # trec_eval's order is the rank order wherever the scores strictly fall: only the queries
    # with a tie or a rise are left to ``agrees_with_score_order`` (usually none).
    first_lines = set(starts)
    level = compress(range(1, len(scores)), map(le, scores, islice(scores, 1, None)))  # no fall to line i
    unsure = sorted({bisect_right(starts, i) - 1 for i in level if i not in first_lines})
    return rankings, {queries[starts[g]]: scores[starts[g] : ends[g]] for g in unsure}


def agrees_with_score_order(docs: list[str], scores: list[float]) -> bool:
    """Whether rank order is trec_eval's order (score descending, then document ID descending):
    the (score, doc) pairs of distinct documents strictly decrease along the ranking. Compared in
    C, pair by pair, instead of sorting each query with a Python key."""
    if all(map(gt, scores, scores[1:])):
        return True
    pairs = list(zip(scores, docs))
    return all(map(gt, pairs, pairs[1:]))
