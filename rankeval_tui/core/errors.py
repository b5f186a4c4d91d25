"""The one error type users ever see.

Every rejection of input (a protocol, qrels, run or chunk map that breaks the contract) is a
``ContractError``. It carries the file, the place in it (query, document, line) and the rule
that was broken, so the CLI can print one line and exit 2, and a screen can show the reason
beside the run it rejected. It subclasses ``ValueError`` so the seed's tests, which expect
``ValueError``, describe the project's behaviour unchanged.
"""

from __future__ import annotations

import math
import reprlib
from collections.abc import Callable
from pathlib import Path

from rankeval_tui.core.terminal_text import printable

QUOTE_LIMIT = 60
"""Characters of an ID or value an error message shows; a longer one is cut and its length given.
Without a limit, a run holding one 100 MB document ID printed a 100 MB ``error:`` line."""

_SHORT_REPR = reprlib.Repr()
_SHORT_REPR.maxstring = _SHORT_REPR.maxother = QUOTE_LIMIT
_SHORT_REPR.maxlist = _SHORT_REPR.maxtuple = _SHORT_REPR.maxdict = _SHORT_REPR.maxset = 6
_SHORT_REPR.maxlevel = 3


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
        # Not only \n and \r: U+2028, \x85, \x0b ... also break lines in terminals and in
        # str.splitlines(), and ESC starts a control sequence; a hostile file's text may hold them.
        return printable(": ".join(parts))

    def located(self, *, file: str | Path | None = None, where: str | None = None) -> ContractError:
        """The same rule with a file or place filled in where it was not known yet."""
        return ContractError(
            self.rule,
            file=self.file if self.file is not None else file,
            where=self.where if self.where is not None else where,
        )


def brief(text: str) -> str:
    """``text`` unquoted if short, else cut with its length: for IDs inside ``[table.ID]`` paths."""
    if len(text) <= QUOTE_LIMIT:
        return text
    return f"{text[:QUOTE_LIMIT]}... ({len(text)} characters)"


def quote(value: object) -> str:
    """``'q:1001'``: input quoted with repr (spaces, quotes and control characters show), briefly.

    A string longer than ``QUOTE_LIMIT`` is cut, with its length: ``'aaaa...' (104857600
    characters)``. An integer too long to print (Python refuses more than 4300 digits) is
    described by its digit count; lists and tables are abbreviated (``reprlib``).
    """
    if isinstance(value, str):
        if len(value) <= QUOTE_LIMIT:
            return repr(value)
        head = repr(value[:QUOTE_LIMIT])  # never repr(value): that alone took seconds at 100 MB
        return f"{head[:-1]}...{head[-1]} ({len(value)} characters)"
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 3 * QUOTE_LIMIT:
        digits = math.floor(value.bit_length() * math.log10(2)) + 1
        return f"an integer of about {digits} digits"
    return _SHORT_REPR.repr(value)


def describe_id(kind: str, value: object) -> str:
    """``query 'q:1001'``: an ID quoted (``quote``) so spaces, quotes and control characters show."""
    return f"{kind} {quote(value)}"


def describe_os_error(error: OSError) -> str:
    """``qrels.toml: No space left on device``: an OSError as the one line a user reads."""
    reason = error.strerror or str(error)
    return f"{error.filename}: {reason}" if error.filename else reason


Reporter = Callable[[ContractError], None]
"""Where a checker sends each problem it finds: ``raise_problem`` (the default, stop at the first)
or a list's ``append`` (``validate``, which lists every problem)."""


def raise_problem(problem: ContractError) -> None:
    raise problem
