"""Words around numbers: one place for plurals, progress percentages, exact values with their
decimal, and json's error positions.

Why a module: counts were pluralized ad hoc ("1 pairs" in the judging status and messages) and a
rounded percentage read 100% with a pair still unjudged. Core messages and the screens both word
their counts through these functions; it imports only the standard library, so every floor of
core may use it.
"""

from __future__ import annotations

from fractions import Fraction

IRREGULAR = {"query": "queries"}


def counted(n: int, noun: str) -> str:
    """``1 pair``, ``2 pairs``, ``0 queries``, ``3 more queries``: the count with its noun (the
    last word of ``noun``) in the right number."""
    if n == 1:
        return f"{n} {noun}"
    head, _, last = noun.rpartition(" ")
    return f"{n} {head}{' ' if head else ''}{IRREGULAR.get(last, last + 's')}"


def pairs_unjudged(n: int) -> str:
    """``1 pair is unjudged``, ``3 pairs are unjudged``: the core refusal and the judging screen's
    status both say why qrels are not written yet, and must agree word for word."""
    return f"{counted(n, 'pair')} {'is' if n == 1 else 'are'} unjudged"


def floored_percent(done: int, total: int) -> str:
    """``99%`` for 239 of 240: floored, so it reads 100% only when nothing is left."""
    if total <= 0:
        return "100%"
    return f"{done * 100 // total}%"


def json_error(msg: str, line: int | None, column: int) -> str:
    """json's error message with its position, worded as one sentence: ``msg`` alone may end
    mid-sentence (``Unterminated string starting at``), so the position finishes it."""
    where = f"column {column}" if line is None else f"line {line} column {column}"
    return f"{msg} {where}" if msg.endswith(" at") else f"{msg} at {where}"


def exact_and_decimal(value: Fraction | None, places: int = 4) -> str:
    """``5/6 (0.8333)``; an integer alone (``1``, not ``1 (1)``); ``null`` where the seed says null."""
    if value is None:
        return "null"
    if value.denominator == 1:
        return str(value.numerator)
    return f"{value} ({float(value):.{places}f})"


def fraction_fits(value: Fraction | None, places: int = 4) -> bool:
    """Whether ``value``'s fraction is no wider than its decimal (``5/6`` beside ``0.8333``), so
    showing both costs a reader nothing. nDCG's and AP's fractions run to 20-odd digits
    (``689540520441/4543559338088``): a table at 80 columns shows their decimal alone, and the
    exact value stays a key away (the drill-down, ``x`` in the comparison, the JSON)."""
    return value is None or value.denominator == 1 or len(str(value)) <= places + 2
