"""docs/api.md's example is run as written: the documented API and its outputs stay true."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

DOC = Path(__file__).resolve().parent.parent / "docs" / "api.md"


def python_blocks(text: str) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```$", text, flags=re.MULTILINE | re.DOTALL)


def test_the_example_runs_and_prints_what_its_comments_say() -> None:
    blocks = python_blocks(DOC.read_text(encoding="utf-8"))
    assert len(blocks) == 1
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(blocks[0], str(DOC), "exec"), {"__name__": "docs_api_example"})
    printed = out.getvalue().splitlines()
    expected = [line.split("  # prints: ", 1)[1] for line in blocks[0].splitlines() if "  # prints: " in line]
    assert len(printed) == len(expected) == 3
    for got, want in zip(printed, expected):
        assert got == want
