"""A value's exact range over the labellings of unjudged pairs, and the mean's range over
queries that share no pair: what ``bounds.py`` (one run) and ``delta_bounds.py`` (the change
between two runs) both give."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction


@dataclass(frozen=True)
class Bound:
    """The lowest and highest value; ``None`` for both when no assignment gives a value.
    ``undefined_possible``: some assignment leaves no relevant document (no value, excluded)."""

    low: Fraction | None
    high: Fraction | None
    undefined_possible: bool = False

    @property
    def exact(self) -> bool:
        return self.low == self.high and not self.undefined_possible


def extremes(values: Iterable[Fraction | None]) -> Bound:
    listed = list(values)
    defined = [value for value in listed if value is not None]
    if not defined:
        return Bound(None, None, True)
    return Bound(min(defined), max(defined), len(defined) != len(listed))


def mean_bound(fixed: list[Bound], optional: list[Bound]) -> Bound:
    """The mean's range: ``fixed`` queries always have a value; an ``optional`` one (no relevant
    document in its pool) has one only when a gap document is assumed relevant."""
    low = best_mean([b.low for b in fixed], sorted(b.low for b in optional if b.low is not None), True)
    high = best_mean(
        [b.high for b in fixed], sorted((b.high for b in optional if b.high is not None), reverse=True), False
    )
    return Bound(low, high, not fixed)


def best_mean(fixed: list[Fraction | None], ordered: list[Fraction], lowest: bool) -> Fraction | None:
    """The lowest (or highest) mean of ``fixed`` with a prefix of ``ordered`` (optional values,
    best first) joined, every prefix length tried; None when no query has a value."""
    total = sum((value for value in fixed if value is not None), Fraction(0))
    count = len(fixed)
    means = [total / count] if count else []
    for value in ordered:
        total += value
        count += 1
        means.append(total / count)
    if not means:
        return None
    return min(means) if lowest else max(means)
