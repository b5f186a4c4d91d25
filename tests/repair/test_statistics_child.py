"""Issue 30 K: the scoring screen's statistics child killed (as by the OOM killer): ``v`` neither
crashes the app nor waits forever; the statistics come from a fresh child, and when no child
can answer, the summary says so and ``v`` twice asks again."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from rankeval_tui.core import session_statistics
from rankeval_tui.core.session import ScoringSession
from rankeval_tui.core.session_statistics import StatisticsUnavailable, statistics_in_process
from tests.tui.settling import settle
from tests.tui.test_score_fit import SMALL, big, big_app  # noqa: F401 (fixture)
from tests.tui.test_score_screen import plain


def kill_waiting_child() -> None:
    session_statistics.prepare_statistics_process()
    spare = session_statistics._spare
    assert spare is not None and spare.process.pid is not None
    os.kill(spare.process.pid, signal.SIGKILL)


def test_a_killed_waiting_child_is_replaced_and_the_job_answered(seed_dir: Path) -> None:
    session = ScoringSession.load(seed_dir)
    kill_waiting_child()
    assert statistics_in_process(session.family("fixture_A"), cancelled=lambda: False) == session.statistics(
        "fixture_A"
    )


def test_when_no_child_answers_the_error_says_so(seed_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def killed_at_once(*args, **kwargs):
        raise session_statistics.ChildGone(-9)

    monkeypatch.setattr(session_statistics, "_answer", killed_at_once)
    with pytest.raises(StatisticsUnavailable, match="ended without a result twice .*exit code -9"):
        statistics_in_process(ScoringSession.load(seed_dir).family("fixture_A"), cancelled=lambda: False)


async def test_v_after_the_child_was_killed_shows_the_statistics(big: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """The child is killed just as ``v`` hands it the job (before, the worker's EOFError or
    BrokenPipeError ended the app)."""
    real_take = session_statistics._take_child

    def taken_then_killed() -> session_statistics._Child:
        child = real_take()
        assert child.process.pid is not None
        os.kill(child.process.pid, signal.SIGKILL)
        return child

    monkeypatch.setattr(session_statistics, "_take_child", taken_then_killed)
    async with big_app(big, "bm25", "dense").run_test(size=SMALL) as pilot:
        await settle(pilot)
        await pilot.press("v")
        await settle(pilot)
        assert "sign-flip p" in plain(pilot.app.screen, "#score-compare-summary")


async def test_a_failure_is_shown_and_v_twice_retries(big: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    import rankeval_tui.tui.score.compare_summary as compare_summary

    calls: list[int] = []

    def first_fails(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise StatisticsUnavailable("the statistics process ended without a result twice (exit code -9)")
        return statistics_in_process(*args, **kwargs)

    monkeypatch.setattr(compare_summary, "statistics_in_process", first_fails)
    async with big_app(big, "bm25", "dense").run_test(size=SMALL) as pilot:
        await settle(pilot)
        await pilot.press("v")
        await settle(pilot)
        summary = plain(pilot.app.screen, "#score-compare-summary")
        assert "paired statistics failed (v twice: try again): the statistics process ended" in summary
        await pilot.press("v", "v")
        await settle(pilot)
        assert "sign-flip p" in plain(pilot.app.screen, "#score-compare-summary") and len(calls) == 2
