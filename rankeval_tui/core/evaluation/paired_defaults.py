"""The paired tests' names and defaults, apart from the tests (``paired_tests``) themselves.

The command line and the app offer these (``--test``'s choices, the defaults in ``--help``)
before any statistics run: a plain ``score`` should not import the tests, their draws and
``random`` to print its usage (start-up time of a CI step).
"""

from __future__ import annotations

from fractions import Fraction

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: every command pays for its imports at start-up
if TYPE_CHECKING:
    from typing import Literal, TypeAlias

TestName: TypeAlias = "Literal['randomization', 'bootstrap']"
TESTS: tuple[TestName, ...] = ("randomization", "bootstrap")
TEST_ALIASES: dict[str, TestName] = {
    "sign-flip": "randomization",
    "randomization": "randomization",
    "bootstrap": "bootstrap",
}

EXACT_MAX_N = 20
DEFAULT_SAMPLES = 10_000
MAX_SAMPLES = 1_000_000
"""The most draws asked for: every sample keeps one sum per candidate and metric, and time and
memory grow with the samples: at 10,000 queries, 1,000,000 is minutes and hundreds of MB; far beyond,
the draws ran out of memory (``--samples 99999999999``: numpy's ``_ArrayMemoryError``)."""
DEFAULT_SEED = 0
DEFAULT_ALPHA = Fraction(1, 20)
