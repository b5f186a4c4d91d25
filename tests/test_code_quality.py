"""The README's test command also runs the linters: ruff (lint and format) and mypy.

Their configuration lives in pyproject.toml (mypy is strict on ``rankeval_tui/core``), so these
tests only run the tools from the repository root and show their output when they fail. A tool
missing from the environment is a skip naming the extra that provides it, never a pass.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def run_tool(module: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``python -m MODULE ARGS`` in the repository root (the tools read pyproject.toml there)."""
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} is not installed (it is in the test extras: pip install -e '.[test]')")
    return subprocess.run([sys.executable, "-m", module, *args], cwd=REPO, capture_output=True, text=True, timeout=600)


def assert_clean(result: subprocess.CompletedProcess[str]) -> None:
    assert result.returncode == 0, (result.stdout + result.stderr)[-6000:]


def test_ruff_lint_is_clean() -> None:
    assert_clean(run_tool("ruff", "check", "."))


def test_ruff_format_is_clean() -> None:
    assert_clean(run_tool("ruff", "format", "--check", "."))


def test_mypy_is_clean() -> None:
    assert_clean(run_tool("mypy"))
