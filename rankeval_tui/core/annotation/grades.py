"""Two annotators' grades on one scale: the grade-by-grade confusion matrix and Cohen's kappa
weighted by how far apart two grades are (linear, quadratic), beside binary kappa at the scale's
``relevant_from``.

Why a scale and not the labels seen: a weighted kappa weighs a 0-vs-2 disagreement by the
distance between the grades the protocol declares, so grades nobody gave still count in the
distance (scikit-learn's ``cohen_kappa_score`` needs ``labels=range(top + 1)`` for the same
number). Binary labels are the scale of top 1 with ``relevant_from`` 1, where every weighting
gives the unweighted kappa.

Why exact: every value is a ratio of integer counts, kept a ``Fraction``; None where it is 0/0
(no pairs, or both annotators gave one and the same grade everywhere), never 0 or 1.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from rankeval_tui.core.errors import ContractError

WEIGHTINGS = {"unweighted": 0, "linear": 1, "quadratic": 2}
"""How a disagreement between grades i and j weighs: 1 (any), |i - j|, (i - j)^2."""


@dataclass(frozen=True)
class Scale:
    """Integer grades 0..top; binary measures (and binary kappa) read grade >= relevant_from as relevant."""

    top: int = 1
    relevant_from: int = 1

    def __post_init__(self) -> None:
        if type(self.top) is not int or self.top < 1:
            raise ContractError(f"a scale's top grade is an integer >= 1, got {self.top!r}")
        if type(self.relevant_from) is not int or not 1 <= self.relevant_from <= self.top:
            raise ContractError(f"relevant_from must be an integer in 1..{self.top}, got {self.relevant_from!r}")

    @property
    def graded(self) -> bool:
        return self.top > 1

    @property
    def grades(self) -> range:
        return range(self.top + 1)

    def relevant(self, grade: int) -> int:
        return int(grade >= self.relevant_from)

    def to_json(self) -> dict[str, int]:
        return {"top": self.top, "relevant_from": self.relevant_from}


BINARY = Scale()


def weight(i: int, j: int, power: int) -> int:
    """The disagreement weight of grades i and j: 0 on the diagonal, else |i - j| ** power."""
    return 0 if i == j else abs(i - j) ** power


@dataclass(frozen=True)
class GradeCounts:
    """``counts[a][b]``: the pairs annotator A graded ``a`` and annotator B graded ``b``."""

    scale: Scale
    counts: tuple[tuple[int, ...], ...]

    @classmethod
    def of(cls, scale: Scale, grade_pairs: Iterable[tuple[int, int]]) -> GradeCounts:
        rows = [[0] * (scale.top + 1) for _ in scale.grades]
        for a, b in grade_pairs:
            rows[a][b] += 1
        return cls(scale, tuple(map(tuple, rows)))

    @classmethod
    def total(cls, scale: Scale, parts: Iterable[GradeCounts]) -> GradeCounts:
        rows = [[0] * (scale.top + 1) for _ in scale.grades]
        for part in parts:
            for a, row in enumerate(part.counts):
                for b, count in enumerate(row):
                    rows[a][b] += count
        return cls(scale, tuple(map(tuple, rows)))

    @property
    def pairs(self) -> int:
        return sum(map(sum, self.counts))

    @property
    def agreements(self) -> int:
        return sum(self.counts[g][g] for g in self.scale.grades)

    def kappa(self, weighting: str) -> Fraction | None:
        """Cohen's kappa with ``weighting`` (``WEIGHTINGS``): 1 - sum(w * observed) / sum(w * expected),
        expected from each annotator's grade totals; None where the expected sum is 0 (0/0)."""
        power = WEIGHTINGS[weighting]
        n = self.pairs
        grades = self.scale.grades
        a_totals = [sum(self.counts[a]) for a in grades]
        b_totals = [sum(self.counts[a][b] for a in grades) for b in grades]
        observed = sum(weight(a, b, power) * self.counts[a][b] for a in grades for b in grades)
        expected = sum(weight(a, b, power) * a_totals[a] * b_totals[b] for a in grades for b in grades)
        if not n or not expected:
            return None
        return 1 - Fraction(n * observed, expected)

    def to_json(self) -> dict[str, Any]:
        """The matrix (rows A's grade, columns B's) and each weighted kappa, exact and decimal."""
        data: dict[str, Any] = {"matrix": [list(row) for row in self.counts]}
        for name in WEIGHTINGS:
            value = self.kappa(name)
            data[f"{name}_kappa"] = None if value is None else str(value)
            data[f"{name}_kappa_decimal"] = None if value is None else float(value)
        return data
