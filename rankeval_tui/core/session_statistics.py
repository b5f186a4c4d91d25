"""Paired statistics of a scoring session, in this process or in a child process that can be stopped.

Why a module of its own: the scoring screen needs the statistics off its thread (pure-Python
draws holding the GIL slowed every key ~10x) and cancellable by a newer k, split or baseline;
the process plumbing for that is no part of the session's view model (``core/session.py``).
"""

from __future__ import annotations

import multiprocessing
import sys
import traceback
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection
from typing import Any, cast

from rankeval_tui.core.evaluation.compare import compare
from rankeval_tui.core.evaluation.evaluate import Report
from rankeval_tui.core.evaluation.stats import PairedStatistics, paired_statistics


def family_statistics(reports: Sequence[Report], **settings: Any) -> PairedStatistics | None:
    """Statistics of ``reports[1:]`` against ``reports[0]`` (None without a candidate). A plain
    function of picklable reports, so a child process can run exactly what the session runs."""
    if len(reports) < 2:
        return None
    return paired_statistics([compare(reports[0], r) for r in reports[1:]], **settings)


def _statistics_child(sender: Connection, reports: Sequence[Report], settings: dict[str, Any], early: bool) -> None:
    try:
        if early:  # the chosen test's p and verdict first: the bootstrap is most of the time
            sender.send((True, family_statistics(reports, **{**settings, "both": False})))
        sender.send((True, family_statistics(reports, **settings)))
    except BaseException:  # the parent re-raises it: a bug must surface, not hang the screen
        sender.send((False, traceback.format_exc()))
    finally:
        sender.close()


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
    """``family_statistics`` in a spawned child process, which can be stopped.

    Why a process and not a thread: the draws are pure Python, and a thread holding the GIL for
    seconds made every key on the screen ~10x slower (benchmarks/bench_score_statistics.py).
    ``cancelled`` is polled; when it says so (a newer k, split or baseline), the child is
    terminated at once and None is returned, so stale work never piles up.
    ``early``: called first with the chosen test alone (``both=False``: its p-values, Holm and
    verdict, no other test), then the full result is returned. At 10,000 queries the bootstrap
    is three quarters of the time, and the sign-flip p is what the verdict reads.
    """
    context = multiprocessing.get_context("spawn")  # no fork of a process running threads
    ensure_resource_tracker()
    receiver, sender = context.Pipe(duplex=False)
    process = context.Process(
        target=_statistics_child,
        args=(sender, tuple(reports), settings, early is not None),
        daemon=True,
        name="rankeval-statistics",
    )
    process.start()
    sender.close()
    try:
        messages = 2 if early is not None else 1
        for message in range(messages):
            while not receiver.poll(poll):
                if cancelled():
                    return None
                if not process.is_alive() and not receiver.poll(0):
                    raise RuntimeError(f"the statistics process ended without a result (exit code {process.exitcode})")
            ok, value = receiver.recv()
            if not ok:
                raise RuntimeError(f"the statistics process failed:\n{value}")
            if message < messages - 1 and early is not None:
                early(cast("PairedStatistics | None", value))
    finally:
        if process.is_alive():
            process.terminate()
        process.join()
        receiver.close()
    # _statistics_child sends (True, family_statistics(...)) or (False, the traceback's text).
    return cast("PairedStatistics | None", value)
