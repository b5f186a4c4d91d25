"""The statistics child process: the chosen test first (early), then both tests; same p-values."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from rankeval_tui.core.evaluation.stats import PairedStatistics
from rankeval_tui.core.session import ScoringSession
from rankeval_tui.core.session_statistics import statistics_in_process


def test_early_result_is_the_sign_flip_of_the_full_result(seed_dir: Path) -> None:
    session = ScoringSession.load(seed_dir)
    reports = session.family("fixture_A")  # candidates all_empty and fixture_B: Holm over two
    early: list[PairedStatistics | None] = []
    full = statistics_in_process(reports, cancelled=lambda: False, early=early.append)
    assert full is not None and len(early) == 1 and early[0] is not None
    assert full == session.statistics("fixture_A")  # the child computes what the session does
    for first, last in zip(early[0].candidates, full.candidates):
        for metric in ("recall", "rr"):
            assert first.metrics[metric].bootstrap is None and last.metrics[metric].bootstrap is not None
            assert first.metrics[metric] == replace(last.metrics[metric], bootstrap=None)
    assert full.get("fixture_B").metrics["rr"].p_holm == 1  # docs/scoring.md: Holm over both candidates


def test_cancelled_before_the_first_result_returns_none_without_early(seed_dir: Path) -> None:
    reports = ScoringSession.load(seed_dir).family("fixture_A")
    early: list[PairedStatistics | None] = []
    assert statistics_in_process(reports, cancelled=lambda: True, early=early.append) is None
    assert early == []
