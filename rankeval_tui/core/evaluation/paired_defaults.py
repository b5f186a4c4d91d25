"""The paired tests' names and defaults, apart from the tests (``paired_tests``) themselves.

The command line and the app offer these (``--test``'s choices, the defaults in ``--help``)
before any statistics run: a plain ``score`` should not import the tests, their draws and
``random`` to print its usage (start-up time of a CI step).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Literal

TestName = Literal["randomization", "bootstrap"]
TESTS: tuple[TestName, ...] = ("randomization", "bootstrap")
TEST_ALIASES: dict[str, TestName] = {
    "sign-flip": "randomization",
    "randomization": "randomization",
    "bootstrap": "bootstrap",
}

EXACT_MAX_N = 20
DEFAULT_SAMPLES = 10_000
DEFAULT_SEED = 0
DEFAULT_ALPHA = Fraction(1, 20)
