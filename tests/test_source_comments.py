"""Source comments and docstrings say why; benchmarks and docs/benchmarks.md say how fast.

Checked in every comment and every string statement (module, class, function and attribute
docstrings) of ``rankeval_tui/``:

- no issue number (``issue 32``, ``issues 30``, ``issue #7``): the issue tracker is history, and
  the comment must still make sense to a reader who never saw it;
- no commit hash (7 to 40 hex characters with a digit and a letter, after ``at``, ``commit``,
  ``beside``, ``since``, ``before``, ``after``, ``from`` or ``rev``);
- no timing figure: a number with a time unit (``0.15 s``, ``2-3 s``, ``~30 ms``, ``0.4 us``,
  ``15 µs``, ``20 seconds``), a speed-up factor (``~10x``, ``1.5x faster``) or a repetition count
  (``median of 6``, ``best of 3``). Text between double backticks is left out of this check: it
  quotes output or code (``~41 min left at 14 s/judgment`` is what the judging screen shows).

Not caught: a figure without its unit (``0.43 -> 0.28``), a size or a percentage (the limits
and constants documented in those terms are legitimate: ``1 GiB``, ``512 KB of doubles``), and a
figure in words (``three times as much``).
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "rankeval_tui"

ISSUE_NUMBER = re.compile(r"\bissues?\s+#?\d+", re.IGNORECASE)
COMMIT_HASH = re.compile(
    r"\b(?:at|commit|commits|beside|since|before|after|from|rev)\s+`*(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b"
)
TIMING = re.compile(
    r"\d+(?:[.,]\d+)*(?:\s?-\s?\d+(?:[.,]\d+)*)?\s?(?:s|ms|us|µs|ns|seconds|milliseconds|microseconds)\b"
    r"|\d+(?:\.\d+)?x(?:\s+(?:faster|slower))?\b"
    r"|\b(?:median|best|mean) of \d",
    re.IGNORECASE,
)
QUOTED = re.compile(r"``.*?``", re.DOTALL)


def modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def prose(source: str) -> Iterator[tuple[int, str]]:
    """Every comment and every string statement of ``source``, with its first line."""
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            yield token.start[0], token.string
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            yield node.lineno, node.value.value


def findings(source: str) -> list[str]:
    """What a comment or docstring of ``source`` holds that belongs in the tracker or a benchmark."""
    found = []
    for line, text in prose(source):
        for rule, pattern, checked in (
            ("issue number", ISSUE_NUMBER, text),
            ("commit hash", COMMIT_HASH, text),
            ("timing figure", TIMING, QUOTED.sub("````", text)),
        ):
            found += [f"line {line}: {rule} {match.group()!r}" for match in pattern.finditer(checked)]
    return found


@pytest.mark.parametrize(
    "text",
    [
        "# typing.TYPE_CHECKING without importing typing (~3 ms of every start-up, issue 32)",
        "# adjudication queue (Issue #7)",
        '"""Measured beside 98423a3 on the pooled shape."""',
        '"""The same bytes as at commit 1f0c2e9d4b."""',
        "# a redraw takes 0.11-0.24 ms here",
        "# a 6,000-line page took 2-3 s per key",
        '"""Each child is ready in ~0.01 s."""',
        "# about 15 us a line",
        "# 15 µs a line",
        "# would slow every key ~10x",
        "# 1.5x faster than the stock table",
        '"""0.48 -> 0.41 s CPU, median of 6."""',
        "# best of 3 rounds",
        "# takes about 20 seconds in Python",
    ],
)
def test_each_kind_of_figure_is_caught(text: str) -> None:
    assert findings(text + "\n"), text


@pytest.mark.parametrize(
    "text",
    [
        '"""``~41 min left at 14 s/judgment``: the pace, as the screen shows it."""',
        "# at least 10 rows at 80x24, and 140x40",
        '"""The seed\'s protocol hash ``9dd1a576...`` never changes."""',
        '"""1 GiB: a 10-million-entry JSON run is about 300 MB."""',
        "# 99% for 239 of 240: floored",
        "# seconds of draws on thousands of queries",
        "# stamped with unix seconds, ms precision",
        "# a 200 x 500 protocol has 100,000 pairs",
        "# issues are reported in the journal",
    ],
)
def test_what_is_not_a_figure_passes(text: str) -> None:
    assert not findings(text + "\n"), findings(text + "\n")


def test_no_issue_number_commit_hash_or_timing_figure_in_source_comments() -> None:
    problems = [
        f"{path.relative_to(PACKAGE.parent)} {finding}"
        for path in modules()
        for finding in findings(path.read_text(encoding="utf-8"))
    ]
    assert not problems, "say why, not how fast (the benchmark does) nor which issue:\n" + "\n".join(problems)


def test_code_is_not_checked_only_its_prose() -> None:
    """A figure in code (a string the program prints, a number) is not a comment."""
    assert not findings('HELP = "median 14.0 s per judgment"\nDELAY = 0.15  # the delay\n')
