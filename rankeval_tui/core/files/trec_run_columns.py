"""A long plain TREC run read column by column in numpy, a block of lines at a time: a Python
string made for each document and each query's first line only.

Why: ``str.split`` of a 1M-line run made six million strings (query, Q0, document, rank, score,
tag) of which only the documents are kept; making and freeing them was most of reading the
pooled shape's run. Here each block's bytes are one array, the separators' positions give every
field's place, the queries are compared, the ranks and scores read, as numbers where they lie,
and only the document column is cut out (one mask) and split. A block (``BLOCK_BYTES``) keeps
the arrays about each line small: they are made and freed per block, so the memory they take
does not grow with the run, and they stay in the cache. numpy is slow to import:
``runs.load_run`` comes here for runs of ``trec_run_fast.COLUMNS_FROM_BYTES`` or more.

It reads only what ``plain_fields`` admits (printable ASCII, five single spaces and a newline a
line, with no empty field) and answers as the other fast path (``read_well_formed_run``) does:
None for any other text and where the careful reader must name a line (a query's lines in two
places, a rank that is not 1-18 digits, a rank clash, a document twice in a query, a score
``float`` refuses or an infinite one).
"""

from __future__ import annotations

from dataclasses import dataclass

from rankeval_tui.core.files.trec_run_fast import RANK_DIGITS, SCORE_BYTES

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: every command pays for its imports at start-up
if TYPE_CHECKING:
    from collections.abc import Iterator

    import numpy as np
    from numpy.typing import NDArray

    Bytes = NDArray[np.uint8]
    Integers = NDArray[np.int64]
    Floats = NDArray[np.float64]
    Flags = NDArray[np.bool_]

BLOCK_BYTES = 1 << 20
"""The text read at once, cut after a newline: its arrays stay in the cache and are freed before
the next block's are made."""
EXACT_DIGITS = 15
"""A decimal of at most 15 digits is an integer below 2^53 over a power of ten below 10^22, both
exact doubles, so their quotient is the correctly rounded value: what ``float()`` returns
(Clinger's fast path). Longer scores, and exponents, are read by ``float()`` itself."""


@dataclass
class Block:
    """The columns of a block's lines that a run keeps."""

    queries: list[str]
    """The query of each group of consecutive lines of one query, in order."""
    new_query: Flags
    """Per line, whether its query differs from the line before's (True on the block's first)."""
    docs: list[str]
    ranks: Integers
    scores: Floats


def read_run_columns(data: bytes) -> tuple[dict[str, list[str]], dict[str, list[float]]] | None:
    """(query -> documents in rank order, query -> scores in that order for the queries whose
    scores do not strictly fall along it), or None."""
    import numpy as np

    blocks: list[Block] = []
    queries: list[str] = []
    for start, end in line_blocks(data):
        block = read_block(data[start:end])
        if block is None:
            return None
        if queries and queries[-1] == block.queries[0]:  # a query's lines go on past the cut
            block.new_query[0] = False
            del block.queries[0]
        queries += block.queries
        blocks.append(block)
    if not blocks:
        return None
    if len(set(queries)) != len(queries):
        return None  # a query's lines in two places
    new_query = np.concatenate([block.new_query for block in blocks])
    ranks = np.concatenate([block.ranks for block in blocks])
    scores = np.concatenate([block.scores for block in blocks])
    docs = [doc for block in blocks for doc in block.docs]
    del blocks
    starts = np.flatnonzero(new_query).tolist()
    if not (new_query[1:] | (ranks[1:] > ranks[:-1])).all():  # not listed in rank order
        group = np.cumsum(new_query)
        order = np.lexsort((ranks, group))  # by rank within each query, the queries in place
        if ((group[1:] == group[:-1]) & (ranks[order][1:] == ranks[order][:-1])).any():
            return None  # a rank clash: the line-by-line reader names both lines
        docs, scores = list(map(docs.__getitem__, order.tolist())), scores[order]
    bounds = [*starts, len(docs)]
    rankings: dict[str, list[str]] = {}
    for query, start, end in zip(queries, bounds, bounds[1:]):
        ranking = docs[start:end]
        if len(set(ranking)) != end - start:
            return None  # a document twice in one query: named there
        rankings[query] = ranking
    # trec_eval's order is the rank order wherever the scores strictly fall: only the queries
    # with a tie or a rise are left to ``agrees_with_score_order`` (usually none).
    level = np.flatnonzero(~new_query[1:] & (scores[1:] >= scores[:-1]))
    unsure = np.unique(np.searchsorted(starts, level, "right") - 1).tolist()
    return rankings, {queries[g]: scores[bounds[g] : bounds[g + 1]].tolist() for g in unsure}


