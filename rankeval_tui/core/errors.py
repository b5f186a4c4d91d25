"""The one error type users ever see.

Every rejection of input (a protocol, qrels, run or chunk map that breaks the contract) is a
``ContractError``. It carries the file, the place in it (query, document, line) and the rule
that was broken, so the CLI can print one line and exit 2, and a screen can show the reason
beside the run it rejected. It subclasses ``ValueError`` so the seed's tests, which expect
``ValueError``, describe the project's behaviour unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path


class ContractError(ValueError):
    """Input that breaks the evaluation protocol's contract."""

    def __init__(self, rule: str, *, file: str | Path | None = None, where: str | None = None):
        self.rule = rule
        self.file = None if file is None else str(file)
        self.where = where
        super().__init__(self.one_line())

    def one_line(self) -> str:
        """``file: where: rule`` with the parts that are known, on one line."""
        parts = [p for p in (self.file, self.where, self.rule) if p]
        text = ": ".join(parts)
        if text.isprintable():
            return text
        # Escape every non-printable character, not only \n and \r: U+2028, \x85, \x0b ... also
        # break lines in terminals and in str.splitlines(), and an ID from a hostile file may hold them.
        return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text)

    def located(self, *, file: str | Path | None = None, where: str | None = None) -> ContractError:
        """The same rule with a file or place filled in where it was not known yet."""
        return ContractError(
            self.rule,
            file=self.file if self.file is not None else file,
            where=self.where if self.where is not None else where,
        )


def describe_id(kind: str, value: object) -> str:
    """``query 'q2'``: IDs are quoted with repr so spaces, quotes and control characters show."""
    return f"{kind} {value!r}"


Reporter = Callable[[ContractError], None]
"""Where a checker sends each problem it finds: ``raise_problem`` (the default, stop at the first)
or a list's ``append`` (``validate``, which lists every problem)."""


def raise_problem(problem: ContractError) -> None:
    raise problem
