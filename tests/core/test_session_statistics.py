"""The statistics child process: the chosen test first (early), then both tests; same p-values."""

from __future__ import annotations

import os
import time
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


def test_a_job_goes_to_the_waiting_child_and_a_new_one_waits_for_the_next(seed_dir: Path) -> None:
    """The child that starts an interpreter and imports the evaluator is started ahead."""
    from rankeval_tui.core import session_statistics

    session = ScoringSession.load(seed_dir)
    session_statistics.prepare_statistics_process()
    waiting = session_statistics._spare
    assert waiting is not None and waiting.process.is_alive()
    pids: list[int | None] = []
    real_take = session_statistics._take_child

    def take() -> session_statistics._Child:
        child = real_take()
        pids.append(child.process.pid)
        return child

    session_statistics._take_child = take  # type: ignore[assignment]
    try:
        result = statistics_in_process(session.family("fixture_A"), cancelled=lambda: False)
    finally:
        session_statistics._take_child = real_take  # type: ignore[assignment]
    assert result == session.statistics("fixture_A")
    assert pids == [waiting.process.pid]
    assert not waiting.process.is_alive(), "a child answers one job and ends"
    spare = session_statistics._spare
    assert spare is not None and spare.process.is_alive() and spare.process.pid != waiting.process.pid
    if hasattr(os, "getpriority"):  # the children yield the cores to the screen
        deadline = time.monotonic() + 10
        while os.getpriority(os.PRIO_PROCESS, spare.process.pid) == os.getpriority(os.PRIO_PROCESS, 0):
            assert time.monotonic() < deadline, "the waiting child never lowered its priority"
            time.sleep(0.01)
        assert os.getpriority(os.PRIO_PROCESS, spare.process.pid) >= os.getpriority(os.PRIO_PROCESS, 0) + 5


def test_the_second_result_is_what_both_tests_at_once_give_on_hundreds_of_queries(tmp_path: Path) -> None:
    """``chosen_then_both`` draws the chosen test once and adds the other beside it: on 300
    queries (Monte-Carlo sign-flip and bootstrap, two candidates for Holm) its second result is
    ``family_statistics`` with both tests, field for field, for either chosen test."""
    from benchmarks.synth import SynthSpec, make_data, write_protocol
    from rankeval_tui.core.session_statistics import chosen_then_both, family_statistics

    paths = write_protocol(tmp_path / "p", make_data(SynthSpec(300, 20, 10, runs=("bm25.run", "dense", "splade"))))
    session = ScoringSession.load(paths.directory, [(None, p) for p in paths.json_runs.values()])
    reports = session.family(session.accepted[0].name)
    for test in ("randomization", "bootstrap"):
        settings = {"test": test, "samples": 200, "seed": 7}
        first, second = chosen_then_both(reports, settings)
        assert first == family_statistics(reports, **settings, both=False)
        assert second == family_statistics(reports, **settings)
        assert second is not None and all(
            m.sign_flip is not None and m.bootstrap is not None for c in second.candidates for m in c.metrics.values()
        )


def test_children_are_forked_by_the_fork_server_with_the_project_preloaded(seed_dir: Path) -> None:
    """A child that spawns an interpreter re-imports the app before its job (~0.5 s each); one
    forked by the fork server (which imported the project and numpy once) does not. The child's
    parent is then the server, not this process."""
    import multiprocessing

    from rankeval_tui.core import session_statistics

    if "forkserver" not in multiprocessing.get_all_start_methods():  # Windows: spawn, as before
        assert session_statistics._child_context().get_start_method() == "spawn"
        return
    context = session_statistics._child_context()
    assert context.get_start_method() == "forkserver"
    from multiprocessing import forkserver

    preload = forkserver._forkserver._preload_modules
    assert {"__main__", "numpy", "rankeval_tui.core.session_statistics"} <= set(preload)
    session_statistics.prepare_statistics_process()
    spare = session_statistics._spare
    assert spare is not None and spare.process.pid is not None
    stat = Path(f"/proc/{spare.process.pid}/stat")
    if stat.exists():  # Linux: the fourth field is the parent's pid
        assert int(stat.read_text().rsplit(")", 1)[1].split()[1]) != os.getpid()
    session = ScoringSession.load(seed_dir)
    assert statistics_in_process(session.family("fixture_A"), cancelled=lambda: False) == session.statistics(
        "fixture_A"
    )
