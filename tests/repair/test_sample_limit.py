"""Issue 30 L: ``--samples 99999999999`` is one clear line naming the limit, not numpy's
``_ArrayMemoryError`` traceback after the draws started."""

from __future__ import annotations

import pytest

from rankeval_tui.core.evaluation.compare import compare
from rankeval_tui.core.evaluation.paired_defaults import MAX_SAMPLES
from rankeval_tui.core.evaluation.stats import paired_statistics
from rankeval_tui.core.session import ScoringSession
from tests.cli.helpers import run_cli


@pytest.mark.parametrize("samples", ["99999999999", str(MAX_SAMPLES + 1)])
def test_too_many_samples_is_one_line_with_the_limit(samples: str) -> None:
    result = run_cli("score", "--samples", samples)
    assert result.returncode == 2 and result.stdout == "" and "Traceback" not in result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("error: ") and f"at most {MAX_SAMPLES:,} samples" in line and samples in line


def test_the_api_refuses_them_before_drawing(seed_dir) -> None:
    reports = ScoringSession.load(seed_dir).family("fixture_A")
    with pytest.raises(ValueError, match="samples must be from 1 to 1,000,000"):
        paired_statistics([compare(reports[0], r) for r in reports[1:]], samples=99999999999)
