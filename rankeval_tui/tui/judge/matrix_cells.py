"""What the label matrix shows: each pair's mark and style names, each row's gutter, the ruler's numbers.

Why apart from ``LabelMatrix``: which mark and which component classes a pair gets (label,
imported, disputed, cursor), how a row's judged/total count is padded and where the ruler's
numbers stand are rules of their own, read and tested here without a terminal (no textual, no
rich); the widget keeps the scrolling, the keys, and turning class names into styles.
"""

from __future__ import annotations

from functools import cache

CELL_WIDTH = 2
"""Characters per pair on screen: its mark, then a gap."""
UNJUDGED = "·"
RULER_STEP = 5
"""The ruler numbers the first column, then every RULER_STEP-th (5, 10, ... as counted from 1)."""


def column_caption(order: str) -> str:
    """What a column number means: ``doc #`` in corpus order (column n is the corpus's n-th
    document), ``pos #`` when shuffled (the n-th position of each query's own order)."""
    return "doc #" if order == "corpus" else "pos #"


def numbered(col: int) -> bool:
    """Whether the ruler carries the number of column ``col`` (0-based) and a ``┬`` under it."""
    return col == 0 or (col + 1) % RULER_STEP == 0


def ruler_numbers(first: int, end: int, width: int) -> str:
    """The ruler's number line over columns ``first`` to ``end - 1``, ``width`` characters long.

    Numbers are placed by column index, so each starts exactly above its cell whatever the
    sideways scroll; one running past ``width`` is cut, never shifted onto another cell."""
    chars = [" "] * width
    for col in range(first, end):
        if numbered(col):
            start = (col - first) * CELL_WIDTH
            for i, ch in enumerate(str(col + 1)):
                if start + i < width:
                    chars[start + i] = ch
    return "".join(chars)


def row_gutter(query: str, judged: int, total: int, query_width: int, count_width: int) -> str:
    """``"q1    4/6  "``: the query ID cut or padded to ``query_width``, then its judged/total count
    right-aligned in ``count_width`` (the room of the longest row, so judging never shifts the cells)."""
    count = f"{judged}/{total}".rjust(count_width)
    return f"{query[:query_width].ljust(query_width)} {count}  "


@cache  # called for every pair in view on every redraw, with at most 24 distinct arguments
def cell(label: int | None, imported: bool, disputed: bool, cursor: bool) -> tuple[str, tuple[str, ...]]:
    """A pair's mark (``1``, ``0`` or ``·``) and its component classes, in the order their styles
    are added (a later one wins where two set the same attribute): the label's own, imported (only
    on a label: someone else's, not yet reviewed here), disputed, then the cursor."""
    if label is None:
        classes = ["matrix--unjudged"]
    else:
        classes = ["matrix--relevant" if label else "matrix--irrelevant"]
        if imported:
            classes.append("matrix--imported")
    if disputed:
        classes.append("matrix--disputed")
    if cursor:
        classes.append("matrix--cursor")
    return (UNJUDGED if label is None else str(label)), tuple(classes)
