"""Paired statistics of a scoring session, in this process or in a child process that can be stopped.

Why a module of its own: the scoring screen needs the statistics off its thread (pure-Python
draws holding the GIL slowed every key) and cancellable by a newer k, split or baseline;
the process plumbing for that is no part of the session's view model (``core/session.py``).
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
import traceback
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import TYPE_CHECKING, Any, cast

from rankeval_tui.core.evaluation.compare import compare
from rankeval_tui.core.evaluation.evaluate import Report
from rankeval_tui.core.evaluation.paired_defaults import TEST_ALIASES
from rankeval_tui.core.evaluation.stats import MetricStatistics, PairedStatistics, paired_statistics

if TYPE_CHECKING:
    from multiprocessing.context import ForkServerContext, SpawnContext


def family_statistics(reports: Sequence[Report], **settings: Any) -> PairedStatistics | None:
    """Statistics of ``reports[1:]`` against ``reports[0]`` (None without a candidate). A plain
    function of picklable reports, so a child process can run exactly what the session runs."""
    if len(reports) < 2:
        return None
    return paired_statistics([compare(reports[0], r) for r in reports[1:]], **settings)


def chosen_then_both(reports: Sequence[Report], settings: dict[str, Any]) -> Iterator[PairedStatistics | None]:
    """``family_statistics`` with the chosen test alone, then with both tests, comparing the
    reports once and drawing the chosen test once: the second is the first with the other
    test's results beside it, which is what ``both=True`` computes (tests/core/test_session_statistics.py)."""
    if len(reports) < 2:
        yield None
        yield None
        return
    comparisons = [compare(reports[0], r) for r in reports[1:]]
    chosen = TEST_ALIASES.get(settings.get("test", "randomization"), "randomization")
    first = paired_statistics(comparisons, **{**settings, "both": False})
    yield first
    other = "bootstrap" if chosen == "randomization" else "randomization"
    second = paired_statistics(comparisons, **{**settings, "test": other, "both": False})
    yield replace(
        first,
        candidates=tuple(
            replace(mine, metrics={m: _beside(s, theirs.metrics[m]) for m, s in mine.metrics.items()})
            for mine, theirs in zip(first.candidates, second.candidates)
        ),
    )


def _beside(chosen: MetricStatistics, other: MetricStatistics) -> MetricStatistics:
    return replace(chosen, sign_flip=chosen.sign_flip or other.sign_flip, bootstrap=chosen.bootstrap or other.bootstrap)


CHILD_NICENESS = 5
"""Statistics children run at a lower priority: on two cores, a child computing, the next one
starting and the screen re-scoring after a k change compete, and the keys come first."""


def _statistics_child(jobs: Connection, sender: Connection) -> None:
    """A child that waits for one job (the reports, the settings, whether to send the chosen
    test first), answers it and ends; the end of ``jobs`` without a job (the parent exited or
    dropped a spare) ends it quietly."""
    if hasattr(os, "nice"):
        os.nice(CHILD_NICENESS)
    try:
        reports, settings, early = jobs.recv()
    except (EOFError, OSError):
        return
    try:
        if early:  # the chosen test's p and verdict first: the bootstrap is most of the time
            for result in chosen_then_both(reports, settings):
                sender.send((True, result))
        else:
            sender.send((True, family_statistics(reports, **settings)))
    except BaseException:  # the parent re-raises it: a bug must surface, not hang the screen
        sender.send((False, traceback.format_exc()))
    finally:
        sender.close()


@dataclass
class _Child:
    """A started child with its two pipe ends on our side: jobs go in, results come out."""

    process: BaseProcess
    jobs: Connection
    results: Connection

    def close(self) -> None:
        if self.process.is_alive():
            self.process.terminate()
        self.process.join()
        self.jobs.close()
        self.results.close()


_spare_lock = threading.Lock()
_spare: _Child | None = None


PRELOADED_ELSEWHERE = ("numpy",)
"""Imported by the fork server although the parent may not have them yet: the draws need numpy."""


