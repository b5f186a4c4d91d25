"""core/ is pure domain: importing it (and the headless CLI paths) must not import textual."""

from __future__ import annotations

import subprocess
import sys


def modules_after(statement: str) -> set[str]:
    code = f"import sys; {statement}; print('\\n'.join(sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return set(out.split())


def test_core_does_not_import_textual():
    """Every module of core/, found by walking the package (a new module is covered without edits)."""
    loaded = modules_after(
        "import importlib, pkgutil, rankeval_tui.core as core; "
        "[importlib.import_module(m.name) for m in pkgutil.iter_modules(core.__path__, 'rankeval_tui.core.')]"
    )
    assert {
        "rankeval_tui.core.evaluation.evaluate",
        "rankeval_tui.core.annotation.judging",
        "rankeval_tui.core.session",
        "rankeval_tui.core.evaluation.stats",
        "rankeval_tui.core.files.fasttoml",
    } <= loaded
    assert not any(name == "textual" or name.startswith("textual.") for name in loaded)


def test_headless_score_does_not_import_textual():
    loaded = modules_after("from rankeval_tui.cli import build_parser; build_parser()")
    assert "rankeval_tui.cli.score" in loaded
    assert not any(name == "textual" or name.startswith("textual.") for name in loaded)
