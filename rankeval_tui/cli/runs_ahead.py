"""The runs of a one-shot command read by a forked child while this process reads the protocol.

Why: the two reads are independent (a run file is checked on its own; what ties it to the
protocol is checked afterwards, here) and on a large protocol each is most of a second: read one
after the other they were most of ``score`` on 10,000 queries x 100 (issue 32). A child forked
before the protocol is read runs the very same ``load_run`` on each file and sends the finished
``Run`` objects back, pickled, through a pipe (a 1M-line run: 27 MB, pickled in the child while
this process still reads the protocol, unpickled here in about 0.03 s).

When: on Linux (``fork`` copies a process whose libraries are fork-safe there), with more than one
CPU for this process and one of them idle now (on a busy machine the child would only compete
with this process: measured 10-15% slower then), no second thread (a fork copies only the
calling thread: a lock another held would stay held in the child), and runs of at least
``MIN_BYTES`` together (below that the fork and the pipe cost more than the overlap saves).
``RANKEVAL_TUI_SERIAL=1`` turns it off.

Nothing depends on the child. A ``ContractError`` it met is raised here when the runs are asked
for, which is after the protocol's own errors, as the serial order has them; any other failure
(killed, out of memory, a bug) and the runs are read again here, so what the user sees is what
the serial path gives.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.files import load_run

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~3 ms of every start-up, issue 32)
if TYPE_CHECKING:
    from rankeval_tui.core.evaluation.evaluate import Run

    RunSpec = tuple[str | None, Path]

MIN_BYTES = 2 * 1024 * 1024
"""Runs smaller than this together are read in this process (a CI step on a small protocol)."""
SERIAL_VARIABLE = "RANKEVAL_TUI_SERIAL"


def load_runs(specs: list[RunSpec], by_score: bool) -> list[Run]:
    """The runs of ``specs`` (name, path), read in this process: the serial path."""
    return [load_run(path, name, by_score=by_score) for name, path in specs]


class RunsAhead:
    """A child reading ``specs``; ``runs()`` gives what ``load_runs`` would give."""

    def __init__(self, specs: list[RunSpec], by_score: bool) -> None:
        self.specs = specs
        self.by_score = by_score
        reading, writing = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:  # the child: never returns
            os.close(reading)
            _child(writing, specs, by_score)
        os.close(writing)
        self.pipe = os.fdopen(reading, "rb")

    def runs(self) -> list[Run]:
        """The child's runs, or its ContractError raised; read here again if it gave neither."""
        import pickle

        with self.pipe:
            data = self.pipe.read()
        _, status = os.waitpid(self.pid, 0)
        self.pid = 0
        if status != 0 or not data:
            return load_runs(self.specs, self.by_score)
        kind, value = pickle.loads(data)  # written by our own child from objects it built
        if kind == "error":
            raise value
        return value  # type: ignore[no-any-return]

    def cancel(self) -> None:
        """Stop and reap a child whose runs are not wanted (the protocol was refused first)."""
        if self.pid:
            self.pipe.close()
            os.kill(self.pid, 9)
            os.waitpid(self.pid, 0)
            self.pid = 0


def _child(writing: int, specs: list[RunSpec], by_score: bool) -> None:
    """Read the runs, write them (or the ContractError met) pickled, and exit without running
    this process's exit handlers or flushing its buffers (they are the parent's)."""
    status = 1
    try:
        import pickle

        try:
            payload: tuple[str, object] = ("runs", load_runs(specs, by_score))
        except ContractError as error:
            payload = ("error", error)
        data = pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL)
        with os.fdopen(writing, "wb") as pipe:
            pipe.write(data)
        status = 0
    finally:
        os._exit(status)


def worth_forking(specs: list[RunSpec]) -> bool:
    """Whether reading ``specs`` in a child can gain here (see the module's docstring)."""
    if os.environ.get(SERIAL_VARIABLE) == "1" or not sys.platform.startswith("linux"):
        return False
    threading = sys.modules.get("threading")
    if threading is not None and threading.active_count() > 1:
        return False
    cpus = len(os.sched_getaffinity(0))
    if cpus < 2 or runnable_tasks() >= cpus:
        return False
    try:
        size = sum(os.stat(path).st_size for _, path in specs)
    except OSError:
        return False  # the serial read names the problem
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
def runs_read_ahead(specs: list[RunSpec] | None, by_score: bool) -> Iterator[RunsAhead | None]:
    """A child reading ``specs`` while the block runs, when ``worth_forking``; else None. A
    child whose runs were not collected (the block raised first) is stopped on the way out."""
    ahead = RunsAhead(specs, by_score) if specs is not None and worth_forking(specs) else None
    try:
        yield ahead
    finally:
        if ahead is not None:
            ahead.cancel()
