"""The mutation check runs as part of the suite: each broken rule must be caught by its named test."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "run_mutation_checks.py"


def test_every_mutant_is_killed_by_its_named_test():
    result = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "10 of 10 mutants killed" in result.stderr
