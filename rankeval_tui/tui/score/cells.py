"""Cells of the scoring screen: exact values, signed deltas and per-query delta bars.

Formatting only: every value comes from a ``Report`` or a ``PairedRow`` (core). The words go
with the colours ("MISSING", "▼", "n/a"), so nothing is told by colour alone.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

from rich.text import Text

from rankeval_tui.core.evaluation.compare import PairedRow
from rankeval_tui.core.evaluation.evaluate import QueryRow
from rankeval_tui.core.evaluation.render import row_status, signed
from rankeval_tui.core.wording import exact_and_decimal

BAR_HALF = 6
"""Cells on each side of the zero line; a delta of ±1 (the largest possible) fills one side.
Six: with the chosen metric's values, delta and verdict, the bar fits 80 columns beside query
IDs of up to 14 characters (RR@k; 10 for nDCG@k, whose headers are wider)."""

STYLE_LOSS = "bold red"
STYLE_WIN = "bold green"
STYLE_MISSING = "bold yellow"
STYLE_NO_RELEVANT = "italic magenta"
STYLE_ADJUDICATED = "cyan"

CACHE = 4096
"""Cells are cached per value: a table of thousands of queries holds few distinct fractions, and
one shared ``Text`` per value makes building rows and comparing cells on a k change cheap.
Callers must not mutate the returned ``Text``."""


def decimal_places(value: Fraction) -> str:
    """``0.5000``, ``1.0000``: four places always, so a column of values lines up to compare."""
    return f"{float(value):.4f}"


@lru_cache(maxsize=CACHE)
def value_cell(value: Fraction | None, missing: bool = False, exact: bool = True) -> Text:
    """``1/2 (0.5000)``, ``1``, or ``null`` (dim) exactly as the report holds it, or with
    ``exact=False`` the decimal alone (``0.5000``: the comparison's default, the fraction a key
    away); ``0 missing`` where the run has no ranking for the query (a pipeline gap scored 0, not
    a bad ranking)."""
    text = exact_and_decimal(value) if exact or value is None or missing else decimal_places(value)
    if missing:
        return Text(f"{text} missing", style=STYLE_MISSING, justify="right")
    return Text(text, style="dim" if value is None else "", justify="right")


@lru_cache(maxsize=CACHE)
def count_cell(value: int | None) -> Text:
    """A count or rank; ``-`` (dim) where there is none (a missing query's first relevant rank),
    as the score command's table writes it."""
    return Text("-" if value is None else str(value), style="dim" if value is None else "", justify="right")


def status_cell(row: QueryRow, adjudicated: bool = False, pooled: bool = False) -> Text:
    """The evaluator's two special cases in words and colour (see the legend), and ``adj.``
    (adjudicated, in the legend) beside them when an adjudicator decided some of the query's labels."""
    return _status_text(row.eligible, row.missing, row_status(row, pooled), adjudicated)


@lru_cache(maxsize=CACHE)
def _status_text(eligible: bool, missing: bool, status: str, adjudicated: bool) -> Text:
    """One shared cell per kind of status: 10,000 rows hold a handful, sized once by the table."""
    if not eligible:
        text = Text(status, style=STYLE_NO_RELEVANT)
    elif missing:
        text = Text(status, style=STYLE_MISSING)
    else:
        text = Text("ok", style="dim")
    if adjudicated:
        text.append(" · adj.", style=STYLE_ADJUDICATED)  # short: the table must fit 120 columns
    return text


def signed_and_decimal(delta: Fraction | None) -> str:
    """``+1/3 (+0.3333)``: ``signed``'s exact delta and its signed decimal (``exact_and_decimal``'s
    four places); whole numbers (``+1``, ``0``) and ``n/a`` need no decimal."""
    if delta is None or delta.denominator == 1:
        return signed(delta)
    return f"{signed(delta)} ({float(delta):+.4f})"


def signed_decimal(delta: Fraction | None) -> str:
    """``+0.3333``: the signed decimal alone; ``0`` and ``n/a`` as ``signed`` writes them."""
    if delta is None or not delta:
        return signed(delta)
    return f"{float(delta):+.4f}"


@lru_cache(maxsize=CACHE)
def delta_cell(delta: Fraction | None, exact: bool = True) -> Text:
    """``▲ +1/2 (+0.5000)`` green, ``▼ -1`` red, ``= 0`` plain, ``n/a`` for a query with no relevant
    document; with ``exact=False`` the signed decimal alone (``▲ +0.5000``)."""
    if delta is None:
        return Text("n/a", style=STYLE_NO_RELEVANT, justify="right")
    if not delta:
        return Text("= 0", justify="right")
    number = signed_and_decimal(delta) if exact else signed_decimal(delta)
    if delta > 0:
        return Text(f"▲ {number}", style=STYLE_WIN, justify="right")
    return Text(f"▼ {number}", style=STYLE_LOSS, justify="right")


def verdict_cell(row: PairedRow) -> Text:
    """``PairedRow.verdict`` in words and colour."""
    verdict = row.verdict()
    if verdict == "n/a":
        text = Text("no relevant", style=STYLE_NO_RELEVANT)
    elif verdict == "regression":
        text = Text("▼ REGRESSION", style=STYLE_LOSS)
    elif verdict == "improved":
        text = Text("▲ improved", style=STYLE_WIN)
    else:
        text = Text("= same")
    return text


@lru_cache(maxsize=CACHE)
def delta_bar(delta: Fraction | None, half: int = BAR_HALF) -> Text:
    """A bar around a zero line ``│``: losses grow left in red, wins grow right in green.

    Lengths are rounded up so that any nonzero delta shows at least one cell: a tiny
    regression must not look like a tie.
    """
    if delta is None:
        return Text(" " * half + "·" + " " * half, style="dim")
    cells = min(half, -(-abs(delta.numerator) * half // delta.denominator)) if delta else 0
    left = " " * (half - cells) + "█" * cells if delta < 0 else " " * half
    right = "█" * cells + " " * (half - cells) if delta > 0 else " " * half
    text = Text()
    text.append(left, style=STYLE_LOSS)
    text.append("│", style="dim")
    text.append(right, style=STYLE_WIN)
    return text