def line_blocks(data: bytes) -> Iterator[tuple[int, int]]:
    """``(start, end)`` of consecutive pieces of ``data`` of about ``BLOCK_BYTES``, each but the
    last ending just after a newline."""
    start = 0
    while start < len(data):
        end = data.find(b"\n", start + BLOCK_BYTES) + 1 or len(data)
        yield start, end
        start = end


def read_block(data: bytes) -> Block | None:
    """A block's columns, or None where ``read_run_columns`` answers None."""
    import numpy as np

    fields = plain_fields(data)
    if fields is None:
        return None
    text = np.frombuffer(data, np.uint8)
    line_starts = np.empty(len(fields), np.int64)
    line_starts[0] = 0
    line_starts[1:] = fields[:-1, 5] + 1
    new_query = query_changes(data, line_starts, fields[:, 0])
    first_lines = np.flatnonzero(new_query)
    spans = zip(line_starts[first_lines].tolist(), fields[first_lines, 0].tolist())
    queries = [data[start:end].decode("ascii") for start, end in spans]
    ranks = integers(text, fields[:, 2] + 1, fields[:, 3])
    if ranks is None:
        return None  # a negative or out-of-range rank: named by the careful reader
    scores = decimals(text, fields[:, 3] + 1, fields[:, 4])
    if scores is None:
        scores = floats(text, fields[:, 3] + 1, fields[:, 4])
        if scores is None:
            return None  # ``1e``, ``1_0``, ``1e999``: named by the careful reader
    docs = column_bytes(text, fields[:, 1] + 1, fields[:, 2]).decode("ascii").split(" ")  # a space after each
    docs.pop()  # the empty string after the last space
    return Block(queries, new_query, docs, ranks, scores)


def plain_fields(data: bytes) -> Integers | None:
    """The positions of the separators after the six fields of each line (a row a line; the
    text's end for a last line without its newline) of an ASCII text of the plain layout
    (printable ASCII, six nonempty fields a line separated by single spaces), else None."""
    import numpy as np

    if b"\x7f" in data:
        return None  # DEL: no ID holds it
    text = np.frombuffer(data, np.uint8)
    separators = np.flatnonzero(text < 0x21)  # spaces, newlines, and what no ID holds
    kinds = text[separators]
    line_ends = kinds[5::6]
    if len(separators) % 6 not in (0, 5) or not len(separators) or not (line_ends == 0x0A).all():
        return None
    if np.count_nonzero(kinds == 0x20) != len(separators) - len(line_ends):
        return None  # a tab, a carriage return, a control character; a line of other than six fields
    if len(separators) % 6:
        separators = np.append(separators, len(data))  # the last line, without its newline
    elif separators[-1] != len(data) - 1:
        return None  # a last line without a space
    if separators[0] == 0 or int(np.diff(separators).min()) < 2:
        return None  # an empty field: a leading or a trailing space, or two in a row
    return separators.reshape(-1, 6)


