"""When ``score`` reads its runs in a forked child while it reads the protocol, and how the
command takes them back: the child is the app's (``core.preread``), the policy is a one-shot
command's.

Why: the two reads are independent (a run file is checked on its own; what ties it to the
protocol is checked afterwards, here) and on a large protocol each is most of a second: read one
after the other they were most of ``score`` on 10,000 queries x 100 (issue 32).

When: runs of at least ``MIN_BYTES`` together (below that the fork and the pipe cost more than
the overlap saves: a CI step on a small protocol never forks, nor imports the machinery), two
CPUs or more for this process and one of them idle now (on a busy machine the child only
competes with this process: measured 10-15% slower then), distinct run names (``score`` names a
clash only after reading every run, the session's reader before), and whatever
``start_run_prefetch`` requires (Linux, one thread, ``RANKEVAL_TUI_SERIAL`` not ``1``).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from rankeval_tui.core.errors import ContractError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~3 ms of every start-up, issue 32)
if TYPE_CHECKING:
    from rankeval_tui.core.evaluation.evaluate import Run
    from rankeval_tui.core.preread import RunPrefetch
    from rankeval_tui.core.session_runs import RunSpec

MIN_BYTES = 2 * 1024 * 1024
"""Runs smaller than this together are read in this process."""


def worth_forking(specs: Sequence[RunSpec]) -> bool:
    """Whether reading ``specs`` in a child can gain here (see the module's docstring)."""
    names = [name or path.stem for name, path in specs]
    if len(set(names)) != len(names):
        return False
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
    if cpus < 2 or runnable_tasks() >= cpus:
        return False
    try:
        size = sum(os.stat(path).st_size for _, path in specs)
    except OSError:
        return False  # the read in this process names the problem
    return size >= MIN_BYTES


def runnable_tasks() -> int:
    """Tasks runnable on the machine at this instant, this process included (``/proc/loadavg``'s
    fourth field); a large number when unknown. Not the load average: that trails by a minute."""
    try:
        with open("/proc/loadavg") as loadavg:
            return int(loadavg.read().split()[3].partition("/")[0])
    except (OSError, ValueError, IndexError):
        return sys.maxsize


@contextmanager
def runs_read_ahead(specs: Sequence[RunSpec] | None, by_score: bool) -> Iterator[RunPrefetch | None]:
    """A child reading ``specs`` while the block runs, when ``worth_forking``; else None. A
    child whose runs were not taken (the block raised first) is stopped on the way out."""
    prefetch = None
    if specs and worth_forking(specs):
        from rankeval_tui.core.preread import start_run_prefetch  # only when forking: pickle, threading

        prefetch = start_run_prefetch(tuple(specs), by_score)
    try:
        yield prefetch
    finally:
        if prefetch is not None:
            prefetch.cancel()  # (nothing left to stop once its runs were taken)


def prefetched_runs(prefetch: RunPrefetch) -> list[Run]:
    """The runs the child read, or the first one's problem raised as reading it here raises it
    (the same one line: a ``LoadedRun`` keeps the ``ContractError``'s text)."""
    runs = []
    for loaded in prefetch.loaded():
        if loaded.run is None:
            raise ContractError(loaded.error or f"{loaded.path}: not read")
        runs.append(loaded.run)
    return runs