def _child_context() -> ForkServerContext | SpawnContext:
    """The fork server where the platform has one, else spawn; never a plain fork of this
    process, which runs threads (Textual's, the loading worker).

    Why: a spawned child starts an interpreter and re-imports the parent's main module (the app,
    Textual) before its first job. The fork server pays that once, in a process of its own with
    no threads; each child is then a fork of it, ready almost at once, so a job that follows
    a dropped one (a k change after a k change) does not wait for an import. The server preloads
    the project's modules this process has imported (then re-running the main script, as
    multiprocessing does in each child, only re-binds names) and numpy. The preload list is
    multiprocessing's one global setting: another user of the fork server here shares it."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    project = sorted(name for name in sys.modules if name.split(".")[0] == __name__.split(".")[0])
    context.set_forkserver_preload(["__main__", *project, *PRELOADED_ELSEWHERE])
    return context


def _start_child() -> _Child:
    context = _child_context()
    ensure_resource_tracker()
    job_receiver, job_sender = context.Pipe(duplex=False)
    result_receiver, result_sender = context.Pipe(duplex=False)
    process = context.Process(
        target=_statistics_child, args=(job_receiver, result_sender), daemon=True, name="rankeval-statistics"
    )
    process.start()
    job_receiver.close()
    result_sender.close()
    return _Child(process, job_sender, result_receiver)


def prepare_statistics_process() -> None:
    """Start a child that waits for the next statistics job, unless one is waiting already.

    Why: the first child starts the fork server, which imports the evaluator, the app and numpy
    (slow; with spawn, every child did), and even a forked child takes a moment to reach its
    job; started ahead (while the screen loads, and after each job
    for the next one), neither is on the path from a key to its statistics."""
    global _spare
    with _spare_lock:
        if _spare is None or not _spare.process.is_alive():
            _spare = _start_child()


def _take_child() -> _Child:
    """The waiting child, or a new one when none is ready."""
    global _spare
    with _spare_lock:
        child, _spare = _spare, None
    if child is None or not child.process.is_alive():
        return _start_child()
    return child


def ensure_resource_tracker() -> None:
    """Start multiprocessing's resource tracker with the real stderr.

    A spawned child needs the tracker, and starting it passes ``sys.stderr.fileno()`` to it; a
    Textual app replaces ``sys.stderr`` with a capture whose ``fileno()`` is -1, which makes the
    start fail ("bad value(s) in fds_to_keep"). Only the first call starts it."""
    from multiprocessing import resource_tracker

    try:
        usable = sys.stderr is not None and sys.stderr.fileno() >= 0
    except (AttributeError, OSError, ValueError):
        usable = False
    if usable or sys.__stderr__ is None:
        resource_tracker.ensure_running()
        return
    captured = sys.stderr
    sys.stderr = sys.__stderr__
    try:
        resource_tracker.ensure_running()
    finally:
        sys.stderr = captured


def statistics_in_process(
    reports: Sequence[Report],
    *,
    cancelled: Callable[[], bool],
    early: Callable[[PairedStatistics | None], None] | None = None,
    poll: float = 0.05,
    **settings: Any,
) -> PairedStatistics | None:
    """``family_statistics`` in a child process (``_child_context``), which can be stopped.

    Why a process and not a thread: the draws are pure Python, and a thread holding the GIL for
    seconds made every key on the screen wait (benchmarks/bench_score_statistics.py measures it).
    ``cancelled`` is polled; when it says so (a newer k, split or baseline), the child is
    terminated at once and None is returned, so stale work never piles up. The job goes to the
    child ``prepare_statistics_process`` started ahead; when this one is done or dropped, the
    next child is started (not before: it would compete with this one for the second core).
    ``early``: called first with the chosen test alone (``both=False``: its p-values, Holm and
    verdict, no other test), then the full result is returned. At 10,000 queries the bootstrap
    is three quarters of the time, and the sign-flip p is what the verdict reads.
    """
    job = (tuple(reports), settings, early is not None)
    child = _take_child()
    try:
        try:
            return _answer(child, job, cancelled, early, poll)
        except ChildGone:
            # Killed (the OOM killer, a stray kill) before it answered: one fresh child tries
            # again, since the one waiting ahead may have died long before this job.
            child.close()
            child = _start_child()
        try:
            return _answer(child, job, cancelled, early, poll)
        except ChildGone as gone:
            raise StatisticsUnavailable(
                f"the statistics process ended without a result twice (exit code {gone.exitcode}; "
                "killed, perhaps for lack of memory)"
            ) from None
    finally:
        child.close()
        prepare_statistics_process()  # for the next request (a newer k is usually one)


class StatisticsUnavailable(RuntimeError):
    """The statistics child died without a result, twice: the screen says so and lets the user
    ask again; it never ends the app."""


class ChildGone(Exception):
    def __init__(self, exitcode: int | None) -> None:
        super().__init__(exitcode)
        self.exitcode = exitcode


def _answer(
    child: _Child,
    job: tuple[Any, ...],
    cancelled: Callable[[], bool],
    early: Callable[[PairedStatistics | None], None] | None,
    poll: float,
) -> PairedStatistics | None:
    """Send ``job`` to ``child`` and wait for its answer; ``ChildGone`` when it dies first (a
    closed pipe on either side: ``BrokenPipeError`` on send, ``EOFError`` on receive)."""
    try:
        child.jobs.send(job)
        messages = 2 if early is not None else 1
        for message in range(messages):
            while not child.results.poll(poll):
                if cancelled():
                    return None
                if not child.process.is_alive() and not child.results.poll(0):
                    raise ChildGone(child.process.exitcode)
            if cancelled():  # a result that came in after a newer request is dropped too
                return None
            ok, value = child.results.recv()
            if not ok:
                raise RuntimeError(f"the statistics process failed:\n{value}")
            if message < messages - 1 and early is not None:
                early(cast("PairedStatistics | None", value))
    except (EOFError, OSError):
        child.process.join(1)
        raise ChildGone(child.process.exitcode) from None
    # _statistics_child sends (True, family_statistics(...)) or (False, the traceback's text).
    return cast("PairedStatistics | None", value)