def query_changes(data: bytes, line_starts: Integers, query_ends: Integers) -> Flags:
    """Per line, whether its query differs from the line before's (True on the first line):
    compared eight bytes at a time, as unaligned little-endian words read where they lie. Each
    round takes only the lines whose queries are equal so far and longer: the work is the
    queries' bytes, not the longest query's length times the lines."""
    import numpy as np

    lengths = query_ends - line_starts
    changes = np.ones(len(line_starts), np.bool_)
    changes[1:] = lengths[1:] != lengths[:-1]
    words = np.ndarray((len(data) - 7,), "<u8", data, 0, (1,))  # a line has 11 bytes or more
    lines = np.flatnonzero(~changes)
    offset = 0
    while len(lines):  # a query is followed by 10 bytes or more: every word read is in the text
        here = words[line_starts[lines] + offset] ^ words[line_starts[lines - 1] + offset]
        left = lengths[lines] - offset  # the query's bytes from this word on
        past_end = ((8 - np.minimum(left, 8)) * 8).astype(np.uint64)  # the bytes after the query
        differ = (here << past_end) != 0
        changes[lines[differ]] = True
        lines = lines[~differ & (left > 8)]
        offset += 8
    return changes


def integers(text: Bytes, starts: Integers, ends: Integers) -> Integers | None:
    """The fields ``text[starts:ends]`` as integers, or None where one is not 1-18 ASCII digits."""
    import numpy as np

    lengths = ends - starts
    longest = int(lengths.max())
    if longest > RANK_DIGITS:
        return None
    values = np.zeros(len(starts), np.int64)
    for offset in range(longest):
        digit = text.take(starts + offset, mode="clip") - np.uint8(0x30)  # a non-digit wraps past 9
        present = lengths > offset
        if (present & (digit > 9)).any():
            return None
        values = np.where(present, values * 10 + digit, values)
    return values


def decimals(text: Bytes, starts: Integers, ends: Integers) -> Floats | None:
    """The fields as ``float()`` reads them when every one is a sign, digits and at most one
    point with 1-15 digits (``EXACT_DIGITS``); else None (``floats`` reads them)."""
    import numpy as np

    lengths = ends - starts
    longest = int(lengths.max())
    if longest > EXACT_DIGITS + 2:
        return None
    first = text[starts]
    negative = first == 0x2D
    signed = negative | (first == 0x2B)
    mantissa = np.zeros(len(starts), np.int64)
    digits = np.zeros(len(starts), np.uint8)
    before_point = np.full(len(starts), 255, np.uint8)  # the digits before the point; 255: none
    for offset in range(longest):
        present = lengths > offset
        if offset == 0 and signed.any():
            present &= ~signed
        char = text.take(starts + offset, mode="clip")
        digit = char - np.uint8(0x30)
        is_digit = (digit < 10) & present
        is_point = (char == 0x2E) & present
        if (present > (is_digit | is_point)).any():
            return None  # a sign past the first place, an exponent
        if is_point.any():
            if (is_point & (before_point != 255)).any():
                return None  # two points
            before_point = np.where(is_point, digits, before_point)
        mantissa = np.where(is_digit, mantissa * 10 + digit, mantissa)
        digits += is_digit
    if int(digits.min()) == 0 or int(digits.max()) > EXACT_DIGITS:
        return None
    fraction = np.where(before_point == 255, 0, digits - before_point)
    powers = np.array([float(10**k) for k in range(EXACT_DIGITS + 1)])
    values: Floats = mantissa / powers[fraction]  # exact over exact, rounded once
    np.negative(values, out=values, where=negative)
    return values


def floats(text: Bytes, starts: Integers, ends: Integers) -> Floats | None:
    """The fields read by ``float()``, or None where one is not a finite number as the careful
    reader reads one (``SCORE_BYTES``: no ``inf``, ``nan`` or ``1_0``)."""
    import numpy as np

    column = column_bytes(text, starts, ends)
    if column.translate(None, SCORE_BYTES + b" \n"):
        return None
    try:
        values = np.array(list(map(float, column.split())), np.float64)
    except ValueError:
        return None  # ``1e``, ``.``, ``1.2.3``
    return values if bool(np.isfinite(values).all()) else None


def column_bytes(text: Bytes, starts: Integers, ends: Integers) -> bytes:
    """The fields ``text[starts:ends]``, each with the separator after it, as one ``bytes``: a mask
    rising at each start and falling past each end (fields of one column never touch)."""
    import numpy as np

    steps = np.zeros(len(text) + 1, np.int8)
    steps[starts] = 1
    steps[ends + 1] = -1
    return text[np.cumsum(steps[:-1], dtype=np.int8).view(np.bool_)].tobytes()
