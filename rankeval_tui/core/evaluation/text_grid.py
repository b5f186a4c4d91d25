"""Tables as text: aligned columns for a terminal, or Markdown for a CI step summary.

Apart from render.py because a report's table is built column by column: at 100,000 queries a
row-by-row table (a Python call per cell to pad it) was most of ``score``'s table output; here
each column is padded, and each line joined, by one ``map`` in C.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import repeat


def grid(header: Sequence[str], rows: Sequence[Sequence[str]], markdown: bool) -> list[str]:
    """``rows`` under ``header``: ``grid_columns`` of their columns."""
    return grid_columns(header, list(zip(*rows)) if rows else [() for _ in header], markdown)


def grid_columns(header: Sequence[str], columns: Sequence[Sequence[str]], markdown: bool) -> list[str]:
    """The table of ``columns`` (all of one length) under ``header``: Markdown (``|`` in a cell
    escaped), or each column as wide as its widest cell, two spaces apart, lines right-stripped."""
    if markdown:
        cells = [list(map(str.replace, column, repeat("|"), repeat("\\|"))) for column in columns]
        lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
        return lines + list(map("| {} |".format, map(" | ".join, zip(*cells))))
    widths = [max(len(name), max(map(len, column), default=0)) for name, column in zip(header, columns)]
    padded = [list(map(str.ljust, column, repeat(width))) for column, width in zip(columns, widths)]
    lines = [
        "  ".join(map(str.ljust, header, widths)).rstrip(),
        "  ".join("-" * width for width in widths).rstrip(),
    ]
    return lines + list(map(str.rstrip, map("  ".join, zip(*padded))))
